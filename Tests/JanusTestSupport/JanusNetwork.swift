import Foundation
import Synchronization
import TestScheduling

/// A network namespace for a Janus of the test's own, joined to the test process's namespace by
/// a veth pair, so that peer connections in the test process itself reach Janus with media:
/// Janus listens and gathers on ``janusAddress`` (``janusInterface``) inside ``namespace``, the
/// test's connections gather on ``localAddress``. Janus skips loopback, so this is how an
/// in-process test sends it media. Needs root and `ip` (iproute2).
public final class JanusNetwork: Sendable {
    /// The namespace Janus runs in (`JanusServer(namespace:host:interface:)`).
    public let namespace: String
    /// The test process's end of the pair: where its peer connections gather.
    public let localAddress: String
    /// Janus's end: where it listens and gathers.
    public let janusAddress: String
    /// Janus's interface (`nat: ice_enforce_list`); not named `veth...`, which libnice skips.
    public let janusInterface: String
    private let localInterface: String

    private static let next = Mutex(0)
    private static let prefix = "srtcjn"

    private init(index: Int) {
        let pid = getpid()
        namespace = "\(Self.prefix)\(pid)-\(index)"
        // Interface names hold 15 characters at most.
        localInterface = "jn\(pid % 100_000)l\(index)"
        janusInterface = "jn\(pid % 100_000)j\(index)"
        let octet = Int(pid) % 250
        localAddress = "10.97.\(octet).\(4 * index + 1)"
        janusAddress = "10.97.\(octet).\(4 * index + 2)"
    }

    /// Makes a namespace and its veth pair (a /30 of 10.97.0.0/16), after removing those a
    /// test process that is gone left behind.
    public static func make() async throws -> JanusNetwork {
        try await removeLeftovers()
        let index = next.withLock {
            $0 = $0 % 60 + 1
            return $0
        }
        let network = JanusNetwork(index: index)
        do {
            try await network.create()
        } catch {
            await network.remove()
            throw error
        }
        return network
    }

    /// Runs `body` with a new network and a Janus in it (its WebSocket API at
    /// `server.url`), stopping and removing both after, whether `body` throws or not.
    public static func withJanus<T: Sendable>(_ body: (JanusNetwork, JanusServer) async throws -> T) async throws -> T {
        let network = try await make()
        do {
            let server = try await JanusServer(
                namespace: network.namespace,
                host: network.janusAddress,
                interface: network.janusInterface
            )
            defer { server.stop() }
            let result = try await body(network, server)
            await network.remove()
            return result
        } catch {
            await network.remove()
            throw error
        }
    }

    private func create() async throws {
        try await Self.ip(["netns", "add", namespace])
        try await Self.ip(["link", "add", localInterface, "type", "veth", "peer", "name", janusInterface])
        try await Self.ip(["link", "set", janusInterface, "netns", namespace])
        try await Self.ip(["addr", "add", "\(localAddress)/30", "dev", localInterface])
        try await Self.ip(["link", "set", localInterface, "up"])
        try await Self.ip(["-n", namespace, "addr", "add", "\(janusAddress)/30", "dev", janusInterface])
        try await Self.ip(["-n", namespace, "link", "set", janusInterface, "up"])
        try await Self.ip(["-n", namespace, "link", "set", "lo", "up"])
    }

    /// Deletes the namespace (and with it the pair).
    public func remove() async {
        _ = try? await Self.ip(["netns", "del", namespace])
        _ = try? await Self.ip(["link", "del", localInterface])
    }

    /// Namespaces of test processes that are gone.
    static func removeLeftovers() async throws {
        for line in try await ip(["netns", "list"]).split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count).prefix(while: \.isNumber))
            else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { _ = try? await ip(["netns", "del", name]) }
        }
    }

    @discardableResult
    static func ip(_ arguments: [String]) async throws -> String {
        let output = try await runToEnd(URL(fileURLWithPath: "/usr/sbin/ip"), arguments)
        guard output.status == 0 else {
            throw JanusServer.JanusServerError(reason: "ip \(arguments.joined(separator: " ")): \(output.stderr)")
        }
        return output.stdout
    }
}
