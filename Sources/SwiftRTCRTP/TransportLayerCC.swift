import SwiftRTCCore

/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1; RTPFB, PT 205, FMT 15): which transport-wide sequence numbers arrived, and when.
/// ```
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// |                     SSRC of packet sender                     |
/// |                      SSRC of media source                     |
/// |      base sequence number     |      packet status count      |
/// |                 reference time                | fb pkt. count |
/// |          packet chunk         |         packet chunk          |
/// .                                                               .
/// |         packet chunk          |  recv delta   |  recv delta   |
/// .                                                               .
/// ```
/// Chunks: run length `0|S(2)|length(13)`, or status vector `1|0|14 x 1-bit` / `1|1|7 x 2-bit`.
/// Statuses: 0 not received, 1 small delta (1 byte, 0..63.75 ms), 2 large or negative delta
/// (2 bytes, signed). Deltas count 250 µs.
public struct TransportLayerCC: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.transportFeedback
    /// The feedback message type (FMT) of this packet.
    public static let format: UInt8 = 15

    /// What the feedback says about one sequence number.
    public enum Status: Sendable, Hashable {
        case notReceived
        /// Received; the delta to the previous arrival (or reference time) in 250 µs, 0...255.
        case smallDelta(UInt8)
        /// Received; a delta that does not fit a byte, in 250 µs, signed 16-bit.
        case largeDelta(Int16)

        var symbol: UInt16 {
            switch self {
            case .notReceived: 0
            case .smallDelta: 1
            case .largeDelta: 2
            }
        }

        /// The delta in 250 µs units, nil if not received.
        public var delta: Int? {
            switch self {
            case .notReceived: nil
            case let .smallDelta(d): Int(d)
            case let .largeDelta(d): Int(d)
            }
        }

        /// The status for a received packet with `delta` 250 µs units (clamped to 16 bits).
        public static func received(delta: Int) -> Status {
            (0...255).contains(delta) ? .smallDelta(UInt8(delta)) : .largeDelta(Int16(clamping: delta))
        }
    }

    /// The SSRC of the packet's sender.
    public var senderSSRC: UInt32
    /// The SSRC of the media source the feedback is about.
    public var mediaSSRC: UInt32
    /// The transport-wide sequence number of the first status.
    public var baseSequenceNumber: UInt16
    /// Reference time in 64 ms units (24-bit signed).
    public var referenceTime: Int32
    /// This feedback's count, to detect lost feedback.
    public var feedbackPacketCount: UInt8
    /// One status per sequence number from ``baseSequenceNumber`` on.
    public var statuses: [Status]

    /// Creates the value from its fields.
    public init(
        senderSSRC: UInt32,
        mediaSSRC: UInt32,
        baseSequenceNumber: UInt16,
        referenceTime: Int32,
        feedbackPacketCount: UInt8,
        statuses: [Status]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.statuses = Array(statuses.prefix(0xFFFF))
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 16, "RTCP transport-cc", offset)
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        baseSequenceNumber = body.u16(8)
        // Statuses past the limit are not read (their deltas come last, so the first ones
        // parse the same): a few bytes of run-length chunks may claim 65535.
        let total = min(Int(body.u16(10)), RemoteInputLimits.maxTransportFeedbackStatuses)
        let reference = body.u24(12)
        referenceTime = reference & 0x80_0000 != 0 ? Int32(reference) - 0x100_0000 : Int32(reference)
        feedbackPacketCount = body.u8(15)
        var symbols: [UInt16] = []
        symbols.reserveCapacity(min(total, 4 * body.count))
        var o = 16
        while symbols.count < total {
            guard o + 2 <= body.count else {
                throw .truncated(
                    what: "RTCP transport-cc packet chunk",
                    offset: offset + o,
                    needed: 2,
                    available: body.count - o
                )
            }
            let chunk = body.u16(o)
            o += 2
            let left = total - symbols.count
            if chunk & 0x8000 == 0 {
                let symbol = chunk >> 13 & 3
                let run = min(Int(chunk & 0x1FFF), left)
                symbols.append(contentsOf: repeatElement(symbol, count: run))
            } else if chunk & 0x4000 == 0 {
                for i in 0..<min(14, left) { symbols.append(chunk >> (13 - i) & 1) }
            } else {
                for i in 0..<min(7, left) { symbols.append(chunk >> (12 - 2 * i) & 3) }
            }
        }
        statuses = []
        statuses.reserveCapacity(symbols.count)
        for symbol in symbols {
            switch symbol {
            case 0: statuses.append(.notReceived)
            case 1:
                guard o + 1 <= body.count else {
                    throw .truncated(
                        what: "RTCP transport-cc small delta",
                        offset: offset + o,
                        needed: 1,
                        available: body.count - o
                    )
                }
                statuses.append(.smallDelta(body.u8(o)))
                o += 1
            case 2:
                guard o + 2 <= body.count else {
                    throw .truncated(
                        what: "RTCP transport-cc large delta",
                        offset: offset + o,
                        needed: 2,
                        available: body.count - o
                    )
                }
                statuses.append(.largeDelta(Int16(bitPattern: body.u16(o))))
                o += 2
            default:
                throw .invalidField(what: "RTCP transport-cc status symbol", offset: offset + o, value: Int(symbol))
            }
        }
    }

    /// The packet chunks that encode ``statuses``: run length where a run of at least 7 equal
    /// statuses starts, otherwise a 1-bit vector of 14 (no large deltas) or a 2-bit vector of 7.
    var chunks: [UInt16] {
        let symbols = statuses.prefix(0xFFFF).map(\.symbol)
        var result: [UInt16] = []
        var i = 0
        while i < symbols.count {
            var run = 1
            while i + run < symbols.count, symbols[i + run] == symbols[i], run < 0x1FFF { run += 1 }
            if run >= 7 || i + run == symbols.count {
                result.append(symbols[i] << 13 | UInt16(run))
                i += run
            } else if i + 14 <= symbols.count, !symbols[i..<i + 14].contains(2) {
                var chunk: UInt16 = 0x8000
                for j in 0..<14 { chunk |= symbols[i + j] << (13 - j) }
                result.append(chunk)
                i += 14
            } else {
                var chunk: UInt16 = 0xC000
                for j in 0..<7 where i + j < symbols.count { chunk |= symbols[i + j] << (12 - 2 * j) }
                result.append(chunk)
                i += 7
            }
        }
        return result
    }

    var deltaBytes: Int { statuses.prefix(0xFFFF).reduce(0) { $0 + Int($1.symbol) } }

    public var headerCount: UInt8 { Self.format }
    public var bodyLength: Int { (16 + 2 * chunks.count + deltaBytes + 3) / 4 * 4 }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(senderSSRC, at: 0)
        b.put32(mediaSSRC, at: 4)
        b.put16(baseSequenceNumber, at: 8)
        b.put16(UInt16(min(statuses.count, 0xFFFF)), at: 10)
        b.put24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF, at: 12)
        b.put8(feedbackPacketCount, at: 15)
        var o = 16
        for chunk in chunks {
            b.put16(chunk, at: o)
            o += 2
        }
        for status in statuses.prefix(0xFFFF) {
            switch status {
            case .notReceived: break
            case let .smallDelta(d):
                b.put8(d, at: o)
                o += 1
            case let .largeDelta(d):
                b.put16(UInt16(bitPattern: d), at: o)
                o += 2
            }
        }
        while o < b.count {
            b.put8(0, at: o)
            o += 1
        }
    }
}
