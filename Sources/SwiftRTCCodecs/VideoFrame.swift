/// A raw video picture in I420 (planar YUV 4:2:0): a full-size luma plane and two chroma
/// planes of half width and half height, each with its own row stride.
public struct VideoFrame: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Luma (Y), `yStride * height` bytes.
    public var y: [UInt8]
    /// Chroma (U), `uvStride * chromaHeight` bytes.
    public var u: [UInt8]
    /// Chroma (V), `uvStride * chromaHeight` bytes.
    public var v: [UInt8]
    /// Bytes per luma row (at least `width`).
    public var yStride: Int
    /// Bytes per chroma row (at least `chromaWidth`).
    public var uvStride: Int
    /// Presentation time in 90 kHz ticks (the RTP video clock).
    public var timestamp: UInt64

    /// Chroma plane width: half the luma width, rounded up.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Chroma plane height: half the luma height, rounded up.
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A frame of one colour (default black: Y 16, U and V 128, video range) with tight strides.
    public init(
        width: Int,
        height: Int,
        timestamp: UInt64 = 0,
        y luma: UInt8 = 16,
        u cb: UInt8 = 128,
        v cr: UInt8 = 128
    ) {
        precondition(width > 0 && height > 0, "VideoFrame needs a positive size")
        self.width = width
        self.height = height
        self.yStride = width
        self.uvStride = (width + 1) / 2
        self.y = [UInt8](repeating: luma, count: width * height)
        self.u = [UInt8](repeating: cb, count: uvStride * ((height + 1) / 2))
        self.v = [UInt8](repeating: cr, count: uvStride * ((height + 1) / 2))
        self.timestamp = timestamp
    }
}
