/// What one subscribed publisher's streams delivered, for reports.
public struct ConferencePublisherStats: Sendable, Hashable {
    /// Janus's id of the publisher.
    public var id: Int64
    /// Its display name.
    public var display: String?
    /// Audio frames decoded (0 when nothing plays or records the audio).
    public var audioFramesDecoded: Int
    /// Video frames decoded.
    public var videoFramesDecoded: Int
    /// Packets lost on its streams (RFC 3550 cumulative lost, summed).
    public var packetsLost: Int
    /// Messages received from it on the room's data channel.
    public var dataMessagesReceived: Int
    /// The simulcast layer its video came in last (nil: it sends one encoding).
    public var layer: ConferenceLayer?
}
