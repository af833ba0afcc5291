/// The audio format of a WAV or raw PCM file.
public struct PCMFormat: Sendable, Hashable {
    /// Samples per second per channel in the file.
    public var sampleRate: Int
    /// 1 or 2.
    public var channels: Int

    /// A format of `sampleRate` samples per second and `channels` channels.
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
