/// Settings of the real-time VP8 encoder. Size, frame rate, bitrate, speed and keyframe
/// interval can change mid-stream with ``VP8Encoder/apply(_:)``.
///
/// Fixed, as WebRTC runs libvpx: one-pass CBR, no lag, error resilient, quantizer 2...56,
/// rate-control buffer 1000 ms (initial 500, optimal 600), undershoot 100%, overshoot 15%,
/// static threshold 1, no noise reduction, one token partition, no frame dropping.
public struct VP8EncoderConfiguration: Sendable, Hashable {
    /// Target bitrates accepted, in bits per second.
    public static let bitrateRange = 10_000...50_000_000

    /// Encoded width in pixels; input frames of another size are scaled to it.
    public var width: Int
    /// Encoded height in pixels.
    public var height: Int
    /// Frames per second the input arrives at (used when timestamps do not advance).
    public var frameRate: Double
    /// Target bitrate in bits per second.
    public var targetBitrate: Int
    /// Encoder threads, 1...16.
    public var threads: Int
    /// libvpx `cpu-used`, -16...16: larger magnitude is faster and worse (WebRTC: -6 on desktop).
    public var speed: Int
    /// The longest run of frames between keyframes (libvpx `kf_max_dist`).
    public var keyframeInterval: Int
    /// Temporal layers, 1 or 3 (RFC 7741 temporal scalability, as libwebrtc encodes VP8
    /// simulcast): with 3, every fourth frame is layer 0, the one between two of them layer 1
    /// and the others layer 2, so a receiver of layer 0 alone gets a quarter of the frames and
    /// of layers 0 and 1 half; the bitrate is shared 40/20/40%. Fixed for the encoder's life.
    public var temporalLayers: Int

    /// Settings; the defaults send 640x480 at 30 fps and 1 Mbit/s, one thread, speed -6.
    public init(
        width: Int = 640,
        height: Int = 480,
        frameRate: Double = 30,
        targetBitrate: Int = 1_000_000,
        threads: Int = 1,
        speed: Int = -6,
        keyframeInterval: Int = 3000,
        temporalLayers: Int = 1
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.targetBitrate = targetBitrate
        self.threads = threads
        self.speed = speed
        self.keyframeInterval = keyframeInterval
        self.temporalLayers = temporalLayers
    }

    /// Throws the first setting out of range.
    public func validate() throws(VP8Error) {
        guard (2...16383).contains(width), (2...16383).contains(height) else {
            throw .invalidSize(width: width, height: height)
        }
        guard frameRate >= 1, frameRate <= 120 else { throw .invalidFrameRate(frameRate) }
        guard Self.bitrateRange.contains(targetBitrate) else { throw .invalidBitrate(targetBitrate) }
        guard (1...16).contains(threads) else { throw .invalidThreads(threads) }
        guard (-16...16).contains(speed) else { throw .invalidSpeed(speed) }
        guard keyframeInterval >= 1 else { throw .invalidKeyframeInterval(keyframeInterval) }
        guard temporalLayers == 1 || temporalLayers == 3 else { throw .invalidTemporalLayers(temporalLayers) }
    }

    /// The cap on a keyframe's size (libvpx `max-intra-rate`), as WebRTC sets it: half the
    /// rate-control buffer's optimal size (600 ms) as a percentage of one frame's share of the
    /// bitrate, at least 300%.
    public var keyframeSizeLimitPercent: Int {
        max(300, Int((600.0 * 0.5 * frameRate / 10).rounded()))
    }

    /// Frame duration in 90 kHz ticks.
    var frameDuration: UInt64 { UInt64((90_000 / frameRate).rounded()) }
}
