import CAVFormat

/// Why a media file could not be read or written. Every case names the format and, for
/// malformed input, the byte offset where reading stopped and what was expected there.
public enum MediaFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with the format's magic bytes.
    case badMagic(format: String, expected: String)
    /// The file ends before a structure that it announces (`needed` bytes at `offset`).
    case truncated(format: String, offset: Int, expected: String)
    /// A field holds a value the format forbids or SwiftRTC does not take.
    case invalidField(format: String, offset: Int, field: String, value: String)
    /// An Ogg page whose CRC does not match its bytes.
    case checksumMismatch(format: String, offset: Int)
    /// Opening, reading, writing or seeking a file failed.
    case io(path: String, operation: String, errno: Int32)
    /// A writer was used after it was closed, or fed a frame it cannot take.
    case unusable(format: String, reason: String)
    /// libavformat (muxing or demuxing) failed: the call, its error code and message.
    case muxer(operation: String, code: Int32, message: String)

    /// The error in one line, for logs and the bot report.
    public var description: String {
        switch self {
        case let .badMagic(format, expected):
            return "\(format): not a \(format) file (expected \(expected) at offset 0)"
        case let .truncated(format, offset, expected):
            return "\(format): file ends at offset \(offset), expected \(expected)"
        case let .invalidField(format, offset, field, value):
            return "\(format): invalid \(field) \(value) at offset \(offset)"
        case let .checksumMismatch(format, offset):
            return "\(format): CRC mismatch in page at offset \(offset)"
        case let .io(path, operation, errno):
            return "\(operation) \(path) failed: errno \(errno)"
        case let .unusable(format, reason):
            return "\(format): \(reason)"
        case let .muxer(operation, code, message):
            return "libavformat \(operation) failed: \(message) (\(code))"
        }
    }
}

extension MediaFileError {
    /// Throws ``muxer(operation:code:message:)`` with FFmpeg's message when `result` is an
    /// FFmpeg error (negative).
    static func checkFFmpeg(_ result: Int32, _ operation: String) throws(MediaFileError) {
        guard result < 0 else { return }
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(result, &buffer, buffer.count)
        throw .muxer(
            operation: operation,
            code: result,
            message: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        )
    }
}
