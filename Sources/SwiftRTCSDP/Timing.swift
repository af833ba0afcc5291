/// `t=<start-time> <stop-time>` (RFC 8866 §5.9).
public struct Timing: Sendable, Hashable, Codable {
    /// NTP start time, 0 for unbounded.
    public var start: UInt64
    /// NTP stop time, 0 for unbounded.
    public var stop: UInt64
    /// Creates a timing line.
    public init(start: UInt64, stop: UInt64) {
        self.start = start
        self.stop = stop
    }
}
