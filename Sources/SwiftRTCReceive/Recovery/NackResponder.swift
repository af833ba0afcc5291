import SwiftRTCCore
import SwiftRTCRTP

/// The send side of generic NACK, as an interceptor-like unit: it keeps the packets a stream
/// sent in a ``PacketHistory`` (slots that grow to the packet size, then no allocation per packet) and answers a
/// NACK by resending the packets asked for: as RTX on the retransmission stream's own SSRC,
/// payload type and sequence numbers when RTX was negotiated (RFC 4588 §4), else as the
/// original packet again (RFC 4585 peers without RTX). A packet is resent at most once per
/// round-trip time (at least ``RemoteInputLimits/minResendInterval``, also before the RTT
/// is known), however often it is asked for. Used under one lock: packets are stored
/// by the sender (the pushing thread for audio, the sending task for video) and NACKs
/// answered on the transport thread.
///
/// What a peer's NACKs cost is bounded: one NACK resends at most
/// ``RemoteInputLimits/maxResendsPerNack`` packets, and all resends together stay within a
/// budget, a token bucket of the stream's bitrate (at least
/// ``RemoteInputLimits/minResendBitrate``) with ``RemoteInputLimits/resendBudgetWindow``
/// seconds of depth, as libwebrtc's retransmission rate limiter. What either refuses is
/// counted in ``refused``.
public final class NackResponder {
    /// The retransmission stream: payload type and SSRC (RFC 4588 session multiplexing).
    public struct RTX: Sendable, Hashable {
        /// The RTX payload type (`a=rtpmap:<pt> rtx/...` with `apt=` the media's).
        public var payloadType: UInt8
        /// The RTX SSRC (`a=ssrc-group:FID <media> <rtx>`).
        public var ssrc: UInt32
        /// A simulcast encoding's rid (RFC 8852): the original packets carry it as
        /// rtp-stream-id under `streamID`; resent, it travels as repaired-rtp-stream-id under
        /// `repairedStreamID` (§3.2), so that the peer learns the RTX SSRC's encoding and never
        /// takes it for the encoding itself.
        public var ridExtensions: (streamID: UInt8, repairedStreamID: UInt8)? {
            get { streamIDExtension.flatMap { id in repairedStreamIDExtension.map { (id, $0) } } }
            set {
                streamIDExtension = newValue?.streamID
                repairedStreamIDExtension = newValue?.repairedStreamID
            }
        }
        var streamIDExtension: UInt8?
        var repairedStreamIDExtension: UInt8?
        /// Creates the value from its fields.
        public init(
            payloadType: UInt8,
            ssrc: UInt32,
            ridExtensions: (streamID: UInt8, repairedStreamID: UInt8)? = nil
        ) {
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.ridExtensions = ridExtensions
        }
    }

    /// The sent packets.
    public let history: PacketHistory
    /// How resent packets travel: nil resends the original packets as they were.
    public let rtx: RTX?
    let scratch: UnsafeMutableRawBufferPointer
    /// Per history slot: which sequence number was resent last, and when.
    var resentSequence: [UInt16?]
    var resentAt: [Double]
    /// Packets resent (W3C outbound-rtp `retransmittedPacketsSent`).
    public private(set) var retransmittedPackets = 0
    /// Payload bytes of the resent packets (W3C `retransmittedBytesSent`).
    public private(set) var retransmittedBytes = 0
    /// Requested packets no longer kept, or not sent.
    public private(set) var unavailable = 0
    /// Requested packets refused by the budget or the limit per NACK.
    public private(set) var refused = 0
    /// The resend budget left, in bytes, as of ``budgetTime`` (nil: full, nothing spent yet).
    var budget = 0.0
    var budgetTime: Double?

    /// Keeps the last `capacity` packets of up to `slotSize` bytes.
    public init(rtx: RTX?, capacity: Int = 512, slotSize: Int = 1500) {
        self.rtx = rtx
        history = PacketHistory(
            capacity: capacity,
            slotSize: slotSize,
            rtxSequenceNumber: UInt16.random(in: 0...0x7FFF)
        )
        scratch = .allocate(byteCount: slotSize + 2, alignment: 16)
        resentSequence = Array(repeating: nil, count: history.slots.capacity)
        resentAt = Array(repeating: 0, count: history.slots.capacity)
    }

    deinit { scratch.deallocate() }

    /// Remembers a packet about to be sent (before SRTP protection).
    public func store(_ packet: UnsafeRawBufferPointer, at now: Double) {
        try? history.store(packet, sentAt: now)
    }

    /// Resends what `lost` asks for, each packet through `send` (the bytes to protect and send,
    /// in a scratch buffer reused for the next one; `send` returns whether it went out).
    /// Packets resent less than `roundTripTime` ago are not resent again. `bitrate` is the
    /// stream's (the congestion controller's target), in bits/s: the budget's rate.
    public func respond(
        to lost: [UInt16],
        now: Double,
        roundTripTime: Double?,
        bitrate: Int = 0,
        send: (UnsafeMutableRawBufferPointer, Int) -> Bool
    ) {
        refillBudget(now: now, bitrate: bitrate)
        let interval = max(roundTripTime ?? 0, RemoteInputLimits.minResendInterval)
        var resent = 0
        for (index, sequence) in lost.enumerated() {
            guard resent < RemoteInputLimits.maxResendsPerNack else {
                refused += lost.count - index
                break
            }
            guard let original = history.packet(sequence) else {
                unavailable += 1
                continue
            }
            let slot = history.slots.index(history.unwrapper.peek(sequence))
            if resentSequence[slot] == sequence, now - resentAt[slot] < interval { continue }
            guard budget >= Double(original.bytes.count + 2) else {
                refused += 1
                continue
            }
            let length: Int
            if let rtx {
                guard
                    let written = try? history.retransmission(
                        of: sequence,
                        rtxPayloadType: rtx.payloadType,
                        rtxSSRC: rtx.ssrc,
                        renamingExtension: rtx.ridExtensions.map { (from: $0.streamID, to: $0.repairedStreamID) },
                        into: scratch
                    ) ?? nil
                else { continue }
                length = written
            } else {
                guard original.bytes.count <= scratch.count else { continue }
                scratch.put(original.bytes, at: 0)
                length = original.bytes.count
            }
            let payload = original.payloadLength + (rtx == nil ? 0 : 2)
            guard send(scratch, length) else {
                unavailable += 1
                continue
            }
            resentSequence[slot] = sequence
            resentAt[slot] = now
            budget -= Double(length)
            resent += 1
            retransmittedPackets += 1
            retransmittedBytes += payload
        }
    }

    /// Refills the resend budget for the time since the last refill at the stream's rate
    /// (at least ``RemoteInputLimits/minResendBitrate``), up to the bytes of
    /// ``RemoteInputLimits/resendBudgetWindow`` at that rate (full the first time).
    private func refillBudget(now: Double, bitrate: Int) {
        let rate = Double(max(bitrate, RemoteInputLimits.minResendBitrate)) / 8
        let depth = rate * RemoteInputLimits.resendBudgetWindow
        if let budgetTime {
            if now > budgetTime { budget = min(depth, budget + rate * (now - budgetTime)) }
        } else {
            budget = depth
        }
        budgetTime = max(now, budgetTime ?? now)
    }
}
