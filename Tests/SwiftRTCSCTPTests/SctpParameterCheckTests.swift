import Foundation
import Testing

@testable import SwiftRTCSCTP

/// The check of a peer's parameter lists before usrsctp (which loops forever on a parameter
/// shorter than its header): table-driven, on an INIT as usrsctp makes it and on variants.
@Suite struct SctpParameterCheckTests {
    /// A packet: the common header (ports 5000, tag 0, checksum 0), then `chunks`.
    static func packet(_ chunks: [UInt8]...) -> [UInt8] {
        [0x13, 0x88, 0x13, 0x88, 0, 0, 0, 0, 0, 0, 0, 0] + chunks.flatMap { $0 }
    }

    /// A chunk of `type` with `body` after its header (length counted, padding added).
    static func chunk(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = 4 + body.count
        return [type, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + body
            + [UInt8](repeating: 0, count: (4 - length % 4) % 4)
    }

    /// INIT's fixed fields: initiate tag, a_rwnd, streams out and in, initial TSN.
    static let initFields: [UInt8] = [
        0x8A, 0xF0, 0x90, 0x5E, 0, 0x10, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xB6, 0x5B, 0x70, 0,
    ]
    /// The parameters of usrsctp's own INIT: Forward-TSN supported, supported extensions (5,
    /// padded), a random, chunk list, HMAC algorithms.
    static let usrsctpParameters: [UInt8] =
        [0xC0, 0, 0, 4] + [0x80, 0x08, 0, 9, 0xC0, 0x0F, 0xC1, 0x80, 0x82, 0, 0, 0]
        + [0x80, 0x02, 0, 0x24] + [UInt8](repeating: 0x5A, count: 32) + [0x80, 0x04, 0, 6, 0, 1, 0, 0]
        + [0x80, 0x03, 0, 6, 0x80, 0xC1]

    static let cases: [(String, [UInt8], Bool)] = [
        ("usrsctp's INIT", packet(chunk(1, initFields + usrsctpParameters)), true),
        ("an INIT ACK of the same parameters", packet(chunk(2, initFields + usrsctpParameters)), true),
        (
            "an INIT with a parameter of length 0 (the fuzzer's hang)", packet(chunk(1, initFields + [0, 0, 0, 0])),
            false
        ),
        (
            "an INIT whose last parameter runs past the chunk", packet(chunk(1, initFields + [0xC0, 0, 0, 12, 1, 2])),
            false
        ),
        ("an INIT with a parameter of length 3", packet(chunk(1, initFields + [0xC0, 0, 0, 3])), false),
        ("an ABORT with a cause of length 0", packet(chunk(6, [0, 1, 0, 0])), false),
        ("an ERROR with a cause that fits", packet(chunk(9, [0, 1, 0, 8, 0, 0, 0, 0])), true),
        ("a RE-CONFIG with a request of length 2", packet(chunk(0x82, [0, 13, 0, 2])), false),
        (
            "an ASCONF with a zero-length parameter after its serial", packet(chunk(0xC1, [0, 0, 0, 1, 0, 0, 0, 0])),
            false
        ),
        ("a DATA chunk of any bytes (not a parameter list)", packet(chunk(0, [0, 0, 0, 0, 0, 0, 0, 0])), true),
        (
            "a SACK and then a bad INIT in the same packet",
            packet(chunk(3, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), chunk(1, initFields + [0, 0, 0, 0])), false
        ),
        ("a chunk running past the packet (usrsctp's to drop)", packet([1, 0, 0, 0x40]), true),
        ("a common header alone", packet(), true),
    ]

    @Test(arguments: cases)
    func parameterListsAreChecked(_ what: String, _ packet: [UInt8], _ wellFormed: Bool) {
        #expect(packet.withUnsafeBytes { SctpParameterCheck.isWellFormed($0) } == wellFormed, "\(what)")
    }

    /// The fuzzer's packet reaches an association: dropped and counted, and the call returns.
    @Test func anAssociationDropsAMalformedInit() throws {
        let association = try SctpAssociation(send: { _ in }, onEvent: { _ in })
        defer { association.close() }
        try association.connect()
        Self.packet(Self.chunk(1, Self.initFields + [0, 0, 0, 0])).withUnsafeBytes { association.receive($0) }
        #expect(association.droppedMalformedPackets == 1)
    }
}
