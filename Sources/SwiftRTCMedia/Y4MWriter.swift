import SwiftRTCCodecs

/// Records I420 ``VideoFrame``s to a YUV4MPEG2 file (`C420jpeg`, progressive, square pixels).
/// Every frame is complete on disk once ``write(_:)`` returns, so a crash loses nothing but
/// the frame being written.
public final class Y4MWriter {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    private let file: MediaOutputFile

    /// Creates (truncating) `path` and writes the stream header.
    public init(
        path: String,
        width: Int,
        height: Int,
        frameRate: (numerator: Int, denominator: Int) = (30, 1)
    ) throws(MediaFileError) {
        guard width > 0, height > 0, frameRate.numerator > 0, frameRate.denominator > 0 else {
            throw .unusable(
                format: "Y4M",
                reason:
                    "size \(width)x\(height) and rate \(frameRate.numerator):\(frameRate.denominator) must be positive"
            )
        }
        self.width = width
        self.height = height
        file = try MediaOutputFile(path: path)
        var header = [UInt8]()
        header.appendASCII(
            "YUV4MPEG2 W\(width) H\(height) F\(frameRate.numerator):\(frameRate.denominator) Ip A1:1 C420jpeg\n"
        )
        try file.append(header)
    }

    /// Appends a frame of the writer's size (strides are dropped: planes are written tight).
    public func write(_ frame: VideoFrame) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "Y4M", reason: "writer is closed") }
        guard frame.width == width, frame.height == height else {
            throw .unusable(
                format: "Y4M",
                reason: "frame is \(frame.width)x\(frame.height), file is \(width)x\(height)"
            )
        }
        guard frame.y.count >= frame.yStride * (height - 1) + width,
            frame.u.count >= frame.uvStride * (frame.chromaHeight - 1) + frame.chromaWidth,
            frame.v.count >= frame.uvStride * (frame.chromaHeight - 1) + frame.chromaWidth
        else {
            throw .unusable(format: "Y4M", reason: "frame planes are smaller than their strides say")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(6 + width * height + 2 * frame.chromaWidth * frame.chromaHeight)
        bytes.appendASCII("FRAME\n")
        for row in 0..<height { bytes += frame.y[(row * frame.yStride)..<(row * frame.yStride + width)] }
        for plane in [frame.u, frame.v] {
            for row in 0..<frame.chromaHeight {
                bytes += plane[(row * frame.uvStride)..<(row * frame.uvStride + frame.chromaWidth)]
            }
        }
        try file.append(bytes)
    }

    /// Closes the file (everything is on disk already).
    public func close() throws(MediaFileError) { try file.close() }

    deinit { try? close() }
}
