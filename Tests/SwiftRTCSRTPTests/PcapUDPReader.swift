import Foundation

/// A minimal, test-only reader of the UDP datagrams in a classic pcap file with Ethernet
/// framing (as the fixture captures are), IPv4 or IPv6 without extension headers. The real
/// pcap reader belongs to SwiftRTCRTP; this one only feeds the SRTP capture tests.
struct PcapUDPDatagram {
    /// Source address and port, as bytes, to tell the two ends of a call apart.
    var source: [UInt8]
    var payload: [UInt8]
}

enum PcapUDPReader {
    /// One entry per captured frame (nil for frames that are not UDP over IPv4/IPv6).
    static func read(_ url: URL) throws -> [PcapUDPDatagram?] {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count >= 24 else { throw FixtureError(description: "\(url.lastPathComponent): no pcap header") }
        let magic = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        guard magic == 0xA1B2_C3D4 || magic == 0xA1B2_3C4D else {
            throw FixtureError(description: "\(url.lastPathComponent): not a little-endian pcap file")
        }
        guard bytes[20] == 1 else { throw FixtureError(description: "\(url.lastPathComponent): linktype is not Ethernet") }
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16be(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }

        var frames: [PcapUDPDatagram?] = []
        var offset = 24
        while offset + 16 <= bytes.count {
            let length = u32(offset + 8)
            let start = offset + 16, end = start + length
            guard end <= bytes.count else { throw FixtureError(description: "\(url.lastPathComponent): truncated record") }
            frames.append(udp(bytes, start, end, u16be))
            offset = end
        }
        return frames
    }

    private static func udp(_ bytes: [UInt8], _ start: Int, _ end: Int, _ u16be: (Int) -> Int) -> PcapUDPDatagram? {
        guard end - start >= 14 else { return nil }
        let etherType = u16be(start + 12)
        var ip = start + 14
        let source: [UInt8]
        switch etherType {
        case 0x0800:
            guard end - ip >= 20, bytes[ip + 9] == 17 else { return nil }
            source = Array(bytes[ip + 12..<ip + 16])
            ip += Int(bytes[ip] & 0x0F) * 4
        case 0x86DD:
            guard end - ip >= 40, bytes[ip + 6] == 17 else { return nil }
            source = Array(bytes[ip + 8..<ip + 24])
            ip += 40
        default:
            return nil
        }
        guard end - ip >= 8 else { return nil }
        let udpLength = u16be(ip + 4)
        guard udpLength >= 8, ip + udpLength <= end else { return nil }
        return PcapUDPDatagram(source: source + bytes[ip..<ip + 2], payload: Array(bytes[ip + 8..<ip + udpLength]))
    }
}
