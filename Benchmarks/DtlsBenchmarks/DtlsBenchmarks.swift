// DTLS control-plane costs: certificate generation and a full DTLS-SRTP handshake between two
// of ours over an in-memory link (run: `swift package benchmark --target DtlsBenchmarks`).
// The handshake runs once per connection, so it is measured per handshake, not per packet.
import Benchmark
import Dispatch
import Synchronization
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE

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
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
                                           maxDuration: .seconds(3))

    Benchmark("Certificate generate (ECDSA P-256, self-signed)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try DtlsCertificate.generate()) }
    }

    Benchmark("DTLS 1.2 handshake, in-memory pair (ECDSA P-256, AES-128-GCM, SRTP AES-CM-80)") { benchmark in
        let clientCertificate = try DtlsCertificate.generate()
        let serverCertificate = try DtlsCertificate.generate()
        let network = DispatchQueue(label: "bench.network")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let toServer = LoopbackSender(network: network)
            let toClient = LoopbackSender(network: network)
            let client = try DtlsTransport(configuration: .init(
                role: .client, certificate: clientCertificate, remoteFingerprints: [serverCertificate.fingerprint]),
                sender: toServer)
            let server = try DtlsTransport(configuration: .init(
                role: .server, certificate: serverCertificate, remoteFingerprints: [clientCertificate.fingerprint]),
                sender: toClient)
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
    }
}
