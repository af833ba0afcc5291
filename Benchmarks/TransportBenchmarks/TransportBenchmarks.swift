// Datagrams of 1200 bytes through two IceAgents connected on loopback (host/host): sent with
// IceComponent.send (sendto on the host pair's socket) on the benchmark thread, received by
// libnice on a transport thread, demultiplexed (RFC 7983) and counted by the RTP handler.
// Throughput is datagrams delivered per second, with at most 256 in flight (no loss from the
// socket buffer); mallocs are counted process-wide, so they include the receive path.
//
// The SRTP benchmark runs the same path as a call does: keys from a DTLS handshake over the
// agents (AES-CM-80, the profile browser calls negotiate with Debian 12's GnuTLS), each RTP
// packet (1200-byte payload) protected in place before sending and unprotected in place on
// the transport thread before it is counted.
//
// For scale, measured on this machine (DESIGN.md): plain UDP 252k packets/s; two libnice
// agents from Swift about 200k packets/s.
//
//     swift package --allow-writing-to-package-directory benchmark --target TransportBenchmarks
import Benchmark
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSRTP
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Two connected agents and the count of datagrams the answerer received.
final class ConnectedAgents: Sendable {
    let offerer: IceAgent
    let answerer: IceAgent
    let delivered = Counter()
    /// An RTP-looking datagram (first byte 0x80), made once.
    let datagram: [UInt8] = [0x80] + [UInt8](repeating: 0xAB, count: 1199)

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    init() async throws {
        offerer = try IceAgent(configuration: .init(role: .controlling, localAddresses: ["127.0.0.1"]))
        answerer = try IceAgent(configuration: .init(role: .controlled, localAddresses: ["127.0.0.1"]))
        let delivered = self.delivered
        answerer.demultiplexer.setHandler({ _ in delivered.value.add(1, ordering: .relaxed) }, for: .rtp)
        try offerer.setRemoteCredentials(answerer.localCredentials)
        try answerer.setRemoteCredentials(offerer.localCredentials)
        for agent in [offerer, answerer] {
            try await agent.startGathering()
            for await event in agent.gathering where event == .complete { break }
        }
        for candidate in answerer.localCandidates { try await offerer.addRemoteCandidate(candidate) }
        for candidate in offerer.localCandidates { try await answerer.addRemoteCandidate(candidate) }
        let deadline = ContinuousClock.now + .seconds(5)
        while offerer.state != .completed || answerer.state != .completed {
            guard ContinuousClock.now < deadline else {
                fatalError("ICE did not connect: \(offerer.state) \(answerer.state)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// The connected agents with SRTP sessions keyed by a DTLS handshake over them.
final class SecureAgents: Sendable {
    let agents: ConnectedAgents
    let sender: SrtpSession
    /// An RTP packet: 12-byte header, 1200-byte payload, room for the tag; protected in place.
    let packet = Mutex<[UInt8]>(
        [0x80, 111, 0, 0, 0, 0, 0, 0, 0x0F, 0xFE, 0, 1] + [UInt8](repeating: 0xAB, count: 1200 + 16)
    )
    let sequence = Atomic<UInt16>(0)

    init() async throws {
        agents = try await ConnectedAgents()
        let offererCertificate = try DtlsCertificate.generate(), answererCertificate = try DtlsCertificate.generate()
        let server = try DtlsTransport(
            configuration: .init(
                role: .server,
                certificate: offererCertificate,
                remoteFingerprints: [answererCertificate.fingerprint]
            ),
            sender: agents.offerer.component
        )
        let client = try DtlsTransport(
            configuration: .init(
                role: .client,
                certificate: answererCertificate,
                remoteFingerprints: [offererCertificate.fingerprint]
            ),
            sender: agents.answerer.component
        )
        agents.offerer.demultiplexer.setHandler({ server.receive($0) }, for: .dtls)
        agents.answerer.demultiplexer.setHandler({ client.receive($0) }, for: .dtls)
        server.start()
        client.start()
        let (serverInfo, clientInfo) = try await (server.connected(), client.connected())
        func session(_ info: DtlsConnectionInfo) throws -> SrtpSession {
            let material = info.keyingMaterial
            return try SrtpSession(profile: material.profile, local: material.local, remote: material.remote)
        }
        sender = try session(serverInfo)
        let receiver = try session(clientInfo)
        // The transport thread unprotects each packet in place in one reused buffer.
        let scratch = Mutex<[UInt8]>([UInt8](repeating: 0, count: 2048))
        let delivered = agents.delivered
        agents.answerer.demultiplexer.setHandler(
            { datagram in
                scratch.withLock { buffer in
                    buffer.withUnsafeMutableBytes { bytes in
                        bytes.copyMemory(from: datagram)
                        if (try? receiver.unprotectRTP(bytes, length: datagram.count)) != nil {
                            delivered.value.add(1, ordering: .relaxed)
                        }
                    }
                }
            },
            for: .rtp
        )
    }

    /// Protects the next packet in place and sends it; false if the socket refused it.
    func sendNext() -> Bool {
        let sequence = sequence.wrappingAdd(1, ordering: .relaxed).newValue
        return packet.withLock { packet in
            packet[2] = UInt8(sequence >> 8)
            packet[3] = UInt8(sequence & 0xFF)
            return packet.withUnsafeMutableBytes { bytes in
                guard let length = try? sender.protectRTP(bytes, length: 12 + 1200) else { return false }
                return agents.offerer.component.send(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    Benchmark("ICE loopback 1200 B datagrams delivered") { benchmark, agents in
        agents.datagram.withUnsafeBytes { bytes in
            let start = agents.delivered.value.load(ordering: .relaxed)
            var sent = 0
            for _ in benchmark.scaledIterations {
                while sent - (agents.delivered.value.load(ordering: .relaxed) - start) >= 256 { sched_yield() }
                if agents.offerer.component.send(bytes) { sent += 1 }
            }
            let deadline = ContinuousClock.now + .seconds(1)
            while agents.delivered.value.load(ordering: .relaxed) - start < sent && ContinuousClock.now < deadline {
                sched_yield()
            }
        }
    } setup: {
        try await ConnectedAgents()
    }

    Benchmark("SRTP AES-CM-80 over ICE, 1200 B payloads delivered") { benchmark, secure in
        let delivered = secure.agents.delivered
        let start = delivered.value.load(ordering: .relaxed)
        var sent = 0
        for _ in benchmark.scaledIterations {
            while sent - (delivered.value.load(ordering: .relaxed) - start) >= 256 { sched_yield() }
            if secure.sendNext() { sent += 1 }
        }
        let deadline = ContinuousClock.now + .seconds(1)
        while delivered.value.load(ordering: .relaxed) - start < sent && ContinuousClock.now < deadline {
            sched_yield()
        }
    } setup: {
        try await SecureAgents()
    }
}
