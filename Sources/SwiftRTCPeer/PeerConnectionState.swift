import SwiftRTCCodecs
import SwiftRTCRTP

/// The state of the whole connection (W3C `RTCPeerConnectionState`): ICE and DTLS together.
public enum PeerConnectionState: String, Sendable, Hashable, CaseIterable {
    case new, connecting, connected, disconnected, failed, closed
}
