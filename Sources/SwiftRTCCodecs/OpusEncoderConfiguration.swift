/// The Opus encoder settings the call SDKs expose. Everything but ``channels`` can change
/// mid-stream with ``OpusEncoder/apply(_:)``.
public struct OpusEncoderConfiguration: Sendable, Hashable {
    /// What the encoder tunes for.
    public enum Application: Sendable, Hashable {
        /// Speech (`OPUS_APPLICATION_VOIP`): favours intelligibility, as WebRTC uses.
        case voip
        /// Music and general audio (`OPUS_APPLICATION_AUDIO`).
        case audio
    }

    /// The bitrates Opus accepts, in bits per second.
    public static let bitrateRange = 6_000...510_000

    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Speech or general audio.
    public var application: Application
    /// Target bitrate in bits per second, 6000...510000.
    public var bitrate: Int
    /// CPU versus quality, 0...10 (WebRTC uses 9 on desktops).
    public var complexity: Int
    /// Variable bitrate (constrained, as WebRTC runs it) if true, constant bitrate if false.
    public var variableBitrate: Bool
    /// In-band forward error correction: each packet also carries a low-bitrate copy of the
    /// previous one, which ``OpusDecoder/recoverLost(from:)`` uses when that one is lost. Only
    /// produced when ``expectedPacketLoss`` is above 0.
    public var inbandFEC: Bool
    /// Expected packet loss in percent (0...100): how much redundancy FEC spends.
    public var expectedPacketLoss: Int
    /// Discontinuous transmission: during silence the encoder emits 1-2 byte packets (which
    /// need not be sent) instead of full frames.
    public var discontinuousTransmission: Bool

    /// Settings with WebRTC-like defaults: mono speech at 32 kbit/s, complexity 9, VBR, FEC on.
    public init(
        channels: Int = 1,
        application: Application = .voip,
        bitrate: Int = 32_000,
        complexity: Int = 9,
        variableBitrate: Bool = true,
        inbandFEC: Bool = true,
        expectedPacketLoss: Int = 0,
        discontinuousTransmission: Bool = false
    ) {
        self.channels = channels
        self.application = application
        self.bitrate = bitrate
        self.complexity = complexity
        self.variableBitrate = variableBitrate
        self.inbandFEC = inbandFEC
        self.expectedPacketLoss = expectedPacketLoss
        self.discontinuousTransmission = discontinuousTransmission
    }

    /// Throws the first setting out of range.
    public func validate() throws(OpusError) {
        guard channels == 1 || channels == 2 else { throw .invalidChannels(channels) }
        guard Self.bitrateRange.contains(bitrate) else { throw .invalidBitrate(bitrate) }
        guard (0...10).contains(complexity) else { throw .invalidComplexity(complexity) }
        guard (0...100).contains(expectedPacketLoss) else { throw .invalidExpectedPacketLoss(expectedPacketLoss) }
    }
}
