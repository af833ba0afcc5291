/// One compressed media frame: what an encoder produces and a packetizer splits into RTP
/// packets, and what a depacketizer reassembles and a decoder takes.
public struct EncodedFrame: Sendable, Hashable {
    /// The codecs SwiftRTC sends and receives.
    public enum Codec: String, Sendable, Hashable, Codable {
        case opus, vp8

        /// The RTP clock rate: 48 kHz for Opus (RFC 7587), 90 kHz for VP8 (RFC 7741).
        public var clockRate: UInt32 { self == .opus ? 48_000 : 90_000 }
    }

    /// The codec that produced the frame.
    public var codec: Codec
    /// The frame's bytes (an Opus packet, or a VP8 frame as libvpx writes it).
    public var data: [UInt8]
    /// The RTP timestamp, in units of ``Codec/clockRate``.
    public var timestamp: UInt32
    /// Whether the frame decodes on its own (always true for Opus).
    public var isKeyframe: Bool
    /// For VP8 keyframes: the picture size from the keyframe header (nil otherwise).
    public var width: Int?
    /// The picture height, when known.
    public var height: Int?
    /// VP8 temporal scalability (RFC 7741 §4.2): the frame's temporal layer (TID, 0 the base)
    /// and whether it refers only to the base layer (Y, a switching point up); nil for a
    /// stream of one layer.
    public var temporalLayer: (id: UInt8, sync: Bool)? {
        get { temporalLayerID.map { ($0, temporalLayerSync) } }
        set {
            temporalLayerID = newValue?.id
            temporalLayerSync = newValue?.sync ?? false
        }
    }
    package var temporalLayerID: UInt8?
    package var temporalLayerSync = false

    /// Creates the value from its fields.
    public init(codec: Codec, data: [UInt8], timestamp: UInt32, isKeyframe: Bool, width: Int? = nil, height: Int? = nil)
    {
        self.codec = codec
        self.data = data
        self.timestamp = timestamp
        self.isKeyframe = isKeyframe
        self.width = width
        self.height = height
    }
}
