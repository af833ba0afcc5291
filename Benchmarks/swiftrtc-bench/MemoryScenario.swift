import SwiftRTCBenchReport
import SwiftRTCPeer
import SwiftRTCSDP

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
        return [idle, try await stages(), try await components(), cyclesResult]
    }

    /// Where an idle connection's memory goes, stage by stage, over ``idlePairs`` pairs held
    /// at once: made (the `PeerConnection`, its transceiver, a shared certificate), negotiated
    /// (offer and answer applied: the ICE agent gathered on its socket, the DTLS and SRTP
    /// transports made, not connected), connected (ICE checks, the DTLS handshake, SRTP keyed).
    /// Resident memory and heap in use after each, trimmed, per connection.
    static func stages() async throws -> BenchResult {
        var marks = MemoryMarks()
        var pairs: [(offerer: PeerConnection, answerer: PeerConnection)] = []
        for _ in 0..<idlePairs {
            let offerer = try PeerConnection(configuration: LoopbackCall.configuration(LoopbackCall.certificates.0))
            let answerer = try PeerConnection(configuration: LoopbackCall.configuration(LoopbackCall.certificates.1))
            try await offerer.addTransceiver(.audio)
            pairs.append((offerer, answerer))
        }
        marks.mark("made")
        var candidates: [(AsyncStream<IceCandidateInit>, AsyncStream<IceCandidateInit>)] = []
        var states: [(AsyncStream<PeerConnectionState>, AsyncStream<PeerConnectionState>)] = []
        for (offerer, answerer) in pairs {
            candidates.append((await offerer.localCandidates(), await answerer.localCandidates()))
            states.append((await offerer.connectionStates(), await answerer.connectionStates()))
            try await LoopbackCall.negotiate(offerer, answerer)
        }
        try await Task.sleep(for: .milliseconds(500))  // gathering done
        marks.mark("negotiated")
        var forwarding: [Task<Void, Never>] = []
        for ((offerer, answerer), (fromOfferer, fromAnswerer)) in zip(pairs, candidates) {
            forwarding += [
                LoopbackCall.forward(fromOfferer, to: answerer), LoopbackCall.forward(fromAnswerer, to: offerer),
            ]
        }
        var connected = 0
        for (offererStates, answererStates) in states {
            if await LoopbackCall.reaches(.connected, offererStates),
                await LoopbackCall.reaches(.connected, answererStates)
            {
                connected += 1
            }
        }
        for task in forwarding { task.cancel() }
        try await Task.sleep(for: .seconds(1))
        marks.mark("connected")
        let profile = await LoopbackCall(offerer: pairs[0].offerer, answerer: pairs[0].answerer, setupTime: .zero)
            .profile()
        for (offerer, answerer) in pairs {
            await offerer.close()
            await answerer.close()
        }
        guard connected == idlePairs else {
            throw BenchError("memory stages: \(connected) of \(idlePairs) pairs connected")
        }
        return marks.result(
            scenario: "memory-stages",
            profile: profile,
            connections: 2 * idlePairs,
            note: "per connection, what each stage added: made, negotiated (gathered, not connected), connected"
        )
    }
}

/// A closed connection, to see whether it was freed.
struct WeakConnection {
    weak var connection: PeerConnection?
    init(_ connection: PeerConnection) { self.connection = connection }
}
