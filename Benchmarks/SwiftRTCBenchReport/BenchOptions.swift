import ArgumentParser

/// The options every `swiftrtc-bench` command takes.
public struct BenchOptions: ParsableArguments, Sendable {
    /// Seconds each throughput run (ours and each limit) measures.
    @Option(help: "Seconds per throughput run (each of ours and each limit).")
    public var seconds: Double = 5

    /// One JSON object per line instead of the table.
    @Flag(help: "Print one JSON object per result line instead of the table.")
    public var json = false

    /// The numbers of concurrent calls of the connections scenario.
    @Option(
        name: .customLong("calls"),
        parsing: .upToNextOption,
        help: "Concurrent audio calls per connections run."
    )
    public var calls: [Int] = [10, 100, 500, 1000]

    /// Seconds of media per connections run.
    @Option(help: "Seconds of media in each connections run.")
    public var callSeconds: Double = 5

    /// Calls set up one after the other for the setup scenario.
    @Option(help: "Calls set up (one after the other) for the setup percentiles.")
    public var setupCalls: Int = 100

    /// Connect/close cycles for the memory scenario (at most; see ``cycleBudget``).
    @Option(help: "Connect/close cycles of the memory scenario.")
    public var cycles: Int = 10_000

    /// The time the memory scenario's cycles may take; fewer cycles run if it is up.
    @Option(help: "Seconds the connect/close cycles may take at most (fewer cycles run if the budget is up).")
    public var cycleBudget: Double = 120

    /// Data channels opened on one connection for the datachannel scenario's memory figure.
    @Option(help: "Data channels opened on one connection to measure memory per channel.")
    public var channels: Int = 1000

    /// SwiftRTC's own log (ICE pairs, DTLS handshakes...) on standard error; off by default.
    @Flag(help: "Print SwiftRTC's log (connection events) on standard error.")
    public var log = false

    public init() {}

    public mutating func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        guard callSeconds > 0 else { throw ValidationError("--call-seconds must be positive") }
        guard !calls.isEmpty, calls.allSatisfy({ $0 > 0 && $0 <= 5000 }) else {
            throw ValidationError("--calls takes counts in 1...5000")
        }
        guard setupCalls >= 1 else { throw ValidationError("--setup-calls must be at least 1") }
        guard (1...30_000).contains(channels) else { throw ValidationError("--channels takes 1...30000") }
        guard cycles >= 1, cycleBudget > 0 else {
            throw ValidationError("--cycles and --cycle-budget must be positive")
        }
    }
}
