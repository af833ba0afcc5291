import SwiftRTCCodecs

/// Plays headerless interleaved 16-bit little-endian PCM (`ffmpeg -f s16le`) at a rate and
/// channel count the caller states, converted to 48 kHz frames like ``WAVReader``.
public struct RawPCMReader: MediaSource, Sendable {
    /// The format as stated by the caller (before conversion to 48 kHz).
    public let format: PCMFormat
    private var framer: PCMFramer

    /// Loads the file at `path`, which holds audio in `format`.
    public init(path: String, format: PCMFormat, frameMilliseconds: Int = 20) throws(MediaFileError) {
        try self.init(bytes: MediaFile.readAll(path), format: format, frameMilliseconds: frameMilliseconds)
    }

    /// Reads `bytes` of audio in `format`; their count must be whole sample frames.
    public init(bytes: [UInt8], format: PCMFormat, frameMilliseconds: Int = 20) throws(MediaFileError) {
        guard format.channels == 1 || format.channels == 2 else {
            throw .invalidField(format: "PCM", offset: 0, field: "channel count", value: "\(format.channels)")
        }
        guard (1000...384_000).contains(format.sampleRate) else {
            throw .invalidField(format: "PCM", offset: 0, field: "sample rate", value: "\(format.sampleRate)")
        }
        guard bytes.count % (2 * format.channels) == 0 else {
            throw .truncated(
                format: "PCM",
                offset: bytes.count,
                expected: "whole sample frames of \(2 * format.channels) bytes"
            )
        }
        self.format = format
        let pcm = [Int16](littleEndianPCM: bytes[...])
        framer = PCMFramer(
            samples: try PCMFileResampling.to48k(
                pcm,
                channels: format.channels,
                from: format.sampleRate,
                format: "PCM"
            ),
            channels: format.channels,
            frameMilliseconds: frameMilliseconds
        )
    }

    /// The next 48 kHz frame, `nil` after the last one (padded with silence to full length).
    public mutating func readFrame() -> AudioFrame? { framer.next() }
}
