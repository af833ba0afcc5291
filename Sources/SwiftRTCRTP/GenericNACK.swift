import SwiftRTCCore

/// A generic NACK (RFC 4585 §6.2.1; RTPFB, PT 205, FMT 1): sequence numbers to resend.
/// ```
/// |V=2|P|  FMT=1  |   PT=205      |          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  (repeated)
/// ```
/// PID is a lost packet, bit i of BLP marks PID+i+1 lost too. A NACK is read up to
/// ``RemoteInputLimits/maxNackedSequenceNumbers`` sequence numbers (the rest is ignored).
public struct GenericNACK: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.transportFeedback
    /// The feedback message type (FMT) of this packet.
    public static let format: UInt8 = 1
    /// The SSRC of the packet's sender.
    public var senderSSRC: UInt32
    /// The SSRC of the media source the feedback is about.
    public var mediaSSRC: UInt32
    /// The lost sequence numbers, in the order of the packet.
    public var lost: [UInt16]

    /// Creates the value from its fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.lost = lost
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        guard body.count >= 12, body.count % 4 == 0 else {
            throw .truncated(
                what: "RTCP RTP feedback (NACK)",
                offset: offset,
                needed: max(12, body.count + 4 - body.count % 4),
                available: body.count
            )
        }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        lost = []
        let limit = RemoteInputLimits.maxNackedSequenceNumbers
        for o in stride(from: 8, to: body.count, by: 4) {
            let pid = body.u16(o), blp = body.u16(o + 2)
            lost.append(pid)
            for bit in 0..<16 where blp & (1 << bit) != 0 && lost.count < limit { lost.append(pid &+ UInt16(bit + 1)) }
            if lost.count >= limit { break }
        }
    }

    /// The (PID, BLP) pairs that encode ``lost`` (sorted by wrap-aware order).
    public var pairs: [(pid: UInt16, blp: UInt16)] {
        let sorted = lost.sorted { SequenceNumber.isNewer($1, than: $0) }
        var result: [(pid: UInt16, blp: UInt16)] = []
        for sequence in sorted {
            if let last = result.last {
                let distance = Int(sequence &- last.pid)
                if distance == 0 { continue }
                if distance <= 16 {
                    result[result.count - 1].blp |= 1 << (distance - 1)
                    continue
                }
            }
            result.append((sequence, 0))
        }
        return result
    }

    public var headerCount: UInt8 { Self.format }
    public var bodyLength: Int { 8 + 4 * pairs.count }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(senderSSRC, at: 0)
        b.put32(mediaSSRC, at: 4)
        for (i, pair) in pairs.enumerated() {
            b.put16(pair.pid, at: 8 + 4 * i)
            b.put16(pair.blp, at: 10 + 4 * i)
        }
    }
}
