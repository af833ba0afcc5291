import SwiftRTCBenchReport
import SwiftRTCPeer

/// Setup time: from `createOffer` until both sides are connected (ICE and DTLS, SRTP keyed)
/// over loopback, for calls set up one after the other; median and p95.
enum SetupScenario {
    static func run(calls count: Int) async throws -> BenchResult {
        var times: [Double] = []
        var profile = "unknown"
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        for _ in 0..<count {
            let call = try await LoopbackCall.connect { offerer, answerer in
                try await offerer.addTransceiver(.audio)
                _ = answerer
            }
            times.append(call.setupTime.seconds * 1000)
            if times.count == 1 { profile = await call.profile() }
            await call.close()
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let cpu = ProcessUsage.now().since(usage)
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "setup",
            packetsSent: 0,
            packetsReceived: 0,
            seconds: elapsed,
            cpuUserSeconds: cpu.user,
            cpuSystemSeconds: cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: 0,
            extra: [
                ("calls", Double(count)),
                ("setup_median_ms", times.percentile(0.5)),
                ("setup_p95_ms", times.percentile(0.95)),
                ("setup_min_ms", times.min()),
                ("setup_max_ms", times.max()),
                ("cpu_ms_per_call", (cpu.user + cpu.system) / Double(count) * 1000),
            ],
            note: "createOffer -> both connected, one call at a time, check pacing 5 ms"
        )
    }
}
