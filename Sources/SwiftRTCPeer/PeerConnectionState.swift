import SwiftRTCCodecs
import SwiftRTCRTP

/// The state of the whole connection (W3C `RTCPeerConnectionState`): ICE and DTLS together.
public enum PeerConnectionState: String, Sendable, Hashable, CaseIterable {
    case new, connecting, connected, disconnected, failed, closed
}

/// Where candidate gathering is (W3C `RTCIceGatheringState`).
public enum IceGatheringState: String, Sendable, Hashable, CaseIterable {
    case new, gathering, complete
}

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

/// One trickled ICE candidate (W3C `RTCIceCandidateInit`): the `candidate:` attribute value and
/// the media section it belongs to. With BUNDLE every candidate belongs to the first section.
public struct IceCandidateInit: Sendable, Hashable {
    /// `candidate:...` as in SDP, without `a=`; empty means end of candidates.
    public var candidate: String
    /// The section's mid.
    public var sdpMid: String?
    /// The section's index.
    public var sdpMLineIndex: Int?

    /// Creates a candidate.
    public init(candidate: String, sdpMid: String? = nil, sdpMLineIndex: Int? = nil) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }

    /// Whether this is the end-of-candidates marker.
    public var isEndOfCandidates: Bool { candidate.isEmpty }
}

/// A raw or encoded media frame: what a local track takes and a remote track gives.
public enum MediaFrame: Sendable {
    /// 48 kHz PCM.
    case audio(AudioFrame)
    /// I420 video.
    case video(VideoFrame)
    /// An already encoded frame, sent as is (pass-through).
    case encoded(EncodedFrame)
}
