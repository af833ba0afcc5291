import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCDTLS

/// Flights resent by our transport on top of GnuTLS's doubling retransmissions: while
/// connecting, never more than 1 s apart; once connected, the last flight until the peer shows
/// it has the keys.
@Suite(.realTime) struct DtlsFlightResendsTests {
    /// The (content type, epoch) of each record in a datagram (RFC 6347 §4.1 record header).
    static func records(_ datagram: [UInt8]) -> [(type: UInt8, epoch: UInt16)] {
        var found: [(UInt8, UInt16)] = []
        var offset = 0
        while offset + 13 <= datagram.count {
            found.append((datagram[offset], UInt16(datagram[offset + 3]) << 8 | UInt16(datagram[offset + 4])))
            offset += 13 + (Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12]))
        }
        return found
    }

    /// The first handshake message type in each epoch-0 handshake record of a datagram.
    static func handshakeTypes(_ datagram: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var offset = 0
        while offset + 14 <= datagram.count {
            let epoch = UInt16(datagram[offset + 3]) << 8 | UInt16(datagram[offset + 4])
            if datagram[offset] == 22 && epoch == 0 { types.append(datagram[offset + 13]) }
            offset += 13 + (Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12]))
        }
        return types
    }

    /// The server's second flight (ServerHello ... ServerHelloDone) is lost eight times, and
    /// every copy of the client's ClientHello after the first is lost too, so only the server
    /// can bring its flight again. GnuTLS alone (first retransmission after the tests' 50 ms,
    /// then doubling) sends copies 0.05, 0.15, 0.35, 0.75, 1.55, 3.15, 6.35 and 12.75 s after
    /// the first; the resends fill each gap over 1 s (2.55 and 4.15 s), so the ninth copy goes
    /// out about 4.2 s after the first, one of ours.
    ///
    /// The test asserts that our resends brought copies, not when they went out: late timers
    /// delay the resends; without the resends there are none to count. Its handshakes missed
    /// their deadline (8 s, then 20 s) in CI runs' first 40 s, where every short test runs at
    /// once on two cores: the suite takes the real-time slot, as the other tests with
    /// handshake deadlines do.
    @Test func lostFlightIsResentByOurTransport() async throws {
        let serverHellos = Mutex(0)
        let clientHellos = Mutex(0)
        let link = MemoryDatagramLink(
            dropFromA: { _, bytes in
                guard Self.handshakeTypes(bytes).contains(1) else { return false }
                return clientHellos.withLock { count in
                    count += 1
                    return count > 1
                }
            },
            dropFromB: { _, bytes in
                guard Self.handshakeTypes(bytes).contains(2) else { return false }
                return serverHellos.withLock { count in
                    count += 1
                    return count <= 8
                }
            }
        )
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        #expect(try c.get().keyingMaterial.local.key == s.get().keyingMaterial.remote.key)
        #expect(serverHellos.withLock { $0 } >= 9)
        #expect(server.handshakeFlightResends >= 1, "the server's own resends brought its flight")
    }

    /// The server's last flight (ChangeCipherSpec, Finished) is lost three times, and every
    /// retransmission of the client's flight is lost too, so GnuTLS's own recovery (answering
    /// the client's resent flight) cannot help: only the server's resends key the client.
    /// Copies that reach the connected client are dropped as replays. Without confirmation the
    /// resends stop at the maximum.
    @Test func lostLastFlightIsResentWithoutThePeersRetransmission() async throws {
        let changeCipherSpecsFromServer = Mutex(0)
        let clientSentFinished = Mutex(false)
        let link = MemoryDatagramLink(
            dropFromA: { _, bytes in
                clientSentFinished.withLock { sent in
                    if sent { return true }
                    if Self.records(bytes).contains(where: { $0.epoch == 1 }) { sent = true }
                    return false
                }
            },
            dropFromB: { _, bytes in
                let records = Self.records(bytes)
                guard records.contains(where: { $0.type == 20 || $0.epoch == 1 }) else { return false }
                return changeCipherSpecsFromServer.withLock { count in
                    if records.contains(where: { $0.type == 20 }) { count += 1 }
                    return count <= 3
                }
            }
        )
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        #expect(try c.get().keyingMaterial.local.key == s.get().keyingMaterial.remote.key)
        #expect(server.lastFlightResends >= 3)
        #expect(client.lastFlightResends == 0, "the client's last flight was not the handshake's last")

        // Unconfirmed, the server goes on to the maximum; the client drops the copies.
        while server.lastFlightResends < DtlsTransport.maximumLastFlightResends {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(700))
        #expect(server.lastFlightResends == DtlsTransport.maximumLastFlightResends)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        #expect(changeCipherSpecsFromServer.withLock { $0 } == 1 + DtlsTransport.maximumLastFlightResends)
    }

    /// A client and a server connected over a lossless in-memory link (kept with them).
    static func connectedPair() async throws -> (client: DtlsTransport, server: DtlsTransport, link: MemoryDatagramLink)
    {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let link = MemoryDatagramLink()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        _ = try c.get()
        _ = try s.get()
        return (client, server, link)
    }

    /// The confirmation (the peer's first authenticated packet) stops the resends at once.
    /// (How many went out before it depends on when this test's task runs again after the
    /// handshake: in a loaded full test run, once, 5 s later.)
    @Test func confirmationStopsTheResends() async throws {
        let (_, server, link) = try await Self.connectedPair()
        server.confirmPeerHasKeys()
        let resends = server.lastFlightResends, sent = link.b.counts.sent
        try await Task.sleep(for: .milliseconds(1200))
        #expect(server.lastFlightResends == resends)
        #expect(link.b.counts.sent == sent, "nothing more from the server")
    }

    /// The timer thread can take a deadline as due just as the transport's queue replaces it
    /// (the handshake completing, a resend setting the next): that run is dropped, so the
    /// last flight does not go out again before its interval. The deadline still set runs.
    @Test func aReplacedDeadlineDoesNotRunTheTimer() async throws {
        let (_, server, _) = try await Self.connectedPair()
        // The server sent the last flight: its resend is set, 500 ms ahead.
        let (resends, deadline) = server.onQueue { (server.lastFlightResendCount, server.timerDeadline) }
        let current = try #require(deadline)
        for stale in [current - 1_000_000, current + 1] {
            server.timerDue(stale)
            let (after, still) = server.onQueue { (server.lastFlightResendCount, server.timerDeadline) }
            #expect(after == resends, "a deadline that is not the one set resent the last flight")
            #expect(still == current)
        }
        server.timerDue(current)
        let (after, next) = server.onQueue { (server.lastFlightResendCount, server.timerDeadline) }
        #expect(after == resends + 1, "the deadline set runs the timer")
        #expect(try #require(next) > current)
    }
}
