import SwiftRTCCodecs
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive

/// A remote stream's RTP through the receive path as `RTPReceiver` runs it (internal to
/// SwiftRTCPeer, so its public parts are put together here the same way): RTX unwrapping,
/// `ReceiveStatistics`, the `NackRequester`, the `FrameAssembler` (jitter buffer and VP8
/// depacketizer, or Opus), the decoders on what assembles, the `KeyframeRequester`; beside
/// it the receive side's congestion feedback (`TransportFeedbackRecorder` from transport-wide
/// sequence numbers, `ReceiveSideBandwidthEstimator` from abs-send-time).
///
/// Input: one flags byte (bit 0: VP8, else Opus; bit 1: NACK negotiated; bit 2: FIR rather
/// than PLI; bit 3: RTX negotiated), then datagrams as
/// `[milliseconds since the last one: u8, 255 = 10 s][length: u16][RTP packet]`. Media uses
/// payload type 96, RTX 97; extension id 2 is abs-send-time and 3 the transport-wide
/// sequence number (as Chrome numbers them). Every 20 ms of input time the feedback a receiver sends is made, and
/// must write and parse back.
public func fuzzReceiver(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let flags = input.u8()
    let codec: EncodedFrame.Codec = flags & 1 != 0 ? .vp8 : .opus
    let nackOn = flags & 2 != 0, rtxOn = flags & 8 != 0
    let assembler =
        codec == .opus
        ? FrameAssembler(codec: .opus, capacity: 128, maximumWait: 0.02, minimumDelay: 0.02, maximumDelay: 0.5)
        : FrameAssembler(codec: .vp8, maximumWait: nackOn ? 0.25 : 0.1, minimumDelay: 0, maximumDelay: 0.5)
    var statistics: ReceiveStatistics?
    var nack = nackOn ? NackRequester(senderSSRC: 1) : nil
    var keyframes = KeyframeRequester(senderSSRC: 1, pli: flags & 4 == 0, fir: flags & 4 != 0)
    var recorder = TransportFeedbackRecorder()
    var estimator = ReceiveSideBandwidthEstimator()
    let decoder = Decoder(codec)
    var mediaSSRC: UInt32?
    var unwrapped = [UInt8](repeating: 0, count: 1500)
    var now = 1.0, lastFeedback = 1.0

    func deliver(_ frame: EncodedFrame) {
        guard frame.codec == codec else { fatalError("a \(codec) stream assembled a \(frame.codec) frame") }
        decoder.decode(frame)
    }

    while !input.isAtEnd {
        let step = input.u8()
        now += step == 255 ? 10 : Double(step) / 1000
        let datagram = input.chunk()
        guard let packet = try? RTPPacket(parsing: datagram) else { continue }
        let arrival = Int64(now * 1e6)
        var absSendTime: UInt32?
        if let data = packet.extensionData(id: 2), data.count == 3 {
            absSendTime = UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2])
        }
        estimator.packetReceived(absSendTime: absSendTime, arrival: arrival, size: datagram.count)
        if let data = packet.extensionData(id: 3), data.count == 2 {
            recorder.record(sequenceNumber: UInt16(data[0]) << 8 | UInt16(data[1]), arrival: arrival)
        }

        let accept = { (media: RTPPacket, retransmission: Bool) in
            let inserted = assembler.insert(media.bytes, arrival: now, retransmission: retransmission)
            if retransmission, inserted != .accepted { return }
            if statistics?.ssrc != media.ssrc {
                statistics = ReceiveStatistics(ssrc: media.ssrc, clockRate: codec.clockRate)
            }
            statistics?.record(
                sequenceNumber: media.sequenceNumber,
                timestamp: media.timestamp,
                arrivalSeconds: now,
                retransmission: retransmission
            )
            nack?.received(sequenceNumber: media.sequenceNumber, ssrc: media.ssrc, at: now)
            mediaSSRC = media.ssrc
            while let frame = assembler.nextFrame(now: now) { deliver(frame) }
        }
        if packet.payloadType == 96 {
            accept(packet, false)
        } else if rtxOn, packet.payloadType == 97, let mediaSSRC {
            unwrapped.withUnsafeMutableBytes { buffer in
                guard
                    let length = try? RTXPacket.unwrap(
                        packet,
                        originalPayloadType: 96,
                        originalSSRC: mediaSSRC,
                        into: buffer
                    ),
                    let original = try? RTPPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
                else { return }
                accept(original, true)
            }
        }

        guard now - lastFeedback >= 0.02 || now < lastFeedback else { continue }
        lastFeedback = now
        while let frame = assembler.nextFrame(now: now) { deliver(frame) }
        if var requester = nack {
            requester.roundTripTime = 0.05
            if let request = requester.poll(now: now) { roundTrip(.nack(request)) }
            let gaveUp = requester.takeAbandoned()
            nack = requester
            if gaveUp || decoder.needsKeyframe, let ssrc = mediaSSRC,
                let request = keyframes.request(mediaSSRC: ssrc, now: now, roundTripTime: 0.05)
            {
                roundTrip(request)
            }
        }
        if let report = statistics?.makeReport(lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x100) {
            roundTrip(.receiverReport(ReceiverReport(ssrc: 1, reports: [report])))
        }
        if let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: mediaSSRC ?? 0) {
            roundTrip(.transportFeedback(feedback))
        }
        if let bitrate = estimator.update(roundTripTime: 50_000, now: arrival) {
            roundTrip(
                .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: UInt64(bitrate), ssrcs: [mediaSSRC ?? 0]))
            )
        }
    }
    while let frame = assembler.flush() { deliver(frame) }
}

/// The decoder of the stream: Opus (concealment or FEC for a timestamp gap), or VP8 into one
/// reused picture (with the decoder's default limit on the picture size).
private final class Decoder {
    let opus: OpusDecoder?
    let vp8: VP8Decoder?
    var picture = VideoFrame(width: 2, height: 2)
    var expected: UInt32?

    init(_ codec: EncodedFrame.Codec) {
        opus = codec == .opus ? try? OpusDecoder(channels: 1) : nil
        vp8 = codec == .vp8 ? try? VP8Decoder() : nil
    }

    var needsKeyframe: Bool { vp8?.needsKeyframe ?? false }

    func decode(_ frame: EncodedFrame) {
        if let opus {
            if let next = expected, Int32(bitPattern: frame.timestamp &- next) > 0 {
                if OpusDecoder.carriesFEC(frame.data) {
                    _ = try? opus.recoverLost(from: frame)
                } else {
                    _ = try? opus.decode(nil)
                }
            }
            if let audio = try? opus.decode(frame) {
                expected = frame.timestamp &+ UInt32(max(1, audio.samplesPerChannel))
            }
        } else if let vp8 {
            // The decoder drops keyframes above its picture size limit before libvpx.
            _ = try? vp8.decode(frame, into: &picture)
        }
    }
}

/// What a receiver writes must parse back (NACK and transport-cc as they were made).
private func roundTrip(_ packet: RTCPPacket) {
    var out = [UInt8](repeating: 0, count: packet.encodedLength)
    let length = out.withUnsafeMutableBytes { try? packet.write(into: $0) }
    guard let length else { fatalError("\(packet.name) we made does not fit its own length") }
    let again = out.withUnsafeBytes { try? RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
    guard let again, again.count == 1 else { fatalError("\(packet.name) we wrote does not parse back: \(packet)") }
    switch packet {
    case .nack, .transportFeedback, .receiverReport:
        if again[0] != packet { fatalError("\(packet.name) we wrote parses back different: \(packet) -> \(again[0])") }
    default:
        break
    }
}
