import Foundation
import SwiftRTCBenchReport

/// The limits ours is compared with, measured in the same run by `swiftrtc-bench-limit`
/// (Benchmarks/swiftrtc-bench-limit/main.c), a separate C executable: plain UDP
/// sendto/recvfrom, and libsrtp AES-CM-80 and AES-128-GCM protect + UDP + unprotect. Each
/// one packet at a time on one thread, and (`-2t`) with a sender thread and a receiver
/// thread as SwiftRTC runs, the sender never far enough ahead to lose a packet. The crypto is
/// stock libsrtp (plain `srtp_init()`, Debian's NSS-backed crypto), and for the two-thread
/// loops also SwiftRTC's nettle-backed kernels (`nettle`): the limit of this design.
enum Limits {
    struct Mode {
        /// `udp`, `cm80` or `gcm`.
        var mode: String
        var threads: Int
        /// `stock` or `nettle`.
        var crypto: String
        var scenario: String
        var impl: String
        var profile: String
    }

    static let modes: [Mode] = [
        Mode(mode: "udp", threads: 1, crypto: "stock", scenario: "limit-udp", impl: "udp", profile: "none"),
        Mode(
            mode: "cm80",
            threads: 1,
            crypto: "stock",
            scenario: "limit-srtp-cm80",
            impl: "libsrtp-c",
            profile: "cm80"
        ),
        Mode(mode: "gcm", threads: 1, crypto: "stock", scenario: "limit-srtp-gcm", impl: "libsrtp-c", profile: "gcm"),
        Mode(mode: "udp", threads: 2, crypto: "stock", scenario: "limit-udp-2t", impl: "udp", profile: "none"),
        Mode(
            mode: "cm80",
            threads: 2,
            crypto: "stock",
            scenario: "limit-srtp-cm80-2t",
            impl: "libsrtp-c",
            profile: "cm80"
        ),
        Mode(
            mode: "gcm",
            threads: 2,
            crypto: "stock",
            scenario: "limit-srtp-gcm-2t",
            impl: "libsrtp-c",
            profile: "gcm"
        ),
        Mode(
            mode: "cm80",
            threads: 2,
            crypto: "nettle",
            scenario: "limit-nettle-cm80-2t",
            impl: "nettle-c",
            profile: "cm80"
        ),
        Mode(
            mode: "gcm",
            threads: 2,
            crypto: "nettle",
            scenario: "limit-nettle-gcm-2t",
            impl: "nettle-c",
            profile: "gcm"
        ),
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

    static func measure(_ mode: Mode, seconds: Double, payload: Int) throws -> BenchResult {
        let figures = try execute([mode.mode, String(seconds), String(payload), String(mode.threads), mode.crypto])
        return figures.result(
            impl: mode.impl,
            profile: mode.profile,
            scenario: mode.scenario,
            payload: payload,
            extra: [("cpu_us_per_packet", figures.cpuMicrosecondsPerPacket)],
            note: mode.threads == 1
                ? "C, one packet at a time, separate process"
                : "C, a sender and a receiver thread (at most 64 packets apart), \(mode.crypto) crypto, separate process"
        )
    }

    /// The limit of `connections-N`: `count` audio calls in C, a socket per connection, a
    /// packet of `payload` bytes every 20 ms on each, AES-CM-80 on SwiftRTC's nettle kernels;
    /// one sender thread, one receiver thread in epoll. (Stock libsrtp's NSS crypto costs five
    /// times as much per small packet: a thousand calls of it do not keep up on this machine.)
    static func calls(_ count: Int, seconds: Double, payload: Int) throws -> BenchResult {
        let figures = try execute(["calls", String(seconds), String(payload), String(count), "nettle"])
        let cpu = figures.user + figures.system
        return figures.result(
            impl: "nettle-c",
            profile: "cm80",
            scenario: "limit-calls-\(count)",
            payload: payload,
            extra: [
                ("calls", Double(count)),
                ("cpu_cores_used", figures.seconds > 0 ? cpu / figures.seconds : nil),
                ("cpu_us_per_packet", figures.cpuMicrosecondsPerPacket),
                ("late_ticks", figures.lateTicks.map(Double.init)),
            ],
            note:
                "C, \(2 * count) sockets, a sender thread every 20 ms and a receiver thread in epoll, separate process"
        )
    }

    /// The limit of a `datachannel-<size>` row: one reliable ordered SCTP stream (usrsctp,
    /// AF_CONN, SctpAssociation's settings) over GnuTLS DTLS (our priorities: ECDHE-ECDSA
    /// AES-128-GCM, P-256; 1200-byte datagrams, an SCTP packet per record) between two
    /// endpoints whose datagrams cross UDP sockets on loopback, `messageBytes` messages for
    /// `seconds`: the application's thread sends (usrsctp encrypts and sends each packet on it)
    /// and waits for usrsctp's send callback when its buffer is full; a receiver thread per
    /// endpoint decrypts and hands packets to usrsctp, which delivers (counted) on it.
    static func dataChannel(messageBytes: Int, seconds: Double) throws -> BenchResult {
        let figures = try execute(["datachannel", String(seconds), String(messageBytes)])
        // Second line: cipher suite, record data size, largest SCTP packet and datagram, records
        // refused, waits for room and those that timed out (no send callback within 100 ms).
        let details = figures.details.split(separator: " ")
        let numbers = details.dropFirst().compactMap { Double($0) }
        guard details.count == 7, numbers.count == 6 else {
            throw BenchError("\(executable.path) datachannel: unexpected details \(figures.details)")
        }
        let suite = String(details[0])
        let megabytes = Double(figures.received) * Double(messageBytes) / 1e6
        let cpu = figures.user + figures.system
        return figures.result(
            impl: "usrsctp-c",
            profile: BenchResult.profile(dtlsCipher: suite),
            scenario: "limit-datachannel-\(DataChannelScenario.sizeName(messageBytes))",
            payload: messageBytes,
            extra: [
                ("message_bytes", Double(messageBytes)),
                ("mb_per_s", figures.seconds > 0 ? megabytes / figures.seconds : nil),
                ("cpu_ms_per_mb", megabytes > 0 ? cpu / megabytes * 1000 : nil),
                ("cpu_cores_used", figures.seconds > 0 ? cpu / figures.seconds : nil),
                ("record_bytes", numbers[0]), ("largest_packet", numbers[1]), ("largest_datagram", numbers[2]),
                ("records_refused", numbers[3]), ("waits_for_room", numbers[4]), ("waits_timed_out", numbers[5]),
            ],
            note:
                "C, usrsctp over GnuTLS DTLS \(suite), UDP on loopback; a sending thread, a receiving thread per end; separate process"
        )
    }

    /// What one run of the C executable printed.
    struct Figures {
        var sent: Int, received: Int, seconds: Double, user: Double, system: Double, residentKB: Double
        /// Mode `calls` only.
        var lateTicks: Int?
        /// The lines after the first (mode `datachannel`: what the connection negotiated).
        var details = ""
        var cpuMicrosecondsPerPacket: Double? { received > 0 ? (user + system) / Double(received) * 1e6 : nil }

        /// The row these figures make.
        func result(
            impl: String,
            profile: String,
            scenario: String,
            payload: Int,
            extra: [(name: String, value: Double?)],
            note: String
        ) -> BenchResult {
            BenchResult(
                impl: impl,
                profile: profile,
                scenario: scenario,
                packetsSent: sent,
                packetsReceived: received,
                seconds: seconds,
                cpuUserSeconds: user,
                cpuSystemSeconds: system,
                maxRSSMegabytes: residentKB / 1024,
                payloadBytes: payload,
                extra: extra,
                note: note
            )
        }
    }

    static func execute(_ arguments: [String]) throws -> Figures {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let fields = (lines.first ?? "").split(separator: " ")
        guard process.terminationStatus == 0, fields.count == 6 || fields.count == 7,
            let sent = Int(fields[0]), let received = Int(fields[1]), let elapsed = Double(fields[2]),
            let user = Double(fields[3]), let system = Double(fields[4]), let rss = Double(fields[5])
        else {
            throw BenchError(
                "\(executable.path) \(arguments) failed (status \(process.terminationStatus)): \(String(decoding: data, as: UTF8.self))"
            )
        }
        return Figures(
            sent: sent,
            received: received,
            seconds: elapsed,
            user: user,
            system: system,
            residentKB: rss,
            lateTicks: fields.count == 7 ? Int(fields[6]) : nil,
            details: lines.dropFirst().joined(separator: "\n")
        )
    }
}

/// A benchmark that could not run; says what failed.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
