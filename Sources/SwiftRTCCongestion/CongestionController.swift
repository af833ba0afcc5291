import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// Congestion control of one transport (every stream of the BUNDLE): the send-side estimate
/// from transport-cc feedback (GCC), the receive side's feedback (transport-cc, or REMB for
/// peers that negotiated `goog-remb` only), and how the estimate is shared between audio and
/// video within the caps.
///
/// Data plane (transport thread, or a sender's task): ``stamp(_:length:)`` writes the
/// transport-wide sequence number into each outgoing packet at the moment it is sent and
/// records its send time; ``received(_:arrival:)`` records arrivals. Neither allocates.
/// Feedback parsing runs on the transport thread; feedback is built on the feedback ticker's
/// thread when its ``FeedbackInterval`` says (every 100 ms with video, 250 ms with audio alone).
package final class CongestionController: Sendable {
    /// What negotiation fixed.
    package struct Setup: Sendable, Hashable {
        /// The transport-wide sequence number extension's id (a=extmap), when negotiated.
        package var transportSequenceID: UInt8?
        /// The abs-send-time extension's id, when negotiated (for the REMB estimate).
        package var absSendTimeID: UInt8?
        /// Whether the peer negotiated transport-cc feedback (we send and expect it).
        package var transportFeedback = false
        /// Whether the peer negotiated goog-remb (and not transport-cc): we send REMB.
        package var remb = false

        package init(
            transportSequenceID: UInt8? = nil,
            absSendTimeID: UInt8? = nil,
            transportFeedback: Bool = false,
            remb: Bool = false
        ) {
            self.transportSequenceID = transportSequenceID
            self.absSendTimeID = absSendTimeID
            self.transportFeedback = transportFeedback
            self.remb = remb
        }
    }

    /// Caps in bits/s (nil: none): configured, and from the remote description.
    package struct Caps: Sendable, Hashable {
        package var audio: Int?
        package var video: Int?
        /// A session-level total (remote `b=AS` at session level).
        package var total: Int?

        package init(audio: Int? = nil, video: Int? = nil, total: Int? = nil) {
            self.audio = audio
            self.video = video
            self.total = total
        }
    }

    private struct State {
        var setup = Setup()
        var caps = Caps()
        var estimator = SendSideBandwidthEstimator()
        var recorder = TransportFeedbackRecorder()
        var receiveEstimator = ReceiveSideBandwidthEstimator()
        var feedbackInterval = FeedbackInterval()
        var mediaSSRC: UInt32 = 0
    }

    private let state = Mutex(State())
    /// The shares of the estimate, read by the senders per frame.
    private let shares = Mutex(
        BitrateAllocation(
            target: SendSideBandwidthEstimator.defaultStartBitrate,
            audioBitrate: CongestionController.audioBitrate,
            audioCap: nil,
            videoCap: nil
        )
    )
    private let transportSequence = Atomic<UInt16>(UInt16.random(in: 0...0x7FFF))
    /// The transport-wide sequence number extension's id (0: not negotiated), read by
    /// ``stamp(_:length:)`` without the lock.
    private let transportSequenceID = Atomic<UInt8>(0)
    /// The estimate (bits/s) for stats.
    private let estimate = Atomic<Int>(SendSideBandwidthEstimator.defaultStartBitrate)

    /// Opus's bitrate when uncapped.
    package static let audioBitrate = 32_000
    /// Where limits hit on remote input are counted.
    private let limitHits: LimitHits

    /// A controller counting the limits its remote input hits in `limitHits`.
    package init(limitHits: LimitHits = LimitHits()) {
        self.limitHits = limitHits
    }

    /// Sets what negotiation fixed and the caps.
    package func configure(_ setup: Setup, caps: Caps) {
        transportSequenceID.store(setup.transportSequenceID ?? 0, ordering: .relaxed)
        state.withLock { state in
            state.setup = setup
            state.caps = caps
            // Caps are within 1...maxBitrate (PeerConnection.bandwidthCaps); the sum cannot overflow.
            let sum =
                (caps.audio ?? Self.audioBitrate) + (caps.video ?? SendSideBandwidthEstimator.defaultMaximumBitrate)
            var maximum = caps.video == nil ? SendSideBandwidthEstimator.defaultMaximumBitrate + Self.audioBitrate : sum
            if let total = caps.total { maximum = min(maximum, total) }
            state.estimator.maximumBitrate = maximum
        }
        allocate()
    }

    /// The send-side estimate for all media (bits/s): W3C `availableOutgoingBitrate`.
    package var availableOutgoingBitrate: Int { estimate.load(ordering: .relaxed) }
    /// The share of the estimate for `kind` (bits/s).
    package func targetBitrate(for kind: MediaKind) -> Int {
        shares.withLock { kind == .audio ? $0.audio : $0.video }
    }

    // MARK: Data plane

    /// Writes the next transport-wide sequence number into the RTP packet `buffer[..<length]`
    /// (if it carries the extension) and records its send time and size. Called just before
    /// the packet is protected and sent, so the numbers follow the order on the wire.
    ///
    /// `offset` is where the extension's two bytes are, as the packet's writer reported
    /// (``RTPPacketWriter/appendExtension(_:id:)``): a packet is not parsed again on the send
    /// path. Without it (a resent packet from the history), the packet is parsed to find them.
    package func stamp(_ buffer: UnsafeMutableRawBufferPointer, length: Int, transportSequenceAt offset: Int? = nil) {
        let id = transportSequenceID.load(ordering: .relaxed)
        guard id != 0 else { return }
        let start: Int
        if let offset {
            guard offset >= 12, offset + 2 <= length else { return }
            start = offset
        } else {
            guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length])),
                let data = packet.extensionData(id: id), data.count == 2,
                let dataStart = data.baseAddress, let base = buffer.baseAddress
            else { return }
            start = dataStart - UnsafeRawPointer(base)
        }
        let sequence = transportSequence.wrappingAdd(1, ordering: .relaxed).oldValue
        TransportSequenceNumber(value: sequence).encode(
            into: UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + 2])
        )
        let now = Self.microseconds()
        state.withLock { $0.estimator.packetSent(sequenceNumber: sequence, size: length, sendTime: now) }
    }

    /// Records a received RTP packet's transport-wide sequence number and (for REMB) its
    /// abs-send-time and size.
    package func received(_ packet: RTPPacket, arrival: Double) {
        let now = Int64(arrival * 1e6)
        state.withLock { state in
            state.feedbackInterval.received(bytes: packet.bytes.count, at: arrival)
            if state.setup.transportFeedback, let id = state.setup.transportSequenceID,
                let sequence = (try? packet.extensionValue(TransportSequenceNumber.self, id: id)) ?? nil
            {
                state.recorder.record(sequenceNumber: sequence.value, arrival: now)
                if state.mediaSSRC == 0 { state.mediaSSRC = packet.ssrc }
            }
            if state.setup.remb {
                let abs = state.setup.absSendTimeID.flatMap { id in
                    (try? packet.extensionValue(AbsSendTime.self, id: id)) ?? nil
                }?.value
                let before = state.receiveEstimator.sendTimeJumps
                state.receiveEstimator.packetReceived(absSendTime: abs, arrival: now, size: packet.bytes.count)
                if state.receiveEstimator.sendTimeJumps != before { limitHits.hit(.feedbackTimeJump) }
                if state.mediaSSRC == 0 { state.mediaSSRC = packet.ssrc }
            }
        }
    }

    /// Transport-cc feedback from the peer.
    package func received(_ feedback: TransportLayerCC) {
        let now = Self.microseconds()
        let jumped = state.withLock { state in
            let before = state.estimator.referenceTimeJumps
            state.estimator.received(feedback, now: now)
            return state.estimator.referenceTimeJumps != before
        }
        if jumped { limitHits.hit(.feedbackTimeJump) }
        allocate()
    }

    /// A REMB from the peer: an upper bound.
    package func received(_ remb: ReceiverEstimatedMaximumBitrate) {
        if remb.bitrate > UInt64(RemoteInputLimits.maxBitrate) { limitHits.hit(.bitrate) }
        state.withLock { $0.estimator.receivedREMB(bitrate: remb.bitrate) }
        allocate()
    }

    /// A report block's fraction lost (0...1) and the round-trip time, if measured (within
    /// 0...``RemoteInputLimits/maxRoundTripTime``: the caller drops longer ones).
    package func receivedReport(fractionLost: Double, roundTripTime: Double?) {
        let now = Self.microseconds()
        state.withLock { state in
            if let roundTripTime { state.estimator.roundTripTime = Int64(roundTripTime * 1e6) }
            state.estimator.receivedLossReport(fractionLost: fractionLost, now: now)
        }
        allocate()
    }

    // MARK: Control plane

    /// The feedback due at `now` (seconds, monotonic), once per ``FeedbackInterval``:
    /// transport-cc packets about what arrived since the last feedback, and a REMB when one
    /// is due; none between. `senderSSRC` is one of ours.
    package func makeFeedback(senderSSRC: UInt32, now: Double) -> [RTCPPacket] {
        state.withLock { state in
            guard state.feedbackInterval.due(now: now) else { return [] }
            var packets: [RTCPPacket] = []
            if state.setup.transportFeedback {
                while packets.count < 4,
                    let feedback = state.recorder.makeFeedback(senderSSRC: senderSSRC, mediaSSRC: state.mediaSSRC)
                {
                    packets.append(.transportFeedback(feedback))
                }
            }
            if state.setup.remb, state.mediaSSRC != 0,
                let bitrate = state.receiveEstimator.update(
                    roundTripTime: state.estimator.roundTripTime,
                    now: Int64(now * 1e6)
                )
            {
                packets.append(
                    .remb(
                        ReceiverEstimatedMaximumBitrate(
                            senderSSRC: senderSSRC,
                            bitrate: UInt64(bitrate),
                            ssrcs: [state.mediaSSRC]
                        )
                    )
                )
            }
            return packets
        }
    }

    /// Shares the estimate between audio and video.
    private func allocate() {
        let (target, caps) = state.withLock { ($0.estimator.targetBitrate, $0.caps) }
        estimate.store(target, ordering: .relaxed)
        let allocation = BitrateAllocation(
            target: target,
            audioBitrate: Self.audioBitrate,
            audioCap: caps.audio,
            videoCap: caps.video
        )
        shares.withLock { $0 = allocation }
    }

    package static func microseconds() -> Int64 { Int64(NTPTime.monotonicSeconds() * 1e6) }
}
