import Foundation
import RTPFixtureSupport
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCapture

@Suite struct CaptureReaderTests {
    static let payload: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA]

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
    static func be32(_ v: Int) -> [UInt8] { Array(le32(v).reversed()) }

    static func udp(_ payload: [UInt8]) -> [UInt8] {
        be16(5000) + be16(6000) + be16(8 + payload.count) + [0, 0] + payload
    }

    static func ipv4(_ payload: [UInt8], fragment: Int = 0) -> [UInt8] {
        let u = udp(payload)
        return [0x45, 0] + be16(20 + u.count) + [0, 0] + be16(fragment) + [64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2] + u
    }

    /// IPv6 with a hop-by-hop options header before UDP.
    static func ipv6(_ payload: [UInt8]) -> [UInt8] {
        let u = udp(payload)
        let hopByHop: [UInt8] = [17, 0, 1, 4, 0, 0, 0, 0]
        return [0x60, 0, 0, 0] + be16(hopByHop.count + u.count) + [0, 64] + [UInt8](repeating: 0, count: 15) + [1]
            + [UInt8](repeating: 0, count: 15) + [2] + hopByHop + u
    }

    static func pcap(linkType: Int, frames: [[UInt8]]) -> [UInt8] {
        var file = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for (i, frame) in frames.enumerated() {
            file += le32(1000 + i) + le32(500_000) + le32(frame.count) + le32(frame.count) + frame
        }
        return file
    }

    /// Big-endian pcapng with nanosecond timestamps (if_tsresol 9).
    static func pcapng(linkType: Int, frames: [[UInt8]]) -> [UInt8] {
        var file =
            be32(0x0A0D_0D0A) + be32(28) + be32(0x1A2B_3C4D) + [0, 1, 0, 0] + [
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            ] + be32(28)
        file +=
            be32(1) + be32(32) + be16(linkType) + [0, 0] + be32(0) + be16(9) + be16(1) + [9, 0, 0, 0] + [0, 0, 0, 0]
            + be32(32)
        for frame in frames {
            let padded = frame + [UInt8](repeating: 0, count: (4 - frame.count % 4) % 4)
            let length = 32 + padded.count
            let ns = 1_500_000_000_250_000_000
            file +=
                be32(6) + be32(length) + be32(0) + be32(ns >> 32) + be32(ns & 0xFFFF_FFFF) + be32(frame.count)
                + be32(frame.count) + padded + be32(length)
        }
        return file
    }

    static let ethernet: [UInt8] = [UInt8](repeating: 1, count: 12)
    static let linkTypes: [(String, Int, [UInt8])] = [
        ("ethernet", 1, ethernet + [0x08, 0x00]),
        ("ethernet+vlan", 1, ethernet + [0x81, 0x00, 0, 5, 0x08, 0x00]),
        ("raw", 101, []),
        ("sll", 113, [UInt8](repeating: 0, count: 14) + [0x08, 0x00]),
        ("sll2", 276, [0x08, 0x00] + [UInt8](repeating: 0, count: 18)),
        ("null", 0, [2, 0, 0, 0]),
        ("loop", 108, [0, 0, 0, 2]),
    ]

    @Test(arguments: linkTypes.map(\.0))
    func linkTypesYieldTheUDPPayload(name: String) throws {
        let (_, linkType, header) = Self.linkTypes.first { $0.0 == name }!
        var header6 = header
        if name.hasPrefix("ethernet") || name.hasPrefix("sll") {
            let at = name == "sll2" ? 0 : header.count - 2
            header6[at] = 0x86
            header6[at + 1] = 0xDD
        }
        if name == "null" { header6 = [30, 0, 0, 0] }
        if name == "loop" { header6 = [0, 0, 0, 30] }
        let frames = [
            header + Self.ipv4(Self.payload), header6 + Self.ipv6(Self.payload),
            header + Self.ipv4(Self.payload, fragment: 0x2000),
        ]
        for file in [Self.pcap(linkType: linkType, frames: frames), Self.pcapng(linkType: linkType, frames: frames)] {
            let datagrams = Array(try CaptureReader(bytes: file))
            #expect(datagrams.map(\.payload) == [Self.payload, Self.payload], "the fragment is skipped")
            #expect(datagrams.first?.sourcePort == 5000 && datagrams.first?.destinationPort == 6000)
            #expect(datagrams.first?.sourceAddress == [127, 0, 0, 1] && datagrams.last?.destinationAddress.count == 16)
        }
        #expect(Array(try CaptureReader(bytes: Self.pcap(linkType: linkType, frames: frames))).first?.time == 1000.5)
        #expect(
            Array(try CaptureReader(bytes: Self.pcapng(linkType: linkType, frames: frames))).first?.time
                == 1_500_000_000.25
        )
    }

    @Test func realCapturesOfEachKind() throws {
        let cases: [(String, CaptureReader.Format, Int)] = [
            ("gstreamer-vp8.pcapng", .pcapng, 65), ("ffmpeg-vp8.pcap", .pcap, 119),
            ("ffmpeg-opus-sll2.pcapng", .pcapng, 102),
        ]
        for (file, format, count) in cases {
            let reader = try CaptureReader(bytes: Fixtures.bytes(Fixtures.own.appendingPathComponent(file)))
            #expect(reader.format == format)
            var iterator = reader.makeIterator()
            var n = 0
            while iterator.next() != nil { n += 1 }
            #expect(n == count && iterator.error == nil, "\(file)")
        }
    }

    @Test func badFilesFailWithTypedErrors() throws {
        #expect(throws: RTPError.self) { _ = try CaptureReader(bytes: [1, 2, 3, 4, 5]) }
        #expect(throws: RTPError.self) { _ = try CaptureReader(bytes: [0xD4, 0xC3, 0xB2, 0xA1]) }
        // Truncated record: the datagrams before it, then the error.
        let file = Self.pcap(linkType: 101, frames: [Self.ipv4(Self.payload), Self.ipv4(Self.payload)])
        var iterator = try CaptureReader(bytes: Array(file.dropLast(5))).makeIterator()
        #expect(iterator.next()?.payload == Self.payload)
        #expect(iterator.next() == nil)
        #expect(iterator.error?.what == "pcap record")
        // Every truncation of a pcapng file ends cleanly, no trap.
        let ng = Self.pcapng(linkType: 1, frames: [Self.ethernet + [8, 0] + Self.ipv4(Self.payload)])
        for length in 4..<ng.count {
            guard let reader = try? CaptureReader(bytes: Array(ng[..<length])) else { continue }
            _ = Array(reader)
        }
    }
}
