import SwiftRTCCodecs

/// A moving I420 test pattern: 75 % colour bars, a box that slides across them, and the frame
/// counter drawn in the top-left corner as large blocky digits (a 5x7 font scaled up to
/// `width / 80` pixels per dot) that survive lossy coding and can be read back with
/// ``readFrameCounter(from:)`` from a decoded frame.
public struct TestPatternSource: MediaSource, Sendable {
    /// Frame width in pixels (at least 80 for the counter to be drawn).
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second; timestamps advance by `90000 / fps` ticks.
    public let framesPerSecond: Int
    /// Number of the next frame (drawn into it, modulo 10^6).
    public private(set) var frameNumber: Int = 0
    private let background: VideoFrame

    /// Digits drawn for the counter.
    public static let counterDigits = 6

    /// A pattern of the given size and rate, starting at frame 0.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Int = 30) {
        precondition(width > 0 && height > 0 && framesPerSecond > 0, "TestPatternSource needs a positive size and rate")
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        background = Self.colourBars(width: width, height: height)
    }

    /// The next frame (the source never ends).
    public mutating func readFrame() -> VideoFrame? {
        var frame = background
        frame.timestamp = UInt64(frameNumber) * 90_000 / UInt64(framesPerSecond)
        // The box: a sixth of the height, sliding right along the lower third, wrapping around.
        let side = max(2, height / 6)
        let travel = max(1, width - side)
        let left = (frameNumber * max(1, width / 80) * 2) % travel
        Self.fill(
            &frame,
            x: left,
            y: height * 2 / 3,
            width: side,
            height: min(side, height - height * 2 / 3),
            luma: 235,
            u: 90,
            v: 240
        )
        Self.drawCounter(frameNumber, into: &frame)
        frameNumber += 1
        return frame
    }

    // MARK: Counter

    /// Pixels per font dot for a frame `width` wide; `nil` if the frame is too small to hold
    /// the counter.
    static func dotSize(width: Int, height: Int) -> Int? {
        let dot = width / 80
        guard dot >= 2, 9 * dot <= height else { return nil }
        return dot
    }

    /// Reads the frame counter back from a (possibly decoded, lossy) frame made by this
    /// source: each font dot is averaged and thresholded, each digit matched to the nearest
    /// glyph. Returns `nil` when there is no recognisable counter (wrong size, other content).
    public static func readFrameCounter(from frame: VideoFrame) -> Int? {
        guard let dot = dotSize(width: frame.width, height: frame.height) else { return nil }
        var value = 0
        for digit in 0..<counterDigits {
            var bits: UInt64 = 0
            for row in 0..<7 {
                for column in 0..<5 {
                    let x0 = (1 + digit * 6 + column) * dot, y0 = (1 + row) * dot
                    let inset = dot >= 4 ? 1 : 0
                    var sum = 0, count = 0
                    for y in (y0 + inset)..<(y0 + dot - inset) {
                        for x in (x0 + inset)..<(x0 + dot - inset) {
                            let index = y * frame.yStride + x
                            guard index < frame.y.count else { return nil }
                            sum += Int(frame.y[index])
                            count += 1
                        }
                    }
                    if count > 0, sum / count > 125 { bits |= 1 << UInt64(row * 5 + column) }
                }
            }
            let (glyph, distance) =
                font.enumerated()
                .map { ($0.offset, ($0.element ^ bits).nonzeroBitCount) }
                .min { $0.1 < $1.1 } ?? (0, Int.max)
            guard distance <= 4 else { return nil }
            value = value * 10 + glyph
        }
        return value
    }

    static func drawCounter(_ number: Int, into frame: inout VideoFrame) {
        guard let dot = dotSize(width: frame.width, height: frame.height) else { return }
        fill(&frame, x: 0, y: 0, width: (2 + counterDigits * 6) * dot, height: 9 * dot, luma: 16, u: 128, v: 128)
        var remaining = number
        for digit in (0..<counterDigits).reversed() {
            let glyph = font[remaining % 10]
            remaining /= 10
            for row in 0..<7 {
                for column in 0..<5 where glyph & (1 << UInt64(row * 5 + column)) != 0 {
                    fill(
                        &frame,
                        x: (1 + digit * 6 + column) * dot,
                        y: (1 + row) * dot,
                        width: dot,
                        height: dot,
                        luma: 235,
                        u: 128,
                        v: 128
                    )
                }
            }
        }
    }

    /// 5x7 glyphs for 0-9, bit `row * 5 + column` set where the dot is lit.
    static let font: [UInt64] = [
        ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
        ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
        ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
        ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
        ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
        ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
        ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
        ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
        ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
        ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    ].map { rows in
        var bits: UInt64 = 0
        for (row, text) in rows.enumerated() {
            for (column, character) in text.enumerated() where character == "1" {
                bits |= 1 << UInt64(row * 5 + column)
            }
        }
        return bits
    }

    // MARK: Drawing

    /// 75 % colour bars (BT.601 video range): white, yellow, cyan, green, magenta, red, blue.
    static func colourBars(width: Int, height: Int) -> VideoFrame {
        let bars: [(UInt8, UInt8, UInt8)] = [
            (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58), (84, 184, 198), (65, 100, 212),
            (35, 212, 114),
        ]
        var frame = VideoFrame(width: width, height: height)
        for (index, bar) in bars.enumerated() {
            let left = index * width / bars.count, right = (index + 1) * width / bars.count
            fill(&frame, x: left, y: 0, width: right - left, height: height, luma: bar.0, u: bar.1, v: bar.2)
        }
        return frame
    }

    /// Fills a rectangle (clipped to the frame); chroma covers the 2x2-subsampled area.
    static func fill(
        _ frame: inout VideoFrame,
        x: Int,
        y: Int,
        width: Int,
        height: Int,
        luma: UInt8,
        u: UInt8,
        v: UInt8
    ) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(frame.width, x + width), y1 = min(frame.height, y + height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let base = row * frame.yStride
            for column in x0..<x1 { frame.y[base + column] = luma }
        }
        for row in (y0 / 2)..<((y1 + 1) / 2) {
            let base = row * frame.uvStride
            for column in (x0 / 2)..<((x1 + 1) / 2) {
                frame.u[base + column] = u
                frame.v[base + column] = v
            }
        }
    }
}
