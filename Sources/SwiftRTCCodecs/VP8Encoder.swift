internal import CVPX
import SwiftRTCCore

/// Real-time VP8 encoder over libvpx: ``VideoFrame``s in, ``EncodedFrame``s (RTP timestamp =
/// the frame's 90 kHz timestamp, RFC 7741) out.
///
/// One-pass CBR with no lag and error resilience, as WebRTC runs it; bitrate, frame rate and
/// size change mid-stream; keyframes on demand (PLI/FIR) and every
/// ``VP8EncoderConfiguration/keyframeInterval`` frames. Input frames are passed to libvpx
/// without copying (their planes and strides are wrapped in a reused `vpx_image_t`); frames of
/// another size than configured are scaled into a reused buffer first.
///
/// One instance per stream, used from one thread at a time.
public final class VP8Encoder {
    /// The settings in force.
    public private(set) var configuration: VP8EncoderConfiguration
    /// Frames encoded (produced output).
    public private(set) var framesEncoded = 0
    /// Keyframes among them.
    public private(set) var keyframesEncoded = 0

    private let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    private let config = UnsafeMutablePointer<vpx_codec_enc_cfg_t>.allocate(capacity: 1)
    private let image = UnsafeMutablePointer<vpx_image_t>.allocate(capacity: 1)
    /// The size the codec was initialised with: libvpx can shrink below it without re-init.
    private var initialWidth = 0, initialHeight = 0
    private var initialThreads = 0
    private var forceKeyframe = false
    private var lastPTS: UInt64?
    /// Quantizers (0...127) of the last ``qpWindow`` frames, a ring.
    private var recentQP = [Int32](repeating: 0, count: VP8Encoder.qpWindow)
    private var qpCount = 0
    /// Scaling target for input frames of another size.
    private var scaled: VideoFrame?
    /// With temporal layers: the next frame's place in ``temporalPattern``.
    private var temporalIndex = 0

    /// Three temporal layers, four frames a period (libwebrtc's VP8 pattern): the layer, the
    /// references (`VP8_EFLAG_*`: last for the base, golden for layer 1) and whether the frame
    /// refers to the base layer alone (RFC 7741's Y bit). Layer 0 refers to and updates the
    /// last frame; layer 1 refers to the last and updates golden; layer 2 updates nothing
    /// (and no entropy), so dropping layers 2, or 1 and 2, leaves the rest decodable.
    static let temporalPattern: [(layer: Int32, flags: Int32, sync: Bool)] = [
        (0, VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF, true),
        (
            2,
            VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_GF
                | VP8_EFLAG_NO_UPD_ARF | VP8_EFLAG_NO_UPD_ENTROPY, true
        ),
        (
            1,
            VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_ARF
                | VP8_EFLAG_NO_UPD_ENTROPY, true
        ),
        (
            2,
            VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF
                | VP8_EFLAG_NO_UPD_ENTROPY, false
        ),
    ]

    /// Frames ``averageQP`` averages over.
    public static let qpWindow = 30

    /// An encoder with `configuration` (validated first).
    public init(configuration: VP8EncoderConfiguration = VP8EncoderConfiguration()) throws(VP8Error) {
        self.configuration = configuration
        context.initialize(to: vpx_codec_ctx_t())
        config.initialize(to: vpx_codec_enc_cfg_t())
        image.initialize(to: vpx_image_t())
        // Fully initialised: if these throw, deinit releases the codec and the memory.
        try configuration.validate()
        try open(configuration)
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
        config.deallocate()
        image.deallocate()
    }

    /// Makes the next encoded frame a keyframe (for a PLI or FIR from the receiver).
    public func requestKeyframe() { forceKeyframe = true }

    /// The average quantizer (libvpx's internal 0...127 scale, the `qpSum / framesEncoded` of
    /// WebRTC's stats) of the last ``qpWindow`` encoded frames; nil before the first.
    public var averageQP: Double? {
        let n = min(qpCount, Self.qpWindow)
        guard n > 0 else { return nil }
        return Double(recentQP[0..<n].reduce(0) { $0 + Int($1) }) / Double(n)
    }

    /// Changes settings mid-stream. Bitrate, frame rate, speed, keyframe interval and sizes up
    /// to the initial one apply in place (`vpx_codec_enc_config_set`); a larger size or another
    /// thread count re-creates the encoder. A new size starts with a keyframe.
    public func apply(_ configuration: VP8EncoderConfiguration) throws(VP8Error) {
        try configuration.validate()
        let resized =
            configuration.width != self.configuration.width || configuration.height != self.configuration.height
        if configuration.width > initialWidth || configuration.height > initialHeight
            || configuration.threads != initialThreads
            || configuration.temporalLayers != self.configuration.temporalLayers
        {
            vpx_codec_destroy(context)
            context.pointee = vpx_codec_ctx_t()
            try open(configuration)
        } else {
            Self.fill(config, from: configuration)
            try check(vpx_codec_enc_config_set(context, config), "vpx_codec_enc_config_set")
            try check(
                CVPX_control_int(context, Int32(VP8E_SET_CPUUSED.rawValue), Int32(configuration.speed)),
                "VP8E_SET_CPUUSED"
            )
            setImageSize(width: configuration.width, height: configuration.height)
        }
        self.configuration = configuration
        if resized { forceKeyframe = true }
    }

    /// Encodes `frame` (scaled first if its size is not the configured one). Returns nil if
    /// libvpx produced no frame for it.
    public func encode(_ frame: VideoFrame) throws(VP8Error) -> EncodedFrame? {
        if frame.width != configuration.width || frame.height != configuration.height {
            var target = scaled ?? VideoFrame(width: configuration.width, height: configuration.height)
            scaled = nil  // hand over the storage so scaling writes it in place
            if target.width != configuration.width || target.height != configuration.height {
                target = VideoFrame(width: configuration.width, height: configuration.height)
            }
            frame.scale(into: &target)
            defer { scaled = target }
            return try encodeSameSize(target)
        }
        return try encodeSameSize(frame)
    }

    private func encodeSameSize(_ frame: VideoFrame) throws(VP8Error) -> EncodedFrame? {
        let w = frame.width, h = frame.height
        guard frame.yStride >= w, frame.uvStride >= frame.chromaWidth,
            frame.y.count >= frame.yStride * (h - 1) + w,
            frame.u.count >= frame.uvStride * (frame.chromaHeight - 1) + frame.chromaWidth,
            frame.v.count >= frame.uvStride * (frame.chromaHeight - 1) + frame.chromaWidth
        else { throw .inconsistentFrame(width: w, height: h) }

        let duration = configuration.frameDuration
        var pts = frame.timestamp
        if let lastPTS, pts <= lastPTS { pts = lastPTS + duration }
        lastPTS = pts
        var flags: vpx_enc_frame_flags_t = forceKeyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        var layer: (id: UInt8, sync: Bool)?
        if configuration.temporalLayers == 3 {
            // A keyframe starts the pattern over (it is the base layer's).
            if forceKeyframe { temporalIndex = 0 }
            let step = Self.temporalPattern[temporalIndex % Self.temporalPattern.count]
            flags |= vpx_enc_frame_flags_t(step.flags)
            try check(
                CVPX_control_int(context, Int32(VP8E_SET_TEMPORAL_LAYER_ID.rawValue), step.layer),
                "VP8E_SET_TEMPORAL_LAYER_ID"
            )
            layer = (UInt8(step.layer), step.sync)
        }
        let status = submit(frame, pts: pts, duration: duration, flags: flags)
        try check(status, "vpx_codec_encode")
        forceKeyframe = false

        let (data, keyframe) = encodedOutput()
        guard !data.isEmpty else { return nil }

        var qp: Int32 = 0
        if CVPX_control_int_ptr(context, Int32(VP8E_GET_LAST_QUANTIZER.rawValue), &qp) == VPX_CODEC_OK {
            recentQP[qpCount % Self.qpWindow] = qp
            qpCount += 1
        }
        framesEncoded += 1
        if keyframe { keyframesEncoded += 1 }
        var encoded = EncodedFrame(
            codec: .vp8,
            data: data,
            timestamp: UInt32(truncatingIfNeeded: frame.timestamp),
            isKeyframe: keyframe
        )
        if layer != nil {
            // A keyframe libvpx made on its own is the base layer's too: the pattern goes on after it.
            if keyframe { (layer, temporalIndex) = ((0, true), 0) }
            encoded.temporalLayer = layer
            temporalIndex += 1
        }
        return encoded
    }

    /// Hands `frame`'s planes to libvpx (which copies them into its lookahead buffer) with
    /// its presentation time and flags.
    private func submit(
        _ frame: VideoFrame,
        pts: UInt64,
        duration: UInt64,
        flags: vpx_enc_frame_flags_t
    ) -> vpx_codec_err_t {
        let (context, image) = (self.context, self.image)
        return frame.y.withUnsafeBufferPointer { y in
            frame.u.withUnsafeBufferPointer { u in
                frame.v.withUnsafeBufferPointer { v in
                    // libvpx only reads the planes (it copies them into its lookahead buffer).
                    image.pointee.planes = (
                        UnsafeMutablePointer(mutating: y.baseAddress),
                        UnsafeMutablePointer(mutating: u.baseAddress),
                        UnsafeMutablePointer(mutating: v.baseAddress), nil
                    )
                    image.pointee.stride = (Int32(frame.yStride), Int32(frame.uvStride), Int32(frame.uvStride), 0)
                    defer { image.pointee.planes = (nil, nil, nil, nil) }
                    return vpx_codec_encode(
                        context,
                        image,
                        vpx_codec_pts_t(truncatingIfNeeded: pts),
                        UInt(duration),
                        flags,
                        UInt(VPX_DL_REALTIME)
                    )
                }
            }
        }
    }

    /// The compressed frame libvpx wrote (its packets joined), and whether it is a keyframe.
    private func encodedOutput() -> (data: [UInt8], keyframe: Bool) {
        var data: [UInt8] = []
        var keyframe = false
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let output = packet.pointee.data.frame
            if let buffer = output.buf {
                data.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: output.sz))
            }
            if output.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0 { keyframe = true }
        }
        return (data, keyframe)
    }

    /// Initialises the codec for `configuration`.
    private func open(_ configuration: VP8EncoderConfiguration) throws(VP8Error) {
        try check(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), config, 0), "vpx_codec_enc_config_default")
        config.pointee.g_timebase = vpx_rational(num: 1, den: 90_000)
        config.pointee.g_pass = VPX_RC_ONE_PASS
        config.pointee.g_lag_in_frames = 0
        config.pointee.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.pointee.rc_end_usage = VPX_CBR
        config.pointee.rc_min_quantizer = 2
        config.pointee.rc_max_quantizer = 56
        config.pointee.rc_undershoot_pct = 100
        config.pointee.rc_overshoot_pct = 15
        config.pointee.rc_buf_initial_sz = 500
        config.pointee.rc_buf_optimal_sz = 600
        config.pointee.rc_buf_sz = 1000
        config.pointee.rc_dropframe_thresh = 0
        config.pointee.kf_mode = VPX_KF_AUTO
        config.pointee.kf_min_dist = 0
        Self.fill(config, from: configuration)
        let status = CVPX_vp8_encoder_init(context, config, 0)
        guard status == VPX_CODEC_OK else {
            throw .library(operation: "vpx_codec_enc_init", detail: String(cString: vpx_codec_err_to_string(status)))
        }
        let controls: [(String, vp8e_enc_control_id, Int32)] = [
            ("VP8E_SET_CPUUSED", VP8E_SET_CPUUSED, Int32(configuration.speed)),
            ("VP8E_SET_STATIC_THRESHOLD", VP8E_SET_STATIC_THRESHOLD, 1),
            ("VP8E_SET_NOISE_SENSITIVITY", VP8E_SET_NOISE_SENSITIVITY, 0),
            ("VP8E_SET_TOKEN_PARTITIONS", VP8E_SET_TOKEN_PARTITIONS, Int32(VP8_ONE_TOKENPARTITION.rawValue)),
            (
                "VP8E_SET_MAX_INTRA_BITRATE_PCT", VP8E_SET_MAX_INTRA_BITRATE_PCT,
                Int32(configuration.keyframeSizeLimitPercent)
            ),
        ]
        for (name, id, value) in controls {
            try check(CVPX_control_int(context, Int32(id.rawValue), value), name)
        }
        initialWidth = configuration.width
        initialHeight = configuration.height
        initialThreads = configuration.threads
        setImageSize(width: configuration.width, height: configuration.height)
    }

    private static func fill(
        _ config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>,
        from configuration: VP8EncoderConfiguration
    ) {
        config.pointee.g_w = UInt32(configuration.width)
        config.pointee.g_h = UInt32(configuration.height)
        config.pointee.g_threads = UInt32(configuration.threads)
        config.pointee.rc_target_bitrate = UInt32(max(1, configuration.targetBitrate / 1000))
        config.pointee.kf_max_dist = UInt32(configuration.keyframeInterval)
        guard configuration.temporalLayers == 3 else { return }
        // Three layers, four frames a period: 0, 2, 1, 2 (``temporalPattern``); each layer's
        // target is what it and the layers below it take (40%, 60%, 100%).
        let total = config.pointee.rc_target_bitrate
        config.pointee.ts_number_layers = 3
        config.pointee.ts_periodicity = 4
        withUnsafeMutableBytes(of: &config.pointee.ts_target_bitrate) { bytes in
            let rates = bytes.bindMemory(to: UInt32.self)
            (rates[0], rates[1], rates[2]) = (max(1, total * 4 / 10), max(1, total * 6 / 10), total)
        }
        withUnsafeMutableBytes(of: &config.pointee.ts_rate_decimator) { bytes in
            let decimators = bytes.bindMemory(to: UInt32.self)
            (decimators[0], decimators[1], decimators[2]) = (4, 2, 1)
        }
        withUnsafeMutableBytes(of: &config.pointee.ts_layer_id) { bytes in
            let ids = bytes.bindMemory(to: UInt32.self)
            for (index, step) in temporalPattern.enumerated() { ids[index] = UInt32(step.layer) }
        }
    }

    /// Describes an I420 picture of this size in the reused image; planes are set per frame.
    private func setImageSize(width: Int, height: Int) {
        var image = vpx_image_t()
        image.fmt = VPX_IMG_FMT_I420
        image.cs = VPX_CS_UNKNOWN
        image.range = VPX_CR_STUDIO_RANGE
        image.w = UInt32(width)
        image.h = UInt32(height)
        image.bit_depth = 8
        image.d_w = UInt32(width)
        image.d_h = UInt32(height)
        image.r_w = UInt32(width)
        image.r_h = UInt32(height)
        image.x_chroma_shift = 1
        image.y_chroma_shift = 1
        image.bps = 12
        self.image.pointee = image
    }

    private func check(_ status: vpx_codec_err_t, _ operation: String) throws(VP8Error) {
        guard status == VPX_CODEC_OK else {
            let detail =
                vpx_codec_error_detail(context).map { String(cString: $0) }
                ?? String(cString: vpx_codec_err_to_string(status))
            throw .library(operation: operation, detail: detail)
        }
    }
}
