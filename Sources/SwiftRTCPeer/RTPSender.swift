import SwiftRTCCodecs
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCReceive
import SwiftRTCSDP
import Synchronization

/// Sends one local track (W3C `RTCRtpSender`): encodes raw frames (Opus, VP8), packetizes them
/// with the negotiated header extensions (mid, abs-send-time, transport-wide sequence number,
/// audio level), and hands each packet to the transport, which protects it in place and sends
/// it. Audio is sent on the thread that pushes the frame into the track (a 20 ms frame is one
/// packet: no task hand-off per frame); video by a task that takes the track's frames, with
/// the packets of a frame paced in small bursts. Packet buffers are allocated once per sender.
///
/// A video sender with simulcast encodings (``PeerConnection/addTransceiver(_:direction:track:sendEncodings:)``)
/// sends the first (the highest resolution) itself and each other one through a sender of its
/// own (``simulcastSenders``): its own SSRC, encoder and share of the bitrate.
public final class RTPSender: Sendable {
    /// audio or video.
    public let kind: MediaKind
    /// The SSRC of the media stream.
    public let ssrc: UInt32
    /// The SSRC of retransmissions (RTX), for video.
    public let rtxSsrc: UInt32?
    /// The simulcast encoding this sender sends; nil without simulcast.
    public let encoding: RTPEncodingParameters?
    /// The senders of the other simulcast encodings, lower resolutions, in order.
    let layers: [RTPSender]
    /// Each simulcast encoding's sender, this one first; just this one without simulcast.
    public var simulcastSenders: [RTPSender] { [self] + layers }

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
        /// A simulcast encoding's rid, written in every packet (RTP stream id); nil without.
        var rid: String?
        /// Video: each side divided by this (a simulcast encoding's scale).
        var videoScale = 1.0
        /// The share of the video bitrate this stream takes (simulcast encodings split it).
        var bitrateShare = 1.0
        /// VP8 temporal layers (1, or 3 for a simulcast encoding, as libwebrtc sends them).
        var temporalLayers = 1
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
    /// A PLI or FIR came within the keyframe interval: served when it ends.
    let keyframeDeferred = Atomic<Bool>(false)
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

    init(
        kind: MediaKind,
        track: MediaStreamTrack?,
        ssrc: UInt32,
        rtxSsrc: UInt32?,
        encoding: RTPEncodingParameters? = nil,
        layers: [RTPSender] = []
    ) {
        self.kind = kind
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
        self.encoding = encoding
        self.layers = layers
        currentTrack = Mutex(track)
    }

    /// The track being sent, if any.
    public var track: MediaStreamTrack? { currentTrack.withLock { $0 } }

    /// Sends `track` from now on (W3C `replaceTrack`), without renegotiation; every simulcast
    /// encoding with it.
    public func replaceTrack(_ track: MediaStreamTrack?) {
        for layer in layers { layer.replaceTrack(track) }
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
            audio.withLock { $0.pipeline?.push(frame, enabled: enabled) }
        }
        state.withLock { state in
            state.task?.cancel()
            state = (parameters, transport, nil)
        }
        let target = transport.congestion.targetBitrate(for: kind)
        counters.withLock { if $0.targetBitrate == 0 { $0.targetBitrate = target } }
    }

    /// Waits until the video task has sent what its track still held (once the track has
    /// stopped, its frames end there), at most until `deadline`; says whether it finished.
    /// Audio is sent as it is pushed: nothing waits.
    func drained(by deadline: ContinuousClock.Instant) async -> Bool {
        guard let task = state.withLock({ $0.task }) else { return true }
        // The video task is not cancelled here, only no longer waited for.
        return await withDeadline(deadline) { await task.value } != nil
    }

    /// Stops sending: this encoding, and the other simulcast encodings with `includingLayers`.
    func stop(includingLayers: Bool = true) {
        if includingLayers { for layer in layers { layer.stop() } }
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
