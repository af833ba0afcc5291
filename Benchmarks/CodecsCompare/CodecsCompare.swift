// Measures SwiftRTC's Opus and VP8 paths against the bare C libraries on the same input and
// prints the ratio ours/bare (1.00 = no overhead):
//   VP8 encode: VP8Encoder vs `vpxenc` (Debian vpx-tools) with the same settings, on the same
//               frames (written to a Y4M in /tmp); times are of the encode calls only (vpxenc's
//               own encode timer) and the processes' CPU time.
//   VP8 decode: VP8Decoder (including the copy out into a VideoFrame) vs `vpxdec --summary`
//               on the IVF vpxenc wrote.
//   Opus:       OpusEncoder/OpusDecoder vs a bare opus_encode/opus_decode loop, 20 ms frames.
// Run: Benchmarks/codec-compare.sh (release build). Each figure is the best of `rounds` runs.

import COpus
import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP

let rounds = 3
let frameCount = 150
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-codecs-compare")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
    ) / 1e6
}

/// Runs a tool; returns its stderr and the CPU seconds it used.
func run(_ tool: String, _ arguments: [String]) throws -> (stderr: String, cpu: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    let before = childrenCPUSeconds()
    try process.run()
    let output = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CompareError.tool(
            "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: output, as: UTF8.self))"
        )
    }
    return (String(decoding: output, as: UTF8.self), childrenCPUSeconds() - before)
}

enum CompareError: Error { case tool(String), parse(String) }

/// The last "<number> us" or "<number> ms" in a tool's output, in seconds.
func reportedSeconds(_ text: String) throws -> Double {
    let pattern = try NSRegularExpression(pattern: #"(\d+) (us|ms) \("#)
    let range = NSRange(text.startIndex..., in: text)
    guard let match = pattern.matches(in: text, range: range).last,
        let number = Range(match.range(at: 1), in: text), let unit = Range(match.range(at: 2), in: text),
        let value = Double(text[number])
    else { throw CompareError.parse("no timing in: \(text.suffix(300))") }
    return text[unit] == "ms" ? value / 1e3 : value / 1e6
}

/// A moving picture with texture, so the encoder has work at every bitrate.
func pattern(width: Int, height: Int, index: Int) -> VideoFrame {
    var frame = VideoFrame(width: width, height: height, timestamp: UInt64(index) * 3000)
    var seed = UInt32(12345)
    for row in 0..<height {
        for col in 0..<width {
            seed = seed &* 1_103_515_245 &+ 12345
            let noise = Int(seed >> 27)  // 0...31, fixed per pixel position
            let moving = ((col + index * 3) / 16 + (row + index) / 16) % 2 == 0 ? 60 : 0
            frame.y[row * width + col] = UInt8(clamping: 50 + (col + row + index * 5) % 120 + moving + noise)
        }
    }
    for i in 0..<frame.u.count {
        frame.u[i] = UInt8(truncatingIfNeeded: 100 + (i / frame.uvStride + index) % 50)
        frame.v[i] = UInt8(truncatingIfNeeded: 110 + (i % frame.uvStride) % 40)
    }
    return frame
}

func writeY4M(_ frames: [VideoFrame], to url: URL) throws {
    guard let first = frames.first else { return }
    var data = Data("YUV4MPEG2 W\(first.width) H\(first.height) F30:1 Ip A1:1 C420jpeg\n".utf8)
    for frame in frames {
        data.append(contentsOf: Array("FRAME\n".utf8))
        data.append(contentsOf: frame.y)
        data.append(contentsOf: frame.u)
        data.append(contentsOf: frame.v)
    }
    try data.write(to: url)
}

/// The frames of an IVF file (32-byte file header, then 12-byte frame headers).
func readIVF(_ url: URL) throws -> [EncodedFrame] {
    let bytes = [UInt8](try Data(contentsOf: url))
    guard bytes.count >= 32, bytes[0..<4] == [0x44, 0x4B, 0x49, 0x46] else {
        throw CompareError.parse("not an IVF file")
    }
    func le32(_ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
    var frames: [EncodedFrame] = []
    var offset = le32(6) & 0xFFFF  // header length
    while offset + 12 <= bytes.count {
        let size = le32(offset), pts = le32(offset + 4)
        guard offset + 12 + size <= bytes.count else { throw CompareError.parse("IVF frame past the end") }
        let data = Array(bytes[(offset + 12)..<(offset + 12 + size)])
        frames.append(
            EncodedFrame(
                codec: .vp8,
                data: data,
                timestamp: UInt32(truncatingIfNeeded: pts * 3000),
                isKeyframe: data.first.map { $0 & 1 == 0 } ?? false
            )
        )
        offset += 12 + size
    }
    return frames
}

func ratio(_ ours: Double, _ bare: Double) -> String { String(format: "%.2f", ours / bare) }
func ms(_ seconds: Double, per count: Int) -> String { String(format: "%.3f ms", seconds * 1e3 / Double(count)) }

let load =
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
print(
    "SwiftRTC codecs vs bare libraries (\(CodecLibrary.vpxVersion), \(CodecLibrary.opusVersion)); best of \(rounds) runs"
)
print(
    "Load average \(load) on \(ProcessInfo.processInfo.activeProcessorCount) cores: CPU-time ratios are the reliable ones; wall-clock"
)
print("timer ratios inflate with load (the two sides run at different moments).")
print("")

// MARK: VP8

for (width, height, bitrate) in [(640, 480, 1_000_000), (1280, 720, 2_500_000)] {
    let configuration = VP8EncoderConfiguration(
        width: width,
        height: height,
        frameRate: 30,
        targetBitrate: bitrate,
        threads: 1,
        speed: -6,
        keyframeInterval: 3000
    )
    let frames = (0..<frameCount).map { pattern(width: width, height: height, index: $0) }
    let y4m = directory.appendingPathComponent("input-\(width)x\(height).y4m")
    let ivf = directory.appendingPathComponent("vpxenc-\(width)x\(height).ivf")
    try writeY4M(frames, to: y4m)
    // The settings VP8Encoder applies (see VP8EncoderConfiguration), spelled for vpxenc.
    let vpxencArguments = [
        "--codec=vp8", "--rt", "--cpu-used=\(configuration.speed)", "--end-usage=cbr",
        "--target-bitrate=\(bitrate / 1000)", "--lag-in-frames=0", "--error-resilient=1", "--threads=1",
        "--kf-max-dist=\(configuration.keyframeInterval)", "--kf-min-dist=0", "--min-q=2", "--max-q=56",
        "--undershoot-pct=100", "--overshoot-pct=15", "--buf-sz=1000", "--buf-initial-sz=500", "--buf-optimal-sz=600",
        "--drop-frame=0", "--static-thresh=1", "--noise-sensitivity=0", "--token-parts=0",
        "--max-intra-rate=\(configuration.keyframeSizeLimitPercent)", "--timebase=1/90000", "--fps=30/1",
        "--ivf", "-o", ivf.path, y4m.path,
    ]

    var oursEncode = Double.infinity, oursEncodeCPU = Double.infinity, bareEncode = Double.infinity,
        bareEncodeCPU = Double.infinity
    var oursBytes = 0, ourFrames: [EncodedFrame] = []
    for _ in 0..<rounds {
        let (stderr, cpu) = try run("vpxenc", vpxencArguments)
        bareEncode = min(bareEncode, try reportedSeconds(stderr))
        bareEncodeCPU = min(bareEncodeCPU, cpu)

        let encoder = try VP8Encoder(configuration: configuration)
        var encoded: [EncodedFrame] = []
        encoded.reserveCapacity(frameCount)
        let cpuStart = threadCPUSeconds()
        let start = ContinuousClock.now
        for frame in frames {
            if let output = try encoder.encode(frame) { encoded.append(output) }
        }
        let elapsed = ContinuousClock.now - start
        oursEncodeCPU = min(oursEncodeCPU, threadCPUSeconds() - cpuStart)
        oursEncode = min(oursEncode, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        oursBytes = encoded.reduce(0) { $0 + $1.data.count }
        ourFrames = encoded
    }
    let vpxencFrames = try readIVF(ivf)
    let vpxencBytes = vpxencFrames.reduce(0) { $0 + $1.data.count }
    let identical = vpxencFrames.map(\.data) == ourFrames.map(\.data)
    print(
        "VP8 encode \(width)x\(height) @ \(bitrate / 1000) kbit/s, \(frameCount) frames, cpu-used \(configuration.speed), 1 thread:"
    )
    print(
        "  ours   \(ms(oursEncode, per: frameCount))/frame (encode calls), process CPU \(ms(oursEncodeCPU, per: frameCount))/frame, \(oursBytes * 8 * 30 / frameCount / 1000) kbit/s"
    )
    print(
        "  vpxenc \(ms(bareEncode, per: frameCount))/frame (its encode timer), process CPU \(ms(bareEncodeCPU, per: frameCount))/frame (whole process incl. Y4M reading), \(vpxencBytes * 8 * 30 / frameCount / 1000) kbit/s"
    )
    print(
        "  ratio ours/vpxenc: CPU \(ratio(oursEncodeCPU, bareEncodeCPU)), encode timer \(ratio(oursEncode, bareEncode)); bitstreams \(identical ? "byte-identical" : "differ")"
    )

    var oursDecode = Double.infinity, bareDecode = Double.infinity, bareDecodeCPU = Double.infinity,
        oursDecodeCPU = Double.infinity
    for _ in 0..<rounds {
        let (stderr, cpu) = try run(
            "vpxdec",
            ["--codec=vp8", "--i420", "--summary", "--threads=1", "-o", "/dev/null", ivf.path]
        )
        bareDecode = min(bareDecode, try reportedSeconds(stderr))
        bareDecodeCPU = min(bareDecodeCPU, cpu)

        let decoder = try VP8Decoder(threads: 1)
        var picture = VideoFrame(width: width, height: height)
        let cpuStart = threadCPUSeconds()
        let start = ContinuousClock.now
        for frame in vpxencFrames { _ = try decoder.decode(frame, into: &picture) }
        let elapsed = ContinuousClock.now - start
        oursDecodeCPU = min(oursDecodeCPU, threadCPUSeconds() - cpuStart)
        oursDecode = min(oursDecode, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        guard decoder.framesDecoded == vpxencFrames.count, picture.width == width else {
            throw CompareError.parse("decode failed")
        }
    }
    print("VP8 decode \(width)x\(height) (vpxenc's IVF):")
    print(
        "  ours   \(ms(oursDecode, per: frameCount))/frame (decode + copy out), process CPU \(ms(oursDecodeCPU, per: frameCount))/frame"
    )
    print(
        "  vpxdec \(ms(bareDecode, per: frameCount))/frame (its decode timer), process CPU \(ms(bareDecodeCPU, per: frameCount))/frame (whole process incl. writing I420 to /dev/null)"
    )
    print(
        "  ratio ours/vpxdec: CPU \(ratio(oursDecodeCPU, bareDecodeCPU)), decode timer \(ratio(oursDecode, bareDecode))"
    )
    print("")
    try? FileManager.default.removeItem(at: y4m)
}

// MARK: Opus

let opusFrames = 1500  // 30 s of 20 ms frames
let toneFrames: [AudioFrame] = (0..<50).map { index in
    AudioFrame(
        samples: (0..<960).map { i in
            let t = Double(index * 960 + i) / 48_000
            return Int16(8000 * sin(2 * .pi * 440 * t) + 3000 * sin(2 * .pi * 1250 * t))
        },
        channels: 1,
        timestamp: UInt64(index * 960)
    )
}
let opusConfiguration = OpusEncoderConfiguration(
    channels: 1,
    application: .voip,
    bitrate: 32_000,
    complexity: 9,
    variableBitrate: true,
    inbandFEC: true,
    expectedPacketLoss: 0
)

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = threadCPUSeconds()
    try body()
    return threadCPUSeconds() - start
}

var oursOpusEncode = Double.infinity, bareOpusEncode = Double.infinity
var oursOpusDecode = Double.infinity, bareOpusDecode = Double.infinity
var packets: [EncodedFrame] = []
for _ in 0..<rounds {
    let encoder = try OpusEncoder(configuration: opusConfiguration)
    var encoded: [EncodedFrame] = []
    encoded.reserveCapacity(opusFrames)
    oursOpusEncode = min(
        oursOpusEncode,
        try seconds {
            for i in 0..<opusFrames { encoded.append(try encoder.encode(toneFrames[i % toneFrames.count])) }
        }
    )
    packets = encoded

    // Bare libopus: the same settings through the ctl forwarders, one packet buffer.
    var status: Int32 = 0
    guard let bare = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &status) else {
        fatalError("opus_encoder_create \(status)")
    }
    _ = COpus_encoder_set(bare, OPUS_SET_BITRATE_REQUEST, 32_000)
    _ = COpus_encoder_set(bare, OPUS_SET_COMPLEXITY_REQUEST, 9)
    _ = COpus_encoder_set(bare, OPUS_SET_VBR_REQUEST, 1)
    _ = COpus_encoder_set(bare, OPUS_SET_VBR_CONSTRAINT_REQUEST, 1)
    _ = COpus_encoder_set(bare, OPUS_SET_INBAND_FEC_REQUEST, 1)
    _ = COpus_encoder_set(bare, OPUS_SET_PACKET_LOSS_PERC_REQUEST, 0)
    _ = COpus_encoder_set(bare, OPUS_SET_DTX_REQUEST, 0)
    var buffer = [UInt8](repeating: 0, count: 4000)
    var bareBytes = 0
    bareOpusEncode = min(
        bareOpusEncode,
        seconds {
            for i in 0..<opusFrames {
                toneFrames[i % toneFrames.count].samples.withUnsafeBufferPointer { pcm in
                    buffer.withUnsafeMutableBufferPointer { out in
                        guard let input = pcm.baseAddress, let output = out.baseAddress else { return }
                        bareBytes += Int(opus_encode(bare, input, 960, output, 4000))
                    }
                }
            }
        }
    )
    opus_encoder_destroy(bare)
    let oursBytes = encoded.reduce(0) { $0 + $1.data.count }
    guard oursBytes == bareBytes else { fatalError("Opus outputs differ: \(oursBytes) vs \(bareBytes) bytes") }

    let decoder = try OpusDecoder(channels: 1)
    oursOpusDecode = min(
        oursOpusDecode,
        try seconds {
            for packet in packets { _ = try decoder.decode(packet) }
        }
    )
    guard let bareDecoder = opus_decoder_create(48_000, 1, &status) else { fatalError("opus_decoder_create \(status)") }
    var pcm = [Int16](repeating: 0, count: 5760)
    bareOpusDecode = min(
        bareOpusDecode,
        seconds {
            for packet in packets {
                packet.data.withUnsafeBufferPointer { data in
                    pcm.withUnsafeMutableBufferPointer { out in
                        guard let output = out.baseAddress else { return }
                        _ = opus_decode(bareDecoder, data.baseAddress, Int32(data.count), output, 5760, 0)
                    }
                }
            }
        }
    )
    opus_decoder_destroy(bareDecoder)
}
print("Opus 20 ms mono, 32 kbit/s VBR, complexity 9, \(opusFrames) frames (thread CPU time):")
print(
    "  encode: ours \(ms(oursOpusEncode, per: opusFrames))/frame, bare libopus \(ms(bareOpusEncode, per: opusFrames))/frame, ratio \(ratio(oursOpusEncode, bareOpusEncode))"
)
print(
    "  decode: ours \(ms(oursOpusDecode, per: opusFrames))/frame, bare libopus \(ms(bareOpusDecode, per: opusFrames))/frame, ratio \(ratio(oursOpusDecode, bareOpusDecode))"
)
