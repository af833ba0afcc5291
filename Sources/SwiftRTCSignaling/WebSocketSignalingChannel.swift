import Foundation
import Logging
import NIOCore
import SwiftRTCCore

/// A ``SignalingChannel`` over a WebSocket to the SwiftRTC signaling server
/// (`SwiftRTCSignalingServer`, `callbot serve`): one JSON message per text frame.
///
/// ``connect(to:token:timeout:reconnectFor:trust:)`` tries the server URLs in order (several
/// instances of one service) until one welcomes the token's user. Messages the server sends
/// that cannot be parsed are dropped (and logged), never delivered half-read.
///
/// When the connection drops (a read error, a reset, or the server going away: 1001), the
/// channel reconnects on its own: after 0.2 s, doubling up to 5 s (with jitter), each attempt
/// to the next URL of the list, it sends `hello` with the same token and waits for a
/// `welcome` of the same user. Meanwhile ``messages`` goes on (one stream across
/// reconnections) and `send` queues up to ``maxQueuedMessages`` messages, written in order
/// after the welcome (a message handed to a connection just before it dropped may be lost).
/// ``connectionStates`` reports each step. The channel closes for good (``messages``
/// finishes, `send` throws ``SignalingChannelError/closed``) on ``close()``, when the server
/// closes with 1008 (authentication refused, or replaced by a newer connection of the same
/// user), when the server refuses the token on logging in again, or when no server welcomed
/// it again within `reconnectFor`.
public final class WebSocketSignalingChannel: SignalingChannel {
    /// The user id the server authenticated this channel as.
    public let userID: String
    /// Every message from the server, in arrival order, across reconnections; finishes when
    /// the channel closes for good.
    public let messages: AsyncStream<SignalingMessage>
    /// The connection's state changes, starting with ``SignalingConnectionState/connected(_:)``
    /// and finishing after ``SignalingConnectionState/closed(_:)``. One consumer (a `CallClient`
    /// over this channel reads it: follow its `signaling` events instead); it keeps the newest
    /// ``maxBufferedStates`` changes when not read.
    public let connectionStates: AsyncStream<SignalingConnectionState>
    /// The server URLs, in the order the first login tries them.
    public let servers: [URL]

    private let outbox: SignalingOutbox
    private let lifecycle: Task<Void, Never>

    /// The largest frame accepted from the server (call-log answers can exceed one message's limit).
    public static let maxFrameBytes = 1 << 20
    /// The most messages `send` queues while the channel reconnects; one more throws
    /// ``SignalingChannelError/queueFull(limit:)``.
    public static let maxQueuedMessages = 256
    /// The most state changes ``connectionStates`` keeps unread (the newest).
    public static let maxBufferedStates = 32
    /// The wait before the first attempt to log in again; it doubles up to ``maxReconnectDelay``.
    static let firstReconnectDelay = Duration.milliseconds(200)
    /// The longest wait between two attempts to log in again.
    static let maxReconnectDelay = Duration.seconds(5)

    private init(
        userID: String,
        servers: [URL],
        messages: AsyncStream<SignalingMessage>,
        connectionStates: AsyncStream<SignalingConnectionState>,
        outbox: SignalingOutbox,
        lifecycle: Task<Void, Never>
    ) {
        self.userID = userID
        self.servers = servers
        self.messages = messages
        self.connectionStates = connectionStates
        self.outbox = outbox
        self.lifecycle = lifecycle
    }

    /// Connects to a signaling server (`ws://host:port/signaling`, or `wss://` over TLS) and
    /// authenticates with `token`: ``connect(to:token:timeout:reconnectFor:trust:)`` with one
    /// URL (and the default give-up time; pass `[url]` there for another).
    public static func connect(
        to url: URL,
        token: String,
        timeout: Duration = .seconds(10),
        trust: TLSTrust = .system
    ) async throws(SignalingChannelError) -> WebSocketSignalingChannel {
        try await connect(to: [url], token: token, timeout: timeout, trust: trust)
    }

    /// Connects to the first of `servers` (`ws://host:port/signaling`, or `wss://` over TLS)
    /// that welcomes `token` (a token of the server's tokens file, or `USER:PASSWORD` with a
    /// users file), trying them in order. A `wss://` server's certificate must verify against
    /// `trust` (the system's CA certificates unless told otherwise) and name the URL's host; if
    /// it does not, nothing is sent and the error says why.
    /// - Parameters:
    ///   - timeout: how long each server has to answer `hello` (also when logging in again).
    ///   - reconnectFor: how long the channel tries to log in again after its connection
    ///     dropped before it closes for good (``SignalingConnectionState/CloseReason/gaveUp(after:lastError:)``).
    /// - Throws: ``SignalingChannelError/refused(_:)`` when a server refused the token (the
    ///   server's reason is in the message) and none accepted it;
    ///   ``SignalingChannelError/transport(_:)`` when no server could be reached, passed TLS
    ///   verification or answered within `timeout`: the reason of each.
    public static func connect(
        to servers: [URL],
        token: String,
        timeout: Duration = .seconds(10),
        reconnectFor: Duration = .seconds(60),
        trust: TLSTrust = .system
    ) async throws(SignalingChannelError) -> WebSocketSignalingChannel {
        guard !servers.isEmpty else { throw .transport("no signaling server URL given") }
        let (messages, deliver) = AsyncStream.makeStream(of: SignalingMessage.self, bufferingPolicy: .unbounded)
        let (states, stateUpdates) = AsyncStream.makeStream(
            of: SignalingConnectionState.self,
            bufferingPolicy: .bufferingNewest(maxBufferedStates)
        )
        let outbox = SignalingOutbox(limit: maxQueuedMessages)
        let login = Login(token: token, trust: trust, logger: SwiftRTCLogging.logger("signaling.client"))
        let first = OneShot<Result<String, SignalingChannelError>>()
        let lifecycle = Task {
            let connections = Connections(
                servers: servers,
                login: login,
                timeout: timeout,
                reconnectFor: reconnectFor,
                outbox: outbox,
                deliver: deliver,
                states: stateUpdates
            )
            await connections.run(first: first)
        }
        switch await first.value {
        case let .success(user):
            return WebSocketSignalingChannel(
                userID: user,
                servers: servers,
                messages: messages,
                connectionStates: states,
                outbox: outbox,
                lifecycle: lifecycle
            )
        case let .failure(error):
            await lifecycle.value
            throw error
        }
    }

    /// Sends a message (checked with ``SignalingMessage/validate()`` first); `from` is set by
    /// the server. While the channel reconnects the message is queued (see the type's notes).
    /// - Throws: ``SignalingChannelError/closed`` once the channel is closed,
    ///   ``SignalingChannelError/queueFull(limit:)`` when ``maxQueuedMessages`` wait already.
    public func send(_ message: SignalingMessage) async throws(SignalingChannelError) {
        do {
            try message.validate()
        } catch {
            throw .invalidMessage(error)
        }
        switch outbox.send(String(decoding: message.jsonData(), as: UTF8.self)) {
        case .sent: return
        case .queueFull: throw .queueFull(limit: outbox.limit)
        case .closed: throw .closed
        }
    }

    /// Closes the WebSocket (normal closure) and stops reconnecting; ``messages`` finishes.
    public func close() async {
        if let writer = outbox.close() {
            writer.yield(.close)
            writer.finish()
        } else {
            // Between connections (waiting or logging in again): stop at once.
            lifecycle.cancel()
        }
        await lifecycle.value
    }

    /// Whether `host` is an IPv4 or IPv6 address (not a name).
    package static func isIPAddress(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: bare, port: 0)) != nil
    }

    static let quietLogger = Logger(label: "swiftrtc.signaling.client.ws") { _ in SwiftLogNoOpLogHandler() }
}
