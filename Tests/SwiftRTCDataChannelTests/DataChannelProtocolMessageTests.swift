import SwiftRTCDataChannel
import Testing

/// DCEP (RFC 8832) on the wire, table-driven: each channel type of §8.2.2 both ways, the ACK,
/// and what a hostile peer may send instead.
@Suite struct DataChannelProtocolMessageTests {
    @Test(
        arguments: [
            // A reliable ordered "chat", priority 256, no protocol (what browsers send by default).
            (
                DataChannelOpen(label: "chat"),
                [0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x04, 0x00, 0x00] + Array("chat".utf8)
            ),
            // RELIABLE_UNORDERED (0x80).
            (
                DataChannelOpen(ordered: false, label: "u", protocol: "p"),
                [0x03, 0x80, 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x01, 0x75, 0x70]
            ),
            // PARTIAL_RELIABLE_REXMIT (0x01), 3 retransmissions, priority 512.
            (
                DataChannelOpen(delivery: .maxRetransmits(3), priority: 512, label: ""),
                [0x03, 0x01, 0x02, 0x00, 0, 0, 0, 3, 0x00, 0x00, 0x00, 0x00]
            ),
            // PARTIAL_RELIABLE_TIMED_UNORDERED (0x82), 1500 ms, a label of two-byte characters.
            (
                DataChannelOpen(ordered: false, delivery: .maxPacketLifeTime(milliseconds: 1500), label: "éé"),
                [0x03, 0x82, 0x01, 0x00, 0, 0, 0x05, 0xDC, 0x00, 0x04, 0x00, 0x00, 0xC3, 0xA9, 0xC3, 0xA9]
            ),
        ] as [(DataChannelOpen, [UInt8])]
    )
    func anOpenMessageRoundTrips(open: DataChannelOpen, wire: [UInt8]) throws {
        #expect(open.bytes == wire)
        #expect(try DataChannelProtocolMessage(parsing: wire) == .open(open))
    }

    @Test func theAckIsOneByte() throws {
        #expect(DataChannelProtocolMessage.ack.bytes == [0x02])
        #expect(try DataChannelProtocolMessage(parsing: [0x02]) == .ack)
    }

    @Test(
        arguments: [
            ([], DataChannelProtocolError.truncated(needed: 1, got: 0)),
            ([0x07], .unknownMessageType(0x07)),
            ([0x03, 0x00, 0x01], .truncated(needed: 12, got: 3)),
            // A label of 65535 bytes announced, 4 sent.
            (
                [0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0xFF, 0xFF, 0x00, 0x00, 1, 2, 3, 4],
                .truncated(needed: 65547, got: 16)
            ),
            ([0x03, 0x03, 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x00], .unknownChannelType(0x03)),
            ([0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0xFF], .notUTF8),
        ] as [([UInt8], DataChannelProtocolError)]
    )
    func whatIsNotDCEPIsAClearError(wire: [UInt8], error: DataChannelProtocolError) {
        #expect(throws: error) { try DataChannelProtocolMessage(parsing: wire) }
    }
}
