import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCReceive
import SwiftRTCSDP
import Synchronization

/// Receives one remote media stream (W3C `RTCRtpReceiver`): on the transport thread it takes
/// the stream's plain RTP packets into reception statistics and a ``FrameAssembler`` (jitter
/// buffer and depacketizer); whole frames go to ``encodedFrames()`` from there, and cross to a
/// decoding task through a bounded buffer; the decoder's output goes to ``track``.
///
/// Audio is decoded only while someone takes the remote track's frames or PCM (``track``'s
/// `frames()` or audio sink): a bot that forwards or records the encoded stream, or only
/// counts it, pays nothing for decoding, and its inbound-rtp stats count no decoded samples.
/// Video is always decoded (the decoder says when a keyframe is needed).
public final class RTPReceiver: Sendable {
    /// audio or video.
    public let kind: MediaKind
    /// The remote track the decoded frames go to.
    public let track: MediaStreamTrack

    /// What the negotiation fixed for receiving.
    struct Parameters: Sendable, Hashable {
        var payloadType: UInt8
        var codec: EncodedFrame.Codec
        var codecName: String
        var clockRate: UInt32
        var channels: Int
        /// Loss recovery and keyframe requests as negotiated (NACK, RTX, PLI, FIR).
        var recovery = RecoveryParameters()
        /// The largest video picture decoded, in pixels (`PeerConnection.Configuration`).
        var maximumDecodedPixels = RemoteInputLimits.maxDecodedPixels
    }

    /// The transport-thread side: used only on the transport thread, and briefly by stats.
    struct Path {
        var parameters: Parameters?
        var assembler: FrameAssembler?
        var statistics: ReceiveStatistics?
        var remoteSSRC: UInt32?
        var packetsReceived: Int64 = 0
        var bytesReceived: Int64 = 0
        var headerBytesReceived: Int64 = 0
        var framesAssembled: Int64 = 0
        var jitterBufferDelay: Double = 0
        var lastPacketArrival: Double?
        /// When the first packet of each recent frame (by RTP timestamp) arrived, for the
        /// jitter buffer delay (W3C: first packet in to frame out). Fixed slots, reused.
        var firstArrivals = [(timestamp: UInt32, arrival: Double)](repeating: (0, 0), count: 16)
        var newestTimestamp: UInt32?
        var nextArrivalSlot = 0
        /// Middle 32 bits of the last SR's NTP time and when it arrived (for DLSR).
        var lastSenderReport: (middle: UInt32, arrival: Double)?
        var frames: AsyncStream<EncodedFrame>.Continuation?
        /// The application's synchronous sink (``setEncodedFrameSink(_:)``).
        var frameSink: Callback<EncodedFrame, Void>?
        /// NACK, RTX and keyframe-request state (``RTPReceiver+Recovery.swift``).
        var recovery = ReceiveRecovery()
        /// Limit hits of frame assemblers replaced by a new negotiation.
        var retiredAssemblerLimits = LimitCounts()
    }

    /// The decoding side.
    struct Decoding: Sendable {
        var framesDecoded: Int64 = 0
        var keyFramesDecoded: Int64 = 0
        var totalDecodeTime: Double = 0
        var frameWidth: Int = 0
        var frameHeight: Int = 0
        var totalSamplesReceived: Int64 = 0
        var concealedSamples: Int64 = 0
        var concealmentEvents: Int64 = 0
        var framesDropped: Int64 = 0
        var audioLevel: Double = 0
        /// Lost Opus packets recovered from the next packet's in-band FEC.
        var fecRecovered: Int64 = 0
        /// Gaps between decoded video frames.
        var freezes = FreezeStatistics()
        /// Video keyframes dropped for a picture larger than the limit.
        var framesTooLarge: Int64 = 0
    }

    let path = Locked(Path())
    private let encoded = Broadcast<EncodedFrame>(replaysLatest: false, buffering: .bufferingNewest(32))
    let decoding = Mutex(Decoding())
    /// Set when the decoder needs a keyframe; the RTCP task sends a PLI and clears it.
    let keyframeNeeded = Atomic<Bool>(false)
    /// Frames the decoder's bounded buffer dropped (it fell behind): for video the decoder
    /// then waits for a keyframe.
    let framesLostBeforeDecoding = Atomic<Int>(0)
    /// Set when audio frames went undecoded (nobody took the track): the decoder starts afresh
    /// rather than conceal the gap.
    let audioDecodingSkipped = Atomic<Bool>(false)
    /// When the jitter buffer next has a frame to release (seconds, the bits of a `Double`),
    /// as of the last release: until then, and until a packet arrives, a feedback tick has
    /// nothing to do for a stream that sends no feedback of its own (audio without NACK).
    private let nextRelease = Atomic<UInt64>(Double.infinity.bitPattern)
    /// Whether every feedback tick needs this receiver: video (keyframe requests) or NACK.
    private let sendsFeedback = Atomic<Bool>(false)
    private let decoder = Mutex<Task<Void, Never>?>(nil)

    init(kind: MediaKind, trackId: String) {
        self.kind = kind
        let encoded = encoded
        track = MediaStreamTrack(kind: kind, id: trackId, isRemote: true, encodedFrames: { encoded.subscription() })
        if kind == .video {
            track.setKeyframeRequester { [weak self] in self?.keyframeNeeded.store(true, ordering: .relaxed) }
        }
    }

    /// The negotiated receive parameters, if negotiated.
    var parameters: Parameters? { path.withLock { $0.parameters } }

    /// Sets up (or keeps) the receive path and the decoding task for `parameters`.
    func configure(_ parameters: Parameters, remoteSSRC: UInt32?) {
        // Room for two seconds of frames: a burst (media kept while SRTP was being keyed,
        // frames released together after a stall) waits for the decoder instead of losing one.
        let queue =
            kind == .audio ? RemoteInputLimits.decoderQueueAudioFrames : RemoteInputLimits.decoderQueueVideoFrames
        let (stream, continuation) = AsyncStream<EncodedFrame>.makeStream(bufferingPolicy: .bufferingNewest(queue))
        let started: Bool = path.withLock { path in
            if let ssrc = remoteSSRC { path.remoteSSRC = ssrc }
            guard path.parameters != parameters else { return false }
            path.parameters = parameters
            if let old = path.assembler { path.retiredAssemblerLimits.add(old) }
            path.assembler = ReceiveRecovery.makeAssembler(parameters)
            path.recovery.configure(parameters.recovery)
            sendsFeedback.store(kind == .video || parameters.recovery.nack, ordering: .relaxed)
            path.frames?.finish()
            path.frames = continuation
            return true
        }
        guard started else {
            continuation.finish()
            return
        }
        let pipeline = parameters.codec.makeDecoderPipeline(parameters)
        let task = Task.detached { [weak self] in
            guard let self else { return }
            await pipeline.decode(stream, for: self)
        }
        decoder.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    /// The received frames before decoding (for recording, or forwarding without
    /// transcoding), from now on.
    public func encodedFrames() -> AsyncStream<EncodedFrame> { encoded.subscribe() }

    /// Calls `sink` with every received frame before decoding, in order, synchronously on the
    /// transport thread as the jitter buffer releases it: no task, no buffer and no wake-up
    /// between the network and the application (``encodedFrames()`` hands each frame to a
    /// task through a stream). `nil` removes it.
    ///
    /// For work that fits there: counting, copying the bytes into a file or a ring, forwarding
    /// them to another connection. The rules, as for any code on the data plane:
    /// - return quickly, and never block (no file or network I/O that can wait, no lock held
    ///   long elsewhere, no `DispatchQueue.sync`), never await;
    /// - never call into this receiver or its `PeerConnection` (stats, the track, a new
    ///   sink): the receiver's state is locked while the sink runs;
    /// - every other call of this process on the transport threads waits while it runs.
    public func setEncodedFrameSink(_ sink: (@Sendable (EncodedFrame) -> Void)?) {
        path.withLock { $0.frameSink = sink.map(Callback.init) }
    }

    /// Ends decoding and the remote track.
    func stop() {
        encoded.finish()
        path.withLock {
            $0.frames?.finish()
            $0.frames = nil
        }
        decoder.withLock {
            $0?.cancel()
            $0 = nil
        }
        track.stop()
    }

    // MARK: Data plane (transport thread)

    /// One plain RTP packet of this stream (media, or RTX to unwrap), on the transport thread.
    func receive(_ packet: RTPPacket, arrival: Double) {
        path.withLock { path in
            guard let parameters = path.parameters else { return }
            if packet.payloadType == parameters.payloadType {
                accept(packet, arrival: arrival, retransmission: false, path: &path)
            } else if let original = path.recovery.unwrap(packet, parameters: parameters, mediaSSRC: path.remoteSSRC) {
                accept(original, arrival: arrival, retransmission: true, path: &path)
            }
        }
    }

    /// A media packet (or one unwrapped from RTX) into statistics, NACK bookkeeping and the
    /// frame assembler; whole frames due for playout go to the decoder.
    func accept(_ packet: RTPPacket, arrival: Double, retransmission: Bool, path: inout Path) {
        guard let parameters = path.parameters, let assembler = path.assembler else { return }
        let startedWithoutKeyframe = assembler.startsWithoutKeyframe
        let inserted = assembler.insert(packet.bytes, arrival: arrival, retransmission: retransmission)
        // The first video packet does not begin a keyframe (its first packets were lost): ask
        // for one now, not once the wait for them is over (a PLI costs a round trip and one
        // frame; waiting cost the whole wait in undecodable frames).
        if !startedWithoutKeyframe, assembler.startsWithoutKeyframe { keyframeNeeded.store(true, ordering: .relaxed) }
        // A retransmission of what already came (or was given up) repairs nothing: browsers
        // also resend old packets as RTX to probe bandwidth. Only repairs count as received.
        if retransmission, inserted != .accepted {
            path.recovery.retransmissionsUnused += 1
            return
        }
        if path.statistics == nil || path.statistics?.ssrc != packet.ssrc {
            path.statistics = ReceiveStatistics(ssrc: packet.ssrc, clockRate: parameters.clockRate)
            path.remoteSSRC = packet.ssrc
        }
        path.statistics?.record(
            sequenceNumber: packet.sequenceNumber,
            timestamp: packet.timestamp,
            arrivalSeconds: arrival,
            retransmission: retransmission
        )
        path.recovery.received(packet, retransmission: retransmission, at: arrival)
        path.packetsReceived += 1
        path.bytesReceived += Int64(packet.payloadLength)
        path.headerBytesReceived += Int64(packet.bytes.count - packet.payloadLength)
        path.lastPacketArrival = arrival
        if path.newestTimestamp.map({ RTPTimestamp.isNewer(packet.timestamp, than: $0) }) ?? true {
            path.newestTimestamp = packet.timestamp
            path.firstArrivals[path.nextArrivalSlot] = (packet.timestamp, arrival)
            path.nextArrivalSlot = (path.nextArrivalSlot + 1) % path.firstArrivals.count
        }
        release(now: arrival, path: &path)
    }

    /// Hands the frames due for playout at `now` to the decoder (on packet arrival, and on
    /// the feedback timer so that a held frame leaves on time).
    func release(now: Double, path: inout Path) {
        guard let assembler = path.assembler else { return }
        let dropped = assembler.droppedFrames
        while let frame = assembler.nextFrame(now: now) {
            guard path.recovery.decodable(frame, assembler: assembler, kind: kind) else {
                keyframeNeeded.store(true, ordering: .relaxed)
                continue
            }
            path.framesAssembled += 1
            if let first = path.firstArrivals.first(where: { $0.timestamp == frame.timestamp }) {
                path.jitterBufferDelay += now - first.arrival
            }
            path.frameSink?(frame)
            encoded.yield(frame)
            if kind == .audio, !track.hasConsumers {
                audioDecodingSkipped.store(true, ordering: .relaxed)
                continue
            }
            // A decoder that falls behind loses the oldest buffered frame: the delta frames
            // after it are not decodable, the decoder waits for a keyframe (asked for).
            if case .dropped? = path.frames?.yield(frame) {
                framesLostBeforeDecoding.add(1, ordering: .relaxed)
                if kind == .video { keyframeNeeded.store(true, ordering: .relaxed) }
            }
        }
        // A frame lost to a missing packet: the decoder needs a keyframe (PLI).
        if assembler.droppedFrames != dropped || path.recovery.noteGaps(assembler, kind: kind) {
            keyframeNeeded.store(true, ordering: .relaxed)
        }
        if !sendsFeedback.load(ordering: .relaxed) {
            nextRelease.store(assembler.jitterBuffer.nextEventTime.bitPattern, ordering: .relaxed)
        }
    }

    /// Whether a feedback tick at `now` has work here: always for video and NACK, else only
    /// once a held frame is due (one atomic read, no lock).
    func needsTick(now: Double) -> Bool {
        sendsFeedback.load(ordering: .relaxed) || Double(bitPattern: nextRelease.load(ordering: .relaxed)) <= now
    }

    /// A sender report from the stream's source: remembered for the next report block.
    func receivedSenderReport(ntp: UInt64, arrival: Double) {
        path.withLock { $0.lastSenderReport = (NTPTime.middle(ntp), arrival) }
    }

    /// The report block for the next RR/SR, if anything was received.
    func makeReceptionReport(now: Double) -> ReceptionReport? {
        path.withLock { $0.receptionReport(now: now, startsInterval: true) }
    }
}

extension RTPReceiver.Path {
    /// The stream's report block (nil before anything was received), with the last sender
    /// report's time and the delay since; `startsInterval`: a regular report, which starts a
    /// new fraction-lost interval (a compound feedback packet's does not).
    mutating func receptionReport(now: Double, startsInterval: Bool) -> ReceptionReport? {
        var lsr: UInt32 = 0
        var dlsr: UInt32 = 0
        if let last = lastSenderReport {
            lsr = last.middle
            dlsr = UInt32(clamping: Int64((now - last.arrival) * 65536))
        }
        return startsInterval
            ? statistics?.makeReport(lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
            : statistics?.currentReport(lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
