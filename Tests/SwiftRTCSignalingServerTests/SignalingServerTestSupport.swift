import Foundation
import HummingbirdWSClient
import Logging
import PostgresTestSupport
import SwiftRTCSignaling
import Synchronization
import Testing

@testable import SwiftRTCSignalingServer

/// Test users and their tokens.
enum TestUsers {
    static let names = ["alice", "bob", "carol", "dave"]
    static func token(_ user: String) -> String { "token-of-\(user)-0123456789" }
    static var credentials: SignalingCredentials {
        // The literal tokens are valid: this cannot throw.
        (try? SignalingCredentials.tokens(Dictionary(uniqueKeysWithValues: names.map { (token($0), $0) })))!
    }
}

/// A users-file password and its hash, written once (Python's hashlib, 600 000 iterations):
/// each PBKDF2 derivation costs about 0.2 s, so tests check few.
enum TestPasswords {
    static let erinPassword = "correct horse"
    // The literal is a valid hash: this cannot throw.
    static let erin =
        (try? PasswordHash(
            parsing: "pbkdf2-sha256$600000$ZXJpbi10ZXN0LXNhbHQtMQ==$2HA2rUS7LeGznxof+jPK05HeByHubTcSt/qx77bh3M0="
        ))!

    /// Runs CPU-heavy work (a password check) on a thread of its own, off the cooperative pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    var description: String
}

/// Where a test server keeps its state: the same tests run on both.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A server that runs alone: call log in SQLite (in memory), sessions in the process.
    case sqlite
    /// Everything in a PostgreSQL database of its own (the tests' ``PostgresTestServer``).
    case postgres

    var description: String { rawValue }

    func storage() async throws -> SignalingStorage {
        switch self {
        case .sqlite: .inMemory()
        case .postgres: .postgres(try PostgresStorage(url: try await PostgresTestServer.shared().database()))
        }
    }
}

/// A real signaling server on 127.0.0.1 (a free port), running until `stop()`.
final class RunningServer: Sendable {
    let server: SignalingServer
    let url: URL
    private let task: Task<Void, any Error>

    private init(server: SignalingServer, url: URL, task: Task<Void, any Error>) {
        self.server = server
        self.url = url
        self.task = task
    }

    static func start(
        _ configuration: SignalingServer.Configuration = .init(),
        credentials: SignalingCredentials = TestUsers.credentials,
        backend: Backend = .sqlite,
        storage: SignalingStorage? = nil
    ) async throws -> RunningServer {
        let storage = if let storage { storage } else { try await backend.storage() }
        let server = SignalingServer(configuration: configuration, credentials: credentials, storage: storage)
        let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
        let task = Task { try await server.run { continuation.yield($0) } }
        let url = try await Inbox.first(of: urls, timeout: .seconds(60), what: "the server's URL")
        return RunningServer(server: server, url: url, task: task)
    }

    /// A connected, authenticated channel for `user`.
    func connect(_ user: String) async throws -> WebSocketSignalingChannel {
        try await WebSocketSignalingChannel.connect(to: url, token: TestUsers.token(user), timeout: .seconds(30))
    }

    /// A raw WebSocket (nothing sent yet).
    func raw() async throws -> RawClient { try await RawClient.connect(url) }

    func stop() async {
        await server.shutdown()
        _ = await task.result
    }
}

/// Collects what a stream delivers, for waits with a deadline (polling with `Task.sleep`:
/// nothing blocks a thread of the cooperative pool).
final class Inbox<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let state = Mutex<(items: [Element], finished: Bool)>(([], false))
    }
    private let storage = Storage()
    private let reader: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let storage = self.storage
        reader = Task {
            for await item in stream { storage.state.withLock { $0.items.append(item) } }
            storage.state.withLock { $0.finished = true }
        }
    }

    deinit { reader.cancel() }

    var isFinished: Bool { storage.state.withLock { $0.finished && $0.items.isEmpty } }

    /// The next item, or throws after `timeout`.
    func next(timeout: Duration = .seconds(30)) async throws -> Element {
        let deadline = ContinuousClock.now + timeout
        while true {
            let item = storage.state.withLock { state -> Element? in
                state.items.isEmpty ? nil : state.items.removeFirst()
            }
            if let item { return item }
            if storage.state.withLock({ $0.finished }) { throw TestTimeout(description: "the stream finished") }
            guard ContinuousClock.now < deadline else {
                throw TestTimeout(description: "nothing arrived within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Nothing arrives within `interval`.
    func expectNothing(for interval: Duration = .milliseconds(300)) async throws -> Element? {
        try await Task.sleep(for: interval)
        return storage.state.withLock { $0.items.first }
    }

    /// Waits until the stream finishes.
    func waitFinished(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !storage.state.withLock({ $0.finished }) {
            guard ContinuousClock.now < deadline else {
                throw TestTimeout(description: "the stream did not finish within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func first(of stream: AsyncStream<Element>, timeout: Duration, what: String) async throws -> Element {
        do {
            return try await Inbox(stream).next(timeout: timeout)
        } catch {
            throw TestTimeout(description: "\(what): \(error)")
        }
    }
}

/// The messages of a channel, with deadlines.
final class Peer: Sendable {
    let channel: WebSocketSignalingChannel
    let inbox: Inbox<SignalingMessage>

    init(_ channel: WebSocketSignalingChannel) {
        self.channel = channel
        inbox = Inbox(channel.messages)
    }

    static func connect(_ user: String, to server: RunningServer) async throws -> Peer {
        Peer(try await server.connect(user))
    }

    var user: String { channel.userID }

    func send(_ message: SignalingMessage) async throws { try await channel.send(message) }
    func next() async throws -> SignalingMessage { try await inbox.next() }

    /// The next message, which must be an error reply: its code.
    func nextError() async throws -> SignalingBody.ErrorReply {
        let message = try await next()
        guard case let .error(error) = message.body else {
            throw TestTimeout(description: "expected an error, got \(message.type.rawValue)")
        }
        return error
    }

    /// Skips messages until one of `type` from `sender` arrives, and returns it.
    func next(_ type: SignalingMessageType, from sender: String) async throws -> SignalingMessage {
        while true {
            let message = try await next()
            if message.type == type, message.from == sender { return message }
        }
    }

    /// Queries the call log over the protocol.
    func callLog(role: CallRole? = nil, result: CallEndResult? = nil, limit: Int? = nil) async throws -> [CallRecord] {
        let id = UUID().uuidString
        try await send(SignalingMessage(id: id, body: .callLogQuery(.init(role: role, result: result, limit: limit))))
        // Messages of calls that arrived before the answer are skipped.
        while true {
            let reply = try await next()
            switch reply.body {
            case let .callLog(log) where log.replyTo == id: return log.records
            case let .error(error) where error.replyTo == id: throw error
            default: continue
            }
        }
    }

    func close() async { await channel.close() }
}

/// A WebSocket that sends whatever a test gives it (text, binary, fragments) and collects
/// the replies as text.
final class RawClient: Sendable {
    enum Command: Sendable {
        case text(String)
        case binary([UInt8])
        case fragments([String])
        case close
    }

    let inbox: Inbox<String>
    private let commands: AsyncStream<Command>.Continuation
    private let task: Task<Void, Never>
    private let closeCode: CloseRecord

    /// Where the connection's task writes how it was closed.
    private final class CloseRecord: Sendable {
        let value = Mutex<String?>(nil)
    }

    private init(
        inbox: Inbox<String>,
        commands: AsyncStream<Command>.Continuation,
        task: Task<Void, Never>,
        closeCode: CloseRecord
    ) {
        self.inbox = inbox
        self.commands = commands
        self.task = task
        self.closeCode = closeCode
    }

    /// How the server closed the WebSocket once it has: `CODE REASON` (`policyViolation
    /// authentication failed`), `none` without a close frame, or `error: …`; nil while open.
    var closedWith: String? { closeCode.value.withLock { $0 } }

    static func connect(_ url: URL) async throws -> RawClient {
        let (received, receivedContinuation) = AsyncStream.makeStream(of: String.self)
        let (commands, commandContinuation) = AsyncStream.makeStream(of: Command.self)
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Bool.self)
        let closeCode = CloseRecord()
        let task = Task {
            do {
                let frame = try await WebSocketClient.connect(
                    url: url.absoluteString,
                    configuration: .init(maxFrameSize: 4 << 20),
                    logger: Logger(label: "test.raw") { _ in SwiftLogNoOpLogHandler() }
                ) { inbound, outbound, _ in
                    readyContinuation.yield(true)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await command in commands {
                                switch command {
                                case let .text(text): try await outbound.writeTextMessage(text)
                                case let .binary(bytes): try await outbound.writeBinaryMessage(.init(bytes: bytes))
                                case let .fragments(parts):
                                    try await outbound.withTextMessageWriter { writer in
                                        for part in parts { try await writer(part) }
                                    }
                                case .close:
                                    try await outbound.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: 4 << 20) {
                            if case let .text(text) = message { receivedContinuation.yield(text) }
                        }
                        group.cancelAll()
                    }
                }
                closeCode.value.withLock { $0 = frame.map { "\($0.closeCode) \($0.reason ?? "")" } ?? "none" }
            } catch {
                closeCode.value.withLock { $0 = "error: \(error)" }
                readyContinuation.yield(false)
            }
            receivedContinuation.finish()
        }
        guard try await Inbox.first(of: ready, timeout: .seconds(30), what: "WebSocket connection") else {
            throw TestTimeout(description: "cannot connect: \(closeCode.value.withLock { $0 } ?? "")")
        }
        let client = RawClient(inbox: Inbox(received), commands: commandContinuation, task: task, closeCode: closeCode)
        return client
    }

    func send(_ command: Command) { commands.yield(command) }

    /// The next message parsed as a signaling message.
    func next() async throws -> SignalingMessage {
        let text = try await inbox.next()
        return try JSONDecoder().decode(SignalingMessage.self, from: Data(text.utf8))
    }

    /// The next message, which must be an error reply.
    func nextError() async throws -> SignalingBody.ErrorReply {
        let message = try await next()
        guard case let .error(error) = message.body else {
            throw TestTimeout(description: "expected an error, got \(message.type.rawValue)")
        }
        return error
    }

    /// Sends hello with `user`'s token and waits for the welcome.
    func login(_ user: String) async throws {
        send(
            .text(
                String(
                    decoding: SignalingMessage(body: .hello(.init(token: TestUsers.token(user)))).jsonData(),
                    as: UTF8.self
                )
            )
        )
        let reply = try await next()
        guard case .welcome = reply.body else { throw TestTimeout(description: "expected welcome, got \(reply)") }
    }

    func close() async {
        commands.yield(.close)
        commands.finish()
        _ = await task.value
    }
}

extension SignalingMessage {
    /// A call from `initiator` in `session` to `opponents` (sent to all of them).
    static func call(
        _ session: String,
        from initiator: String,
        to opponents: [String],
        type: ConferenceType = .video
    ) -> SignalingMessage {
        SignalingMessage(
            to: opponents,
            session: session,
            body: .call(
                .init(
                    sdp: "v=0\r\n",
                    conferenceType: type,
                    initiator: initiator,
                    opponents: opponents,
                    userInfo: ["n": "1"]
                )
            )
        )
    }
}

/// Long inputs are described by their start and size: Swift Testing prints each argument when
/// a case starts and ends, and a 128 KB text was a megabyte of log.
extension RawClient.Command: CustomTestStringConvertible {
    var testDescription: String {
        func short(_ text: String) -> String {
            text.utf8.count <= 80
                ? text.debugDescription : "\(text.prefix(24).debugDescription)… (\(text.utf8.count) bytes)"
        }
        switch self {
        case .text(let text): return ".text(\(short(text)))"
        case .binary(let bytes): return ".binary(\(bytes.count) bytes)"
        case .fragments(let parts): return ".fragments(\(parts.map(short).joined(separator: ", ")))"
        case .close: return ".close"
        }
    }
}
