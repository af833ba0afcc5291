/// The start of a VP8 frame (RFC 7741 §4.3, RFC 6386 §9.1): keyframe flag and, for keyframes,
/// the picture size.
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|   P = 0: keyframe
/// +-+-+-+-+-+-+-+-+
/// |     Size1     |
/// |     Size2     |
/// | 0x9d 0x01 0x2a|   keyframes: start code, then 16-bit LE width and height
/// | (2 bits scale, 14 bits size) each
/// ```
public struct VP8FrameHeader: Sendable, Hashable {
    /// Whether it is a keyframe.
    public var isKeyframe: Bool
    /// The picture width, when known.
    public var width: Int?
    /// The picture height, when known.
    public var height: Int?

    /// Reads the header from the first bytes of a frame (the payload after the descriptor of
    /// the packet that starts the frame); nil when they are too few (3, 10 for a keyframe) or
    /// a keyframe lacks its start code.
    @inlinable
    public init?(parsing frame: UnsafeRawBufferPointer) {
        guard frame.count >= 3 else { return nil }
        isKeyframe = frame.u8(0) & 1 == 0
        width = nil
        height = nil
        guard isKeyframe else { return }
        guard frame.count >= 10, frame.u8(3) == 0x9D, frame.u8(4) == 0x01, frame.u8(5) == 0x2A else { return nil }
        width = Int(UInt16(frame.u8(6)) | UInt16(frame.u8(7)) << 8) & 0x3FFF
        height = Int(UInt16(frame.u8(8)) | UInt16(frame.u8(9)) << 8) & 0x3FFF
    }
}
