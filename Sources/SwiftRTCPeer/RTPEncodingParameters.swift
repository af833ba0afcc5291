/// One simulcast encoding of a video sender (W3C `RTCRtpEncodingParameters`, RFC 8853): the
/// rid that names its stream, and how much smaller than the track its pictures are. Each
/// encoding has its own SSRC, encoder and share of the bitrate, and is sent in three VP8
/// temporal layers (RFC 7741), as libwebrtc sends simulcast; an SFU forwards one encoding to
/// each receiver, with all its frames or a half or a quarter of them.
public struct RTPEncodingParameters: Sendable, Hashable {
    /// The RTP stream id (RFC 8852): 1 to ``maxRidLength`` letters, digits, `-` or `_`
    /// (RFC 8851 §10).
    public var rid: String
    /// Each side of the picture is divided by this (at least 1): 1 sends the track's size, 2
    /// half of it, 4 a quarter.
    public var scaleResolutionDownBy: Double

    /// The longest rid taken.
    public static let maxRidLength = 16
    /// The most encodings one sender sends (what Janus's VideoRoom and libwebrtc take).
    public static let maxEncodings = 3

    /// An encoding named `rid`, scaled down by `scaleResolutionDownBy`.
    public init(rid: String, scaleResolutionDownBy: Double = 1) {
        self.rid = rid
        self.scaleResolutionDownBy = scaleResolutionDownBy
    }

    /// Three encodings as SFUs take them: `h` at the track's size, `m` at half, `l` at a quarter.
    public static let threeLayers = [
        RTPEncodingParameters(rid: "h", scaleResolutionDownBy: 1),
        RTPEncodingParameters(rid: "m", scaleResolutionDownBy: 2),
        RTPEncodingParameters(rid: "l", scaleResolutionDownBy: 4),
    ]

    /// Why `encodings` cannot be sent, or nil: too many, a rid that is empty, too long, not
    /// `[A-Za-z0-9_-]` or taken twice, or a scale below 1 (or not finite).
    static func problem(with encodings: [RTPEncodingParameters]) -> String? {
        guard encodings.count <= maxEncodings else { return "at most \(maxEncodings) encodings" }
        guard Set(encodings.map(\.rid)).count == encodings.count else { return "a rid is taken twice" }
        for encoding in encodings {
            let valid = encoding.rid.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x5F
            }
            guard valid, (1...maxRidLength).contains(encoding.rid.utf8.count) else {
                return "rid \"\(encoding.rid)\" is not 1 to \(maxRidLength) of [A-Za-z0-9_-]"
            }
            guard encoding.scaleResolutionDownBy.isFinite, encoding.scaleResolutionDownBy >= 1 else {
                return "rid \(encoding.rid): scaleResolutionDownBy must be at least 1"
            }
        }
        return nil
    }
}
