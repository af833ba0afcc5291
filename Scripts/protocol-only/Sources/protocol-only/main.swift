import Foundation
import SwiftRTCSignaling

// Decodes a message of the protocol and names a client type, so that the protocol's code and
// its WebSocket client are linked in; prints the message's type.
let json = Data(#"{"type":"hello","token":"a-token-of-sixteen-or-more"}"#.utf8)
let message = try JSONDecoder().decode(SignalingMessage.self, from: json)
let client: WebSocketSignalingChannel.Type = WebSocketSignalingChannel.self
print("protocol-only: \(message.type.rawValue) decoded; client \(client)")
