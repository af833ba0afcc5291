import Foundation
import SwiftRTCBenchReport

/// The limits ours is compared with, measured in the same run by `swiftrtc-bench-limit`
/// (Benchmarks/swiftrtc-bench-limit/main.c), a separate C executable: plain UDP
/// sendto/recvfrom, and stock libsrtp (plain `srtp_init()`, Debian's NSS-backed crypto;
/// SwiftRTC's nettle replacements are installed only in SwiftRTC's own process) AES-CM-80
/// and AES-128-GCM protect + UDP + unprotect, one packet at a time.
enum Limits {
    static let modes: [(mode: String, scenario: String, impl: String, profile: String)] = [
        ("udp", "limit-udp", "udp", "none"),
        ("cm80", "limit-srtp-cm80", "libsrtp-c", "cm80"),
        ("gcm", "limit-srtp-gcm", "libsrtp-c", "gcm"),
    ]

    /// The C executable, built beside this one.
    static var executable: URL {
        let me = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
        )
        return me.deletingLastPathComponent().appendingPathComponent("swiftrtc-bench-limit")
    }

    /// Runs every limit for `seconds` each.
    static func run(seconds: Double, payload: Int) throws -> [BenchResult] {
        try modes.map { mode in try measure(mode, seconds: seconds, payload: payload) }
    }

    static func measure(
        _ mode: (mode: String, scenario: String, impl: String, profile: String),
        seconds: Double,
        payload: Int
    ) throws -> BenchResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = [mode.mode, String(seconds), String(payload)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard process.terminationStatus == 0, fields.count == 6,
            let sent = Int(fields[0]), let received = Int(fields[1]), let elapsed = Double(fields[2]),
            let user = Double(fields[3]), let system = Double(fields[4]), let rss = Double(fields[5])
        else {
            throw BenchError(
                "\(executable.path) \(mode.mode) failed (status \(process.terminationStatus)): \(String(decoding: data, as: UTF8.self))"
            )
        }
        return BenchResult(
            impl: mode.impl,
            profile: mode.profile,
            scenario: mode.scenario,
            packetsSent: sent,
            packetsReceived: received,
            seconds: elapsed,
            cpuUserSeconds: user,
            cpuSystemSeconds: system,
            maxRSSMegabytes: rss / 1024,
            payloadBytes: payload,
            extra: [("cpu_us_per_packet", received > 0 ? (user + system) / Double(received) * 1e6 : nil)],
            note: "C, one packet at a time, separate process"
        )
    }
}

/// A benchmark that could not run; says what failed.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
