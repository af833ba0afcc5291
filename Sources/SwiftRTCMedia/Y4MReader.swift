import SwiftRTCCodecs

/// Plays a YUV4MPEG2 (`.y4m`) file of 8-bit 4:2:0 video (`C420jpeg`, `C420paldv`,
/// `C420mpeg2`, `C420` or no colour-space tag) as I420 ``VideoFrame``s, read frame by frame.
///
/// ```
/// YUV4MPEG2 W<width> H<height> F<num>:<den> [Ip A1:1 C420jpeg X...]\n
/// FRAME[ params]\n  <Y width*height> <U cw*ch> <V cw*ch>      (repeated)
/// ```
/// Timestamps are `index * 90000 * den / num` (90 kHz).
public struct Y4MReader: MediaSource, Sendable {
    /// Picture width in pixels.
    public let width: Int
    /// Picture height in pixels.
    public let height: Int
    /// Frame rate as a fraction (`F` tag), e.g. 30:1 or 30000:1001.
    public let frameRate: (numerator: Int, denominator: Int)
    private let file: MediaInputFile
    private var frameIndex: UInt64 = 0

    static let format = "Y4M"

    /// Opens `path` and parses the stream header; frames are read by ``readFrame()``.
    public init(path: String) throws(MediaFileError) {
        file = try MediaInputFile(path: path)
        let line = try file.readLine(limit: 4096, format: Self.format, "stream header")
        let tokens = line.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard tokens.first == "YUV4MPEG2" else { throw .badMagic(format: Self.format, expected: "\"YUV4MPEG2 \"") }
        var width: Int?, height: Int?, rate = (30, 1)
        for token in tokens.dropFirst() {
            let value = String(token.dropFirst())
            switch token.first {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "F":
                let parts = value.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                    throw .invalidField(format: Self.format, offset: 0, field: "frame rate F", value: value)
                }
                rate = (parts[0], parts[1])
            case "C":
                guard ["420jpeg", "420paldv", "420mpeg2", "420"].contains(value) else {
                    throw .invalidField(
                        format: Self.format,
                        offset: 0,
                        field: "colour space (only 8-bit 4:2:0 is supported)",
                        value: value
                    )
                }
            case "I":
                guard value == "p" || value == "?" else {
                    throw .invalidField(
                        format: Self.format,
                        offset: 0,
                        field: "interlacing (only progressive)",
                        value: value
                    )
                }
            default: continue
            }
        }
        guard let width, let height, (1...8192).contains(width), (1...8192).contains(height) else {
            throw .invalidField(
                format: Self.format,
                offset: 0,
                field: "frame size W/H",
                value: "W\(width.map(String.init) ?? "?") H\(height.map(String.init) ?? "?")"
            )
        }
        self.width = width
        self.height = height
        self.frameRate = rate
    }

    /// The next frame, `nil` at a clean end of file; throws on a bad or cut-off frame.
    public mutating func readFrame() throws(MediaFileError) -> VideoFrame? {
        if try file.isAtEnd() { return nil }
        let headerOffset = file.offset
        let line = try file.readLine(limit: 1024, format: Self.format, "FRAME header")
        guard line.starts(with: Array("FRAME".utf8)) else {
            throw .invalidField(
                format: Self.format,
                offset: headerOffset,
                field: "frame header (expected \"FRAME\")",
                value: String(decoding: line.prefix(16), as: UTF8.self)
            )
        }
        // Planes are read before the frame is built, so a header announcing a huge size costs
        // no more memory than the file actually holds.
        let chromaSize = ((width + 1) / 2) * ((height + 1) / 2)
        let y = try file.read(width * height, format: Self.format, "Y plane of frame \(frameIndex)")
        let u = try file.read(chromaSize, format: Self.format, "U plane of frame \(frameIndex)")
        let v = try file.read(chromaSize, format: Self.format, "V plane of frame \(frameIndex)")
        var frame = VideoFrame(width: 1, height: 1, timestamp: Self.timestamp(frame: frameIndex, rate: frameRate))
        (frame.width, frame.height, frame.yStride, frame.uvStride) = (width, height, width, (width + 1) / 2)
        (frame.y, frame.u, frame.v) = (y, u, v)
        frameIndex += 1
        return frame
    }

    /// `index * 90000 * den / num` (90 kHz), exact in 128 bits: the `F` tag's numbers come from
    /// the file, and `F1:999999999999999` overflowed 64 bits at the second frame (a trap; the
    /// input is in Fuzz/FileReaderFuzzer/regressions). A time beyond 64 bits stays at the largest.
    static func timestamp(frame index: UInt64, rate: (numerator: Int, denominator: Int)) -> UInt64 {
        let (ticks, overflow) = index.multipliedReportingOverflow(by: 90_000)
        let numerator = UInt64(rate.numerator)
        let product = ticks.multipliedFullWidth(by: UInt64(rate.denominator))
        guard !overflow, product.high < numerator else { return .max }
        return numerator.dividingFullWidth(product).quotient
    }
}
