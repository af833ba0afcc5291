import Foundation
import Synchronization
import SwiftRTCCodecs
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP

/// An audio or video track (W3C `MediaStreamTrack`).
///
/// A local track takes frames: ``push(_:)`` them, or ``play(_:pacing:)`` a ``MediaSource``
/// (tone, test pattern, file...). Raw frames are encoded by the sender; ``MediaFrame/encoded(_:)``
/// frames are sent as they are. With ``isEnabled`` false the sender sends silence or black
/// frames instead, as the call SDKs do.
///
/// A remote track (``isRemote``) gives the decoded frames of what the peer sends:
/// ``frames()``, and for audio a PCM callback, ``setAudioSink(_:)``.
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
    private let sink = Mutex<(@Sendable (AudioFrame) -> Void)?>(nil)
    private let player = Mutex<Task<Void, Never>?>(nil)
    private let ended = Atomic<Bool>(false)

    /// A local track of `kind`.
    public convenience init(kind: MediaKind, id: String = UUID().uuidString.lowercased()) {
        self.init(kind: kind, id: id, isRemote: false)
    }

    init(kind: MediaKind, id: String, isRemote: Bool) {
        self.kind = kind
        self.id = id
        self.isRemote = isRemote
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
        if case .audio(let audio) = frame, let sink = sink.withLock({ $0 }) { sink(audio) }
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

    /// Ends what ``attach(_:_:)`` started.
    func detach(_ id: ObjectIdentifier) {
        senders.withLock { $0.removeAll { $0.id == id } }
    }

    /// Whether anyone takes the frames: a ``frames()`` stream or an audio sink. A remote audio
    /// track nobody takes is not decoded.
    var hasConsumers: Bool { sink.withLock { $0 != nil } || stream.hasSubscribers }

    /// The frames pushed from now on (for a remote track: the decoded frames).
    public func frames() -> AsyncStream<MediaFrame> { stream.subscribe() }

    /// Calls `sink` with every decoded audio frame (48 kHz PCM) of a remote audio track, on
    /// the decoding task (setting one makes a remote audio track decode); `nil` removes it.
    public func setAudioSink(_ sink: (@Sendable (AudioFrame) -> Void)?) {
        self.sink.withLock { $0 = sink }
    }

    /// Plays `source` into the track (replacing what played before) until it ends or the
    /// track stops.
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) where Source.Frame == AudioFrame {
        start { [weak self] in
            for try await frame in source.frames(pacing: pacing) {
                guard let self, !self.isEnded else { return }
                self.push(.audio(frame))
            }
        }
    }

    /// Plays a video `source` into the track (replacing what played before).
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) where Source.Frame == VideoFrame {
        start { [weak self] in
            for try await frame in source.frames(pacing: pacing) {
                guard let self, !self.isEnded else { return }
                self.push(.video(frame))
            }
        }
    }

    /// Plays an encoded `source` (IVF, Ogg Opus...) into the track, frames passed through as
    /// they are.
    public func play<Source: MediaSource & Sendable>(_ source: Source, pacing: Pacing = .realTime) where Source.Frame == EncodedFrame {
        start { [weak self] in
            for try await frame in source.frames(pacing: pacing) {
                guard let self, !self.isEnded else { return }
                self.push(.encoded(frame))
            }
        }
    }

    private func start(_ body: @escaping @Sendable () async throws -> Void) {
        let task = Task { _ = try? await body() }
        player.withLock { $0?.cancel(); $0 = task }
    }

    /// Ends the track: playing stops, streams finish.
    public func stop() {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        player.withLock { $0?.cancel(); $0 = nil }
        senders.withLock { $0 = [] }
        stream.finish()
    }
}
