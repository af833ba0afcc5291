import SwiftRTCSDP
import Synchronization

/// A remote track arrived (W3C `RTCTrackEvent`).
public struct TrackEvent: Sendable {
    /// The remote track.
    public let track: MediaStreamTrack
    /// Its transceiver.
    public let transceiver: RTPTransceiver
    /// The `a=msid` stream ids the peer gave.
    public let streamIds: [String]
}
