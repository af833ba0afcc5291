import Foundation
import SwiftRTCCodecs
import TestScheduling

@testable import SwiftRTCMedia

/// A fresh folder for one test's files (a ``ScratchFolder``).
func temporaryDirectory(_ name: String = #function) throws -> String {
    try ScratchFolder.make("media-" + name).path
}

/// Runs a tool off the cooperative pool, returns its standard output; throws when it exits
/// non-zero.
@discardableResult
func run(_ executable: String, _ arguments: [String]) async throws -> String {
    let output = try await runToEnd(URL(fileURLWithPath: executable), arguments)
    guard output.status == 0 else {
        throw ToolError(
            message:
                "\(executable) \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr.suffix(600))"
        )
    }
    return output.stdout
}

struct ToolError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

func readBytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
func writeBytes(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

/// Writes `count` test-pattern frames to a Y4M file and returns them.
@discardableResult
func writePatternY4M(_ path: String, width: Int = 320, height: Int = 240, count: Int = 30) throws -> [VideoFrame] {
    var pattern = TestPatternSource(width: width, height: height, framesPerSecond: 30)
    let frames = (0..<count).map { _ in pattern.readFrame()! }
    let writer = try Y4MWriter(path: path, width: width, height: height)
    for frame in frames { try writer.write(frame) }
    try writer.close()
    return frames
}

/// Real VP8 from libvpx's own `vpxenc`: the test pattern, `count` frames at 30 fps.
func makeIVF(in directory: String, count: Int = 30, width: Int = 320, height: Int = 240) async throws -> String {
    let y4m = directory + "/pattern.y4m", ivf = directory + "/pattern.ivf"
    try writePatternY4M(y4m, width: width, height: height, count: count)
    try await run(
        "/usr/bin/vpxenc",
        [
            "--codec=vp8", "--ivf", "--rt", "--cpu-used=8", "--target-bitrate=800", "--kf-max-dist=15",
            "--limit=\(count)", "-q", "-o", ivf, y4m,
        ]
    )
    return ivf
}

/// Real Opus in Ogg from ffmpeg's libopus encoder: a 440 Hz tone.
func makeOggOpus(in directory: String, seconds: Double = 1, channels: Int = 1) async throws -> String {
    let path = directory + "/tone.opus"
    try await run(
        "/usr/bin/ffmpeg",
        [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-ac", "\(channels)", "-c:a", "libopus", "-b:a", "32k", "-frame_duration", "20", path,
        ]
    )
    return path
}

/// ffprobe's packets of the first stream: (pts, size, keyframe).
func probePackets(_ path: String) async throws -> [(pts: Int, size: Int, keyframe: Bool)] {
    try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-select_streams", "0", "-show_entries", "packet=pts,size,flags", "-of", "csv=p=0", path]
    )
    .split(separator: "\n").map { line in
        let fields = line.split(separator: ",")
        return (Int(fields[0]) ?? -1, Int(fields[1]) ?? -1, fields.count > 2 && fields[2].hasPrefix("K"))
    }
}
