import Foundation
import Glibc
import Synchronization
import TestScheduling
import Testing

#if canImport(Glibc)
#endif

/// Network namespaces made for one test and removed after it, even when it fails:
///
/// - `.direct`: namespaces `a` and `b` joined by a veth pair, `a` = 10.99.N.1/24 and
///   `b` = 10.99.N.2/24. Loss (nftables) and rate limits (tc tbf) are added inside them.
/// - `.bridged`: the same two addresses, but each endpoint's veth leads to a third namespace
///   `r` where `swiftrtc-impair` bridges the two links at layer 2 and delays, reorders or
///   duplicates the UDP frames. The endpoints still share one subnet, so ICE pairs plain host
///   candidates whose every packet crosses the bridge.
///
/// N is unique per network in this process (tests run in parallel); names carry the test
/// process id (`srtcf<pid>-<N>-a`), so a later run removes what a killed run left behind. Only
/// these namespaces' own addresses are ever used.
final class FaultNetwork: @unchecked Sendable {
    enum Layout: Sendable { case direct, bridged }

    let index: Int
    let layout: Layout
    let a: String, b: String, r: String
    /// The endpoints' addresses and interfaces (inside `a` and `b`; not named `veth...`, which
    /// libnice leaves out when it gathers).
    let addressA: String, addressB: String
    let interfaceA = "link-a", interfaceB = "link-b"
    private let children = Mutex<[ChildProcess]>([])

    private static let nextIndex = Mutex(1)
    private static let prefix = "srtcf"

    private init(index: Int, layout: Layout) {
        self.index = index
        self.layout = layout
        let pid = getpid()
        a = "\(Self.prefix)\(pid)-\(index)-a"
        b = "\(Self.prefix)\(pid)-\(index)-b"
        r = "\(Self.prefix)\(pid)-\(index)-r"
        addressA = "10.99.\(index).1"
        addressB = "10.99.\(index).2"
    }

    /// The tools the fault tests need, and root. A missing one fails the test saying what to do.
    static func requireTools() throws {
        guard getuid() == 0 else {
            throw FaultFailure(
                "the network fault tests must run as root (they create network namespaces, veth pairs, nftables rules and tc qdiscs; CI runs as root): run `swift test` as root"
            )
        }
        for (tool, package) in [
            ("ip", "iproute2"), ("tc", "iproute2"), ("nft", "nftables"), ("ethtool", "ethtool"), ("sysctl", "procps"),
        ] where FaultPaths.which(tool) == nil {
            throw FaultFailure(
                "\(tool) is missing; install it with: apt-get install -y \(package) (./Scripts/bootstrap.sh --tests installs it)"
            )
        }
        for url in [FaultPaths.callbot, FaultPaths.impair] where !FileManager.default.isExecutableFile(atPath: url.path)
        {
            throw FaultFailure("the built \(url.lastPathComponent) is missing at \(url.path); run swift build first")
        }
    }

    /// Creates the namespaces, runs `body`, and removes them again whatever happens.
    static func with<T: Sendable>(_ layout: Layout, _ body: (FaultNetwork) async throws -> T) async throws -> T {
        try requireTools()
        await removeLeftovers()
        let index = nextIndex.withLock { next -> Int in
            defer { next = next % 250 + 1 }
            return next
        }
        let network = FaultNetwork(index: index, layout: layout)
        do {
            try await network.create()
            let result = try await body(network)
            await network.teardown()
            return result
        } catch {
            await network.teardown()
            throw error
        }
    }

    // MARK: Commands

    @discardableResult
    static func ip(_ arguments: [String]) async throws -> String {
        try await Self.command("ip", arguments)
    }

    @discardableResult
    static func command(_ tool: String, _ arguments: [String]) async throws -> String {
        guard let path = FaultPaths.which(tool) else { throw FaultFailure("\(tool) is missing") }
        let result = try await ChildProcess.run(path, arguments)
        guard result.status == 0 else {
            throw FaultFailure(
                "`\(tool) \(arguments.joined(separator: " "))` failed (exit \(result.status)): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        return result.stdout
    }

    /// Runs `tool arguments` inside namespace `namespace` and returns its output.
    @discardableResult
    func run(in namespace: String, _ tool: String, _ arguments: [String]) async throws -> String {
        guard let path = FaultPaths.which(tool) else { throw FaultFailure("\(tool) is missing") }
        return try await Self.command("ip", ["netns", "exec", namespace, path] + arguments)
    }

    /// Starts a long-running process inside `namespace` (`ip netns exec` and `nice` exec it, so
    /// the pid is the program's own); it is stopped at teardown if still running. The calls run
    /// at a lower priority (nice 10) than the test process: the rest of the suite runs beside
    /// them, and its in-process handshakes must not starve (the `clean` control condition shows
    /// when the calls themselves were short of CPU).
    func spawn(
        in namespace: String,
        name: String,
        _ executable: String,
        _ arguments: [String],
        folder: URL
    ) throws -> ChildProcess {
        guard let ip = FaultPaths.which("ip") else {
            throw FaultFailure("ip is missing; install it with: apt-get install -y iproute2")
        }
        guard let nice = FaultPaths.which("nice") else {
            throw FaultFailure("nice is missing; install it with: apt-get install -y coreutils")
        }
        let path = executable.hasPrefix("/") ? executable : (FaultPaths.which(executable) ?? executable)
        let child = try ChildProcess(
            name: name,
            executable: ip,
            arguments: ["netns", "exec", namespace, nice, "-n", "10", path] + arguments,
            folder: folder
        )
        children.withLock { $0.append(child) }
        return child
    }

    // MARK: Set-up and teardown

    private var namespaces: [String] { layout == .bridged ? [a, r, b] : [a, b] }

    private func create() async throws {
        do {
            try await Self.ip(["netns", "add", a])
        } catch {
            throw FaultFailure(
                "cannot create a network namespace (`ip netns add`); the fault tests need root with CAP_SYS_ADMIN and CAP_NET_ADMIN, as CI runs them: \(error)"
            )
        }
        for namespace in namespaces.dropFirst() { try await Self.ip(["netns", "add", namespace]) }
        // IPv4 only: no IPv6 link-local candidates beside the 10.99.N.x ones.
        for namespace in namespaces {
            for scope in ["all", "default"] {
                try await run(in: namespace, "sysctl", ["-q", "-w", "net.ipv6.conf.\(scope).disable_ipv6=1"])
            }
        }
        switch layout {
        case .direct:
            try await Self.ip([
                "-n", a, "link", "add", interfaceA, "type", "veth", "peer", "name", interfaceB, "netns", b,
            ])
        case .bridged:
            try await Self.ip([
                "-n", a, "link", "add", interfaceA, "type", "veth", "peer", "name", "bridge-a", "netns", r,
            ])
            try await Self.ip([
                "-n", b, "link", "add", interfaceB, "type", "veth", "peer", "name", "bridge-b", "netns", r,
            ])
            for link in ["bridge-a", "bridge-b"] {
                try await Self.ip(["-n", r, "link", "set", link, "up"])
                try await run(in: r, "ethtool", ["-K", link, "tx", "off", "tso", "off", "gso", "off", "gro", "off"])
            }
        }
        for (namespace, interface, address) in [(a, interfaceA, addressA), (b, interfaceB, addressB)] {
            try await Self.ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", interface])
            try await Self.ip(["-n", namespace, "link", "set", interface, "up"])
            try await Self.ip(["-n", namespace, "link", "set", "lo", "up"])
            if layout == .bridged {
                // The bridge forwards frames as they are: complete checksums, no super-frames.
                try await run(
                    in: namespace,
                    "ethtool",
                    ["-K", interface, "tx", "off", "tso", "off", "gso", "off", "gro", "off"]
                )
            }
        }
        // The carrier comes up a moment after `link set up`; libnice gathers only on running
        // interfaces (a client started at once found none).
        for (namespace, interface) in [(a, interfaceA), (b, interfaceB)] {
            let deadline = ContinuousClock.now + .seconds(5)
            while true {
                let state = try await Self.ip(["-n", namespace, "-j", "link", "show", "dev", interface])
                if state.contains("\"operstate\":\"UP\"") { break }
                guard ContinuousClock.now < deadline else {
                    throw FaultFailure("\(interface) in \(namespace) is not up after 5 s: \(state)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Stops every process started in the namespaces, then deletes them.
    func teardown() async {
        let running = children.withLock { children in
            defer { children = [] }
            return children
        }
        for child in running { await child.end(grace: .seconds(5)) }
        for namespace in namespaces {
            _ = try? await Self.ip(["netns", "del", namespace])
        }
    }

    /// Deletes namespaces of ours whose test process is gone (a run killed before teardown).
    static func removeLeftovers() async {
        guard let list = try? await ip(["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count).prefix(while: \.isNumber)) else {
                continue
            }
            if kill(pid, 0) != 0, errno == ESRCH { _ = try? await ip(["netns", "del", name]) }
        }
    }

    // MARK: Impairments

    /// Random loss of `percent`% of the UDP packets arriving in each endpoint namespace (both
    /// directions), with counters of what was seen and dropped.
    func addLoss(percent: Int) async throws {
        for namespace in [a, b] {
            try await run(
                in: namespace,
                "nft",
                [
                    "add table inet srtcfault; "
                        + "add counter inet srtcfault udp_seen; add counter inet srtcfault udp_dropped; "
                        + "add chain inet srtcfault input { type filter hook input priority 0; policy accept; }; "
                        + "add rule inet srtcfault input meta l4proto udp counter name udp_seen; "
                        + "add rule inet srtcfault input meta l4proto udp numgen random mod 100 < \(percent) counter name udp_dropped drop"
                ]
            )
        }
    }

    /// UDP packets that reached the loss rule in both namespaces, and how many it dropped.
    func lossCounters() async throws -> (seen: Int, dropped: Int) {
        var seen = 0, dropped = 0
        for namespace in [a, b] {
            seen += Self.packets(
                in: try await run(in: namespace, "nft", ["list", "counter", "inet", "srtcfault", "udp_seen"])
            )
            dropped += Self.packets(
                in: try await run(in: namespace, "nft", ["list", "counter", "inet", "srtcfault", "udp_dropped"])
            )
        }
        return (seen, dropped)
    }

    private static func packets(in listing: String) -> Int {
        guard let range = listing.range(of: "packets ") else { return 0 }
        return Int(listing[range.upperBound...].prefix(while: \.isNumber)) ?? 0
    }

    /// A token bucket of `kbit` kbit/s on each endpoint's egress (both directions).
    func addRateLimit(kbit: Int) async throws {
        for (namespace, interface) in [(a, interfaceA), (b, interfaceB)] {
            try await run(
                in: namespace,
                "tc",
                [
                    "qdisc", "add", "dev", interface, "root", "tbf",
                    "rate", "\(kbit)kbit", "burst", "16kb", "latency", "150ms",
                ]
            )
        }
    }

    /// Packets sent and dropped so far by the two token buckets.
    func rateLimitCounters() async throws -> (sent: Int, dropped: Int) {
        var sent = 0, dropped = 0
        for (namespace, interface) in [(a, interfaceA), (b, interfaceB)] {
            let json = try await run(in: namespace, "tc", ["-s", "-j", "qdisc", "show", "dev", interface])
            guard let qdiscs = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
                let tbf = qdiscs.first(where: { $0["kind"] as? String == "tbf" })
            else {
                throw FaultFailure("no tbf qdisc on \(interface) in \(namespace): \(json)")
            }
            sent += (tbf["packets"] as? Int) ?? 0
            dropped += (tbf["drops"] as? Int) ?? 0
        }
        return (sent, dropped)
    }

    /// Starts `swiftrtc-impair` in the middle namespace (`.bridged` only) and waits for it.
    func startImpairment(_ flags: [String], folder: URL) async throws -> ChildProcess {
        guard layout == .bridged else { throw FaultFailure("the impairment bridge needs a .bridged network") }
        let relay = try spawn(
            in: r,
            name: "impair",
            FaultPaths.impair.path,
            ["--between", "bridge-a", "bridge-b"] + flags,
            folder: folder
        )
        _ = try await relay.waitForLine(prefix: "READY", timeout: .seconds(10))
        return relay
    }
}
