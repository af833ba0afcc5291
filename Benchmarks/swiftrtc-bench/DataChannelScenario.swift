import SwiftRTCBenchReport
import SwiftRTCDataChannel
import SwiftRTCICE
import SwiftRTCPeer
import Synchronization

/// Data channels: one reliable ordered channel between two ``PeerConnection``s of this process
/// (data only, connected over loopback: ICE, DTLS, SCTP), for each message size the C loop of
/// usrsctp over the same DTLS (``Limits/dataChannel(messageBytes:seconds:)``) first and then
/// ours, with the ratio; and the memory an open channel costs.
///
/// - `datachannel-<size>`: the sender sends binary messages of one size for `seconds`
///   through the public API, waiting on ``DataChannel/bufferedAmountLow()`` whenever
///   ``DataChannel/bufferedAmount`` passes ``lowThreshold``; the receiving application counts
///   them from ``DataChannel/messages``. Timed from the first send to the last delivery; CPU is
///   the process's over that time. `ratio_limit` is our MB/s over the C loop's,
///   `ratio_limit_cpu` the C loop's CPU per MB over ours.
/// - `datachannel-memory`: a connected data-only pair with one channel open; then
///   `channels` more opened by the offerer (both sides hold each: ours and the peer's), all
///   open; resident memory and heap in use (trimmed) per channel.
enum DataChannelScenario {
    static let messageSizes = [1024, 16 * 1024, 256 * 1024]
    /// The sender waits for ``DataChannel/bufferedAmountLow()`` past this many bytes waiting
    /// beyond the association's send buffer.
    static let lowThreshold = 256 * 1024

    /// `1k`, `16k`, `256k`.
    static func sizeName(_ bytes: Int) -> String { bytes % 1024 == 0 ? "\(bytes / 1024)k" : "\(bytes)b" }

    static func run(seconds: Double, channels: Int) async throws -> [BenchResult] {
        var results: [BenchResult] = []
        for size in messageSizes {
            let limit = try Limits.dataChannel(messageBytes: size, seconds: seconds)
            results += [limit, try await throughput(messageBytes: size, seconds: seconds, limit: limit)]
        }
        results.append(try await memory(channels: channels))
        return results
    }

    /// What the receiving application counted.
    final class Counter: Sendable {
        private let state = Mutex((messages: 0, bytes: 0, last: ContinuousClock.now))

        func count(_ bytes: Int) {
            state.withLock {
                $0.messages += 1
                $0.bytes += bytes
                $0.last = .now
            }
        }

        var messages: Int { state.withLock { $0.messages } }
        var last: ContinuousClock.Instant { state.withLock { $0.last } }
        func restartClock() { state.withLock { $0.last = .now } }
    }

    /// A connected data-only pair with one channel open on both sides (the offerer's, and the
    /// answerer's announced copy), each end on a transport thread of its own (`threads`, two):
    /// a bot's connection to a browser has the process's transport thread for its end, as
    /// each endpoint of the C loop has a receiving thread of its own. (On the process's pool,
    /// one thread on two cores, both ends would share one.)
    static func connectedChannel(
        label: String,
        threads: TransportThreadPool
    ) async throws -> (LoopbackCall, DataChannel, DataChannel) {
        var made: DataChannel?
        let call = try await LoopbackCall.connect(transportThreads: threads) { offerer, _ in
            made = try await offerer.createDataChannel(label: label)
        }
        guard let local = made, await local.opened() else {
            await call.close()
            throw BenchError("the data channel did not open")
        }
        var remotes = call.answerer.dataChannels.makeAsyncIterator()
        guard let remote = await remotes.next() else {
            await call.close()
            throw BenchError("the peer's data channel never came")
        }
        return (call, local, remote)
    }

    static func throughput(messageBytes: Int, seconds: Double, limit: BenchResult) async throws -> BenchResult {
        let threads = TransportThreadPool(threadCount: 2, name: "swiftrtc-dc")
        defer { threads.shutdown() }
        let (call, channel, remote) = try await connectedChannel(label: "bulk", threads: threads)
        let counter = Counter()
        let counting = Task {
            for await message in remote.messages { counter.count(message.count) }
        }
        defer { counting.cancel() }
        channel.bufferedAmountLowThreshold = lowThreshold
        let message = [UInt8](repeating: 0xAB, count: messageBytes)
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        counter.restartClock()
        let end = start + .milliseconds(Int64(seconds * 1000))
        var sent = 0
        while ContinuousClock.now < end {
            try channel.send(message)
            sent += 1
            if channel.bufferedAmount > lowThreshold { await channel.bufferedAmountLow() }
        }
        // Reliable: everything sent arrives; wait for it, or for 2 s without progress.
        var previous = -1
        var quietSince = ContinuousClock.now
        while counter.messages < sent, ContinuousClock.now - quietSince < .seconds(2) {
            let now = counter.messages
            if now != previous {
                previous = now
                quietSince = .now
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let cpu = ProcessUsage.now().since(usage)
        let elapsed = max((counter.last - start).seconds, 1e-3)
        let received = counter.messages
        let held = await call.answerer.stats().first(.peerConnection)?.number("dataUnreadLimitReached") ?? 0
        let profile = await call.dtlsProfile()
        counting.cancel()
        await call.close()
        let megabytes = Double(received) * Double(messageBytes) / 1e6
        let cpuPerMB = megabytes > 0 ? (cpu.user + cpu.system) / megabytes * 1000 : nil
        let ours = megabytes / elapsed
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "datachannel-\(sizeName(messageBytes))",
            packetsSent: sent,
            packetsReceived: received,
            seconds: elapsed,
            cpuUserSeconds: cpu.user,
            cpuSystemSeconds: cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: messageBytes,
            extra: [
                ("message_bytes", Double(messageBytes)), ("mb_per_s", ours), ("cpu_ms_per_mb", cpuPerMB),
                ("cpu_cores_used", (cpu.user + cpu.system) / elapsed), ("unread_limit_reached", held),
                ("ratio_limit", limit[extra: "mb_per_s"].map { $0 > 0 ? ours / $0 : nil } ?? nil),
                (
                    "ratio_limit_cpu",
                    limit[extra: "cpu_ms_per_mb"].flatMap { c in cpuPerMB.map { $0 > 0 ? c / $0 : nil } } ?? nil
                ),
            ],
            note:
                "PeerConnection pair, one reliable ordered channel, bufferedAmountLowThreshold \(lowThreshold / 1024) KiB"
        )
    }

    static func memory(channels: Int) async throws -> BenchResult {
        let threads = TransportThreadPool(threadCount: 2, name: "swiftrtc-dc")
        defer { threads.shutdown() }
        let (call, first, firstRemote) = try await connectedChannel(label: "first", threads: threads)
        // The peer's channels, kept as an application would keep them.
        let remotes = Mutex<[DataChannel]>([])
        let collecting = Task {
            for await channel in call.answerer.dataChannels { remotes.withLock { $0.append(channel) } }
        }
        defer { collecting.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        var marks = MemoryMarks()
        var local: [DataChannel] = []
        local.reserveCapacity(channels)
        for index in 0..<channels {
            local.append(try await call.offerer.createDataChannel(label: "channel-\(index)"))
        }
        var opened = 0
        for channel in local where await channel.opened() { opened += 1 }
        let deadline = ContinuousClock.now + .seconds(30)
        while remotes.withLock({ $0.count }) < channels, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let arrived = remotes.withLock { $0.count }
        try await Task.sleep(for: .milliseconds(500))
        marks.mark("open")
        let profile = await call.dtlsProfile()
        var result = marks.result(
            scenario: "datachannel-memory",
            profile: profile,
            connections: channels,
            unit: "channels",
            note: "one connection, \(channels) channels opened by one side, both sides' objects; per channel"
        )
        if let perChannel = result[extra: "open_rss_kb"] {
            result.extra.append(("open_rss_mb_total", perChannel * Double(channels) / 1024))
        }
        result.extra += [("opened", Double(opened)), ("peer_channels", Double(arrived))]
        withExtendedLifetime((first, firstRemote, local)) {}
        collecting.cancel()
        await call.close()
        guard opened == channels, arrived == channels else {
            throw BenchError("data channel memory: \(opened) opened, \(arrived) of the peer's of \(channels)")
        }
        return result
    }
}
