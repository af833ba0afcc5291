import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive
import SwiftRTCSDP

/// What the negotiation allows for repairing a received stream and asking for keyframes.
struct RecoveryParameters: Sendable, Hashable {
    /// `a=rtcp-fb:<pt> nack`: ask for lost packets.
    var nack = false
    /// `nack pli` and `ccm fir`: how to ask for a keyframe.
    var pli = false
    var fir = false
    /// The RTX payload type whose `apt=` is the codec's (RFC 4588), if negotiated.
    var rtxPayloadType: UInt8?
    /// The SSRC this side's feedback is sent from.
    var localSSRC: UInt32 = 1
    /// The codec's in-band FEC (`useinbandfec=1`, Opus).
    var inbandFEC = false
}

/// The receive side's loss recovery, on the transport thread under the receiver's lock: RTX
/// unwrapping (RFC 4588) into a buffer allocated once, the ``NackRequester`` and the
/// ``KeyframeRequester`` (PLI/FIR).
struct ReceiveRecovery {
    var parameters = RecoveryParameters()
    var nack: NackRequester?
    var keyframes = KeyframeRequester(senderSSRC: 1, pli: false, fir: false)
    /// Where an RTX packet's original is rebuilt (allocated once RTX is negotiated, kept).
    var unwrapBuffer: PacketBuffer?
    /// Packets repaired by RTX (W3C inbound-rtp `retransmittedPacketsReceived`), their payload
    /// bytes, and RTX packets that could not be unwrapped (padding-only probes, no media SSRC).
    var retransmittedPackets: Int64 = 0
    var retransmittedBytes: Int64 = 0
    var rtxDiscarded: Int64 = 0
    /// Retransmissions of packets already received, delivered or given up (not counted as received).
    var retransmissionsUnused: Int64 = 0
    /// The newest media sequence number received (not repaired), and RTX packets dropped for
    /// an original sequence number far from it (or before any media).
    var newestSequence: UInt16?
    var rtxOutOfWindow: Int64 = 0
    /// Limit hits of the NACK and keyframe requesters replaced by a new negotiation.
    var retiredNackRestarts: Int64 = 0
    var retiredKeyframesRateLimited: Int64 = 0
    /// Video: the frame assembler's gap count last seen, and whether frames were lost since
    /// the last keyframe (delta frames after a loss reference what never came: they are not
    /// decodable, as in libwebrtc's frame buffer, and are held back until a keyframe).
    var gapsSeen = 0
    var waitingForKeyframe = false
    /// Delta frames held back while waiting for a keyframe.
    var framesUndecodable: Int64 = 0

    /// The frame assembler for a stream: an adaptive playout delay (jitter buffer) for both
    /// kinds; video waits long enough for a lost packet to come again when NACK is on.
    static func makeAssembler(_ parameters: RTPReceiver.Parameters) -> FrameAssembler {
        switch parameters.codec {
        case .opus:
            FrameAssembler(codec: .opus, capacity: 128, maximumWait: 0.02, minimumDelay: 0.02, maximumDelay: 0.5)
        case .vp8:
            FrameAssembler(
                codec: .vp8,
                maximumWait: parameters.recovery.nack ? 0.25 : 0.1,
                minimumDelay: 0,
                maximumDelay: 0.5
            )
        }
    }

    /// Takes the negotiated parameters; keeps the counters.
    mutating func configure(_ parameters: RecoveryParameters) {
        retiredNackRestarts += Int64(nack?.jumpsRestarted ?? 0)
        retiredKeyframesRateLimited += Int64(keyframes.rateLimited)
        self.parameters = parameters
        nack = parameters.nack ? NackRequester(senderSSRC: parameters.localSSRC) : nil
        keyframes = KeyframeRequester(senderSSRC: parameters.localSSRC, pli: parameters.pli, fir: parameters.fir)
        if parameters.rtxPayloadType != nil, unwrapBuffer == nil {
            unwrapBuffer = PacketBuffer()
        }
    }

    /// The original packet inside an RTX packet of the stream (a view into ``unwrapBuffer``,
    /// valid until the next one), or nil when `packet` is not RTX of this stream. The
    /// original sequence number is the peer's word: one more than
    /// ``RemoteInputLimits/maxRetransmissionLead`` ahead of the newest media packet, or more
    /// than ``RemoteInputLimits/maxNackAge`` behind it (or any before media came), would
    /// move the jitter buffer and the NACK list where no media is: dropped and counted.
    mutating func unwrap(_ packet: RTPPacket, parameters: RTPReceiver.Parameters, mediaSSRC: UInt32?) -> RTPPacket? {
        guard let rtx = self.parameters.rtxPayloadType, packet.payloadType == rtx else { return nil }
        if let original = RTXPacket.originalSequenceNumber(of: packet) {
            guard let newest = newestSequence,
                (-RemoteInputLimits.maxNackAge...RemoteInputLimits.maxRetransmissionLead)
                    .contains(SequenceNumber.distance(from: newest, to: original))
            else {
                rtxOutOfWindow += 1
                return nil
            }
        }
        guard let mediaSSRC, let buffer = unwrapBuffer?.bytes,
            let length = try? RTXPacket.unwrap(
                packet,
                originalPayloadType: parameters.payloadType,
                originalSSRC: mediaSSRC,
                into: buffer
            ),
            let original = try? RTPPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
        else {
            rtxDiscarded += 1
            return nil
        }
        retransmittedPackets += 1
        retransmittedBytes += Int64(original.payloadLength)
        return original
    }

    /// Notes gaps the assembler gave up on since the last call (video): true when there are
    /// new ones, and from then on delta frames wait for a keyframe.
    mutating func noteGaps(_ assembler: FrameAssembler, kind: MediaKind) -> Bool {
        guard kind == .video, assembler.gaps != gapsSeen else { return false }
        gapsSeen = assembler.gaps
        waitingForKeyframe = true
        return true
    }

    /// Whether `frame` can be decoded: not a delta frame after a loss (until a keyframe comes).
    mutating func decodable(_ frame: EncodedFrame, assembler: FrameAssembler, kind: MediaKind) -> Bool {
        _ = noteGaps(assembler, kind: kind)
        guard waitingForKeyframe else { return true }
        if frame.isKeyframe {
            waitingForKeyframe = false
            return true
        }
        framesUndecodable += 1
        return false
    }

    /// Notes a received packet (media, or a `retransmission` unwrapped from RTX) for NACK
    /// bookkeeping and the RTX window.
    mutating func received(_ packet: RTPPacket, retransmission: Bool, at now: Double) {
        if !retransmission, newestSequence.map({ SequenceNumber.isNewer(packet.sequenceNumber, than: $0) }) ?? true {
            newestSequence = packet.sequenceNumber
        }
        nack?.received(sequenceNumber: packet.sequenceNumber, ssrc: packet.ssrc, at: now)
    }

    /// The feedback due at `now`: a NACK for missing packets, a PLI or FIR when a keyframe is
    /// `needed` (rate limited; `sentKeyframeRequest` says whether one went out).
    mutating func feedback(
        now: Double,
        roundTripTime: Double?,
        keyframeNeeded: Bool,
        mediaSSRC: UInt32?,
        into packets: inout [RTCPPacket]
    ) -> (sentKeyframeRequest: Bool, gaveUp: Bool) {
        var gaveUp = false
        if nack != nil {
            nack?.roundTripTime = roundTripTime
            if let request = nack?.poll(now: now) { packets.append(.nack(request)) }
            gaveUp = nack?.takeAbandoned() ?? false
        }
        guard keyframeNeeded || gaveUp, let mediaSSRC,
            let request = keyframes.request(mediaSSRC: mediaSSRC, now: now, roundTripTime: roundTripTime)
        else {
            return (false, gaveUp)
        }
        packets.append(request)
        return (true, gaveUp)
    }
}

/// One packet's worth of bytes, allocated once and freed with its owner.
final class PacketBuffer {
    let bytes: UnsafeMutableRawBufferPointer
    init(size: Int = 1500) { bytes = .allocate(byteCount: size, alignment: 16) }
    deinit { bytes.deallocate() }
}

extension RTPReceiver {
    /// Called on the feedback timer: releases frames due for playout, and returns the RTCP
    /// feedback to send now (NACK, PLI/FIR). With `compoundCNAME` (the peer did not offer
    /// `a=rtcp-rsize`), feedback goes in a compound packet (RFC 4585 §3.1): an RR from the
    /// feedback's SSRC with this stream's report block first, an SDES CNAME last. Without it
    /// a peer such as Janus cannot tell which stream a PLI is about and drops it.
    func feedback(now: Double, roundTripTime: Double?, compoundCNAME: [UInt8]?) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        path.withLock { path in
            guard path.parameters != nil else { return }
            defer {
                if let compoundCNAME, !packets.isEmpty {
                    let ssrc = path.recovery.parameters.localSSRC
                    let block = path.receptionReport(now: now, startsInterval: false)
                    packets.insert(
                        .receiverReport(ReceiverReport(ssrc: ssrc, reports: block.map { [$0] } ?? [])),
                        at: 0
                    )
                    packets.append(
                        .sourceDescription(
                            SourceDescription(chunks: [
                                SourceDescription.Chunk(
                                    source: ssrc,
                                    items: [
                                        SourceDescription.Item(type: SourceDescription.Item.cname, text: compoundCNAME)
                                    ]
                                )
                            ])
                        )
                    )
                }
            }
            release(now: now, path: &path)
            guard kind == .video else {
                _ = path.recovery.feedback(
                    now: now,
                    roundTripTime: roundTripTime,
                    keyframeNeeded: false,
                    mediaSSRC: path.remoteSSRC,
                    into: &packets
                )
                return
            }
            let needed = keyframeNeeded.load(ordering: .relaxed)
            let result = path.recovery.feedback(
                now: now,
                roundTripTime: roundTripTime,
                keyframeNeeded: needed,
                mediaSSRC: path.remoteSSRC,
                into: &packets
            )
            if result.sentKeyframeRequest {
                keyframeNeeded.store(false, ordering: .relaxed)
            } else if result.gaveUp {
                keyframeNeeded.store(true, ordering: .relaxed)
            }
        }
        return packets
    }
}

/// Gaps between decoded video frames (W3C inbound-rtp freezes): a freeze is a gap longer than
/// three times the average gap and longer than the average plus 150 ms.
struct FreezeStatistics: Sendable {
    var lastDecoded: Double?
    var averageGap: Double?
    /// W3C `freezeCount` and `totalFreezesDuration` (seconds).
    var freezeCount: Int64 = 0
    var totalFreezesDuration: Double = 0
    /// The longest gap between two decoded frames (seconds), freeze or not.
    var maximumGap: Double = 0

    /// A frame was decoded at `now` (seconds, monotonic).
    mutating func decoded(at now: Double) {
        defer { lastDecoded = now }
        guard let last = lastDecoded else { return }
        let gap = now - last
        maximumGap = max(maximumGap, gap)
        if let average = averageGap, gap > max(3 * average, average + 0.15) {
            freezeCount += 1
            totalFreezesDuration += gap
        }
        // The average over about the last 30 frames.
        averageGap = averageGap.map { $0 + (gap - $0) / 30 } ?? gap
    }
}
