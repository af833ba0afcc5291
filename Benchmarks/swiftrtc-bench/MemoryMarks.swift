import SwiftRTCBenchReport

/// Resident memory and heap in use (trimmed) at named steps of a memory scenario, from a
/// first mark `before`; its row gives what each step added per connection.
struct MemoryMarks {
    private var marks: [(name: String, rss: Int, heap: Int)] = []
    private let usage = ProcessUsage.now()
    private let start = ContinuousClock.now

    init() { mark("before") }

    mutating func mark(_ name: String) {
        ProcessUsage.trimHeap()
        marks.append((name, ProcessUsage.residentBytes(), ProcessUsage.heapInUseBytes()))
    }

    /// The row: `<step>_rss_kb` and `<step>_heap_kb` per connection (or per `unit`: the
    /// figure named first, e.g. `channels`) for every step.
    func result(
        scenario: String,
        profile: String,
        connections: Int,
        unit: String = "connections",
        note: String
    ) -> BenchResult {
        let cpu = ProcessUsage.now().since(usage)
        let count = Double(connections)
        var extra: [(name: String, value: Double?)] = [(unit, count)]
        for (previous, current) in zip(marks, marks.dropFirst()) {
            extra.append(("\(current.name)_rss_kb", Double(current.rss - previous.rss) / 1024 / count))
            extra.append(("\(current.name)_heap_kb", Double(current.heap - previous.heap) / 1024 / count))
        }
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: scenario,
            packetsSent: 0,
            packetsReceived: 0,
            seconds: (ContinuousClock.now - start).seconds,
            cpuUserSeconds: cpu.user,
            cpuSystemSeconds: cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: 0,
            extra: extra,
            note: note
        )
    }
}
