import SwiftRTCCodecs
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// Sends one local track (W3C `RTCRtpSender`): encodes raw frames (Opus, VP8), packetizes them
/// with the negotiated header extensions (mid, abs-send-time, transport-wide sequence number,
/// audio level), and hands each packet to the transport, which protects it in place and sends
/// it. Audio is sent on the thread that pushes the frame into the track (a 20 ms frame is one
/// packet: no task hand-off per frame); video by a task that takes the track's frames, with
/// the packets of a frame paced in small bursts. Packet buffers are allocated once per sender.
public final class RTPSender: Sendable {
    /// audio or video.
    public let kind: MediaKind
    /// The SSRC of the media stream.
    public let ssrc: UInt32
    /// The SSRC of retransmissions (RTX), for video.
    public let rtxSsrc: UInt32?

    /// What the negotiation fixed for sending.
    struct Parameters: Sendable, Hashable {
        var payloadType: UInt8
        var codec: EncodedFrame.Codec
        var codecName: String
        var clockRate: UInt32
        var channels: Int
        var mid: String
        var extensions: RTPHeaderExtensionIDs
        /// NACK answering, RTX and Opus FEC as negotiated.
        var recovery = SendRecoveryParameters()
        /// Video: the size frames are scaled to (nil: their own) and the most frames per second.
        var videoSize: VideoSize?
        var maxFrameRate = 30.0
    }

    /// Counters behind outbound-rtp, media-source and the RTCP SR.
    struct Counters: Sendable {
        var packetsSent: Int64 = 0
        var bytesSent: Int64 = 0
        var headerBytesSent: Int64 = 0
        var framesEncoded: Int64 = 0
        var keyFramesEncoded: Int64 = 0
        var framesSent: Int64 = 0
        var encodedBytes: Int64 = 0
        var totalEncodeTime: Double = 0
        var framesCaptured: Int64 = 0
        /// Raw audio frames dropped for being no audio (channels not 1 or 2, a partial channel group).
        var audioFramesRejected: Int64 = 0
        var captureWidth = 0
        var captureHeight = 0
        var frameWidth = 0
        var frameHeight = 0
        var qpAverage: Double?
        var targetBitrate: Int = 0
        var audioLevel: Double = 0
        var pliReceived: Int64 = 0
        var firReceived: Int64 = 0
        var nackReceived: Int64 = 0
        var retransmittedPacketsSent: Int64 = 0
        var retransmittedBytesSent: Int64 = 0
        /// NACKed packets the resend budget (or the limit per NACK) refused, in all; those of
        /// responders replaced by a new negotiation.
        var nackResendsRefused: Int64 = 0
        var nackResendsRefusedBefore: Int64 = 0
        /// PLIs and FIRs ignored for coming within ``RemoteInputLimits/minKeyframeRequestInterval``
        /// of the last one acted on, and when that was (monotonic seconds).
        var keyframeRequestsIgnored: Int64 = 0
        var lastKeyframeRequestServed: Double?
        /// The last packet's RTP timestamp and when (monotonic seconds) it was sent.
        var lastRTPTimestamp: UInt32 = 0
        var lastSendTime: Double?
        /// From the peer's report blocks about this stream.
        var remoteRoundTripTime: Double?
        var remoteTotalRoundTripTime: Double = 0
        var remoteRoundTripMeasurements: Int64 = 0
        var remotePacketsLost: Int64 = 0
        var remoteFractionLost: Double = 0
        var remoteJitter: Double = 0
    }

    let counters = Mutex(Counters())
    /// Where the stream is: a new send pipeline (new track, renegotiation) continues the
    /// sequence numbers, RTP timestamps and PictureIDs (a jump back would look like a replay
    /// to SRTP and the receiver).
    struct Continuity: Sendable {
        var sequenceNumber = UInt16.random(in: 0...0x7FFF)
        var pictureID = UInt16.random(in: 0...0x7FFF)
        /// The next frame's RTP timestamp at the earliest.
        var nextTimestamp = UInt32.random(in: 0...UInt32.max)
    }

    let continuity = Mutex(Continuity())
    /// Set by a PLI or FIR; the encoding task makes the next frame a keyframe.
    let keyframeRequested = Atomic<Bool>(false)
    /// The sent-packet history that answers NACKs (``RTPSender+Recovery.swift``); nil without NACK.
    let retransmissions = Locked<NackResponder?>(nil)
    /// The command sequence number of the last FIR acted on (-1: none yet).
    let lastFIRSequence = Atomic<Int>(-1)
    private let currentTrack: Mutex<MediaStreamTrack?>
    private let state = Mutex<(parameters: Parameters?, transport: PeerTransport?, task: Task<Void, Never>?)>(
        (nil, nil, nil)
    )
    /// Audio: the pipeline that sends each frame on the pushing thread, and the track it is
    /// attached to.
    private let audio = Mutex<(pipeline: SendPipeline?, track: MediaStreamTrack?)>((nil, nil))

    init(kind: MediaKind, track: MediaStreamTrack?, ssrc: UInt32, rtxSsrc: UInt32?) {
        self.kind = kind
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
        currentTrack = Mutex(track)
    }

    /// The track being sent, if any.
    public var track: MediaStreamTrack? { currentTrack.withLock { $0 } }

    /// Sends `track` from now on (W3C `replaceTrack`), without renegotiation.
    public func replaceTrack(_ track: MediaStreamTrack?) {
        currentTrack.withLock { $0 = track }
        let (parameters, transport) = state.withLock { ($0.parameters, $0.transport) }
        if let parameters, let transport { restart(parameters, transport: transport) }
    }

    /// The negotiated send parameters, if sending.
    var parameters: Parameters? { state.withLock { $0.parameters } }

    /// Starts sending (the video task, or the audio pipeline), or restarts for new
    /// parameters; the same parameters keep the running one.
    func start(_ parameters: Parameters, transport: PeerTransport) {
        let running =
            state.withLock { $0.parameters == parameters && $0.transport === transport }
            && (kind == .audio
                ? audio.withLock { $0.pipeline != nil && $0.track === track } : state.withLock { $0.task != nil })
        if running { return }
        restart(parameters, transport: transport)
    }

    private func restart(_ parameters: Parameters, transport: PeerTransport) {
        configureRetransmissions(parameters)
        let track = self.track
        if kind == .audio {
            restartAudio(parameters, transport: transport, track: track)
            return
        }
        let task: Task<Void, Never>? = track.map { track in
            let frames = track.frames()
            return Task.detached { [weak self] in
                guard let self else { return }
                let pipeline = SendPipeline(sender: self, parameters: parameters, transport: transport)
                for await frame in frames {
                    guard !Task.isCancelled else { break }
                    await pipeline.send(frame, enabled: track.isEnabled)
                }
            }
        }
        state.withLock { state in
            state.task?.cancel()
            state = (parameters, transport, task)
        }
        let target = transport.congestion.targetBitrate(for: kind)
        counters.withLock { if $0.targetBitrate == 0 { $0.targetBitrate = target } }
    }

    /// Audio: a new pipeline, attached to `track` (detached from the one before). It is made
    /// under the lock the old one sends under, so it continues exactly where that one stopped.
    private func restartAudio(_ parameters: Parameters, transport: PeerTransport, track: MediaStreamTrack?) {
        let previous = audio.withLock { audio in
            defer { audio = (SendPipeline(sender: self, parameters: parameters, transport: transport), track) }
            return audio.track
        }
        previous?.detach(ObjectIdentifier(self))
        // Held strongly, as the pipeline holds the sender, until stop() detaches it: a weak
        // reference cost a side-table load and a slow retain per frame.
        track?.attach(ObjectIdentifier(self)) { [self] frame, enabled in
            audio.withLock { $0.pipeline?.sendAudio(frame, enabled: enabled) }
        }
        state.withLock { state in
            state.task?.cancel()
            state = (parameters, transport, nil)
        }
        let target = transport.congestion.targetBitrate(for: kind)
        counters.withLock { if $0.targetBitrate == 0 { $0.targetBitrate = target } }
    }

    /// Stops sending.
    func stop() {
        state.withLock { state in
            state.task?.cancel()
            state = (nil, nil, nil)
        }
        let attached = audio.withLock { audio in
            defer { audio = (nil, nil) }
            return audio.track
        }
        attached?.detach(ObjectIdentifier(self))
    }
}

/// The encode → packetize → send loop of one sender, owned by its task.
final class SendPipeline {
    let sender: RTPSender
    let parameters: RTPSender.Parameters
    let transport: PeerTransport
    /// Packet buffers: room for a frame's packets before paced sending.
    let slots: UnsafeMutableRawBufferPointer
    /// Each slot's packet length and payload length.
    let lengths: UnsafeMutableBufferPointer<(packet: Int, payload: Int)>
    static let slotCount = 256
    static let slotSize = 1500
    static let mtu = 1200

    var opus: OpusEncoder?
    var vp8: VP8Encoder?
    var opusPacketizer: OpusPacketizer
    var vp8Packetizer: VP8Packetizer
    let timestampBase: UInt32
    var firstMediaTimestamp: UInt64?
    var audioSamples: UInt64 = 0
    /// Raw audio pushed in lengths Opus does not take, cut into 20 ms frames.
    var chunker = AudioChunker()
    var black: VideoFrame?
    /// Video rate control (the congestion controller's share for video) and pacing.
    var rate = VideoRateControl()
    var pacing = PacingBudget()

    init(sender: RTPSender, parameters: RTPSender.Parameters, transport: PeerTransport) {
        self.sender = sender
        self.parameters = parameters
        self.transport = transport
        slots = .allocate(byteCount: Self.slotCount * Self.slotSize, alignment: 16)
        lengths = .allocate(capacity: Self.slotCount)
        lengths.initialize(repeating: (0, 0))
        let continuity = sender.continuity.withLock { $0 }
        timestampBase = continuity.nextTimestamp
        opusPacketizer = OpusPacketizer(
            ssrc: sender.ssrc,
            payloadType: parameters.payloadType,
            sequenceNumber: continuity.sequenceNumber
        )
        vp8Packetizer = VP8Packetizer(
            ssrc: sender.ssrc,
            payloadType: parameters.payloadType,
            sequenceNumber: continuity.sequenceNumber,
            pictureID: continuity.pictureID,
            mtu: Self.mtu
        )
    }

    deinit {
        slots.deallocate()
        lengths.deallocate()
    }

    func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: slots[index * Self.slotSize..<(index + 1) * Self.slotSize])
    }

    /// One video frame from the sending task (audio goes to ``sendAudio(_:enabled:)`` on the
    /// pushing thread). Frames that come before the transport is keyed are dropped uncounted
    /// (none could leave): the encoder's first frame, a keyframe, is the first to go out.
    func send(_ frame: MediaFrame, enabled: Bool) async {
        guard transport.isKeyed else { return }
        switch (frame, parameters.codec) {
        case (.video(let video), .vp8):
            await sendVideo(video, enabled: enabled)
        case (.encoded(var encoded), .vp8) where encoded.codec == .vp8:
            encoded.timestamp = rtpTimestamp(for: UInt64(encoded.timestamp))
            countCaptured(encoded)
            await sendVP8(encoded)
        default:
            return  // a frame of the other kind: not for this sender
        }
    }

    /// A pass-through frame: counted as captured, with its size if it says.
    private func countCaptured(_ encoded: EncodedFrame) {
        sender.counters.withLock {
            $0.framesCaptured += 1
            if let w = encoded.width, let h = encoded.height {
                $0.frameWidth = w
                $0.frameHeight = h
            }
        }
    }

    /// One audio frame (raw, encoded here, or Opus passed through), sent as one packet at
    /// once; dropped uncounted before the transport is keyed.
    func sendAudio(_ frame: MediaFrame, enabled: Bool) {
        guard transport.isKeyed else { return }
        switch (frame, parameters.codec) {
        case (.audio(let audio), .opus):
            // Any length: frames of an Opus length go straight to the encoder, others are cut
            // into 20 ms frames (the rest waits for the next push).
            guard (1...2).contains(audio.channels), audio.samples.count % audio.channels == 0 else {
                sender.counters.withLock { $0.audioFramesRejected += 1 }
                return
            }
            if !chunker.hasPartialFrame, OpusEncoder.frameSizes.contains(audio.samplesPerChannel) {
                encodeAudio(audio, enabled: enabled)
            } else {
                audio.samples.withUnsafeBufferPointer { samples in
                    chunker.append(samples, channels: audio.channels) { encodeAudio($0, enabled: enabled) }
                }
            }
        case (.encoded(var encoded), .opus) where encoded.codec == .opus:
            encoded.timestamp = rtpTimestamp(for: UInt64(encoded.timestamp))
            countCaptured(encoded)
            sendOpus(encoded, level: nil)
        default:
            return
        }
    }

    /// One raw audio frame of an Opus length: encoded (silence when disabled) and sent.
    private func encodeAudio(_ frame: AudioFrame, enabled: Bool) {
        var audio = frame
        if !enabled { audio.samples = [Int16](repeating: 0, count: audio.samples.count) }
        sender.counters.withLock {
            $0.framesCaptured += 1
            $0.audioLevel = AudioLevelMeter.rms(of: audio)
        }
        let bitrate = min(max(transport.congestion.targetBitrate(for: .audio), 6_000), 510_000)
        if opus == nil || opus?.configuration.channels != audio.channels {
            opus = try? OpusEncoder(
                configuration: OpusEncoderConfiguration(
                    channels: audio.channels,
                    bitrate: bitrate,
                    inbandFEC: parameters.recovery.inbandFEC
                )
            )
        } else if let current = opus, current.configuration.bitrate != bitrate {
            var configuration = current.configuration
            configuration.bitrate = bitrate
            try? current.apply(configuration)
        }
        guard let opus else { return }
        adaptToLoss(opus)
        let start = ContinuousClock.now
        guard var encoded = try? opus.encode(audio) else { return }
        let elapsed = ContinuousClock.now - start
        encoded.timestamp = timestampBase &+ UInt32(truncatingIfNeeded: audioSamples)
        audioSamples += UInt64(audio.samplesPerChannel)
        let level = AudioLevelMeter.audioLevel(of: audio)
        sender.counters.withLock {
            $0.framesEncoded += 1
            $0.totalEncodeTime += elapsed.seconds
            $0.targetBitrate = opus.configuration.bitrate
        }
        sendOpus(encoded, level: level)
    }

    /// One raw video frame: rate control, encoding, then paced sending.
    private func sendVideo(_ video: VideoFrame, enabled: Bool) async {
        var picture = video
        if !enabled {
            if black?.width != video.width || black?.height != video.height {
                black = VideoFrame(width: video.width, height: video.height)
            }
            black?.timestamp = video.timestamp
            picture = black ?? video
        }
        sender.counters.withLock {
            $0.framesCaptured += 1
            $0.captureWidth = video.width
            $0.captureHeight = video.height
        }
        let target = transport.congestion.targetBitrate(for: .video)
        // The encoder runs at the configured size, or the frame's: a source of another size
        // (a screen share after the camera) starts it over there, with a keyframe, rather than
        // being scaled to the first frame's size.
        let size = parameters.videoSize ?? VideoSize(width: video.width, height: video.height)
        if vp8 == nil || vp8?.configuration.width != size.width || vp8?.configuration.height != size.height {
            vp8 = try? VP8Encoder(
                configuration: VP8EncoderConfiguration(
                    width: size.width,
                    height: size.height,
                    targetBitrate: VideoRateControl.encoderBitrate(target)
                )
            )
        }
        guard let vp8 else { return }
        // The estimate sets the encoder's bitrate and frame rate; frames above the rate are skipped.
        guard rate.admit(video, target: target, encoder: vp8, maximumFrameRate: parameters.maxFrameRate) else { return }
        if sender.keyframeRequested.exchange(false, ordering: .relaxed) { vp8.requestKeyframe() }
        let start = ContinuousClock.now
        guard let encodedFrame = try? vp8.encode(picture), var encoded = Optional(encodedFrame) else { return }
        let elapsed = ContinuousClock.now - start
        encoded.timestamp = rtpTimestamp(for: video.timestamp)
        sender.counters.withLock {
            $0.framesEncoded += 1
            if encoded.isKeyframe { $0.keyFramesEncoded += 1 }
            $0.totalEncodeTime += elapsed.seconds
            $0.qpAverage = vp8.averageQP
            $0.frameWidth = vp8.configuration.width
            $0.frameHeight = vp8.configuration.height
            $0.targetBitrate = vp8.configuration.targetBitrate
        }
        await sendVP8(encoded)
    }

    /// The RTP timestamp of a frame whose media time is `timestamp` (ticks of the clock rate).
    func rtpTimestamp(for timestamp: UInt64) -> UInt32 {
        if firstMediaTimestamp == nil { firstMediaTimestamp = timestamp }
        return timestampBase &+ UInt32(truncatingIfNeeded: timestamp &- (firstMediaTimestamp ?? 0))
    }

    func sendOpus(_ frame: EncodedFrame, level: UInt8?) {
        let ids = parameters.extensions, mid = SDESMid(value: parameters.mid)
        let transport = self.transport
        let buffer = slot(0)
        let length: Int? = frame.data.withUnsafeBytes { payload in
            try? opusPacketizer.packetize(payload, timestamp: frame.timestamp, into: buffer) {
                (writer: inout RTPPacketWriter) throws(RTPError) in
                try Self.appendExtensions(&writer, ids: ids, mid: mid, transport: transport)
                if let id = ids.audioLevel, let level {
                    try writer.appendExtension(AudioLevel(voiceActivity: level < 127, level: level), id: id)
                }
            }
        }
        guard let length else { return }
        let next = opusPacketizer.sequenceNumber
        sender.continuity.withLock {
            $0.sequenceNumber = next
            $0.nextTimestamp = frame.timestamp &+ 960
        }
        transmit(slot: 0, length: length, payload: frame.data.count, timestamp: frame.timestamp)
        sender.counters.withLock {
            $0.framesSent += 1
            $0.encodedBytes += Int64(frame.data.count)
        }
    }

    func sendVP8(_ frame: EncodedFrame) async {
        let ids = parameters.extensions, mid = SDESMid(value: parameters.mid)
        let transport = self.transport, slots = self.slots, lengths = self.lengths
        // The packetizer writes each packet into the last slot; each is copied to its own.
        let scratch = slot(Self.slotCount - 1)
        var count = 0
        _ = frame.data.withUnsafeBytes { payload in
            try? vp8Packetizer.packetize(payload, timestamp: frame.timestamp, into: scratch) {
                (writer: inout RTPPacketWriter) throws(RTPError) in
                try Self.appendExtensions(&writer, ids: ids, mid: mid, transport: transport)
            } emit: { (packet: UnsafeRawBufferPointer) throws(RTPError) in
                guard count < Self.slotCount - 1 else { return }
                UnsafeMutableRawBufferPointer(
                    rebasing: slots[count * Self.slotSize..<count * Self.slotSize + packet.count]
                ).copyMemory(from: packet)
                let payloadLength = (try? RTPPacket(parsing: packet))?.payloadLength ?? packet.count
                lengths[count] = (packet.count, payloadLength)
                count += 1
            }
        }
        let (next, picture) = (vp8Packetizer.sequenceNumber, vp8Packetizer.pictureID)
        sender.continuity.withLock {
            $0.sequenceNumber = next
            $0.pictureID = picture
            $0.nextTimestamp = frame.timestamp &+ 3000
        }
        // Paced at 2.5 times the target: the sender sleeps when the budget is spent (at most
        // once per few milliseconds), never per packet.
        var bytes = 0
        for i in 0..<count { bytes += lengths[i].packet }
        pacing.startFrame(
            bytes: bytes,
            targetBitrate: transport.congestion.targetBitrate(for: .video),
            now: CongestionController.microseconds()
        )
        for i in 0..<count {
            let wait = pacing.wait(now: CongestionController.microseconds())
            if wait > 0 { try? await Task.sleep(for: .microseconds(wait)) }
            transmit(slot: i, length: lengths[i].packet, payload: lengths[i].payload, timestamp: frame.timestamp)
            pacing.sent(bytes: lengths[i].packet, now: CongestionController.microseconds())
        }
        sender.counters.withLock {
            $0.framesSent += 1
            $0.encodedBytes += Int64(frame.data.count)
        }
    }

    static func appendExtensions(
        _ writer: inout RTPPacketWriter,
        ids: RTPHeaderExtensionIDs,
        mid: SDESMid,
        transport: PeerTransport
    ) throws(RTPError) {
        if let id = ids.mid { try writer.appendExtension(mid, id: id) }
        if let id = ids.absSendTime { try writer.appendExtension(AbsSendTime(ntp: NTPTime.now()), id: id) }
        // Numbered by CongestionController.stamp at send time, in wire order.
        if let id = ids.transportSequenceNumber {
            try writer.appendExtension(TransportSequenceNumber(value: 0), id: id)
        }
    }

    func transmit(slot index: Int, length: Int, payload: Int, timestamp: UInt32) {
        let now = NTPTime.monotonicSeconds()
        remember(slot: index, length: length, at: now)
        guard transport.sendRTP(slot(index), length: length) else { return }
        sender.counters.withLock {
            $0.packetsSent += 1
            $0.bytesSent += Int64(payload)
            $0.headerBytesSent += Int64(length - payload)
            $0.lastRTPTimestamp = timestamp
            $0.lastSendTime = now
        }
    }
}
