import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCDataChannel
import SwiftRTCICE
import SwiftRTCSDP

/// Why a `PeerConnection` call failed.
public enum PeerConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection is closed.
    case closed
    /// Not allowed in this signaling state (JSEP).
    case invalidState(operation: String, state: SignalingState)
    /// The SDP did not parse or negotiate; says why and where.
    case invalidDescription(String)
    /// A candidate did not parse or could not be added.
    case invalidCandidate(String)
    /// Only audio and video are supported.
    case unsupportedKind(String)
    /// The transport could not be set up.
    case transport(String)
    /// A data channel could not be made.
    case dataChannel(DataChannelError)
    /// Simulcast encodings that cannot be sent (``RTPEncodingParameters``): why.
    case invalidEncodings(String)

    public var description: String {
        switch self {
        case .closed: "the peer connection is closed"
        case let .invalidState(operation, state): "\(operation) is not allowed in signaling state \(state.rawValue)"
        case let .invalidDescription(why): "invalid session description: \(why)"
        case let .invalidCandidate(why): "invalid ICE candidate: \(why)"
        case let .unsupportedKind(kind): "unsupported media kind \(kind)"
        case let .transport(why): "transport: \(why)"
        case let .dataChannel(why): "data channel: \(why)"
        case let .invalidEncodings(why): "invalid send encodings: \(why)"
        }
    }
}
