import Glibc
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCRTP

/// The packetize → send loop of one sender, for any codec: its codec's ``EncoderPipeline``
/// encodes each frame and writes its packets into this pipeline's slots with the negotiated
/// header extensions; the pipeline sends them (audio at once, on the thread that pushed the
/// frame; video from the sender's task, paced). Packet buffers are allocated once: one for
/// audio, a video frame's worth for video.
final class SendPipeline {
    let sender: RTPSender
    let parameters: RTPSender.Parameters
    let transport: PeerTransport
    /// The codec's encoding and packetizing (``CodecPipelines.swift`` picks it).
    private let encoder: any EncoderPipeline
    /// Packet buffers: room for a frame's packets before paced sending.
    let slots: UnsafeMutableRawBufferPointer
    /// Each slot's packet: its length, its payload's, and its RTP timestamp.
    private let packets: UnsafeMutableBufferPointer<(length: Int, payload: Int, timestamp: UInt32)>
    /// The protected packets of the batch being sent, and the slot of each.
    private let batch: UnsafeMutableBufferPointer<iovec>
    private let batchSlots: UnsafeMutableBufferPointer<Int>
    /// Slots: a video frame's packets (up to 256, the last the packetizer's scratch); an audio
    /// frame is one packet, sent as it is written, in one slot.
    let slotCount: Int
    static let videoSlotCount = 256
    static let slotSize = 1500
    static let mtu = 1200

    /// Where the stream's first frame starts in RTP time (continuing the last pipeline's).
    let timestampBase: UInt32
    private var firstMediaTimestamp: UInt64?
    /// Where the writer put the transport-wide sequence number (the same for every packet of
    /// the stream: the extensions are fixed by the negotiation).
    private var transportSequenceOffset: Int?
    /// Video pacing of a frame's packets.
    private var pacing = PacingBudget()
    private let mid: SDESMid
    /// A simulcast encoding's rid (RTP stream id), written in every packet.
    private let rid: RTPStreamID?

    init(sender: RTPSender, parameters: RTPSender.Parameters, transport: PeerTransport) {
        self.sender = sender
        self.parameters = parameters
        self.transport = transport
        slotCount = parameters.codec == .vp8 ? Self.videoSlotCount : 1
        slots = .allocate(byteCount: slotCount * Self.slotSize, alignment: 16)
        packets = .allocate(capacity: slotCount)
        packets.initialize(repeating: (0, 0, 0))
        batch = .allocate(capacity: slotCount)
        batchSlots = .allocate(capacity: slotCount)
        let continuity = sender.continuity.withLock { $0 }
        timestampBase = continuity.nextTimestamp
        mid = SDESMid(value: parameters.mid)
        rid = parameters.rid.map { RTPStreamID(value: $0) }
        encoder = parameters.codec.makeEncoderPipeline(
            ssrc: sender.ssrc,
            payloadType: parameters.payloadType,
            continuity: continuity
        )
    }

    deinit {
        slots.deallocate()
        packets.deallocate()
        batch.deallocate()
        batchSlots.deallocate()
    }

    func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: slots[index * Self.slotSize..<(index + 1) * Self.slotSize])
    }

    // MARK: Frames in

    /// One audio frame, on the thread that pushed it: the encoder pipeline sends each packet
    /// as it writes it. Dropped uncounted before the transport is keyed.
    func push(_ frame: MediaFrame, enabled: Bool) {
        guard transport.isKeyed else { return }
        let count = encoder.send(frame, enabled: enabled, through: self)
        transmit(slots: 0..<count)
    }

    /// One video frame from the sender's task: its packets are paced. Frames that come before
    /// the transport is keyed are dropped uncounted (none could leave): the encoder's first
    /// frame, a keyframe, is the first to go out.
    func send(_ frame: MediaFrame, enabled: Bool) async {
        guard transport.isKeyed else { return }
        let count = encoder.send(frame, enabled: enabled, through: self)
        guard count > 0 else { return }
        // Paced at 2.5 times the target: the sender sleeps when the budget is spent (at most
        // once per few milliseconds), never per packet.
        var bytes = 0
        for i in 0..<count { bytes += packets[i].length }
        pacing.startFrame(
            bytes: bytes,
            targetBitrate: targetBitrate,
            now: CongestionController.microseconds()
        )
        // The packets the budget lets go at once leave in one batch (one system call).
        var first = 0
        while first < count {
            let wait = pacing.wait(now: CongestionController.microseconds())
            if wait > 0 { try? await Task.sleep(for: .microseconds(wait)) }
            var end = first
            repeat {
                pacing.sent(bytes: packets[end].length, now: CongestionController.microseconds())
                end += 1
            } while end < count && pacing.wait(now: CongestionController.microseconds()) == 0
            transmit(slots: first..<end)
            first = end
        }
    }

    // MARK: For the codec's encoder pipeline

    /// The RTP timestamp of a frame whose media time is `timestamp` (ticks of the clock rate).
    func rtpTimestamp(for timestamp: UInt64) -> UInt32 {
        if firstMediaTimestamp == nil { firstMediaTimestamp = timestamp }
        return timestampBase &+ UInt32(truncatingIfNeeded: timestamp &- (firstMediaTimestamp ?? 0))
    }

    /// A frame passed through encoded: counted as captured, with its size if it says.
    func countCaptured(_ encoded: EncodedFrame) {
        sender.counters.withLock {
            $0.framesCaptured += 1
            if let w = encoded.width, let h = encoded.height {
                $0.frameWidth = w
                $0.frameHeight = h
            }
        }
    }

    /// The bitrate this stream may use now: its share (``RTPSender/Parameters/bitrateShare``)
    /// of the congestion controller's target for its kind.
    var targetBitrate: Int {
        let target = transport.congestion.targetBitrate(for: sender.kind)
        return parameters.bitrateShare >= 1 ? target : Int(Double(target) * parameters.bitrateShare)
    }

    /// Writes the negotiated header extensions every packet carries: mid, a simulcast
    /// encoding's rid, abs-send-time and the transport-wide sequence number (0 here: numbered at send time, in wire order).
    func writeExtensions(_ writer: inout RTPPacketWriter) throws(RTPError) {
        let ids = parameters.extensions
        if let id = ids.mid { try writer.appendExtension(mid, id: id) }
        if let rid, let id = ids.rid { try writer.appendExtension(rid, id: id) }
        if let id = ids.absSendTime { try writer.appendExtension(AbsSendTime(ntp: NTPTime.now()), id: id) }
        if let id = ids.transportSequenceNumber {
            transportSequenceOffset = try writer.appendExtension(TransportSequenceNumber(value: 0), id: id)
        }
    }

    /// Notes the packet just written into slot `index` (`header`: its header's length, as its
    /// writer reported) for sending.
    func written(slot index: Int, length: Int, header: Int, timestamp: UInt32) {
        packets[index] = (length, length - header, timestamp)
    }

    /// A frame's packets are written: counted as sent, and the stream's position kept for
    /// the next pipeline.
    func frameWritten(bytes: Int, continuity update: (inout RTPSender.Continuity) -> Void) {
        sender.continuity.withLock { update(&$0) }
        sender.counters.withLock {
            $0.framesSent += 1
            $0.encodedBytes += Int64(bytes)
        }
    }

    // MARK: Out

    /// Sends the packets written into `slots` (each kept for NACKs first) in one batch, and
    /// counts those that went out.
    func transmit(slots: Range<Int>) {
        let now = NTPTime.monotonicSeconds()
        var ready = 0
        for index in slots {
            let length = packets[index].length
            remember(slot: index, length: length, at: now)
            guard
                let protected = transport.protectRTP(
                    slot(index),
                    length: length,
                    transportSequenceAt: transportSequenceOffset
                )
            else { continue }
            batch[ready] = iovec(iov_base: slot(index).baseAddress, iov_len: protected)
            batchSlots[ready] = index
            ready += 1
        }
        let sent = transport.send(protectedBatch: UnsafeBufferPointer(rebasing: batch[..<ready]))
        guard sent > 0 else { return }
        sender.counters.withLock { counters in
            for slot in batchSlots[..<sent] {
                let packet = packets[slot]
                counters.packetsSent += 1
                counters.bytesSent += Int64(packet.payload)
                counters.headerBytesSent += Int64(packet.length - packet.payload)
                counters.lastRTPTimestamp = packet.timestamp
            }
            counters.lastSendTime = now
        }
    }
}
