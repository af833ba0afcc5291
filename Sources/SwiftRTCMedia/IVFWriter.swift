import SwiftRTCCore

/// Records VP8 ``EncodedFrame``s to an IVF file (time base 1/90000, pts = RTP timestamp
/// unwrapped and relative to the first frame). The header is valid from the start and its
/// frame count is rewritten after every frame, so a file left by a killed process is complete
/// up to the last frame written. See ``IVFReader`` for the layout.
public final class IVFWriter {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    private let file: MediaOutputFile
    private var frameCount: UInt32 = 0
    private var firstTimestamp: UInt32?
    private var lastTimestamp: UInt32 = 0
    private var pts: Int64 = 0

    /// Creates (truncating) `path` and writes the header.
    public init(path: String, width: Int, height: Int) throws(MediaFileError) {
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            throw .unusable(format: "IVF", reason: "size \(width)x\(height) out of range")
        }
        self.width = width
        self.height = height
        file = try MediaOutputFile(path: path)
        var header = [UInt8]()
        header.appendASCII("DKIF")
        header.appendLE16(0)
        header.appendLE16(32)
        header.appendASCII("VP80")
        header.appendLE16(UInt16(width))
        header.appendLE16(UInt16(height))
        header.appendLE32(90_000)
        header.appendLE32(1)
        header.appendLE32(0)
        header.appendLE32(0)
        try file.append(header)
    }

    /// Appends a VP8 frame.
    public func write(_ frame: EncodedFrame) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "IVF", reason: "writer is closed") }
        guard frame.codec == .vp8, !frame.data.isEmpty else {
            throw .unusable(format: "IVF", reason: "IVF holds non-empty VP8 frames, got \(frame.codec.rawValue)")
        }
        if firstTimestamp == nil {
            firstTimestamp = frame.timestamp
        } else {
            pts += RTPTimestamp.distance(from: lastTimestamp, to: frame.timestamp)
        }
        lastTimestamp = frame.timestamp
        var bytes = [UInt8]()
        bytes.reserveCapacity(12 + frame.data.count)
        bytes.appendLE32(UInt32(frame.data.count))
        bytes.appendLE64(UInt64(bitPattern: pts))
        bytes += frame.data
        try file.append(bytes)
        frameCount += 1
        var count = [UInt8]()
        count.appendLE32(frameCount)
        try file.write(count, at: 24)
    }

    /// Closes the file (everything is on disk already).
    public func close() throws(MediaFileError) { try file.close() }

    deinit { try? close() }
}
