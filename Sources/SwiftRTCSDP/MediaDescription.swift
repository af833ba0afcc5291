/// One media section: the `m=` line and the lines up to the next one (RFC 8866 §5.14).
/// Attributes are reached directly (`media.mid`, `media.codecs`) through `attributes`.
@dynamicMemberLookup
public struct MediaDescription: Sendable, Hashable, Codable {
    /// `audio`, `video`, `application`...
    public var kind: MediaKind
    /// The transport port; 0 marks a rejected or bundle-only section.
    public var port: UInt16
    /// The number of ports for `m=<kind> <port>/<count>`, when written.
    public var portCount: UInt16?
    /// `UDP/TLS/RTP/SAVPF`, `UDP/DTLS/SCTP`, `DTLS/SCTP`, `RTP/AVPF`...
    public var proto: String
    /// The formats as written: payload types for RTP, `webrtc-datachannel` or `5000` for data.
    public var formats: [String]
    /// `i=`.
    public var information: String?
    /// `c=`.
    public var connection: ConnectionData?
    /// `b=` lines.
    public var bandwidths: [Bandwidth] = []
    /// `k=` and other non-attribute lines SwiftRTC does not model, kept and written back.
    public var otherLines: [SDPOtherLine] = []
    /// The section's `a=` lines.
    public var attributes = SDPAttributes()

    /// Creates a media section.
    public init(kind: MediaKind, port: UInt16, proto: String, formats: [String]) {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
    }

    /// Reaches the section's attributes (`media.mid`, `media.candidates`).
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<SDPAttributes, T>) -> T {
        get { attributes[keyPath: keyPath] }
        set { attributes[keyPath: keyPath] = newValue }
    }

    /// Reaches the read-only properties of the attributes (`media.ssrcNumbers`).
    public subscript<T>(dynamicMember keyPath: KeyPath<SDPAttributes, T>) -> T {
        attributes[keyPath: keyPath]
    }

    /// The codec with this payload type.
    public func codec(_ payloadType: UInt8) -> RtpCodec? { attributes.codec(payloadType) }

    /// Whether the port is 0 and the section is not bundle-only: rejected.
    public var isRejected: Bool { port == 0 && !attributes.bundleOnly }

    /// Whether the section carries RTP (its proto names RTP).
    public var isRTP: Bool { proto.uppercased().contains("RTP/") }

    /// Whether the section carries SCTP data channels.
    public var isDataChannel: Bool { proto.uppercased().hasSuffix("SCTP") }

    /// The payload types of the m= line, in preference order (formats that are not numbers
    /// 0-127 are left out).
    public var payloadTypes: [UInt8] {
        formats.compactMap { UInt8($0) }.filter { $0 < 128 }
    }
}
