/// One `a=rtcp-fb` entry (RFC 4585 §4.2): `nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`.
public struct RtcpFeedback: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The feedback type (`nack`, `ccm`, `goog-remb`, `transport-cc`, ...).
    public var type: String
    /// The parameter (`pli`, `fir`, ...), if any.
    public var parameter: String?

    /// Creates a feedback entry.
    public init(_ type: String, _ parameter: String? = nil) {
        self.type = type
        self.parameter = parameter
    }

    /// `nack pli`.
    public var description: String { parameter.map { "\(type) \($0)" } ?? type }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    var trimmingBlanks: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
