import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// The recorders fed frames whose timestamps, sizes and contents come from the input, as a
/// peer's RTP gives them: `WebMRecorder` (Opus + VP8), `OggOpusWriter` and `IVFWriter`,
/// each writing a scratch file and closed at the end; what the Ogg and IVF writers wrote is
/// read back with their readers, which must take it.
///
/// Input: one setup byte (bit 0: WebM tracks start at arrival rather than zero; bit 1: WebM
/// silence trimming; bit 2: Ogg silence trimming; bit 3: stereo Ogg; bits 4-5: WebM with
/// audio only, video only, or both), the IVF/WebM picture size (two u16), then frames as
/// `[flags: u8][RTP timestamp: u32][size: u16][data]`, flags bit 0: VP8 (else Opus), bit 1:
/// keyframe, bit 2: an explicit presentation time follows (u32 ms, WebM's `at`), bit 3: the
/// frame's decoded audio is speech (for trimming; silence otherwise).
public func fuzzRecorders(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let setup = input.u8()
    let width = Int(input.u16()), height = Int(input.u16())
    let tracks = (setup >> 4) & 3
    let trimming = SilenceTrimming(preRollMilliseconds: 100, postRollMilliseconds: 100)
    let webmPath = ScratchFiles.path("recording.webm"), oggPath = ScratchFiles.path("recording.opus"),
        ivfPath = ScratchFiles.path("recording.ivf")
    let webm = try? WebMRecorder(
        path: webmPath,
        audio: tracks == 2 ? nil : OpusHead(channels: 2),
        video: tracks == 1 ? nil : .init(width: max(1, width), height: max(1, height)),
        trackStart: setup & 1 != 0 ? .arrival : .zero,
        trimming: setup & 2 != 0 ? trimming : nil
    )
    let ogg = try? OggOpusWriter(
        path: oggPath,
        head: OpusHead(channels: setup & 8 != 0 ? 2 : 1),
        trimming: setup & 4 != 0 ? trimming : nil
    )
    let ivf = try? IVFWriter(path: ivfPath, width: width, height: height)
    let silence = AudioFrame(samples: [Int16](repeating: 0, count: 960), channels: 1, timestamp: 0)
    let speech = AudioFrame(
        samples: (0..<960).map { Int16(truncatingIfNeeded: ($0 % 48 - 24) * 1000) },
        channels: 1,
        timestamp: 0
    )
    var ivfFrames = 0

    while !input.isAtEnd {
        let flags = input.u8()
        let timestamp = input.u32()
        let data = Array(input.chunk())
        let at: Duration? = flags & 4 != 0 ? .milliseconds(Int64(input.u32())) : nil
        let pcm = flags & 8 != 0 ? speech : silence
        let frame = EncodedFrame(
            codec: flags & 1 != 0 ? .vp8 : .opus,
            data: data,
            timestamp: timestamp,
            isKeyframe: flags & 2 != 0
        )
        try? webm?.write(frame, at: at, pcm: pcm)
        if frame.codec == .opus {
            try? ogg?.write(frame, pcm: pcm)
        } else if (try? ivf?.write(frame)) != nil {
            ivfFrames += 1
        }
    }
    try? webm?.close()
    if (try? ogg?.close()) != nil {
        // What the writer wrote, the reader takes.
        do {
            var reader = try OggOpusReader(path: oggPath)
            while try reader.readFrame() != nil {}
        } catch {
            fatalError("OggOpusReader refuses what OggOpusWriter wrote: \(error)")
        }
    }
    if (try? ivf?.close()) != nil {
        do {
            var reader = try IVFReader(path: ivfPath)
            var count = 0
            while try reader.readFrame() != nil { count += 1 }
            guard count == ivfFrames else {
                fatalError("IVFWriter wrote \(ivfFrames) frames, IVFReader reads \(count)")
            }
        } catch {
            fatalError("IVFReader refuses what IVFWriter wrote: \(error)")
        }
    }
}
