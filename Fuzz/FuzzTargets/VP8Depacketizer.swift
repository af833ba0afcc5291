import SwiftRTCRTP
import SwiftRTCReceive

/// Splits the input into packets (a length byte, then that many bytes, each wrapped in an RTP
/// header with the next sequence number and the marker from the length byte's top bit) and
/// feeds them through a jitter buffer into the VP8 depacketizer. Nothing may trap; frames
/// stay within the size limit.
public func fuzzVP8Depacketizer(_ bytes: UnsafeRawBufferPointer) {
    let jitter = JitterBuffer(capacity: 64, slotSize: 300, maximumWait: 0.01)
    var depacketizer = VP8Depacketizer(maximumFrameSize: 4096)
    var packet = [UInt8](repeating: 0, count: 300)
    var offset = 0, sequence: UInt16 = 0, time = 0.0
    while offset < bytes.count {
        let header = bytes[offset]
        let length = min(Int(header & 0x7F), bytes.count - offset - 1)
        let chunk = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<(offset + 1 + length)])
        offset += 1 + length
        let written = packet.withUnsafeMutableBytes { buffer -> Int? in
            guard
                var writer = try? RTPPacketWriter(
                    into: buffer,
                    header: RTPHeader(
                        marker: header & 0x80 != 0,
                        payloadType: 96,
                        sequenceNumber: sequence,
                        timestamp: UInt32(sequence / 4),
                        ssrc: 1
                    )
                )
            else { return nil }
            guard (try? writer.appendPayload(chunk)) != nil else { return nil }
            return try? writer.finish()
        }
        // Every fifth packet goes missing, every seventh comes twice.
        sequence &+= 1
        time += 0.004
        guard let written, sequence % 5 != 0 else { continue }
        packet.withUnsafeBytes { p in
            let view = UnsafeRawBufferPointer(rebasing: p[..<written])
            jitter.insert(view, arrival: time)
            if sequence % 7 == 0 { jitter.insert(view, arrival: time) }
        }
        while let event = jitter.pop(now: time) {
            switch event {
            case .gap: depacketizer.reportGap()
            case let .packet(p):
                if depacketizer.push(p), depacketizer.withFrameBytes({ $0.count }) > 4096 {
                    fatalError("frame over the limit")
                }
            }
        }
    }
}
