import SwiftRTCCore

/// Plays an IVF file of VP8 frames (what `vpxenc` writes) as ``EncodedFrame``s, without
/// decoding, read frame by frame.
///
/// ```
///  0 "DKIF" | 4 version 0 (2) | 6 header size 32 (2) | 8 "VP80" | 12 width (2) | 14 height (2)
/// 16 time base denominator (4) | 20 time base numerator (4) | 24 frame count (4) | 28 unused
/// then per frame: size (4) | pts (8, in time base units) | VP8 frame
/// ```
/// Timestamps are the frames' pts converted to the 90 kHz RTP clock; a frame is a keyframe
/// when the VP8 frame tag's P bit is 0 (RFC 6386 section 9.1).
public struct IVFReader: MediaSource, Sendable {
    /// Picture width in pixels.
    public let width: Int
    /// Picture height in pixels.
    public let height: Int
    /// Time base: one pts unit is `numerator / denominator` seconds.
    public let timeBase: (numerator: Int, denominator: Int)
    /// Frame count from the header (may be 0 or stale in a file whose writer was killed).
    public let headerFrameCount: Int
    private let file: MediaInputFile

    static let format = "IVF"

    /// Opens `path` and reads the file header; frames are read by ``readFrame()``.
    public init(path: String) throws(MediaFileError) {
        file = try MediaInputFile(path: path)
        let headerBytes: [UInt8]
        do { headerBytes = try file.read(32, format: Self.format, "file header") } catch {
            // Too short for a header: say whether it is an IVF file at all.
            guard (try? file.read(4, format: Self.format, "signature")) == Array("DKIF".utf8) else {
                throw .badMagic(format: Self.format, expected: "\"DKIF\"")
            }
            throw error
        }
        var header = ByteCursor(headerBytes, format: Self.format)
        guard try header.ascii(4, "signature") == "DKIF" else {
            throw .badMagic(format: Self.format, expected: "\"DKIF\"")
        }
        let version = try header.le16("version")
        guard version == 0 else {
            throw .invalidField(format: Self.format, offset: 4, field: "version", value: "\(version)")
        }
        let headerSize = Int(try header.le16("header size"))
        guard headerSize >= 32 else {
            throw .invalidField(format: Self.format, offset: 6, field: "header size", value: "\(headerSize)")
        }
        let fourcc = try header.ascii(4, "codec FourCC")
        guard fourcc == "VP80" else {
            throw .invalidField(
                format: Self.format,
                offset: 8,
                field: "codec FourCC (only VP80 is supported)",
                value: fourcc
            )
        }
        width = Int(try header.le16("width"))
        height = Int(try header.le16("height"))
        let denominator = Int(try header.le32("time base denominator"))
        let numerator = Int(try header.le32("time base numerator"))
        guard denominator > 0, numerator > 0 else {
            throw .invalidField(
                format: Self.format,
                offset: 16,
                field: "time base",
                value: "\(numerator)/\(denominator)"
            )
        }
        timeBase = (numerator, denominator)
        headerFrameCount = Int(try header.le32("frame count"))
        _ = try file.read(headerSize - 32, format: Self.format, "rest of the \(headerSize)-byte header")
    }

    /// The next frame, `nil` at a clean end of file; throws on a cut-off or oversized frame.
    public mutating func readFrame() throws(MediaFileError) -> EncodedFrame? {
        if try file.isAtEnd() { return nil }
        let frameOffset = file.offset
        var header = ByteCursor(try file.read(12, format: Self.format, "frame header"), format: Self.format)
        let size = Int(try header.le32("frame size"))
        let pts = try header.le64("pts")
        guard (1...(16 << 20)).contains(size) else {
            throw .invalidField(format: Self.format, offset: frameOffset, field: "frame size", value: "\(size)")
        }
        let data = try file.read(size, format: Self.format, "VP8 frame of \(size) bytes")
        let ticks = pts &* 90_000 &* UInt64(timeBase.numerator) / UInt64(timeBase.denominator)
        return EncodedFrame(
            codec: .vp8,
            data: data,
            timestamp: UInt32(truncatingIfNeeded: ticks),
            isKeyframe: data[0] & 1 == 0
        )
    }
}
