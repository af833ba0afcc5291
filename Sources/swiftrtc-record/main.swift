// swiftrtc-record: plays a VP8 IVF file and an Ogg Opus file, each paced in real time, into a
// WebM recording, as a call recorder receives them.
//
//   swiftrtc-record <video.ivf> <audio.opus> <out.webm>
//
// Prints "recording" once the header is written. The media tests kill it mid-recording with
// SIGKILL and check that what it wrote plays.
import Foundation
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: swiftrtc-record <video.ivf> <audio.opus> <out.webm>\n".utf8))
    exit(2)
}
let (videoPath, audioPath, outputPath) = (arguments[1], arguments[2], arguments[3])

do {
    let videoFormat = try IVFReader(path: videoPath)
    let audioHead = try OggOpusReader(path: audioPath).head
    let recorder = try WebMRecorder(
        path: outputPath,
        audio: audioHead,
        video: .init(width: videoFormat.width, height: videoFormat.height)
    )
    FileHandle.standardOutput.write(Data("recording\n".utf8))
    // Each track paced on its own; the recorder is fed from this task only.
    let (frames, continuation) = AsyncThrowingStream<EncodedFrame, any Error>.makeStream()
    let video = Task {
        for try await frame in try IVFReader(path: videoPath).frames(pacing: .realTime) { continuation.yield(frame) }
    }
    let audio = Task {
        for try await frame in try OggOpusReader(path: audioPath).frames(pacing: .realTime) {
            continuation.yield(frame)
        }
    }
    Task {
        do {
            try await video.value
            try await audio.value
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
    }
    for try await frame in frames { try recorder.write(frame) }
    try recorder.close()
} catch {
    FileHandle.standardError.write(Data("swiftrtc-record: \(error)\n".utf8))
    exit(1)
}
