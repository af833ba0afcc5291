import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

/// The request context of ``WHIPEndpoint``'s routes: Hummingbird's, plus the client's
/// address (from the connection, not from any header) that the per-address limit counts.
/// Made when a request's head has come in, which it tells the connection's door
/// (``ServerDoor/requestStarted(on:)``).
struct WHIPRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// ``ClientAddress/key(forIP:)`` of the client: an IPv4 address or an IPv6 /64.
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = ClientAddress.key(forIP: source.channel.remoteAddress?.ipAddress)
        ServerDoor.requestStarted(on: source.channel)
    }
}
