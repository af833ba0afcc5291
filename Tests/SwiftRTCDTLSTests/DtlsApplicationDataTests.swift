import Glibc
import Synchronization
import Testing

@testable import SwiftRTCDTLS

/// Application data once connected: decrypted on the thread that hands the datagram in and
/// handed over before `receive` returns (the transport thread, no hop to the DTLS queue);
/// a replayed or altered record is dropped there and the association stays up.
@Suite struct DtlsApplicationDataTests {
    /// What the link held back: the client's application data datagrams.
    final class Captured: Sendable {
        private let datagrams = Mutex<[[UInt8]]>([])
        func keep(_ datagram: [UInt8]) { datagrams.withLock { $0.append(datagram) } }
        var all: [[UInt8]] { datagrams.withLock { $0 } }
    }

    /// Records the handler was given, and on which thread.
    final class Handed: Sendable {
        private let records = Mutex<[(bytes: [UInt8], thread: UInt)]>([])
        func take(_ record: UnsafeRawBufferPointer) {
            records.withLock { $0.append(([UInt8](record), UInt(pthread_self()))) }
        }
        var all: [(bytes: [UInt8], thread: UInt)] { records.withLock { $0 } }
    }

    /// A connected client and server whose link keeps the client's application data
    /// datagrams back (in `captured`), for the test to hand in itself.
    static func connectedPair() async throws -> (DtlsTransport, DtlsTransport, Captured) {
        let captured = Captured()
        let link = MemoryDatagramLink(
            dropFromA: { _, bytes in
                guard bytes.first == DtlsRecordFraming.applicationDataType else { return false }
                captured.keep(bytes)
                return true
            },
            dropFromB: { _, _ in false }
        )
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        _ = try c.get()
        _ = try s.get()
        return (client, server, captured)
    }

    @Test func recordsAreHandedOverOnTheReceivingThreadBeforeReceiveReturns() async throws {
        let (client, server, captured) = try await Self.connectedPair()
        let handed = Handed()
        server.onApplicationData { handed.take($0) }
        let messages: [[UInt8]] = [[1, 2, 3], Array(repeating: 0xAB, count: 1100), [9]]
        for message in messages { message.withUnsafeBytes { client.sendApplicationData($0) } }
        #expect(captured.all.count == messages.count)
        #expect(captured.all.allSatisfy { $0.withUnsafeBytes { DtlsRecordFraming.classify($0) } == .applicationData })

        let thisThread = UInt(pthread_self())
        for (index, datagram) in captured.all.enumerated() {
            datagram.withUnsafeBytes { server.receive($0) }
            // Handed over already, on this thread.
            #expect(handed.all.count == index + 1)
            #expect(handed.all.last?.bytes == messages[index])
            #expect(handed.all.last?.thread == thisThread)
        }

        // A replay is dropped by GnuTLS's replay window; an altered record fails its
        // authentication and is dropped. Neither ends the association.
        captured.all[0].withUnsafeBytes { server.receive($0) }
        var altered = captured.all[1]
        altered[altered.count - 1] ^= 0xFF
        altered.withUnsafeBytes { server.receive($0) }
        #expect(handed.all.count == messages.count)
        #expect(server.state == .connected)
        client.close()
        server.close()
    }

    @Test func recordsThatArriveBeforeAHandlerIsSetAreDropped() async throws {
        let (client, server, captured) = try await Self.connectedPair()
        [UInt8]([7, 7]).withUnsafeBytes { client.sendApplicationData($0) }
        [UInt8]([8, 8]).withUnsafeBytes { client.sendApplicationData($0) }
        // No handler: the first goes to the queue, where it is read and dropped.
        captured.all[0].withUnsafeBytes { server.receive($0) }
        // (Reading the state waits for the queue: the record has been read by then.)
        #expect(server.state == .connected)
        let handed = Handed()
        server.onApplicationData { handed.take($0) }
        captured.all[1].withUnsafeBytes { server.receive($0) }
        #expect(handed.all.map(\.bytes) == [[8, 8]])
        #expect(server.state == .connected)
        client.close()
        server.close()
    }
}
