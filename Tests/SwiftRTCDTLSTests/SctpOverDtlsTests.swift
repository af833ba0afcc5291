import SwiftRTCDTLS
import SwiftRTCSCTP
import Synchronization
import Testing

/// SCTP over DTLS (RFC 8261), the data channels' transport: two of our DTLS transports
/// connected through memory, each carrying an SCTP association in its application data. Both
/// come up, and messages from 1 byte to 256 KiB arrive whole, each way.
@Suite struct SctpOverDtlsTests {
    final class Messages: Sendable {
        private let received = Mutex<[[UInt8]]>([])
        private let up = Atomic<Bool>(false)
        func take(_ event: SctpAssociation.Event) {
            switch event {
            case .connected: up.store(true, ordering: .relaxed)
            case let .message(_, _, data): received.withLock { $0.append(data) }
            default: break
            }
        }
        var isUp: Bool { up.load(ordering: .relaxed) }
        var all: [[UInt8]] { received.withLock { $0 } }
    }

    static func waitUntil(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func messagesGoBothWaysThroughDtls() async throws {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let (c, s) = await handshake(client, server)
        _ = try c.get()
        _ = try s.get()
        let atClient = Messages(), atServer = Messages()
        // SCTP packets no larger than a record carries.
        var configuration = SctpAssociation.Configuration()
        configuration.maxPacketSize = min(client.maxApplicationDataSize, server.maxApplicationDataSize)
        let sctpClient = try SctpAssociation(
            configuration: configuration,
            send: { client.sendApplicationData($0) },
            onEvent: { atClient.take($0) }
        )
        let sctpServer = try SctpAssociation(
            configuration: configuration,
            send: { server.sendApplicationData($0) },
            onEvent: { atServer.take($0) }
        )
        defer {
            sctpClient.close()
            sctpServer.close()
        }
        client.onApplicationData { sctpClient.receive($0) }
        server.onApplicationData { sctpServer.receive($0) }
        try sctpClient.connect()
        try sctpServer.connect()
        #expect(await Self.waitUntil { atClient.isUp && atServer.isUp })
        let sizes = [1, 1000, 1200, 50_000, 256 * 1024]
        for size in sizes {
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try message.withUnsafeBytes { try sctpClient.send($0, stream: 0, ppid: 53) }
            try message.withUnsafeBytes { try sctpServer.send($0, stream: 1, ppid: 53) }
        }
        #expect(await Self.waitUntil { atServer.all.count == sizes.count && atClient.all.count == sizes.count })
        #expect(atServer.all.map(\.count) == sizes)
        #expect(atClient.all.map(\.count) == sizes)
        // (Compared here: a failing #expect would print 256 KiB twice.)
        let whole = atServer.all.last == (0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(whole, "the 256 KiB message arrived changed")
        #expect(client.droppedApplicationData == 0 && server.droppedApplicationData == 0)
        print("SCTP over DTLS: records of at most \(configuration.maxPacketSize) bytes of data")
        client.close()
        server.close()
    }
}
