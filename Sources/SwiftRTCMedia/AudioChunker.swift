import SwiftRTCCodecs

/// Cuts 48 kHz audio of any length into frames of one length (20 ms by default), the lengths
/// an Opus encoder takes: what a caller pushes or writes in pieces of 7 ms or 3 s goes out
/// as whole frames, the remainder waiting for the next piece. The frame handed out is one
/// buffer reused (no allocation per frame unless the receiver keeps it). Timestamps count
/// the samples per channel handed out.
package struct AudioChunker {
    /// Samples per channel of each frame.
    package let samplesPerChannel: Int
    private var frame: AudioFrame
    /// Interleaved samples in `frame` so far.
    private var filled = 0
    private var position: UInt64 = 0

    /// A chunker making frames of `samplesPerChannel` (960: 20 ms at 48 kHz).
    package init(samplesPerChannel: Int = 960) {
        self.samplesPerChannel = samplesPerChannel
        frame = AudioFrame(samples: [Int16](repeating: 0, count: samplesPerChannel * 2), channels: 2, timestamp: 0)
    }

    /// Whether part of a frame waits for more samples.
    package var hasPartialFrame: Bool { filled > 0 }

    /// Appends interleaved `samples` of `channels` channels, calling `body` with each whole
    /// frame. A change of channel count first pads a partial frame of the old count with
    /// silence and hands it out.
    package mutating func append(
        _ samples: UnsafeBufferPointer<Int16>,
        channels: Int,
        _ body: (AudioFrame) throws -> Void
    ) rethrows {
        if channels != frame.channels {
            try flush(body)
            frame = AudioFrame(
                samples: [Int16](repeating: 0, count: samplesPerChannel * channels),
                channels: channels,
                timestamp: position
            )
            filled = 0
        }
        let size = samplesPerChannel * channels
        var offset = 0
        while offset < samples.count {
            let count = min(size - filled, samples.count - offset)
            frame.samples.withUnsafeMutableBufferPointer { out in
                _ = UnsafeMutableBufferPointer(rebasing: out[filled..<filled + count])
                    .initialize(from: UnsafeBufferPointer(rebasing: samples[offset..<offset + count]))
            }
            filled += count
            offset += count
            if filled == size {
                frame.timestamp = position
                try body(frame)
                position += UInt64(samplesPerChannel)
                filled = 0
            }
        }
    }

    /// Forgets a partial frame (speech stopped): the next frame starts with the next samples,
    /// at the timestamp the partial one had.
    package mutating func discardPartialFrame() { filled = 0 }

    /// Pads a partial frame with silence and hands it to `body` (at the end of a stream).
    package mutating func flush(_ body: (AudioFrame) throws -> Void) rethrows {
        guard filled > 0 else { return }
        frame.samples.withUnsafeMutableBufferPointer { out in
            for index in filled..<out.count { out[index] = 0 }
        }
        filled = frame.samples.count
        frame.timestamp = position
        try body(frame)
        position += UInt64(samplesPerChannel)
        filled = 0
    }
}
