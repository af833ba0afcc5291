import Foundation
import HummingbirdWSClient
import NIOCore
import Logging
import Synchronization
import SwiftRTCCore

/// A ``SignalingChannel`` over a WebSocket to the SwiftRTC signaling server
/// (`SwiftRTCSignalingServer`, `callbot serve`): one JSON message per text frame.
///
/// ``connect(to:token:timeout:)`` opens the WebSocket, sends `hello` with the token and returns
/// once the server's `welcome` names the user (or throws the server's refusal). Messages the
/// server sends that cannot be parsed are dropped (and logged), never delivered half-read.
/// There is no automatic reconnection: when the connection drops, ``messages`` finishes and
/// `send` throws ``SignalingChannelError/closed``; connect again for a new channel.
public final class WebSocketSignalingChannel: SignalingChannel {
    /// The user id the server authenticated this channel as.
    public let userID: String
    /// Every message from the server, in arrival order; finishes when the connection closes.
    public let messages: AsyncStream<SignalingMessage>

    private let outbound: AsyncStream<Outbound>.Continuation
    private let connection: Task<Void, Never>

    enum Outbound: Sendable {
        case text(String)
        case close
    }

    /// The largest frame accepted from the server (call-log answers can exceed one message's limit).
    public static let maxFrameBytes = 1 << 20

    private init(userID: String, messages: AsyncStream<SignalingMessage>, outbound: AsyncStream<Outbound>.Continuation,
                 connection: Task<Void, Never>) {
        self.userID = userID
        self.messages = messages
        self.outbound = outbound
        self.connection = connection
    }

    /// Connects to a signaling server (`ws://host:port/signaling`, or `wss://` over TLS) and
    /// authenticates with `token` (a token of the server's tokens file, or `USER:PASSWORD` with a
    /// users file). A `wss://` server's certificate must verify against `trust` (the system's CA
    /// certificates unless told otherwise) and name the URL's host; if it does not, nothing is
    /// sent and the error says why.
    /// - Throws: ``SignalingChannelError/transport(_:)`` when the server cannot be reached, fails
    ///   TLS verification, refuses the token (the server's reason is in the message) or does not
    ///   answer within `timeout`.
    public static func connect(to url: URL, token: String, timeout: Duration = .seconds(10),
                               trust: TLSTrust = .system) async throws(SignalingChannelError) -> WebSocketSignalingChannel {
        let (messages, delivered) = AsyncStream.makeStream(of: SignalingMessage.self, bufferingPolicy: .unbounded)
        let (queue, outbound) = AsyncStream.makeStream(of: Outbound.self, bufferingPolicy: .unbounded)
        let handshake = Handshake()
        let logger = SwiftRTCLogging.logger("signaling.client")
        let hello = SignalingMessage(body: .hello(.init(token: token)))
        outbound.yield(.text(String(decoding: hello.jsonData(), as: UTF8.self)))
        let urlString = url.absoluteString
        let host = url.host ?? ""
        let secure = url.scheme?.lowercased() == "wss"
        var configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameBytes, closeTimeout: .seconds(2),
                                                         autoPing: .enabled(timePeriod: .seconds(30)))
        // The WebSocket client names the URL's host as the TLS server name, which NIOSSL refuses
        // for an IP address ("cannot be used for SNI"). The same address as an absolute name
        // (a trailing dot) passes: it matches no DNS name of the certificate, and its IP
        // address entries are checked against the connected peer's address, as for any host.
        if secure, Self.isIPAddress(host) { configuration.sniHostname = host + "." }
        let tlsConfiguration = secure ? trust.clientConfiguration : nil
        let connection = Task {
            do {
                try await WebSocketClient.connect(
                    url: urlString,
                    configuration: configuration,
                    tlsConfiguration: tlsConfiguration,
                    logger: quietLogger
                ) { inbound, writer, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in queue {
                                switch item {
                                case let .text(text): try await writer.writeTextMessage(text)
                                case .close:
                                    try await writer.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await frame in inbound.messages(maxSize: maxFrameBytes) {
                            guard case let .text(text) = frame else {
                                logger.warning("signaling: binary message from the server dropped")
                                continue
                            }
                            let message: SignalingMessage
                            do {
                                // Not `init(json:)`: server answers (call logs) may exceed one client message's limit.
                                message = try JSONDecoder().decode(SignalingMessage.self, from: Data(text.utf8))
                            } catch {
                                logger.warning("signaling: unreadable message from the server dropped: \(error)")
                                continue
                            }
                            if handshake.isPending {
                                handshake.finish(with: message)
                            } else {
                                delivered.yield(message)
                            }
                        }
                        group.cancelAll()
                    }
                }
                handshake.fail("the server closed the connection")
            } catch {
                handshake.fail(TLSFailure.describe(error, host: host) ?? "\(error)")
            }
            outbound.finish()
            delivered.finish()
        }
        let reply = await handshake.wait(timeout: timeout)
        switch reply {
        case let .success(message):
            switch message.body {
            case let .welcome(welcome):
                return WebSocketSignalingChannel(userID: welcome.user, messages: messages, outbound: outbound, connection: connection)
            case let .error(error):
                outbound.yield(.close)
                throw .transport("signaling server \(url.absoluteString) refused the token: \(error)")
            default:
                outbound.yield(.close)
                throw .transport("signaling server \(url.absoluteString) answered hello with \(message.type.rawValue)")
            }
        case let .failure(reason):
            outbound.yield(.close)
            connection.cancel()
            throw .transport("signaling server \(url.absoluteString): \(reason)")
        }
    }

    /// Sends a message (checked with ``SignalingMessage/validate()`` first); `from` is set by the server.
    public func send(_ message: SignalingMessage) async throws(SignalingChannelError) {
        do {
            try message.validate()
        } catch {
            throw .invalidMessage(error)
        }
        switch outbound.yield(.text(String(decoding: message.jsonData(), as: UTF8.self))) {
        case .enqueued: return
        case .dropped, .terminated: throw .closed
        @unknown default: throw .closed
        }
    }

    /// Closes the WebSocket (normal closure); ``messages`` finishes.
    public func close() async {
        outbound.yield(.close)
        outbound.finish()
        await connection.value
    }

    /// Whether `host` is an IPv4 or IPv6 address (not a name).
    static func isIPAddress(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: bare, port: 0)) != nil
    }

    private static let quietLogger = Logger(label: "swiftrtc.signaling.client.ws") { _ in SwiftLogNoOpLogHandler() }

    /// The first message from the server (welcome or error), handed from the connection task
    /// to `connect`.
    private final class Handshake: Sendable {
        enum Reply: Sendable {
            case success(SignalingMessage)
            case failure(String)
        }
        private let state = Mutex<(reply: Reply?, waiter: CheckedContinuation<Reply, Never>?)>((nil, nil))

        var isPending: Bool { state.withLock { $0.reply == nil } }

        func finish(with message: SignalingMessage) { resolve(.success(message)) }
        func fail(_ reason: String) { resolve(.failure(reason)) }

        private func resolve(_ reply: Reply) {
            let waiter = state.withLock { state -> CheckedContinuation<Reply, Never>? in
                guard state.reply == nil else { return nil }
                state.reply = reply
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: reply)
        }

        func wait(timeout: Duration) async -> Reply {
            let timer = Task { [self] in
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { fail("no answer to hello within \(timeout)") }
            }
            defer { timer.cancel() }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Reply? in
                    if let reply = state.reply { return reply }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
