/// `a=simulcast:send <streams> [recv <streams>]` (RFC 8853 §5.1). Streams are `;`-separated,
/// each a `,`-separated list of alternative rids; `~` marks a paused stream.
public struct Simulcast: Sendable, Hashable, Codable {
    /// The streams sent, each with its alternatives.
    public var send: [[Stream]]
    /// The streams received, each with its alternatives.
    public var recv: [[Stream]]

    /// One rid in a simulcast stream list.
    public struct Stream: Sendable, Hashable, Codable {
        /// The rid.
        public var rid: String
        /// Whether the stream starts paused (`~rid`).
        public var paused: Bool
        /// Creates a stream reference.
        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// Creates a simulcast description.
    public init(send: [[Stream]] = [], recv: [[Stream]] = []) {
        self.send = send
        self.recv = recv
    }

    /// The same streams seen from the other side.
    public var reversed: Simulcast { Simulcast(send: recv, recv: send) }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        let expected = "a=simulcast:send|recv <rid>[;<rid>...] [send|recv <rid>[;<rid>...]]"
        guard parts.count == 2 || parts.count == 4 else { throw SDPParseError(line, expected: expected) }
        self.init()
        var index = 0
        while index + 1 < parts.count {
            let streams = parts[index + 1].split(separator: ";", omittingEmptySubsequences: false).map { alternatives in
                alternatives.split(separator: ",", omittingEmptySubsequences: false).map { rid in
                    rid.first == "~" ? Stream(rid: String(rid.dropFirst()), paused: true) : Stream(rid: String(rid))
                }
            }
            guard streams.allSatisfy({ $0.allSatisfy { !$0.rid.isEmpty } }) else {
                throw SDPParseError(line, expected: expected)
            }
            switch parts[index] {
            case "send" where send.isEmpty: send = streams
            case "recv" where recv.isEmpty: recv = streams
            default: throw SDPParseError(line, expected: expected)
            }
            index += 2
        }
    }

    var sdpValue: String {
        func list(_ streams: [[Stream]]) -> String {
            streams.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
        }
        var parts: [String] = []
        if !send.isEmpty { parts.append("send \(list(send))") }
        if !recv.isEmpty { parts.append("recv \(list(recv))") }
        return parts.joined(separator: " ")
    }
}
