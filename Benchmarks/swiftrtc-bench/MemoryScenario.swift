import SwiftRTCBenchReport
import SwiftRTCPeer

/// Memory: resident memory per idle connected ``PeerConnection`` (an audio transceiver each
/// way, no media), and the growth of resident memory over connect/close cycles, which must be
/// flat (every cycle connects a loopback pair and closes both).
enum MemoryScenario {
    /// Idle pairs held at once to measure memory per connection.
    static let idlePairs = 50
    /// Cycles running at the same time.
    static let cycleConcurrency = 8

    static func run(cycles: Int, budget: Double) async throws -> [BenchResult] {
        // Per idle connection.
        ProcessUsage.trimHeap()
        let before = ProcessUsage.residentBytes()
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        let calls = try await ConnectionsScenario.connectAll(idlePairs, audioTracks: false)
        try await Task.sleep(for: .seconds(1))
        let held = ProcessUsage.residentBytes()
        let profile = await calls.first?.profile() ?? "unknown"
        await ConnectionsScenario.closeAll(calls)
        let idleSeconds = (ContinuousClock.now - start).seconds
        let idleCPU = ProcessUsage.now().since(usage)
        let perConnection = Double(held - before) / Double(2 * idlePairs) / 1024
        let idle = BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "memory-idle",
            packetsSent: 0,
            packetsReceived: 0,
            seconds: idleSeconds,
            cpuUserSeconds: idleCPU.user,
            cpuSystemSeconds: idleCPU.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: 0,
            extra: [("connections", Double(2 * idlePairs)), ("rss_kb_per_connection", perConnection)],
            note: "\(idlePairs) idle connected pairs held"
        )

        // Growth over cycles: resident memory and heap in use after a warm-up tenth (the
        // allocator's and the libraries' caches fill up first), and at the end. Resident memory
        // counts what the allocator keeps; heap in use only what is allocated: a leak grows both.
        let cycleUsage = ProcessUsage.now()
        let cycleStart = ContinuousClock.now
        let deadline = cycleStart + .milliseconds(Int64(budget * 1000))
        let warmUp = max(1, cycles / 10)
        var done = 0
        var afterWarmUp: (rss: Int, heap: Int)?
        var samples: [(cycles: Int, rss: Int, heap: Int)] = []
        var lastClosed: [WeakConnection] = []
        while done < cycles, ContinuousClock.now < deadline {
            let batch = min(cycleConcurrency, cycles - done)
            let pairs = try await ConnectionsScenario.connectAll(batch, audioTracks: false, concurrency: batch)
            await ConnectionsScenario.closeAll(pairs)
            lastClosed = pairs.flatMap { [WeakConnection($0.offerer), WeakConnection($0.answerer)] }
            done += batch
            if afterWarmUp == nil, done >= warmUp {
                // As at the end: closed connections are freed by the feedback ticker's next
                // tick (it lets go of its snapshot of the transports within 10 ms).
                try await Task.sleep(for: .milliseconds(500))
                ProcessUsage.trimHeap()
                afterWarmUp = (ProcessUsage.residentBytes(), ProcessUsage.heapInUseBytes())
            }
            if done % 1000 < batch {
                samples.append((done, ProcessUsage.residentBytes(), ProcessUsage.heapInUseBytes()))
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        ProcessUsage.trimHeap()
        let end = (rss: ProcessUsage.residentBytes(), heap: ProcessUsage.heapInUseBytes())
        let measuredFrom = afterWarmUp ?? end
        let cycleSeconds = (ContinuousClock.now - cycleStart).seconds
        let cycleCPU = ProcessUsage.now().since(cycleUsage)
        let measured = Double(max(done - warmUp, 0))
        func perCycleKB(_ bytes: Int) -> Double? { measured > 0 ? Double(bytes) / 1024 / measured : nil }
        // Connections of the last batch still alive half a second after close: leaked.
        let alive = lastClosed.filter { $0.connection != nil }.count
        let trace = samples.map { "\($0.cycles):\($0.rss / 1_048_576)MB/\($0.heap / 1024)KB" }.joined(separator: " ")
        let cyclesResult = BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "memory-cycles",
            packetsSent: 0,
            packetsReceived: 0,
            seconds: cycleSeconds,
            cpuUserSeconds: cycleCPU.user,
            cpuSystemSeconds: cycleCPU.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: 0,
            extra: [
                ("cycles", Double(done)), ("cycles_asked", Double(cycles)), ("warmup_cycles", Double(warmUp)),
                ("ms_per_cycle", cycleSeconds / Double(max(done, 1)) * 1000),
                ("rss_mb_after_warmup", Double(measuredFrom.rss) / 1_048_576),
                ("rss_mb_end", Double(end.rss) / 1_048_576),
                ("growth_mb", Double(end.rss - measuredFrom.rss) / 1_048_576),
                ("growth_kb_per_cycle", perCycleKB(end.rss - measuredFrom.rss)),
                ("heap_kb_after_warmup", Double(measuredFrom.heap) / 1024), ("heap_kb_end", Double(end.heap) / 1024),
                ("heap_growth_kb_per_cycle", perCycleKB(end.heap - measuredFrom.heap)),
                ("closed_connections_still_alive", Double(alive)),
            ],
            note: (done < cycles ? "budget \(Int(budget)) s reached after \(done) cycles; " : "") + "rss/heap in use "
                + trace
        )
        return [idle, cyclesResult]
    }
}

/// A closed connection, to see whether it was freed.
struct WeakConnection {
    weak var connection: PeerConnection?
    init(_ connection: PeerConnection) { self.connection = connection }
}
