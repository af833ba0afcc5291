/// `a=sctpmap:<port> <protocol> [<streams>]` (the legacy data channel form).
public struct SctpMap: Sendable, Hashable, Codable {
    /// The SCTP port (the m= line's format).
    public var port: UInt16
    /// `webrtc-datachannel`.
    public var application: String
    /// The number of streams, if written.
    public var streams: UInt32?
    /// Creates the attribute.
    public init(port: UInt16, application: String, streams: UInt32? = nil) {
        self.port = port
        self.application = application
        self.streams = streams
    }
}
