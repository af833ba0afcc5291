import SwiftRTCCore
import SwiftRTCRTP

/// Parses the input as RTP: header, CSRCs, every extension element and the typed values,
/// RTX unwrap, the Opus TOC and the VP8 descriptor of the payload. Nothing may trap.
public func fuzzRTP(_ bytes: UnsafeRawBufferPointer) {
    guard let packet = try? RTPPacket(parsing: bytes) else { return }
    var sum = packet.payloadLength &+ packet.paddingLength
    for i in 0..<packet.csrcCount { sum &+= Int(packet.csrc(at: i)) }
    for element in packet.extensions {
        sum &+= element.data.count
        _ = try? SDESMid(parsing: element.data)
        _ = try? AbsSendTime(parsing: element.data)
        _ = try? TransportSequenceNumber(parsing: element.data)
        _ = try? AudioLevel(parsing: element.data)
        _ = try? PlayoutDelay(parsing: element.data)
    }
    _ = try? OpusTOC(parsing: packet.payload)
    if let (_, length) = try? VP8PayloadDescriptor.parse(packet.payload), length <= packet.payloadLength {
        _ = VP8FrameHeader(parsing: UnsafeRawBufferPointer(rebasing: packet.payload[length...]))
    }
    var out = [UInt8](repeating: 0, count: bytes.count + 2)
    out.withUnsafeMutableBytes { buffer in
        _ = try? RTXPacket.unwrap(packet, originalPayloadType: 96, originalSSRC: 1, into: buffer)
        _ = try? RTXPacket.wrap(packet, payloadType: 97, ssrc: 2, sequenceNumber: 3, into: buffer)
    }
    if sum == -1 { print(sum) }
}
