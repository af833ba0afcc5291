/// One payload type of an RTP media section, assembled from its `a=rtpmap`, `a=fmtp` and
/// `a=rtcp-fb` lines (RFC 8866 §6.6, §6.15; RFC 4585 §4.2).
public struct RtpCodec: Sendable, Hashable, Codable {
    /// The payload type (0-127).
    public var payloadType: UInt8
    /// The encoding name from `a=rtpmap` as written (`opus`, `VP8`, `rtx`), nil without one.
    public var name: String?
    /// The RTP clock rate from `a=rtpmap`.
    public var clockRate: UInt32?
    /// The channel count from `a=rtpmap` (audio), nil when not written.
    public var channels: UInt16?
    /// The `a=fmtp` value as written (`minptime=10;useinbandfec=1`, `apt=96`, `0-15`).
    public var formatParameters: String?
    /// The `a=rtcp-fb` entries for this payload type, in order.
    public var feedback: [RtcpFeedback]

    /// Creates a codec.
    public init(
        payloadType: UInt8,
        name: String?,
        clockRate: UInt32?,
        channels: UInt16? = nil,
        formatParameters: String? = nil,
        feedback: [RtcpFeedback] = []
    ) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.feedback = feedback
    }

    /// The `a=fmtp` parameters split into `key=value` pairs (keys lowercased; a bare value
    /// such as telephone-event's `0-15` comes back with an empty key).
    public var parameters: [String: String] {
        var result: [String: String] = [:]
        for item in (formatParameters ?? "").split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1)
            let key = pair.count == 2 ? pair[0].trimmingBlanks.lowercased() : ""
            result[key] = String((pair.count == 2 ? pair[1] : pair[0]).trimmingBlanks)
        }
        return result
    }

    /// The lowercased encoding name (`opus`, `vp8`, `rtx`), or the static name of RFC 3551
    /// payload types 0, 8, 9 and 13 written without `a=rtpmap`.
    public var encodingName: String? {
        if let name { return name.lowercased() }
        return switch payloadType {
        case 0: "pcmu"
        case 8: "pcma"
        case 9: "g722"
        case 13: "cn"
        default: nil
        }
    }

    /// For an RTX codec (RFC 4588), the payload type it repairs (`apt=`).
    public var associatedPayloadType: UInt8? {
        guard encodingName == "rtx", let apt = parameters["apt"] else { return nil }
        return UInt8(apt)
    }

    /// `opus/48000/2`, `VP8/90000`.
    public var rtpmapValue: String? {
        guard let name, let clockRate else { return nil }
        return channels.map { "\(name)/\(clockRate)/\($0)" } ?? "\(name)/\(clockRate)"
    }
}
