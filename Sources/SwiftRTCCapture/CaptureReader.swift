import SwiftRTCCore
import SwiftRTCRTP

/// Reads the UDP datagrams out of a pcap or pcapng capture: link types Ethernet (with VLAN
/// tags), raw IP, Linux cooked (SLL, SLL2 as `tcpdump -i any` writes), BSD loopback (NULL
/// and LOOP); IPv4 and IPv6 (skipping extension headers). Non-UDP packets and fragments
/// after the first are skipped. Offline use: the datagrams are copied out.
public struct CaptureReader: Sequence {
    /// One UDP datagram of the capture.
    public struct Datagram: Sendable, Hashable {
        /// Capture time in seconds since the epoch.
        public var time: Double
        /// IPv4 (4 bytes) or IPv6 (16 bytes) addresses.
        public var sourceAddress: [UInt8]
        /// Addresses and ports of the datagram.
        public var destinationAddress: [UInt8]
        /// Addresses and ports of the datagram.
        public var sourcePort: UInt16
        /// Addresses and ports of the datagram.
        public var destinationPort: UInt16
        /// The UDP payload.
        public var payload: [UInt8]
    }

    /// The capture's file format.
    public enum Format: Sendable, Hashable { case pcap, pcapng }

    /// The link types understood (LINKTYPE_* values of tcpdump.org).
    public enum LinkType {
        /// Link type values.
        public static let null: UInt32 = 0, ethernet: UInt32 = 1, rawIP: UInt32 = 101, loop: UInt32 = 108
        /// Link type values.
        public static let linuxSLL: UInt32 = 113, linuxSLL2: UInt32 = 276, rawIPv4: UInt32 = 228, rawIPv6: UInt32 = 229
        /// DLT_RAW as some systems write it in pcap files.
        public static let dltRaw12: UInt32 = 12, dltRaw14: UInt32 = 14
    }

    let bytes: [UInt8]
    /// The file format, from the magic number.
    public let format: Format

    /// Checks the file header; throws if `bytes` are neither pcap nor pcapng.
    public init(bytes: [UInt8]) throws(RTPError) {
        self.bytes = bytes
        guard bytes.count >= 4 else {
            throw .truncated(what: "capture file header", offset: 0, needed: 24, available: bytes.count)
        }
        let magic = bytes.withUnsafeBytes { $0.u32(0) }
        switch magic {
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1:
            guard bytes.count >= 24 else {
                throw .truncated(what: "pcap file header", offset: 0, needed: 24, available: bytes.count)
            }
            format = .pcap
        case 0x0A0D_0D0A: format = .pcapng
        default: throw .invalidField(what: "capture file magic (pcap or pcapng)", offset: 0, value: Int(magic))
        }
    }

    /// Iterates the elements in wire order.
    public func makeIterator() -> Iterator { Iterator(bytes: bytes, format: format) }

    /// Walks the records; `next()` throws on a malformed record and then ends.
    public struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        let format: Format
        var offset: Int
        var littleEndian = true
        var nanoseconds = false
        var linkType: UInt32 = 0
        /// pcapng: per interface, its link type and timestamp units per second.
        var interfaces: [(linkType: UInt32, unitsPerSecond: Double)] = []
        /// The error that ended the iteration, if any.
        public private(set) var error: RTPError?

        init(bytes: [UInt8], format: Format) {
            self.bytes = bytes
            self.format = format
            offset = 0
            if format == .pcap {
                littleEndian = bytes[0] == 0xD4 || bytes[0] == 0x4D
                nanoseconds = bytes[0] == 0x4D || bytes[3] == 0x4D
                linkType = u32(20) & 0x0FFF_FFFF
                offset = 24
            }
        }

        /// The file's byte order (each pcapng section's own); the caller checked the bounds.
        func u16(_ o: Int) -> UInt16 { bytes.withUnsafeBytes { littleEndian ? $0.le16(o) : $0.u16(o) } }

        func u32(_ o: Int) -> UInt32 { bytes.withUnsafeBytes { littleEndian ? $0.le32(o) : $0.u32(o) } }

        /// The next UDP datagram, nil at the end or after an error (see ``error``).
        public mutating func next() -> Datagram? {
            do {
                while let (time, link, frame) = try nextFrame() {
                    if let datagram = LinkDecoder.udp(in: frame, linkType: link, time: time) { return datagram }
                }
            } catch {
                self.error = error
            }
            return nil
        }

        /// The next captured frame: time, link type and bytes.
        mutating func nextFrame() throws(RTPError) -> (Double, UInt32, ArraySlice<UInt8>)? {
            switch format {
            case .pcap: try nextPcapRecord()
            case .pcapng: try nextPcapngPacket()
            }
        }

        /// The next record of a pcap file: its header's time, and the bytes it captured.
        mutating func nextPcapRecord() throws(RTPError) -> (Double, UInt32, ArraySlice<UInt8>)? {
            guard offset < bytes.count else { return nil }
            guard offset + 16 <= bytes.count else {
                throw .truncated(
                    what: "pcap record header",
                    offset: offset,
                    needed: 16,
                    available: bytes.count - offset
                )
            }
            let seconds = Double(u32(offset)), fraction = Double(u32(offset + 4))
            let length = Int(u32(offset + 8))
            guard length <= bytes.count - offset - 16 else {
                throw .truncated(
                    what: "pcap record",
                    offset: offset + 16,
                    needed: length,
                    available: bytes.count - offset - 16
                )
            }
            let frame = bytes[offset + 16..<offset + 16 + length]
            offset += 16 + length
            return (seconds + fraction / (nanoseconds ? 1e9 : 1e6), linkType, frame)
        }

        /// The next packet of a pcapng file, reading the section and interface blocks before it
        /// (each section's byte order, each interface's link type and time resolution).
        mutating func nextPcapngPacket() throws(RTPError) -> (Double, UInt32, ArraySlice<UInt8>)? {
            while offset < bytes.count {
                guard offset + 12 <= bytes.count else {
                    throw .truncated(
                        what: "pcapng block header",
                        offset: offset,
                        needed: 12,
                        available: bytes.count - offset
                    )
                }
                // The section header's type reads the same in both byte orders.
                let type = bytes.withUnsafeBytes { [offset] in $0.u32(offset) }
                if type == 0x0A0D_0D0A {
                    // Section header: its byte-order magic decides the endianness of the section.
                    littleEndian = bytes[offset + 8] == 0x4D
                    interfaces = []
                }
                let length = Int(u32(offset + 4))
                guard length >= 12, length % 4 == 0, length <= bytes.count - offset else {
                    throw .invalidField(what: "pcapng block length", offset: offset + 4, value: length)
                }
                let start = offset
                offset += length
                switch u32(start) {
                case 1:  // interface description
                    guard length >= 20 else {
                        throw .truncated(
                            what: "pcapng interface block",
                            offset: start,
                            needed: 20,
                            available: length
                        )
                    }
                    interfaces.append(
                        (UInt32(u16(start + 8)), resolution(options: start + 16..<start + length - 4))
                    )
                case 6:  // enhanced packet
                    return try enhancedPacket(at: start, length: length)
                case 3:  // simple packet: interface 0, no time
                    guard length >= 16, let interface = interfaces.first else {
                        throw .invalidField(what: "pcapng simple packet block", offset: start, value: length)
                    }
                    let captured = Swift.min(Int(u32(start + 8)), length - 16)
                    return (0, interface.linkType, bytes[start + 12..<start + 12 + captured])
                default: continue
                }
            }
            return nil
        }

        /// The enhanced packet block of `length` bytes at `start`: its interface's link type,
        /// its time in that interface's units, and the bytes it captured.
        func enhancedPacket(at start: Int, length: Int) throws(RTPError) -> (Double, UInt32, ArraySlice<UInt8>) {
            guard length >= 32 else {
                throw .truncated(
                    what: "pcapng enhanced packet block",
                    offset: start,
                    needed: 32,
                    available: length
                )
            }
            let interface = Int(u32(start + 8))
            guard interface < interfaces.count else {
                throw .invalidField(what: "pcapng interface id", offset: start + 8, value: interface)
            }
            let units = UInt64(u32(start + 12)) << 32 | UInt64(u32(start + 16))
            let perSecond = UInt64(interfaces[interface].unitsPerSecond)
            let time = Double(units / perSecond) + Double(units % perSecond) / Double(perSecond)
            let captured = Int(u32(start + 20))
            guard captured <= length - 32 else {
                throw .truncated(
                    what: "pcapng packet data",
                    offset: start + 28,
                    needed: captured,
                    available: length - 32
                )
            }
            return (time, interfaces[interface].linkType, bytes[start + 28..<start + 28 + captured])

        }

        /// The if_tsresol option (code 9) of an interface block, in units per second (default µs).
        func resolution(options range: Range<Int>) -> Double {
            var o = range.lowerBound
            while o + 4 <= range.upperBound {
                let code = u16(o), length = Int(u16(o + 2))
                if code == 0 { break }
                if code == 9, length >= 1, o + 4 < range.upperBound {
                    let value = bytes[o + 4]
                    let exponent = Int(value & 0x7F)
                    // Powers past 2^62 or 10^18 do not occur in practice; clamp them.
                    return value & 0x80 != 0
                        ? Double(1 << Swift.min(exponent, 62))
                        : (0..<Swift.min(exponent, 18)).reduce(1.0) { r, _ in r * 10 }
                }
                o += 4 + (length + 3) / 4 * 4
            }
            return 1e6
        }
    }
}

/// Takes link-layer, IP and UDP headers off a captured frame.
enum LinkDecoder {
    static func be16(_ f: ArraySlice<UInt8>, _ o: Int) -> UInt16 {
        f.withUnsafeBytes { $0.u16(o) }
    }

    /// The UDP datagram in `frame`, if it holds one.
    static func udp(in frame: ArraySlice<UInt8>, linkType: UInt32, time: Double) -> CaptureReader.Datagram? {
        let f = frame
        let count = f.count
        var o: Int
        var etherType: UInt16?
        switch linkType {
        case CaptureReader.LinkType.ethernet:
            guard count >= 14 else { return nil }
            o = 12
            var type = be16(f, o)
            while type == 0x8100 || type == 0x88A8 {  // VLAN tags
                o += 4
                guard count >= o + 2 else { return nil }
                type = be16(f, o)
            }
            etherType = type
            o += 2
        case CaptureReader.LinkType.rawIP, CaptureReader.LinkType.rawIPv4, CaptureReader.LinkType.rawIPv6,
            CaptureReader.LinkType.dltRaw12, CaptureReader.LinkType.dltRaw14:
            o = 0
        case CaptureReader.LinkType.linuxSLL:
            guard count >= 16 else { return nil }
            etherType = be16(f, 14)
            o = 16
        case CaptureReader.LinkType.linuxSLL2:
            guard count >= 20 else { return nil }
            etherType = be16(f, 0)
            o = 20
        case CaptureReader.LinkType.null, CaptureReader.LinkType.loop:
            // The address family, in the capturing host's byte order (NULL) or network order (LOOP).
            o = 4
        default:
            return nil
        }
        if let etherType, etherType != 0x0800, etherType != 0x86DD { return nil }
        guard count > o else { return nil }
        let ip = f[(f.startIndex + o)...]
        return ipUDP(ip, time: time)
    }

    static func ipUDP(_ ip: ArraySlice<UInt8>, time: Double) -> CaptureReader.Datagram? {
        guard let first = ip.first else { return nil }
        var udpStart: Int, end: Int
        let source: [UInt8], destination: [UInt8]
        switch first >> 4 {
        case 4:
            let headerLength = Int(first & 0x0F) * 4
            guard headerLength >= 20, ip.count >= headerLength else { return nil }
            let total = Int(be16(ip, 2))
            let fragment = be16(ip, 6)
            guard ip[ip.startIndex + 9] == 17, fragment & 0x3FFF == 0 else { return nil }  // UDP, unfragmented
            source = Array(ip[(ip.startIndex + 12)..<(ip.startIndex + 16)])
            destination = Array(ip[(ip.startIndex + 16)..<(ip.startIndex + 20)])
            udpStart = headerLength
            end = min(ip.count, total >= headerLength ? total : ip.count)
        case 6:
            guard ip.count >= 40 else { return nil }
            var next = ip[ip.startIndex + 6]
            source = Array(ip[(ip.startIndex + 8)..<(ip.startIndex + 24)])
            destination = Array(ip[(ip.startIndex + 24)..<(ip.startIndex + 40)])
            end = min(ip.count, 40 + Int(be16(ip, 4)))
            udpStart = 40
            while next != 17 {
                switch next {
                case 0, 43, 60:  // hop-by-hop, routing, destination options
                    guard udpStart + 2 <= end else { return nil }
                    next = ip[ip.startIndex + udpStart]
                    udpStart += (Int(ip[ip.startIndex + udpStart + 1]) + 1) * 8
                case 44:  // fragment: only whole datagrams
                    guard udpStart + 8 <= end, be16(ip, udpStart + 2) & 0xFFF9 == 0 else { return nil }
                    next = ip[ip.startIndex + udpStart]
                    udpStart += 8
                default: return nil
                }
            }
        default: return nil
        }
        guard udpStart + 8 <= end else { return nil }
        let udpLength = Int(be16(ip, udpStart + 4))
        let payloadEnd = udpLength >= 8 ? min(end, udpStart + udpLength) : end
        return CaptureReader.Datagram(
            time: time,
            sourceAddress: source,
            destinationAddress: destination,
            sourcePort: be16(ip, udpStart),
            destinationPort: be16(ip, udpStart + 2),
            payload: Array(ip[(ip.startIndex + udpStart + 8)..<(ip.startIndex + payloadEnd)])
        )
    }
}
