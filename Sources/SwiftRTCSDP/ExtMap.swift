/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8): an RTP header extension.
public struct ExtMap: Sendable, Hashable, Codable {
    /// The local identifier (1-14 for one-byte headers, up to 255 with two-byte headers).
    public var id: UInt16
    /// The direction, when written.
    public var direction: MediaDirection?
    /// The extension's URI.
    public var uri: String
    /// Extension attributes after the URI, as written.
    public var attributes: String?

    /// Creates a header extension mapping.
    public init(id: UInt16, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    /// Well-known extension URIs.
    public enum URI {
        /// RFC 7941 media identification.
        public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
        /// Absolute send time (webrtc.org).
        public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
        /// Transport-wide congestion control sequence numbers.
        public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        /// RFC 6464 client-to-mixer audio level.
        public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
        /// RFC 8852 RTP stream id (simulcast rid).
        public static let rtpStreamId = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
        /// RFC 8852 repaired RTP stream id.
        public static let repairedRtpStreamId = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else {
            throw SDPParseError(line, expected: "a=extmap:<id>[/<direction>] <uri>")
        }
        let head = parts[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = UInt16(head[0]), (1...255).contains(id) else {
            throw SDPParseError(line, expected: "an extmap id from 1 to 255")
        }
        var direction: MediaDirection?
        if head.count == 2 {
            guard let parsed = MediaDirection(rawValue: String(head[1])) else {
                throw SDPParseError(line, expected: "an extmap direction (sendrecv, sendonly, recvonly or inactive)")
            }
            direction = parsed
        }
        self.init(
            id: id,
            direction: direction,
            uri: String(parts[1]),
            attributes: parts.count == 3 ? String(parts[2]) : nil
        )
    }

    var sdpValue: String {
        var s = direction.map { "\(id)/\($0.rawValue) \(uri)" } ?? "\(id) \(uri)"
        if let attributes { s += " \(attributes)" }
        return s
    }
}
