internal import CVPX
import SwiftRTCCore

/// VP8 decoder over libvpx: ``EncodedFrame``s in, I420 ``VideoFrame``s (90 kHz timestamps,
/// the RTP timestamps extended to 64 bits) out.
///
/// It tracks what a receiver must act on: the decoded resolution, corrupt frames, and whether
/// it needs a keyframe. At the start, and after a frame libvpx rejects or reports corrupt, it
/// drops delta frames (throwing ``VP8Error/needsKeyframe``) until a keyframe decodes; the
/// owner then sends a PLI or FIR.
///
/// The picture size a peer states is bounded: a keyframe whose header (14-bit width and
/// height) says more than ``maximumPixels``, or nothing, is dropped before libvpx sees it
/// (``VP8Error/frameTooLarge(width:height:)``, counted in ``framesTooLarge``), so libvpx
/// never allocates for it; the delta frames after it wait for a keyframe that fits.
///
/// One instance per stream, used from one thread at a time.
public final class VP8Decoder {
    /// Width of the last decoded frame (0 before the first).
    public private(set) var width = 0
    /// Height of the last decoded frame (0 before the first).
    public private(set) var height = 0
    /// True until a keyframe decodes, and again after an error or corruption.
    public private(set) var needsKeyframe = true
    /// Frames decoded to a picture.
    public private(set) var framesDecoded = 0
    /// Frames rejected by libvpx or decoded with corruption.
    public private(set) var corruptFrames = 0
    /// Delta frames dropped while waiting for a keyframe.
    public private(set) var framesDroppedWaitingForKeyframe = 0
    /// Keyframes dropped for a picture above ``maximumPixels`` (or empty).
    public private(set) var framesTooLarge = 0
    /// The largest picture decoded, in pixels (width × height).
    public let maximumPixels: Int

    private let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    private var timestamps = RTPTimestampExtender()

    /// A decoder running `threads` threads (1...16) that takes pictures of up to
    /// `maximumPixels` (width × height).
    public init(threads: Int = 1, maximumPixels: Int = RemoteInputLimits.maxDecodedPixels) throws(VP8Error) {
        self.maximumPixels = maximumPixels
        // Fully initialised from here: if this throws, deinit releases the context.
        context.initialize(to: vpx_codec_ctx_t())
        guard (1...16).contains(threads) else { throw .invalidThreads(threads) }
        var config = vpx_codec_dec_cfg_t(threads: UInt32(threads), w: 0, h: 0)
        let status = CVPX_vp8_decoder_init(context, &config, 0)
        guard status == VPX_CODEC_OK else {
            throw .library(operation: "vpx_codec_dec_init", detail: String(cString: vpx_codec_err_to_string(status)))
        }
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Tells the decoder a frame went missing (a gap the depacketizer could not fill): every
    /// VP8 delta frame references the previous one, so it waits for a keyframe from here.
    public func frameLost() { needsKeyframe = true }

    /// Whether `data` starts a VP8 keyframe (RFC 6386 section 9.1: frame type bit 0, then the
    /// start code 9d 01 2a after the 3-byte frame tag), as SwiftRTCRTP's ``VP8FrameHeader`` reads it.
    public static func isKeyframe(_ data: [UInt8]) -> Bool {
        data.withUnsafeBytes { VP8FrameHeader(parsing: $0)?.isKeyframe ?? false }
    }

    /// Decodes `frame` into a new picture; nil if the frame is not shown (no output).
    public func decode(_ frame: EncodedFrame) throws(VP8Error) -> VideoFrame? {
        var picture = VideoFrame(width: 2, height: 2)
        return try decode(frame, into: &picture) ? picture : nil
    }

    /// Decodes `frame` into `picture`, reusing its storage when the size is unchanged (no
    /// allocation in steady state). Returns false if the frame is not shown (no output).
    public func decode(_ frame: EncodedFrame, into picture: inout VideoFrame) throws(VP8Error) -> Bool {
        guard frame.codec == .vp8 else { throw .wrongCodec(frame.codec) }
        let header = frame.data.withUnsafeBytes { VP8FrameHeader(parsing: $0) }
        let keyframe = header?.isKeyframe ?? false
        if keyframe {
            let width = header?.width ?? 0, height = header?.height ?? 0
            guard width > 0, height > 0, width * height <= maximumPixels else {
                framesTooLarge += 1
                needsKeyframe = true
                throw .frameTooLarge(width: width, height: height)
            }
        }
        if needsKeyframe && !keyframe {
            framesDroppedWaitingForKeyframe += 1
            throw .needsKeyframe
        }
        let context = self.context
        let status = frame.data.withUnsafeBufferPointer { data in
            vpx_codec_decode(context, data.baseAddress, UInt32(data.count), nil, 0)
        }
        guard status == VPX_CODEC_OK else {
            throw corrupt(
                vpx_codec_error_detail(context).map { String(cString: $0) }
                    ?? String(cString: vpx_codec_err_to_string(status))
            )
        }
        var corrupted: Int32 = 0
        if CVPX_control_int_ptr(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted) == VPX_CODEC_OK,
            corrupted != 0
        {
            throw corrupt("frame decoded with missing references")
        }
        needsKeyframe = false
        let timestamp = timestamps.extend(frame.timestamp)
        var iterator: vpx_codec_iter_t? = nil
        guard let image = vpx_codec_get_frame(context, &iterator) else { return false }
        // Drain: VP8 yields at most one picture per frame.
        while vpx_codec_get_frame(context, &iterator) != nil {}
        Self.copy(image.pointee, into: &picture)
        picture.timestamp = timestamp
        width = picture.width
        height = picture.height
        framesDecoded += 1
        return true
    }

    private func corrupt(_ detail: String) -> VP8Error {
        corruptFrames += 1
        needsKeyframe = true
        return .corruptFrame(detail: detail)
    }

    /// Copies an I420 `image` row by row into `picture` (tight strides), reallocating only
    /// when the size changes.
    private static func copy(_ image: vpx_image_t, into picture: inout VideoFrame) {
        let w = Int(image.d_w), h = Int(image.d_h)
        if picture.width != w || picture.height != h || picture.yStride != w || picture.uvStride != (w + 1) / 2 {
            picture = VideoFrame(width: w, height: h)
        }
        let cw = picture.chromaWidth, ch = picture.chromaHeight
        copyPlane(image.planes.0, stride: Int(image.stride.0), width: w, height: h, into: &picture.y)
        copyPlane(image.planes.1, stride: Int(image.stride.1), width: cw, height: ch, into: &picture.u)
        copyPlane(image.planes.2, stride: Int(image.stride.2), width: cw, height: ch, into: &picture.v)
    }

    private static func copyPlane(
        _ source: UnsafeMutablePointer<UInt8>?,
        stride: Int,
        width: Int,
        height: Int,
        into plane: inout [UInt8]
    ) {
        guard let source else { return }
        plane.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress, out.count >= width * height else { return }
            for row in 0..<height {
                (base + row * width).update(from: source + row * stride, count: width)
            }
        }
    }
}
