// DTLS control-plane costs: certificate generation and a full DTLS-SRTP handshake between two
// of ours over an in-memory link (run: `swift package benchmark --target DtlsBenchmarks`).
// The handshake runs once per connection, so it is measured per handshake, not per packet.
import Benchmark
import Dispatch
import SwiftRTCCore
import SwiftRTCDTLS
import Synchronization

/// Delivers what one transport sends to the other, later, on a shared "network" queue.
final class LoopbackSender: DatagramSender {
    private let receiver = Mutex<DtlsTransport?>(nil)
    private let network: DispatchQueue

    init(network: DispatchQueue) { self.network = network }

    func connect(to transport: DtlsTransport) { receiver.withLock { $0 = transport } }
    func disconnect() { receiver.withLock { $0 = nil } }

    func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        let bytes = [UInt8](datagram)
        let transport = receiver.withLock { $0 }
        network.async { bytes.withUnsafeBytes { transport?.receive($0) } }
        return true
    }
}

let benchmarks: @Sendable () -> Void = {
    SwiftRTCLogging.level = .nothing  // one "connected" line per handshake otherwise
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        maxDuration: .seconds(3)
    )

    Benchmark("Certificate generate (ECDSA P-256, self-signed)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try DtlsCertificate.generate()) }
    }

    Benchmark("DTLS 1.2 handshake, in-memory pair (ECDSA P-256, AES-128-GCM, SRTP AES-CM-80)") { benchmark in
        let certificates = (client: try DtlsCertificate.generate(), server: try DtlsCertificate.generate())
        let network = DispatchQueue(label: "bench.network")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try await handshake(certificates, network: network)
        }
    }

    // Many connections at once, as a bot holding hundreds of calls sets them up: each
    // transport has its own serial queue on GCD's shared pool. One iteration = 100 pairs.
    Benchmark(
        "100 concurrent DTLS handshakes, in-memory pairs",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .throughput],
            maxDuration: .seconds(3)
        )
    ) { benchmark in
        let certificates = (client: try DtlsCertificate.generate(), server: try DtlsCertificate.generate())
        let network = DispatchQueue(label: "bench.network")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 { group.addTask { try await handshake(certificates, network: network) } }
                try await group.waitForAll()
            }
        }
    }
}

/// One complete handshake between two new transports, closed afterwards.
@Sendable func handshake(
    _ certificates: (client: DtlsCertificate, server: DtlsCertificate),
    network: DispatchQueue
) async throws {
    let toServer = LoopbackSender(network: network)
    let toClient = LoopbackSender(network: network)
    let client = try DtlsTransport(
        configuration: .init(
            role: .client,
            certificate: certificates.client,
            remoteFingerprints: [certificates.server.fingerprint]
        ),
        sender: toServer
    )
    let server = try DtlsTransport(
        configuration: .init(
            role: .server,
            certificate: certificates.server,
            remoteFingerprints: [certificates.client.fingerprint]
        ),
        sender: toClient
    )
    toServer.connect(to: server)
    toClient.connect(to: client)
    server.start()
    client.start()
    blackHole(try await client.connected())
    blackHole(try await server.connected())
    client.close()
    server.close()
    toServer.disconnect()
    toClient.disconnect()
}
