import SwiftRTCCodecs

/// Black I420 frames (Y 16, U/V 128): what a muted video track sends.
public struct BlackFrameSource: MediaSource, Sendable {
    /// Picture width in pixels.
    public let width: Int
    /// Picture height in pixels.
    public let height: Int
    /// Frames per second; timestamps advance by `90000 / framesPerSecond` ticks.
    public let framesPerSecond: Int
    private var frameNumber: UInt64 = 0

    /// Black frames of the given size and rate.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Int = 30) {
        precondition(width > 0 && height > 0 && framesPerSecond > 0, "BlackFrameSource needs a positive size and rate")
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }

    /// The next frame (the source never ends).
    public mutating func readFrame() -> VideoFrame? {
        defer { frameNumber += 1 }
        return VideoFrame(width: width, height: height, timestamp: frameNumber * 90_000 / UInt64(framesPerSecond))
    }
}
