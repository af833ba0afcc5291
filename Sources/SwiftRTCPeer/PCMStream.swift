import SwiftRTCCodecs
import SwiftRTCMedia
import Synchronization

/// A track's audio as PCM chunks in one format (``MediaStreamTrack/pcm(_:buffer:)``), for one
/// consumer: `for await chunk in stream`.
///
/// The chunks are converted as the track's frames come (on the decoding thread of a remote
/// track, never waiting for the consumer) and wait for the consumer in a buffer bounded in
/// time, ``capacity`` (10 s unless asked otherwise): a voice agent that is busy speaking or
/// thinking for a few seconds gets everything the caller said meanwhile. A consumer more than
/// ``capacity`` behind loses the oldest chunks; they are counted in ``droppedSamples``, and
/// the next chunk's ``PCMChunk/position`` shows the gap. The stream finishes when the track
/// ends; a consumer that stops iterating (or is cancelled) ends it.
public final class PCMStream: AsyncSequence, Sendable {
    /// A chunk of PCM.
    public typealias Element = PCMChunk

    /// The chunks' rate and channels.
    public let format: PCMFormat
    /// The most audio kept for the consumer.
    public let capacity: Duration
    let buffer: PCMBuffer
    private let detach: @Sendable (ObjectIdentifier) -> Void

    /// The longest buffer a stream keeps: an hour (a longer one is taken as an hour, a negative
    /// one as nothing), so that no duration makes the sample count overflow.
    static let maxCapacity = Duration.seconds(3600)

    init(format: PCMFormat, capacity: Duration, detach: @escaping @Sendable (ObjectIdentifier) -> Void) {
        self.format = format
        let capacity = Swift.min(Swift.max(capacity, .zero), Self.maxCapacity)
        self.capacity = capacity
        let seconds = Double(capacity.components.seconds) + Double(capacity.components.attoseconds) * 1e-18
        buffer = PCMBuffer(format: format, capacitySamples: Swift.max(1, Int(seconds * Double(format.sampleRate))))
        self.detach = detach
    }

    deinit {
        detach(ObjectIdentifier(buffer))
        buffer.finish()
    }

    /// Samples (per channel, at ``format``'s rate) dropped so far because the consumer was more
    /// than ``capacity`` behind. Zero when nothing of the track's audio was lost here.
    public var droppedSamples: Int { buffer.counts.dropped }
    /// ``droppedSamples`` as a duration.
    public var droppedDuration: Duration { buffer.duration(of: buffer.counts.dropped) }
    /// Samples (per channel) waiting for the consumer now.
    public var bufferedSamples: Int { buffer.counts.buffered }
    /// ``bufferedSamples`` as a duration: how far behind the consumer is.
    public var bufferedDuration: Duration { buffer.duration(of: buffer.counts.buffered) }

    /// The iterator (it keeps the stream).
    public func makeAsyncIterator() -> Iterator { Iterator(stream: self) }

    /// Takes the chunks one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: PCMStream

        /// The next chunk, waiting for one; nil when the track ended or the task is cancelled.
        public mutating func next() async -> PCMChunk? { await stream.buffer.next() }
    }
}

/// The converter and buffer behind a ``PCMStream``: frames in on the pushing thread, chunks out
/// to one waiting consumer.
final class PCMBuffer: Sendable {
    let format: PCMFormat
    let capacitySamples: Int

    private struct State: ~Copyable {
        var resampler: AudioResampler?
        var chunks: [PCMChunk] = []
        /// Index of the first chunk not taken (taken ones are removed in batches).
        var head = 0
        var buffered = 0
        var dropped = 0
        var finished = false
        var consumer: CheckedContinuation<PCMChunk?, Never>?

        mutating func popFirst() -> PCMChunk? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            head += 1
            buffered -= chunk.samples.count / max(1, chunk.format.channels)
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }

    private let state = Mutex(State())

    init(format: PCMFormat, capacitySamples: Int) {
        self.format = format
        self.capacitySamples = capacitySamples
    }

    var counts: (dropped: Int, buffered: Int) { state.withLock { ($0.dropped, $0.buffered) } }

    func duration(of samples: Int) -> Duration {
        .nanoseconds(Int64(samples) * 1_000_000_000 / Int64(max(1, format.sampleRate)))
    }

    /// Converts `audio` (48 kHz, 1 or 2 channels) and hands it to the consumer or buffers it,
    /// dropping the oldest chunks beyond the capacity.
    func append(_ audio: AudioFrame) {
        guard (1...2).contains(audio.channels) else { return }
        let waiting: (CheckedContinuation<PCMChunk?, Never>, PCMChunk)? = state.withLock { state in
            guard !state.finished else { return nil }
            if state.resampler?.input.channels != audio.channels {
                state.resampler = try? AudioResampler(
                    from: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: audio.channels),
                    to: format
                )
            }
            guard let resampler = state.resampler else { return nil }
            let position = resampler.outputPosition
            let chunk = PCMChunk(samples: resampler.convert(audio.samples), format: format, position: position)
            if let consumer = state.consumer {
                state.consumer = nil
                return (consumer, chunk)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.samples.count / max(1, format.channels)
            while state.buffered > capacitySamples, state.chunks.count - state.head > 1,
                let oldest = state.popFirst()
            {
                state.dropped += oldest.samples.count / max(1, format.channels)
            }
            return nil
        }
        // Resumed outside the lock: a cancelled consumer's handler takes it.
        if let (consumer, chunk) = waiting { consumer.resume(returning: chunk) }
    }

    /// The next chunk, waiting for one; nil once finished and drained, or when cancelled.
    func next() async -> PCMChunk? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PCMChunk?, Never>) in
                let ready: PCMChunk?? = state.withLock { state in
                    if let chunk = state.popFirst() { return .some(chunk) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.consumer = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// No more chunks: a waiting consumer gets nil, later ones what is left, then nil.
    func finish() {
        let consumer = state.withLock { state in
            state.finished = true
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume(returning: nil)
    }
}
