import SwiftRTCCore
import SwiftRTCRTP

/// The receive path of one media stream: a ``JitterBuffer`` that orders packets, drops
/// duplicates and skips what stays missing, then the codec's depacketizer that turns packets
/// into whole frames. Frames with a missing packet are dropped (a VP8 receiver then asks for
/// a keyframe); gaps are counted, never waited on forever. Used from one thread.
///
/// ```swift
/// assembler.insert(datagram, arrival: now)
/// while let frame = assembler.nextFrame(now: now) { decoder.decode(frame) }
/// ```
public final class FrameAssembler {
    public let codec: EncodedFrame.Codec
    /// The buffer in front of the depacketizer (its counters: duplicates, late and lost packets).
    public let jitterBuffer: JitterBuffer
    var vp8 = VP8Depacketizer()
    /// Gaps reported by the jitter buffer (runs of missing packets given up on).
    public private(set) var gaps = 0
    /// VP8: whether the stream's first packet held so far does not begin a keyframe. Its
    /// beginning was lost (or is late): the receiver asks for a keyframe at once rather than
    /// after the jitter buffer's wait for earlier packets.
    public private(set) var startsWithoutKeyframe = false

    /// - Parameters:
    ///   - codec: what the stream carries.
    ///   - capacity: packets the jitter buffer holds at most.
    ///   - slotSize: the largest packet accepted.
    ///   - maximumWait: seconds to wait for a missing packet.
    ///   - minimumDelay: the least playout delay of the jitter buffer, in seconds.
    ///   - maximumDelay: the most playout delay, in seconds (0: frames leave as soon as complete).
    public init(
        codec: EncodedFrame.Codec,
        capacity: Int = 512,
        slotSize: Int = 1500,
        maximumWait: Double = 0.1,
        minimumDelay: Double = 0,
        maximumDelay: Double = 0
    ) {
        self.codec = codec
        jitterBuffer = JitterBuffer(
            capacity: capacity,
            slotSize: slotSize,
            maximumWait: maximumWait,
            clockRate: codec.clockRate,
            minimumDelay: minimumDelay,
            maximumDelay: maximumDelay
        )
    }

    /// Frames dropped because a packet was missing or malformed, or the frame too large.
    public var droppedFrames: Int { vp8.droppedFrames }
    /// Frames dropped for growing beyond ``RemoteInputLimits/maxEncodedVideoFrameBytes``.
    public var oversizedFrames: Int { vp8.oversizedFrames }

    /// Stores a received RTP packet (copied); a `retransmission` stays out of the jitter estimate.
    @discardableResult
    public func insert(
        _ bytes: UnsafeRawBufferPointer,
        arrival: Double,
        retransmission: Bool = false
    ) -> JitterBuffer.InsertResult {
        let result = jitterBuffer.insert(bytes, arrival: arrival, retransmission: retransmission)
        if codec == .vp8, result == .accepted, !jitterBuffer.started { noteStart(bytes) }
        return result
    }

    /// Before anything is delivered, the jitter buffer holds the first packets ``JitterBuffer/maximumWait``
    /// in case earlier ones come late. A VP8 stream needs nothing before a keyframe: when the
    /// packet at the start begins one, the start is fixed there and the frame leaves at once;
    /// otherwise ``startsWithoutKeyframe`` says so.
    func noteStart(_ bytes: UnsafeRawBufferPointer) {
        guard let packet = try? RTPPacket(parsing: bytes), jitterBuffer.isStart(packet.sequenceNumber) else { return }
        let payload = packet.payload
        if let (descriptor, length) = try? VP8PayloadDescriptor.parse(payload), descriptor.startsFrame,
            length <= payload.count,
            let header = VP8FrameHeader(parsing: payload.slice(length, payload.count - length)), header.isKeyframe
        {
            jitterBuffer.fixStart()
            startsWithoutKeyframe = false
        } else {
            startsWithoutKeyframe = true
        }
    }

    /// The next complete frame at time `now`, or nil while waiting.
    public func nextFrame(now: Double) -> EncodedFrame? {
        while let event = jitterBuffer.pop(now: now) {
            if let frame = handle(event) { return frame }
        }
        return nil
    }

    /// The next frame from what is stored, skipping whatever is still missing (end of stream).
    public func flush() -> EncodedFrame? {
        while let event = jitterBuffer.flush() {
            if let frame = handle(event) { return frame }
        }
        return nil
    }

    func handle(_ event: JitterBuffer.Event) -> EncodedFrame? {
        switch event {
        case .gap:
            gaps += 1
            vp8.reportGap()
            return nil
        case let .packet(packet):
            switch codec {
            case .opus: return OpusDepacketizer.frame(from: packet)
            case .vp8: return vp8.push(packet) ? vp8.makeFrame() : nil
            }
        }
    }
}
