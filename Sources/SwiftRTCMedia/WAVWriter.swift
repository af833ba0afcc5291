import SwiftRTCCodecs
import SwiftRTCCore

/// Records 48 kHz ``AudioFrame``s to a WAV file (PCM 16-bit, mono or stereo), at 48 kHz or
/// at the rate the file is made for (16 kHz for speech-to-text...): frames of another rate
/// or channel count than the file's are converted with ``AudioResampler``.
///
/// Crash-safe: a complete 44-byte header goes out before any audio, and its RIFF and data
/// sizes are rewritten every `headerUpdateInterval` of audio and on ``close()``, so a file
/// left by a killed process is a valid WAV holding everything up to the last update.
///
/// ```
///  0 "RIFF" | 4 36+data size | 8 "WAVE" | 12 "fmt " | 16 16 | 20 1 (PCM) | 22 channels
/// 24 rate   | 28 byte rate   | 32 block align | 34 16 (bits) | 36 "data" | 40 data size
/// ```
/// With ``SilenceTrimming``, leading silence is not written and trailing silence is cut off
/// on close (speech decided per frame by a ``VoiceActivityDetector``).
public final class WAVWriter {
    /// 1 or 2.
    public let channels: Int
    /// The file's sample rate.
    public let sampleRate: Int
    /// Converts frames whose format is not the file's (made for the first such frame).
    private var converter: AudioResampler?
    private let file: MediaOutputFile
    private let headerUpdateBytes: Int
    private var bytesSinceUpdate = 0
    private var trimming:
        (settings: SilenceTrimming, detector: VoiceActivityDetector, gate: LeadingSilenceGate<AudioFrame>)?
    /// File size just after the last speech frame written (trimming only).
    private var speechEnd = WAVWriter.headerSize

    static let headerSize = 44

    /// Creates (truncating) the file at `path` for `channels` channels at `sampleRate` (one of
    /// ``AudioResampler/supportedRates``) and writes its header.
    public init(
        path: String,
        channels: Int,
        sampleRate: Int = AudioFrame.sampleRate,
        trimming: SilenceTrimming? = nil,
        headerUpdateInterval: Duration = .seconds(1)
    ) throws(MediaFileError) {
        guard channels == 1 || channels == 2 else {
            throw .invalidField(format: "WAV", offset: 22, field: "channel count", value: "\(channels)")
        }
        guard AudioResampler.supportedRates.contains(sampleRate) else {
            throw .invalidField(format: "WAV", offset: 24, field: "sample rate", value: "\(sampleRate)")
        }
        self.channels = channels
        self.sampleRate = sampleRate
        let seconds = headerUpdateInterval.seconds
        headerUpdateBytes = max(1, Int(seconds * Double(sampleRate))) * channels * 2
        if let trimming {
            self.trimming = (
                trimming, VoiceActivityDetector(),
                LeadingSilenceGate(preRollSamples: trimming.preRollMilliseconds * AudioFrame.sampleRate / 1000)
            )
        }
        file = try MediaOutputFile(path: path)
        try file.append(header(dataSize: 0))
    }

    /// Appends a frame (converted to the file's rate and channels when they differ).
    public func write(_ frame: AudioFrame) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "WAV", reason: "writer is closed") }
        guard (1...2).contains(frame.channels) else {
            throw .unusable(format: "WAV", reason: "frame has \(frame.channels) channels")
        }
        guard var trimming else { return try append(frame) }
        let speech = trimming.detector.isSpeech(frame)
        let released = trimming.gate.admit(frame, samples: frame.samplesPerChannel, isSpeech: speech)
        self.trimming = trimming
        for frame in released { try append(frame) }
        if speech { speechEnd = file.size }
    }

    /// Writes the final sizes (after cutting trailing silence when trimming) and closes the file.
    public func close() throws(MediaFileError) {
        guard file.isOpen else { return }
        if let tail = converter?.flush(), !tail.isEmpty { try file.append(tail.littleEndianBytes) }
        if let trimming {
            let keep = speechEnd + trimming.settings.postRollMilliseconds * sampleRate / 1000 * channels * 2
            if keep < file.size { try file.truncate(to: keep) }
        }
        try updateHeader()
        try file.close()
    }

    deinit { try? close() }

    private func append(_ frame: AudioFrame) throws(MediaFileError) {
        var samples = frame.samples
        if sampleRate != AudioFrame.sampleRate || frame.channels != channels {
            if converter?.input.channels != frame.channels {
                do {
                    converter = try AudioResampler(
                        from: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: frame.channels),
                        to: PCMFormat(sampleRate: sampleRate, channels: channels)
                    )
                } catch {
                    throw .unusable(format: "WAV", reason: "\(error)")
                }
            }
            samples = converter?.convert(frame.samples) ?? []
        }
        let bytes = samples.littleEndianBytes
        try file.append(bytes)
        bytesSinceUpdate += bytes.count
        if bytesSinceUpdate >= headerUpdateBytes { try updateHeader() }
    }

    private func updateHeader() throws(MediaFileError) {
        bytesSinceUpdate = 0
        try file.write(header(dataSize: file.size - Self.headerSize), at: 0)
    }

    private func header(dataSize: Int) -> [UInt8] {
        var header = [UInt8]()
        header.reserveCapacity(Self.headerSize)
        header.appendASCII("RIFF")
        header.appendLE32(UInt32(truncatingIfNeeded: 36 + dataSize))
        header.appendASCII("WAVE")
        header.appendASCII("fmt ")
        header.appendLE32(16)
        header.appendLE16(1)
        header.appendLE16(UInt16(channels))
        header.appendLE32(UInt32(sampleRate))
        header.appendLE32(UInt32(sampleRate * channels * 2))
        header.appendLE16(UInt16(channels * 2))
        header.appendLE16(16)
        header.appendASCII("data")
        header.appendLE32(UInt32(truncatingIfNeeded: dataSize))
        return header
    }
}
