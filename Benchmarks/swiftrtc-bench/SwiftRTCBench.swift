import ArgumentParser
import Foundation
import Logging
import SwiftRTCBenchReport
import SwiftRTCCore

/// `swiftrtc-bench`: SwiftRTC's figures beside the limits of the machine and of the C
/// libraries underneath (Benchmarks/README.md).
///
///     swift run -c release swiftrtc-bench                       # everything, < 10 minutes
///     swift run -c release swiftrtc-bench throughput --seconds 2 --json
@main
struct SwiftRTCBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftrtc-bench",
        abstract: "SwiftRTC throughput, connections, setup time and memory, against the limits.",
        subcommands: [
            All.self, Throughput.self, DataChannels.self, Connections.self, Setup.self, Memory.self, Soak.self,
            Conference.self,
        ],
        defaultSubcommand: All.self
    )

    /// Log records go to standard error: standard output carries the results.
    static func main() async {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        await main(nil)
    }

    /// Runs `scenarios` in order, printing each result as a JSON line as it comes, or the
    /// table (with the ratios to the limits) at the end.
    static func run(_ scenarios: [Scenario], options: BenchOptions) async throws {
        SwiftRTCLogging.level = options.log ? .basic : .nothing
        let descriptors = ProcessUsage.raiseFileLimit()
        progress(
            "swiftrtc-bench: \(scenarios.map(\.rawValue).joined(separator: ", ")); open files up to \(descriptors); load \(loadAverage())"
        )
        var results: [BenchResult] = []
        for scenario in scenarios {
            let started = ContinuousClock.now
            let new = try await scenario.run(options)
            progress(
                "  \(scenario.rawValue): \((ContinuousClock.now - started).seconds.formatted(.number.precision(.fractionLength(1)))) s"
            )
            results += new
            if options.json {
                // Ratios need the limits, measured first; print each line as soon as it can be complete.
                for result in BenchTable.addingRatios(results).suffix(new.count) { output(result.jsonLine) }
            }
        }
        if !options.json {
            output(BenchTable.render(BenchTable.addingRatios(results)))
            output("load average at the end: \(loadAverage())")
        }
    }

    /// A line on standard output, unbuffered (JSON lines appear as each scenario ends).
    static func output(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(
            separator: " "
        ) ?? "?"
    }
}

/// What `swiftrtc-bench` measures.
enum Scenario: String, CaseIterable {
    // Memory (and the data channels' memory per channel) before connections: a thousand calls
    // leave the heap large (malloc keeps some).
    case limits, throughput, throughputVP8 = "throughput-vp8", setup, memory, datachannel, connections

    func run(_ options: BenchOptions) async throws -> [BenchResult] {
        switch self {
        case .limits: try Limits.run(seconds: options.seconds, payload: ThroughputScenario.payloadBytes)
        case .throughput: [try await ThroughputScenario.runRTP(seconds: options.seconds)]
        case .throughputVP8: [try await ThroughputScenario.runVP8(seconds: options.seconds)]
        case .connections:
            try await options.calls.asyncMap { calls in
                let payload = try ConnectionsScenario.opusPacket().data.count
                let limit = try Limits.calls(calls, seconds: options.callSeconds, payload: payload)
                return [
                    limit, try await ConnectionsScenario.run(calls: calls, seconds: options.callSeconds, limit: limit),
                ]
            }.flatMap { $0 }
        case .setup: [try await SetupScenario.run(calls: options.setupCalls)]
        case .memory: try await MemoryScenario.run(cycles: options.cycles, budget: options.cycleBudget)
        case .datachannel: try await DataChannelScenario.run(seconds: options.seconds, channels: options.channels)
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}

extension SwiftRTCBench {
    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every scenario (the default), in under 10 minutes.")
        @OptionGroup var options: BenchOptions
        func run() async throws { try await SwiftRTCBench.run(Scenario.allCases, options: options) }
    }

    struct Throughput: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "RTP through a connected PeerConnection pair (plain and VP8), and the limits: UDP, stock libsrtp AES-CM-80 and GCM in C."
        )
        @OptionGroup var options: BenchOptions
        func run() async throws {
            try await SwiftRTCBench.run([.limits, .throughput, .throughputVP8], options: options)
        }
    }

    struct DataChannels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "datachannel",
            abstract:
                "One reliable ordered data channel (1, 16, 256 KiB messages) beside usrsctp over DTLS in C; memory per open channel (--channels)."
        )
        @OptionGroup var options: BenchOptions
        func run() async throws { try await SwiftRTCBench.run([.datachannel], options: options) }
    }

    struct Connections: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "N concurrent audio calls in one process (--calls).")
        @OptionGroup var options: BenchOptions
        func run() async throws { try await SwiftRTCBench.run([.connections], options: options) }
    }

    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "createOffer to connected: median and p95 over --setup-calls calls."
        )
        @OptionGroup var options: BenchOptions
        func run() async throws { try await SwiftRTCBench.run([.setup], options: options) }
    }

    struct Memory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Memory per idle connection, and growth over connect/close cycles."
        )
        @OptionGroup var options: BenchOptions
        func run() async throws { try await SwiftRTCBench.run([.memory], options: options) }
    }

    struct Soak: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "N calls held for --minutes (audio, --video, --record): resident memory and heap each minute, growth per call."
        )
        @Option(help: "Concurrent calls.") var calls = 1
        @Option(help: "Minutes of media.") var minutes: Double = 60
        @Flag(help: "VP8 320x240 at 30 fps both ways beside the audio.") var video = false
        @Flag(help: "Record the answerer's side of every call (WebM with video, else Ogg).") var record = false
        @Flag(help: "Print the result as one JSON object.") var json = false

        func validate() throws {
            guard (1...5000).contains(calls) else { throw ValidationError("--calls takes 1...5000") }
            guard minutes > 0, minutes <= 48 * 60 else { throw ValidationError("--minutes must be in (0, 2880]") }
        }

        func run() async throws {
            SwiftRTCLogging.level = .nothing
            _ = ProcessUsage.raiseFileLimit()
            let result = try await SoakScenario.run(calls: calls, minutes: minutes, video: video, record: record)
            SwiftRTCBench.output(json ? result.jsonLine : BenchTable.render([result]))
        }
    }

    struct Conference: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "K listeners in this process subscribed to one publisher through a real Janus (root, Debian's janus): CPU and memory per subscribed stream."
        )
        @Option(
            parsing: .upToNextOption,
            help: "Listener counts, measured one after the other (the room grows)."
        )
        var listeners: [Int] = [5, 10, 20]
        @Option(help: "Seconds measured at each count.") var seconds: Double = 10
        @Flag(help: "Print each result as a JSON line.") var json = false

        func validate() throws {
            guard !listeners.isEmpty, listeners.allSatisfy({ (1...200).contains($0) }), listeners == listeners.sorted()
            else { throw ValidationError("--listeners takes rising counts of 1...200") }
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        }

        func run() async throws {
            SwiftRTCLogging.level = .nothing
            _ = ProcessUsage.raiseFileLimit()
            let results = try await ConferenceScenario.run(listeners: listeners, seconds: seconds)
            SwiftRTCBench.output(json ? results.map(\.jsonLine).joined(separator: "\n") : BenchTable.render(results))
        }
    }
}
