/// `a=rid:<id> <send|recv> [<restrictions>]` (RFC 8851 §4): one RTP stream of a simulcast or
/// layered send.
public struct Rid: Sendable, Hashable, Codable {
    /// The stream's identifier (`q`, `h`, `f`...).
    public var id: String
    /// `send` or `recv`.
    public var direction: Direction
    /// Restrictions after the direction as written (`pt=96;max-width=1280`), if any.
    public var restrictions: String?

    /// Whether the stream is sent or received by the side that wrote the description.
    public enum Direction: String, Sendable, Hashable, Codable {
        case send, recv
        /// The other side's view of the stream.
        public var reversed: Direction { self == .send ? .recv : .send }
    }

    /// Creates a rid.
    public init(id: String, direction: Direction, restrictions: String? = nil) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let direction = Direction(rawValue: String(parts[1])) else {
            throw SDPParseError(line, expected: "a=rid:<id> send|recv [<restrictions>]")
        }
        self.init(id: String(parts[0]), direction: direction, restrictions: parts.count == 3 ? String(parts[2]) : nil)
    }

    var sdpValue: String { restrictions.map { "\(id) \(direction.rawValue) \($0)" } ?? "\(id) \(direction.rawValue)" }
}
