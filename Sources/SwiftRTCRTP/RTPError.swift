/// Why bytes could not be read or written as RTP, RTCP, a payload format or a capture file.
/// Each case says where: the byte offset in the packet (or file) and what was expected there.
public enum RTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer bytes than the structure at `offset` needs.
    case truncated(what: StaticString, offset: Int, needed: Int, available: Int)
    /// A field holds a value the format does not allow.
    case invalidField(what: StaticString, offset: Int, value: Int)
    /// The output buffer is too small for what is being written.
    case bufferTooSmall(needed: Int, available: Int)

    /// A readable account of the error.
    public var description: String {
        switch self {
        case let .truncated(what, offset, needed, available):
            "\(what) at byte \(offset): needs \(needed) bytes, \(available) left"
        case let .invalidField(what, offset, value):
            "\(what) at byte \(offset): invalid value \(value)"
        case let .bufferTooSmall(needed, available):
            "output buffer too small: needs \(needed) bytes, has \(available)"
        }
    }

    /// Equal when the case and its fields are.
    public static func == (lhs: RTPError, rhs: RTPError) -> Bool {
        switch (lhs, rhs) {
        case let (.truncated(a, b, c, d), .truncated(e, f, g, h)):
            "\(a)" == "\(e)" && b == f && c == g && d == h
        case let (.invalidField(a, b, c), .invalidField(d, e, f)):
            "\(a)" == "\(d)" && b == e && c == f
        case let (.bufferTooSmall(a, b), .bufferTooSmall(c, d)):
            a == c && b == d
        default: false
        }
    }

    /// Hashes the description.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }

    /// What the error is about (the `what` of the case), for tests and counters.
    public var what: String {
        switch self {
        case let .truncated(what, _, _, _), let .invalidField(what, _, _): "\(what)"
        case .bufferTooSmall: "output buffer"
        }
    }
}
