import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// An audio or video track (W3C `MediaStreamTrack`).
///
/// A local track takes frames: ``push(_:)`` them, or ``play(_:pacing:)`` a ``MediaSource``
/// (tone, test pattern, file...). Raw frames are encoded by the sender; ``MediaFrame/encoded(_:)``
/// frames are sent as they are. With ``isEnabled`` false the sender sends silence or black
/// frames instead, as the call SDKs do.
///
/// A remote track (``isRemote``) gives the decoded frames of what the peer sends:
/// ``frames()``, and for audio a PCM callback, ``setAudioSink(_:)``, or PCM at any rate,
/// ``pcm(_:buffer:)``.
///
/// A voice agent listens and speaks at once: it reads the caller's ``pcm(_:buffer:)`` (kept
/// for 10 s while it is busy, losses counted in ``PCMStream/droppedSamples``) in one task and
/// ``write(pcm:format:)``s its speech to its local audio track in another; when the caller
/// starts talking, ``stopSpeaking()`` drops the speech still queued (``queuedSpeech``).
public final class MediaStreamTrack: Sendable, Identifiable {
    /// audio or video.
    public let kind: MediaKind
    /// The track id (`a=msid` track id for local tracks; the peer's for remote ones).
    public let id: String
    /// Whether the track comes from the peer.
    public let isRemote: Bool

    private let enabled = Atomic<Bool>(true)
    private let stream: Broadcast<MediaFrame>
    /// Audio senders: each pushed frame goes to them at once, on the pushing thread.
    private let senders = Mutex<[(id: ObjectIdentifier, send: @Sendable (MediaFrame, _ enabled: Bool) -> Void)]>([])
    private let sink = Mutex<Callback<AudioFrame, Void>?>(nil)
    /// The playback pushing into the track, and its number. A playback pushes each frame
    /// under this lock and only while its number is the current one, so a replaced or
    /// stopped playback pushes nothing after ``play(_:pacing:)`` or ``stop()`` returns.
    private let player = Mutex<(task: Task<Void, any Error>?, number: Int)>((nil, 0))
    private let pcmInput = Mutex<PCMSource?>(nil)
    /// The ``pcm(_:buffer:)`` streams: each audio frame is converted into them as it is pushed.
    private let pcmTaps = Mutex<[ObjectIdentifier: PCMBuffer]>([:])
    private let pcmTapCount = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)

    /// A local track of `kind`.
    public convenience init(kind: MediaKind, id: String = UUID().uuidString.lowercased()) {
        self.init(kind: kind, id: id, isRemote: false)
    }

    /// A remote track's received frames before decoding (its receiver's), for recording
    /// without re-encoding, and what ends that stream (its buffered frames still read).
    let remoteEncodedFrames: (@Sendable () -> (stream: AsyncStream<EncodedFrame>, end: @Sendable () -> Void))?

    init(
        kind: MediaKind,
        id: String,
        isRemote: Bool,
        encodedFrames: (@Sendable () -> (stream: AsyncStream<EncodedFrame>, end: @Sendable () -> Void))? = nil
    ) {
        self.kind = kind
        self.id = id
        self.isRemote = isRemote
        remoteEncodedFrames = encodedFrames
        // Local input: a little room for audio, video keeps only the newest frames (a slow
        // encoder skips frames rather than falling behind). Remote output: the same.
        stream = Broadcast(replaysLatest: false, buffering: .bufferingNewest(kind == .audio ? 16 : 4))
    }

    /// Whether media flows: a disabled local track sends silence or black frames; a disabled
    /// remote track delivers no frames (and no PCM to its audio sink).
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// Whether ``stop()`` was called (or the remote track ended).
    public var isEnded: Bool { ended.load(ordering: .relaxed) }

    /// Hands one frame to the track: for a local track, to its senders; for a remote one, to
    /// whoever listens. Never blocks; old frames are dropped if nobody keeps up.
    ///
    /// A local audio track's senders encode (or take the encoded frame), packetize, protect
    /// and send it on the caller's thread, before this returns: no task hand-off per frame.
    /// Video frames go to their senders' tasks (encoding and pacing take time).
    public func push(_ frame: MediaFrame) {
        guard !isEnded, !isRemote || isEnabled else { return }
        if case .audio(let audio) = frame {
            if let sink = sink.withLock({ $0 }) { sink(audio) }
            if pcmTapCount.load(ordering: .relaxed) > 0 {
                pcmTaps.withLock { taps in for tap in taps.values { tap.append(audio) } }
            }
        }
        // Under the lock (attach and detach wait for one push): no copy of the list per frame.
        senders.withLock { senders in
            for sender in senders { sender.send(frame, isEnabled) }
        }
        stream.yield(frame)
    }

    /// `send` gets every frame pushed from now on, with whether the track is enabled, on the
    /// pushing thread (audio senders).
    func attach(_ id: ObjectIdentifier, _ send: @escaping @Sendable (MediaFrame, _ enabled: Bool) -> Void) {
        senders.withLock { senders in
            senders.removeAll { $0.id == id }
            senders.append((id, send))
        }
    }

    /// A remote video track's way to ask its sender for a keyframe (a PLI or FIR on the next
    /// feedback tick, rate limited): a recorder starting mid-stream needs one to begin its file.
    private let keyframeRequester = Mutex<Callback<Void, Void>?>(nil)

    func setKeyframeRequester(_ request: @escaping @Sendable () -> Void) {
        keyframeRequester.withLock { $0 = Callback(request) }
    }

    /// Asks the sender of a remote video track for a keyframe (nothing for other tracks).
    package func requestKeyframe() {
        keyframeRequester.withLock { $0 }?()
    }

    /// Ends what ``attach(_:_:)`` started.
    func detach(_ id: ObjectIdentifier) {
        senders.withLock { $0.removeAll { $0.id == id } }
    }

    /// Whether anyone takes the frames: a ``frames()`` stream or an audio sink. A remote audio
    /// track nobody takes is not decoded.
    var hasConsumers: Bool {
        sink.withLock { $0 != nil } || stream.hasSubscribers || pcmTapCount.load(ordering: .relaxed) > 0
    }

    /// The frames pushed from now on (for a remote track: the decoded frames).
    public func frames() -> AsyncStream<MediaFrame> { stream.subscribe() }

    /// The frames, as ``frames()``, and what ends that stream alone (its reader still gets
    /// the frames it holds): a recording that stops keeps what was already delivered.
    func framesSubscription() -> (stream: AsyncStream<MediaFrame>, end: @Sendable () -> Void) {
        stream.subscription()
    }

    /// Calls `sink` with every decoded audio frame (48 kHz PCM) of a remote audio track, on
    /// the decoding task (setting one makes a remote audio track decode); `nil` removes it.
    /// On a local track it gets the frames pushed or played into it; a played frame comes
    /// under the track's playback lock, so the sink must not call `play` or ``stop()`` on it.
    public func setAudioSink(_ sink: (@Sendable (AudioFrame) -> Void)?) {
        self.sink.withLock { $0 = sink.map(Callback.init) }
    }

    /// Plays `source` into the track (replacing what played before: nothing of that reaches
    /// the track once this returns) until it ends or the track stops.
    @discardableResult
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) -> Playback
    where Source.Frame == AudioFrame {
        start {
            source.frames(pacing: pacing)
        } wrap: {
            .audio($0)
        }
    }

    /// Plays a video `source` into the track (replacing what played before).
    @discardableResult
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) -> Playback
    where Source.Frame == VideoFrame {
        start {
            source.frames(pacing: pacing)
        } wrap: {
            .video($0)
        }
    }

    /// Plays an encoded `source` (IVF, Ogg Opus...) into the track, frames passed through as
    /// they are.
    @discardableResult
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) -> Playback
    where Source.Frame == EncodedFrame {
        start {
            source.frames(pacing: pacing)
        } wrap: {
            .encoded($0)
        }
    }

    /// Plays audio the application pushes (``PushSource/push(_:)``) at its timestamps.
    @discardableResult
    public func play(_ source: PushSource<AudioFrame>, pacing: Pacing = .realTime) -> Playback {
        start {
            source.frames(pacing: pacing)
        } wrap: {
            .audio($0)
        }
    }

    /// Plays video the application pushes (custom capture, a screen share) at its timestamps.
    @discardableResult
    public func play(_ source: PushSource<VideoFrame>, pacing: Pacing = .realTime) -> Playback {
        start {
            source.frames(pacing: pacing)
        } wrap: {
            .video($0)
        }
    }

    /// Plays PCM the application writes (``PCMSource/write(_:)``) in real time. When the
    /// playback ends (replaced, or the track stops) the source is cancelled, so a write
    /// waiting for room does not wait for ever.
    @discardableResult
    public func play(_ source: PCMSource) -> Playback {
        start({ source.frames(pacing: .realTime) }, wrap: { .audio($0) }, end: { source.cancel() })
    }

    /// Writes interleaved 16-bit PCM in `format` (any rate of ``AudioResampler/supportedRates``,
    /// mono or stereo, any length) to a local audio track, in real time: through a
    /// ``PCMSource`` the track keeps and plays (a new one when `format` changes, replacing
    /// what played before). Suspends while more than a second of audio waits; run it in a task
    /// of its own to go on listening meanwhile. ``stopSpeaking()`` drops what is queued (a
    /// write waiting then returns at once, without an error, the rest of its samples dropped).
    /// For a voice agent: `try await track.write(pcm: speech, format: PCMFormat(sampleRate: 24_000, channels: 1))`.
    public func write(pcm samples: [Int16], format: PCMFormat) async throws {
        guard kind == .audio, !isRemote else { throw MediaStreamTrackError.notALocalAudioTrack(id: id) }
        let (source, isNew) = try pcmInput.withLock { input in
            if let current = input, current.format == format { return (current, false) }
            let source = try PCMSource(format: format)
            input = source
            return (source, true)
        }
        if isNew { play(source) }
        try await source.write(samples)
    }

    /// How much of what ``write(pcm:format:)`` was given has not been played yet (zero when
    /// the track is not speaking): the speech ``stopSpeaking()`` would drop.
    public var queuedSpeech: Duration { pcmInput.withLock { $0 }?.queuedDuration ?? .zero }

    /// Stops the speech ``write(pcm:format:)`` queued, at once (barge-in: the caller started
    /// talking): the frames not yet sent are dropped, a write waiting for room returns, and
    /// what is written next plays at once. Returns how much speech was dropped.
    @discardableResult
    public func stopSpeaking() -> Duration { pcmInput.withLock { $0 }?.clear() ?? .zero }

    /// The track's audio as interleaved 16-bit PCM in `format` (a rate of
    /// ``AudioResampler/supportedRates``, mono or stereo), one chunk per frame, converted with
    /// libswresample as each frame comes: for speech-to-text,
    /// `try track.pcm(PCMFormat(sampleRate: 16_000, channels: 1))`. On a remote track,
    /// subscribing makes it decode. Up to `buffer` of audio (10 s by default) waits for a
    /// consumer that is busy; one further behind loses the oldest chunks, counted in
    /// ``PCMStream/droppedSamples``. `buffer` is taken within 0 and an hour.
    public func pcm(_ format: PCMFormat, buffer: Duration = .seconds(10)) throws(AudioResamplerError) -> PCMStream {
        _ = try AudioResampler(from: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: 2), to: format)
        let stream = PCMStream(format: format, capacity: buffer) { [weak self] id in
            self?.pcmTaps.withLock { taps in
                if taps.removeValue(forKey: id) != nil { self?.pcmTapCount.subtract(1, ordering: .relaxed) }
            }
        }
        let id = ObjectIdentifier(stream.buffer)
        if isEnded {
            stream.buffer.finish()
            return stream
        }
        pcmTaps.withLock { taps in
            taps[id] = stream.buffer
            pcmTapCount.add(1, ordering: .relaxed)
        }
        // stop() may have run meanwhile: it finished the taps it found.
        if isEnded { stream.buffer.finish() }
        return stream
    }

    /// The next picture of a video track, to look at or save (``VideoFrame/writePNG(to:)``):
    /// a remote track's next decoded frame, a local track's next raw frame. Nil when none
    /// comes within `timeout` (the track ended or is disabled, nothing is sent, or it sends
    /// encoded frames as they are).
    public func snapshot(timeout: Duration = .seconds(2)) async -> VideoFrame? {
        guard kind == .video else { return nil }
        let frames = frames()
        return await withTaskGroup(of: VideoFrame?.self) { group in
            group.addTask {
                for await frame in frames { if case .video(let picture) = frame { return picture } }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private func start<Frames: AsyncSequence>(
        _ makeFrames: @escaping @Sendable () -> Frames,
        wrap: @escaping @Sendable (Frames.Element) -> MediaFrame,
        end: @escaping @Sendable () -> Void = {}
    ) -> Playback
    where Frames: SendableMetatype, Frames.AsyncIterator: SendableMetatype {
        let number = player.withLock { player in
            player.task?.cancel()
            player.task = nil
            player.number += 1
            return player.number
        }
        let task = Task { [weak self] in
            defer { end() }
            for try await frame in makeFrames() {
                guard let self, !self.isEnded else { return }
                let current = self.player.withLock { player in
                    guard player.number == number else { return false }
                    self.push(wrap(frame))
                    return true
                }
                guard current else { return }
            }
        }
        player.withLock { player in
            if player.number == number { player.task = task } else { task.cancel() }
        }
        return Playback(task: task)
    }

    /// Ends the track: playing stops, streams finish.
    public func stop() {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        player.withLock { player in
            player.task?.cancel()
            player.task = nil
            player.number += 1
        }
        senders.withLock { $0 = [] }
        stream.finish()
        pcmTaps.withLock { taps in for tap in taps.values { tap.finish() } }
    }
}
