import SwiftRTCCodecs

/// Plays a WAV file (RIFF/WAVE, PCM 16-bit little-endian, mono or stereo, `WAVE_FORMAT_PCM`
/// or `WAVE_FORMAT_EXTENSIBLE` with the PCM sub-format) as 48 kHz ``AudioFrame``s. Files at
/// other rates (8, 16, 44.1 kHz, ...: any of ``AudioResampler/supportedRates``, 8 to 192 kHz)
/// are converted to 48 kHz on load by ``AudioResampler``: libswresample's band-limited
/// (windowed-sinc) filter, the one `track.pcm(_:)` and `track.write(pcm:format:)` use. A file at
/// a rate outside those is refused (``MediaFileError/invalidField(format:offset:field:value:)``).
///
/// ```
/// "RIFF" size "WAVE"  { chunk id(4) size(4, LE) body [pad to even] }*
///   "fmt " : format tag(2) channels(2) rate(4) byte rate(4) block align(2) bits(2) [ext...]
///   "data" : interleaved samples   (size 0xFFFFFFFF: up to the end of the file)
/// ```
/// Reading stops at the end of the `data` chunk, so a file a crashed ``WAVWriter`` left behind
/// plays up to its last header update.
public struct WAVReader: MediaSource, Sendable {
    /// The format as stored in the file (before conversion to 48 kHz).
    public let format: PCMFormat
    /// Duration of the audio in the file, in 48 kHz samples per channel.
    public var sampleCount: Int { framer.samples.count / format.channels }
    private var framer: PCMFramer

    /// Loads and parses the file at `path`; frames are `frameMilliseconds` long.
    public init(path: String, frameMilliseconds: Int = 20) throws(MediaFileError) {
        try self.init(bytes: MediaFile.readAll(path), frameMilliseconds: frameMilliseconds)
    }

    /// Parses a WAV file held in memory; frames are `frameMilliseconds` long.
    public init(bytes: [UInt8], frameMilliseconds: Int = 20) throws(MediaFileError) {
        var cursor = ByteCursor(bytes, format: "WAV")
        guard bytes.count >= 12, try cursor.ascii(4, "RIFF") == "RIFF", (try? cursor.le32("RIFF size")) != nil,
            try cursor.ascii(4, "WAVE") == "WAVE"
        else {
            throw .badMagic(format: "WAV", expected: "\"RIFF\" <size> \"WAVE\"")
        }
        var format: PCMFormat?
        while true {
            let chunkOffset = cursor.offset
            let id = try cursor.ascii(4, "chunk id")
            let size = try cursor.le32("chunk size")
            switch id {
            case "fmt ":
                format = try Self.readFormat(&cursor, size: size, chunkOffset: chunkOffset)
                if size % 2 == 1 { try? cursor.skip(1, "pad byte") }
            case "data":
                guard let format else {
                    throw .invalidField(
                        format: "WAV",
                        offset: chunkOffset,
                        field: "chunk order (data before fmt)",
                        value: "\"data\""
                    )
                }
                let length =
                    size == 0xFFFF_FFFF ? cursor.remaining - cursor.remaining % (2 * format.channels) : Int(size)
                guard length % (2 * format.channels) == 0 else {
                    throw .invalidField(
                        format: "WAV",
                        offset: chunkOffset + 4,
                        field: "data size (not whole sample frames)",
                        value: "\(size)"
                    )
                }
                let pcm = [Int16](littleEndianPCM: try cursor.bytes(length, "data chunk of \(length) bytes"))
                self.format = format
                framer = PCMFramer(
                    samples: try PCMFileResampling.to48k(
                        pcm,
                        channels: format.channels,
                        from: format.sampleRate,
                        format: "WAV"
                    ),
                    channels: format.channels,
                    frameMilliseconds: frameMilliseconds
                )
                return
            default:
                try cursor.skip(Int(size) + Int(size % 2), "\"\(id)\" chunk of \(size) bytes")
            }
        }
    }

    /// Reads the `fmt ` chunk of `size` bytes at the cursor: 16-bit PCM (or its extensible
    /// form), one or two channels, 1 to 384 kHz; anything else is refused with its offset.
    static func readFormat(
        _ cursor: inout ByteCursor,
        size: UInt32,
        chunkOffset: Int
    ) throws(MediaFileError) -> PCMFormat {
        guard size >= 16 else {
            throw .invalidField(
                format: "WAV",
                offset: chunkOffset + 4,
                field: "fmt chunk size",
                value: "\(size)"
            )
        }
        let fieldOffset = cursor.offset
        var body = ByteCursor(Array(try cursor.bytes(Int(size), "fmt chunk")), format: "WAV")
        let tag = try body.le16("format tag")
        let channels = Int(try body.le16("channels"))
        let rate = Int(try body.le32("sample rate"))
        _ = try body.le32("byte rate")
        let blockAlign = Int(try body.le16("block align"))
        let bits = Int(try body.le16("bits per sample"))
        var isPCM = tag == 1
        if tag == 0xFFFE, size >= 40 {
            try body.skip(8, "extension header")
            isPCM = try body.le16("sub-format") == 1
        }
        guard isPCM else {
            throw .invalidField(
                format: "WAV",
                offset: fieldOffset,
                field: "format tag (only PCM is supported)",
                value: "\(tag)"
            )
        }
        guard channels == 1 || channels == 2 else {
            throw .invalidField(
                format: "WAV",
                offset: fieldOffset + 2,
                field: "channel count",
                value: "\(channels)"
            )
        }
        guard (1000...384_000).contains(rate) else {
            throw .invalidField(format: "WAV", offset: fieldOffset + 4, field: "sample rate", value: "\(rate)")
        }
        guard bits == 16, blockAlign == channels * 2 else {
            throw .invalidField(
                format: "WAV",
                offset: fieldOffset + 14,
                field: "bits per sample (only 16-bit PCM is supported)",
                value: "\(bits)"
            )
        }
        return PCMFormat(sampleRate: rate, channels: channels)
    }

    /// The next 48 kHz frame, `nil` after the last one (padded with silence to full length).
    public mutating func readFrame() -> AudioFrame? { framer.next() }
}
