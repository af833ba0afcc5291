/// What one side can send and receive for a media kind: its codecs (with the payload types it
/// offers them under, their `a=fmtp` and `a=rtcp-fb`) and header extensions (with the ids it
/// offers them under). JSEP offers these and intersects remote offers with them.
public struct MediaCapabilities: Sendable, Hashable {
    /// Codecs in preference order. An RTX codec (`rtx`, `apt=<pt>`) repairs the codec whose
    /// payload type its `apt` names.
    public var codecs: [RtpCodec]
    /// Header extensions in preference order.
    public var extensions: [ExtMap]

    /// Creates capabilities.
    public init(codecs: [RtpCodec], extensions: [ExtMap]) {
        self.codecs = codecs
        self.extensions = extensions
    }

    /// Opus 48000/2 (RFC 7587) as payload type 111 with `minptime=10;useinbandfec=1` and
    /// transport-cc; header extensions ssrc-audio-level, abs-send-time, transport-wide-cc, mid.
    public static let audio = MediaCapabilities(
        codecs: [
            RtpCodec(
                payloadType: 111,
                name: "opus",
                clockRate: 48000,
                channels: 2,
                formatParameters: "minptime=10;useinbandfec=1",
                feedback: [RtcpFeedback("transport-cc")]
            )
        ],
        extensions: [
            ExtMap(id: 1, uri: ExtMap.URI.audioLevel),
            ExtMap(id: 2, uri: ExtMap.URI.absSendTime),
            ExtMap(id: 3, uri: ExtMap.URI.transportWideCC),
            ExtMap(id: 4, uri: ExtMap.URI.mid),
        ]
    )

    /// VP8 (RFC 7741) as payload type 96 with goog-remb, transport-cc, ccm fir, nack and
    /// nack pli, its RTX (RFC 4588) as 97 with `apt=96`; header extensions abs-send-time,
    /// transport-wide-cc, mid.
    public static let video = MediaCapabilities(
        codecs: [
            RtpCodec(
                payloadType: 96,
                name: "VP8",
                clockRate: 90000,
                feedback: [
                    RtcpFeedback("goog-remb"), RtcpFeedback("transport-cc"), RtcpFeedback("ccm", "fir"),
                    RtcpFeedback("nack"), RtcpFeedback("nack", "pli"),
                ]
            ),
            RtpCodec(payloadType: 97, name: "rtx", clockRate: 90000, formatParameters: "apt=96"),
        ],
        extensions: [
            ExtMap(id: 2, uri: ExtMap.URI.absSendTime),
            ExtMap(id: 3, uri: ExtMap.URI.transportWideCC),
            ExtMap(id: 4, uri: ExtMap.URI.mid),
        ]
    )

    /// The defaults for a kind (audio or video; nothing for other kinds).
    public static func defaults(for kind: MediaKind) -> MediaCapabilities {
        switch kind {
        case .audio: audio
        case .video: video
        default: MediaCapabilities(codecs: [], extensions: [])
        }
    }
}

extension RtpCodec {
    /// Whether an offered codec is the same format as this one (RFC 3264 §6.1): same encoding
    /// name (any case), clock rate and channel count (absent means 1), and for H.264 the same
    /// packetization-mode and profile, for VP9 the same profile-id. RTX is matched through
    /// its `apt` by the caller.
    public func isSameFormat(as other: RtpCodec) -> Bool {
        guard let name = encodingName, name == other.encodingName,
            clockRate == other.clockRate, (channels ?? 1) == (other.channels ?? 1)
        else { return false }
        let mine = parameters, theirs = other.parameters
        switch name {
        case "h264":
            return (mine["packetization-mode"] ?? "0") == (theirs["packetization-mode"] ?? "0")
                && (mine["profile-level-id"] ?? "42001f").prefix(2).lowercased()
                    == (theirs["profile-level-id"] ?? "42001f").prefix(2).lowercased()
        case "vp9":
            return (mine["profile-id"] ?? "0") == (theirs["profile-id"] ?? "0")
        default:
            return true
        }
    }
}
