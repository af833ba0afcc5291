// Datagrams of 1200 bytes through two IceAgents connected on loopback (host/host): sent with
// IceComponent.send (nice_agent_send) on the benchmark thread, received by libnice on a
// transport thread, demultiplexed (RFC 7983) and counted by the RTP handler. Throughput is
// datagrams delivered per second, with at most 256 in flight (no loss from the socket buffer);
// mallocs are counted process-wide, so they include the receive path.
//
// For scale, measured on this machine (DESIGN.md): plain UDP 252k packets/s; two libnice
// agents from Swift about 200k packets/s.
//
//     swift package --allow-writing-to-package-directory benchmark --target ICEBenchmarks
import Benchmark
import SwiftRTCICE
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
            guard ContinuousClock.now < deadline else { fatalError("ICE did not connect: \(offerer.state) \(answerer.state)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000)

    Benchmark("ICE loopback 1200 B datagrams delivered") { benchmark, agents in
        agents.datagram.withUnsafeBytes { bytes in
            let start = agents.delivered.value.load(ordering: .relaxed)
            var sent = 0
            for _ in benchmark.scaledIterations {
                while sent - (agents.delivered.value.load(ordering: .relaxed) - start) >= 256 { sched_yield() }
                if agents.offerer.component.send(bytes) { sent += 1 }
            }
            let deadline = ContinuousClock.now + .seconds(1)
            while agents.delivered.value.load(ordering: .relaxed) - start < sent && ContinuousClock.now < deadline { sched_yield() }
        }
    } setup: {
        try await ConnectedAgents()
    }
}
