// Test support shared by the transport-level test targets (ICE, and ICE + DTLS + SRTP
// together): two agents wired by trickle, a coturn on loopback, recorders for async streams.
import Foundation
import SocketTestSupport
import SwiftRTCICE
import SwiftRTCSDP
import Synchronization
import Testing

/// Collects everything an `AsyncStream` yields, so tests can wait for a value and then look
/// at the whole sequence.
public final class Recorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let values = Mutex<[Element]>([])
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    public init(_ stream: AsyncStream<Element>) {
        let storage = self.storage
        task = Task { for await value in stream { storage.values.withLock { $0.append(value) } } }
    }

    deinit { task.cancel() }

    public var all: [Element] { storage.values.withLock { $0 } }

    /// Waits until `predicate` holds for some recorded value; `nil` after `timeout`.
    ///
    /// The whole package's tests share the two-thread cooperative pool with CPU-heavy codec
    /// tests, so this task (and the recorder's) can be scheduled late: the default bound is
    /// generous, and the values are checked once more after the deadline.
    @discardableResult
    public func wait(for timeout: Duration = .seconds(30), until predicate: (Element) -> Bool) async -> Element? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = storage.values.withLock({ $0.first(where: predicate) }) { return found }
            try? await Task.sleep(for: .milliseconds(2))
        }
        await Task.yield()
        return storage.values.withLock({ $0.first(where: predicate) })
    }
}

extension Recorder {
    /// Waits until `condition` holds for everything recorded so far.
    public func waitUntil(timeout: Duration = .seconds(30), _ condition: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition(all)
    }
}

extension Recorder where Element == IceConnectionState {
    /// Waits for `state`, returning how long it took, or `nil` after `timeout`.
    /// The default timeout is generous: in the whole package's test run, tests that block the
    /// (two-thread) cooperative pool with CPU work or child processes can delay this polling
    /// loop by 20 s and more.
    public func wait(for state: IceConnectionState, timeout: Duration = .seconds(45)) async -> Bool {
        await wait(for: timeout) { $0 == state } != nil
    }
}

/// Datagrams a handler received, copied out of libnice's buffer.
public final class Inbox: Sendable {
    public init() {}
    private let datagrams = Mutex<[[UInt8]]>([])

    public var handler: DatagramDemultiplexer.Handler {
        { bytes in self.datagrams.withLock { $0.append(Array(bytes)) } }
    }

    public var all: [[UInt8]] { datagrams.withLock { $0 } }

    public func wait(for timeout: Duration = .seconds(30), until predicate: ([[UInt8]]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(all) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return predicate(all)
    }
}

/// Two agents wired to each other the way signaling would: credentials and trickled
/// candidates go across as SDP `candidate:` strings.
public struct AgentPair: Sendable {
    public let offerer: IceAgent
    public let answerer: IceAgent
    public let offererStates: Recorder<IceConnectionState>
    public let answererStates: Recorder<IceConnectionState>
    public let offererGathering: Recorder<IceGatheringEvent>
    public let answererGathering: Recorder<IceGatheringEvent>
    public let offererErrors: Recorder<IceError>
    public let answererErrors: Recorder<IceError>
    private let trickle: [Task<Void, Never>]

    public init(
        offerer offererConfiguration: IceAgent.Configuration,
        answerer answererConfiguration: IceAgent.Configuration,
        pool: TransportThreadPool = .shared
    ) async throws {
        offerer = try IceAgent(configuration: offererConfiguration, pool: pool)
        answerer = try IceAgent(configuration: answererConfiguration, pool: pool)
        offererStates = Recorder(offerer.states)
        answererStates = Recorder(answerer.states)
        offererErrors = Recorder(offerer.errors)
        answererErrors = Recorder(answerer.errors)
        try offerer.setRemoteCredentials(answerer.localCredentials)
        try answerer.setRemoteCredentials(offerer.localCredentials)
        let (offererEvents, offererTee) = AsyncStream.makeStream(of: IceGatheringEvent.self)
        let (answererEvents, answererTee) = AsyncStream.makeStream(of: IceGatheringEvent.self)
        offererGathering = Recorder(offererEvents)
        answererGathering = Recorder(answererEvents)
        trickle = [
            Self.trickle(offerer.gathering, to: answerer, tee: offererTee),
            Self.trickle(answerer.gathering, to: offerer, tee: answererTee),
        ]
        try await offerer.startGathering()
        try await answerer.startGathering()
    }

    /// Sends each gathered candidate through its SDP form to `peer`.
    private static func trickle(
        _ events: AsyncStream<IceGatheringEvent>,
        to peer: IceAgent,
        tee: AsyncStream<IceGatheringEvent>.Continuation
    ) -> Task<Void, Never> {
        Task {
            for await event in events {
                tee.yield(event)
                switch event {
                case .candidate(let candidate):
                    guard let parsed = try? IceCandidate(sdpLine: "a=" + candidate.sdpLine) else {
                        Issue.record("candidate '\(candidate.sdpLine)' did not parse back")
                        continue
                    }
                    _ = try? await peer.addRemoteCandidate(parsed)
                case .complete:
                    try? peer.remoteGatheringComplete()
                }
            }
            tee.finish()
        }
    }

    public func close() async {
        await offerer.close()
        await answerer.close()
        for task in trickle { await task.value }
    }
}

/// A coturn `turnserver` on loopback with long-term credentials, started for one test.
public final class Coturn {
    public let port: UInt16
    public let username = "user"
    public let password = "pass"
    public let realm = "swiftrtc.test"
    private let process = Process()
    private let directory: URL

    public init() throws {
        // Below the ephemeral range and free for TCP too (coturn also listens on TCP and TLS
        // there): a port from a bind to 0 could be taken by any busy test before coturn binds it.
        guard let chosen = unusedLoopbackPort() else { throw POSIXError(.EADDRINUSE) }
        port = chosen
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coturn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let relayBase = Int(port % 1000) * 20 + 40000
        process.executableURL = URL(fileURLWithPath: "/usr/bin/turnserver")
        process.arguments = [
            "-n", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 19)",
            "-a", "-u", "\(username):\(password)", "-r", realm,
            "--allow-loopback-peers", "--no-cli", "--no-tls", "--no-dtls", "--simple-log",
            "--log-file=\(directory.path)/turnserver.log",
            "--db=\(directory.path)/turndb", "--pidfile=\(directory.path)/turnserver.pid",
        ]
        // Not a pipe: nobody drains it, and a full pipe blocks coturn (even in its SIGTERM handler).
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until the server answers a STUN Binding request.
    public func waitUntilReady(timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stunBindingAnswered(port: port) { return }
            guard process.isRunning else { throw CoturnError.exited(log) }
        }
        throw CoturnError.notReady(log)
    }

    public func url(_ scheme: String = "turn") -> String { "\(scheme):127.0.0.1:\(port)?transport=udp" }

    /// Freezes the server (SIGSTOP): nothing is relayed any more, a network cut on the relayed
    /// path; its allocations stay. ``resume()`` lets it go on.
    public func pause() { kill(process.processIdentifier, SIGSTOP) }

    /// Lets a paused server go on (SIGCONT).
    public func resume() { kill(process.processIdentifier, SIGCONT) }

    /// Stops the server (SIGTERM; SIGKILL if it is still there after 500 ms) and removes its
    /// files. Idempotent.
    public func stop() {
        resume()
        if process.isRunning {
            process.terminate()
            let deadline = ContinuousClock.now + .milliseconds(500)
            while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The end of coturn's log (it names the log file with a date suffix).
    private var log: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("turnserver") && $0.hasSuffix(".log") }
            .compactMap { try? String(contentsOfFile: directory.appendingPathComponent($0).path, encoding: .utf8) }
            .joined().suffix(2000).description
    }

    deinit { stop() }

    public enum CoturnError: Error {
        case exited(String)
        case notReady(String)
    }
}

/// A UDP port free right now on 127.0.0.1.
public func freeUDPPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(descriptor) }
    guard let port = bindLoopback(descriptor) else { throw POSIXError(.EADDRINUSE) }
    return port
}

/// Sends one STUN Binding request to 127.0.0.1:`port` and says whether a response came in 100 ms.
public func stunBindingAnswered(port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in.loopback(port: port)
    let request: [UInt8] = [0, 1, 0, 0, 0x21, 0x12, 0xA4, 0x42] + (0..<12).map { _ in UInt8.random(in: 0...255) }
    let sent = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(descriptor, request, request.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard sent == request.count else { return false }
    var waitFor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&waitFor, 1, 100) > 0
}

/// A datagram whose first byte routes it (RFC 7983) and whose rest says what it is.
public func datagram(kind first: UInt8, _ text: String) -> [UInt8] {
    [first, 0x60] + Array(text.utf8)
}

extension IceAgent {
    /// Sends bytes through the component.
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { component.send($0) }
    }

    /// Sends datagrams as one batch through the component (``IceComponent/send(batch:)``);
    /// returns how many went out.
    public func send(batch datagrams: [[UInt8]]) -> Int {
        let joined = datagrams.flatMap { $0 }
        return joined.withUnsafeBytes { bytes in
            var offset = 0
            let vectors = datagrams.map { datagram -> iovec in
                defer { offset += datagram.count }
                return iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + offset),
                    iov_len: datagram.count
                )
            }
            return vectors.withUnsafeBufferPointer { component.send(batch: $0) }
        }
    }
}

/// The loopback configuration the tests use.
public func loopback(_ role: IceAgent.Role, consent: IceAgent.ConsentTiming = .init()) -> IceAgent.Configuration {
    IceAgent.Configuration(role: role, localAddresses: ["127.0.0.1"], consent: consent)
}

/// Calls `body` every `interval` on a thread of its own until stopped: steady traffic that keeps
/// flowing even when the cooperative pool is busy with other tests.
public final class Pump: Sendable {
    private final class Flag: Sendable { let running = Mutex(true) }
    private let flag = Flag()

    public init(every interval: Duration = .milliseconds(20), _ body: @escaping @Sendable () -> Void) {
        let microseconds = UInt32(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000
        )
        Thread.detachNewThread { [flag] in
            while flag.running.withLock({ $0 }) {
                body()
                usleep(microseconds)
            }
        }
    }

    public func stop() { flag.running.withLock { $0 = false } }

    deinit { stop() }
}

extension Coturn {
    /// A relay-only loopback configuration that uses this server with its credentials.
    public func relayOnly(_ role: IceAgent.Role) throws -> IceAgent.Configuration {
        let server = try IceServer(url: url(), username: username, credential: password)
        return IceAgent.Configuration(
            role: role,
            servers: [server],
            transportPolicy: .relay,
            localAddresses: ["127.0.0.1"]
        )
    }
}

extension AgentPair {
    /// Restarts ICE on both sides and exchanges the new credentials and candidates, as a
    /// renegotiation with new `a=ice-ufrag`/`a=ice-pwd` carries them; returns the offerer's
    /// new credentials.
    @discardableResult
    public func restartBothAndExchange() async throws -> IceAgent.Credentials {
        let offererCredentials = try offerer.restart()
        let answererCredentials = try answerer.restart()
        try offerer.setRemoteCredentials(answererCredentials)
        try answerer.setRemoteCredentials(offererCredentials)
        for candidate in answerer.localCandidates { try await offerer.addRemoteCandidate(candidate) }
        for candidate in offerer.localCandidates { try await answerer.addRemoteCandidate(candidate) }
        try offerer.remoteGatheringComplete()
        try answerer.remoteGatheringComplete()
        return offererCredentials
    }
}
