import SwiftRTCCodecs
import SwiftRTCRTP

/// A session description as signaling carries it (W3C `RTCSessionDescriptionInit`): its type
/// and the SDP text.
public struct SignalingDescription: Sendable, Hashable {
    /// offer, pranswer, answer or rollback.
    public var type: SignalingState.DescriptionType
    /// The SDP (empty for a rollback).
    public var sdp: String

    /// Creates a description.
    public init(type: SignalingState.DescriptionType, sdp: String) {
        self.type = type
        self.sdp = sdp
    }
}
