import SwiftRTCCodecs

/// Records 48 kHz ``AudioFrame``s to a WAV file (PCM 16-bit, mono or stereo).
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
    private let file: MediaOutputFile
    private let headerUpdateBytes: Int
    private var bytesSinceUpdate = 0
    private var trimming: (settings: SilenceTrimming, detector: VoiceActivityDetector, gate: LeadingSilenceGate<AudioFrame>)?
    /// File size just after the last speech frame written (trimming only).
    private var speechEnd = WAVWriter.headerSize

    static let headerSize = 44

    /// Creates (truncating) the file at `path` and writes its header.
    public init(path: String, channels: Int, trimming: SilenceTrimming? = nil, headerUpdateInterval: Duration = .seconds(1)) throws(MediaFileError) {
        guard channels == 1 || channels == 2 else { throw .invalidField(format: "WAV", offset: 22, field: "channel count", value: "\(channels)") }
        self.channels = channels
        let seconds = Double(headerUpdateInterval.components.seconds) + Double(headerUpdateInterval.components.attoseconds) / 1e18
        headerUpdateBytes = max(1, Int(seconds * Double(AudioFrame.sampleRate))) * channels * 2
        if let trimming {
            self.trimming = (trimming, VoiceActivityDetector(), LeadingSilenceGate(preRollSamples: trimming.preRollMilliseconds * AudioFrame.sampleRate / 1000))
        }
        file = try MediaOutputFile(path: path)
        try file.append(header(dataSize: 0))
    }

    /// Appends a frame (its channel count must match the writer's).
    public func write(_ frame: AudioFrame) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "WAV", reason: "writer is closed") }
        guard frame.channels == channels else { throw .unusable(format: "WAV", reason: "frame has \(frame.channels) channels, file has \(channels)") }
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
        if let trimming {
            let keep = speechEnd + trimming.settings.postRollMilliseconds * AudioFrame.sampleRate / 1000 * channels * 2
            if keep < file.size { try file.truncate(to: keep) }
        }
        try updateHeader()
        try file.close()
    }

    deinit { try? close() }

    private func append(_ frame: AudioFrame) throws(MediaFileError) {
        let bytes = frame.samples.littleEndianBytes
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
        header.appendASCII("RIFF"); header.appendLE32(UInt32(truncatingIfNeeded: 36 + dataSize)); header.appendASCII("WAVE")
        header.appendASCII("fmt "); header.appendLE32(16); header.appendLE16(1); header.appendLE16(UInt16(channels))
        header.appendLE32(UInt32(AudioFrame.sampleRate)); header.appendLE32(UInt32(AudioFrame.sampleRate * channels * 2))
        header.appendLE16(UInt16(channels * 2)); header.appendLE16(16)
        header.appendASCII("data"); header.appendLE32(UInt32(truncatingIfNeeded: dataSize))
        return header
    }
}
