import SwiftRTCCodecs
import Synchronization

/// Audio a program makes, written in pieces of any length and played into a track in real
/// time: a voice agent's synthesized speech at 16 or 24 kHz, a phone line's 8 kHz, mono or
/// stereo. What is written is converted to 48 kHz with ``AudioResampler`` (libswresample),
/// cut into 20 ms frames (the rest waits for the next write; ``finish()`` pads it with
/// silence) and queued; ``write(_:)`` suspends while the queue holds more than its
/// capacity (a second by default), so a whole sentence can be written at once and plays out
/// at its pace. Nothing is dropped but by ``clear()`` (barge-in: the caller talks, the queued
/// speech goes at once; ``queuedDuration`` says how much waits): a wrong format is an error
/// when the source is made, a sample count that is not whole channel groups an error when
/// written.
///
/// ```swift
/// let speech = try PCMSource(format: PCMFormat(sampleRate: 16_000, channels: 1))
/// track.play(speech)
/// try await speech.write(samples)   // any length
/// await speech.finish()
/// ```
///
/// Safe to use from any task; write from one at a time (pieces keep the order of the writes).
public final class PCMSource: Sendable {
    /// The format of what ``write(_:)`` takes.
    public let format: PCMFormat

    private struct State: ~Copyable {
        var resampler: AudioResampler?
        var chunker = AudioChunker()
        var finished = false
    }

    private let state: Mutex<State>
    private let queue: PushSource<AudioFrame>

    /// A source taking PCM in `format` (a rate of ``AudioResampler/supportedRates``, 1 or 2
    /// channels), queuing up to `bufferMilliseconds` of audio.
    public init(format: PCMFormat, bufferMilliseconds: Int = 1000) throws(AudioResamplerError) {
        let resampler: AudioResampler? =
            format.sampleRate == AudioFrame.sampleRate && (1...2).contains(format.channels)
            ? nil
            : try AudioResampler(
                from: format,
                to: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: format.channels)
            )
        self.format = format
        state = Mutex(State(resampler: resampler))
        queue = PushSource(capacity: max(1, bufferMilliseconds / 20), overflow: .backpressure)
    }

    /// Queues interleaved `samples` in ``format``, waiting while the queue is full.
    public func write(_ samples: [Int16]) async throws(PCMSourceError) {
        guard samples.count % format.channels == 0 else {
            throw .partialSampleFrame(count: samples.count, channels: format.channels)
        }
        let (frames, generation) = try state.withLock {
            (state) throws(PCMSourceError) -> ([AudioFrame], Int) in
            guard !state.finished else { throw .finished }
            let converted = state.resampler?.convert(samples) ?? samples
            var frames: [AudioFrame] = []
            converted.withUnsafeBufferPointer { pcm in
                state.chunker.append(pcm, channels: format.channels) { frames.append($0) }
            }
            // Announced with the clear() count read in the same step: a clear() drops them.
            let generation = queue.generation
            queue.reserve(frames.count, generation: generation)
            return (frames, generation)
        }
        try await send(frames, generation: generation)
    }

    /// How much written audio has not been played yet: what the queue holds and the rest of
    /// writes waiting for room (the current partial 20 ms frame not counted).
    public var queuedDuration: Duration { .milliseconds(20 * queue.queuedFrames) }

    /// Drops every written frame not played yet, at once (a voice agent's barge-in): the
    /// queue, the rest of writes waiting for room (those writes return, without an error) and
    /// the partial frame. The source stays open: what is written next plays at once, at its
    /// pace. Returns how much audio was dropped.
    @discardableResult
    public func clear() -> Duration {
        let frames = state.withLock { state in
            state.chunker.discardPartialFrame()
            if state.resampler != nil {
                // A new resampler: none of the old speech's samples in its filter comes out.
                state.resampler = try? AudioResampler(
                    from: format,
                    to: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: format.channels)
                )
            }
            return queue.removeAll()
        }
        return .milliseconds(20 * frames)
    }

    /// Plays out what is held (the resampler's tail, the last partial frame padded with
    /// silence), then ends the source.
    public func finish() async {
        let (frames, generation) = state.withLock { state -> ([AudioFrame], Int) in
            guard !state.finished else { return ([], 0) }
            state.finished = true
            var frames: [AudioFrame] = []
            if let tail = state.resampler?.flush(), !tail.isEmpty {
                tail.withUnsafeBufferPointer { pcm in
                    state.chunker.append(pcm, channels: format.channels) { frames.append($0) }
                }
            }
            state.chunker.flush { frames.append($0) }
            let generation = queue.generation
            queue.reserve(frames.count, generation: generation)
            return (frames, generation)
        }
        try? await send(frames, generation: generation)
        queue.finish()
    }

    /// Queues `frames` of a write made when the queue's `generation` was current; stops at
    /// the first frame a ``clear()`` dropped.
    private func send(_ frames: [AudioFrame], generation: Int) async throws(PCMSourceError) {
        for frame in frames {
            switch await queue.send(frame, generation: generation) {
            case .taken: continue
            case .removed: return
            case .finished: throw .finished
            }
        }
    }

    /// The 48 kHz frames as an `AsyncSequence` for the one consumer (a track playing it).
    public func frames(pacing: Pacing = .realTime) -> PushedFrames<AudioFrame> { queue.frames(pacing: pacing) }

    /// Ends the source at once: writes fail with ``PCMSourceError/finished`` from now on, and
    /// a write waiting for room is released with it (the track playing it stopped).
    public func cancel() {
        state.withLock { $0.finished = true }
        queue.finish()
    }
}
