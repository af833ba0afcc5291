/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2).
public struct Msid: Sendable, Hashable, Codable {
    /// The MediaStream id (`-` for none).
    public var streamId: String
    /// The track id ("appdata"), if written.
    public var trackId: String?
    /// Creates an msid.
    public init(streamId: String, trackId: String? = nil) {
        self.streamId = streamId
        self.trackId = trackId
    }
}
