import Foundation
import HummingbirdWSClient
import Logging
import SwiftRTCCore
import Synchronization

extension WebSocketSignalingChannel {
    /// What every connection of a channel logs in with.
    struct Login: Sendable {
        let token: String
        let trust: TLSTrust
        let logger: Logger
    }

    /// How one connection (one WebSocket) ended.
    enum LinkEnd: Sendable {
        /// Never welcomed: unreachable, no answer in time, dropped, or busy (429): try again.
        case failed(String)
        /// The server refused the token, or welcomed someone else: trying again will not help.
        case refused(String)
        /// Welcomed, then ended: the server's close code (nil: dropped without a close handshake).
        case ended(closeCode: Int?, reason: String)
    }

    /// Opens one WebSocket to `url`, sends `hello` and waits up to `timeout` for the answer.
    /// On `welcome`, `welcomed(user, writer)` decides whether to stay (it attaches `writer` to
    /// the outbox); then the server's messages go to `deliver` until the connection ends.
    static func link(
        to url: URL,
        login: Login,
        timeout: Duration,
        deliver: AsyncStream<SignalingMessage>.Continuation,
        outbox: SignalingOutbox,
        welcomed: @escaping @Sendable (String, AsyncStream<SignalingOutbox.Item>.Continuation) -> Bool
    ) async -> LinkEnd {
        let (queue, writer) = outbox.makeWriterQueue()
        writer.yield(
            .text(String(decoding: SignalingMessage(body: .hello(.init(token: login.token))).jsonData(), as: UTF8.self))
        )
        let handshake = OneShot<Result<SignalingMessage, LinkFailure>>()
        let socket = Task { await run(url: url, login: login, queue: queue, handshake: handshake, deliver: deliver) }
        return await withTaskCancellationHandler {
            let timer = Task {
                try? await Task.sleep(for: timeout)
                handshake.resolve(.failure(LinkFailure(reason: "no answer to hello within \(timeout)")))
            }
            let reply = await handshake.value
            timer.cancel()
            let refusal: LinkEnd
            switch reply {
            case let .failure(failure):
                socket.cancel()
                writer.finish()
                _ = await socket.value
                return .failed(failure.reason)
            case let .success(message):
                switch message.body {
                case let .welcome(welcome):
                    if welcomed(welcome.user, writer) {
                        let end = await socket.value
                        return .ended(closeCode: end.closeCode, reason: end.reason)
                    }
                    refusal = .refused("welcomed as \(welcome.user)")
                case let .error(error) where error.code == .tooManyMessages:
                    refusal = .failed("busy: \(error)")
                case let .error(error):
                    refusal = .refused("refused the token: \(error)")
                default:
                    refusal = .failed("answered hello with \(message.type.rawValue)")
                }
            }
            writer.yield(.close)
            writer.finish()
            _ = await socket.value
            return refusal
        } onCancel: {
            socket.cancel()
        }
    }

    /// Why a connection was not welcomed.
    struct LinkFailure: Error, Sendable {
        let reason: String
    }

    /// How a WebSocket ended.
    struct SocketEnd: Sendable {
        let closeCode: Int?
        let reason: String
    }

    /// Runs one WebSocket: writes `queue`, hands the first message to `handshake` and the
    /// others to `deliver`.
    private static func run(
        url: URL,
        login: Login,
        queue: AsyncStream<SignalingOutbox.Item>,
        handshake: OneShot<Result<SignalingMessage, LinkFailure>>,
        deliver: AsyncStream<SignalingMessage>.Continuation
    ) async -> SocketEnd {
        let host = url.host ?? ""
        let secure = url.scheme?.lowercased() == "wss"
        var configuration = WebSocketClientConfiguration(
            maxFrameSize: maxFrameBytes,
            closeTimeout: .seconds(2),
            autoPing: .enabled(timePeriod: .seconds(30))
        )
        // The WebSocket client names the URL's host as the TLS server name, which NIOSSL refuses
        // for an IP address ("cannot be used for SNI"). The same address as an absolute name
        // (a trailing dot) passes: it matches no DNS name of the certificate, and its IP
        // address entries are checked against the connected peer's address, as for any host.
        if secure, isIPAddress(host) { configuration.sniHostname = host + "." }
        let logger = login.logger
        let end: SocketEnd
        do {
            let frame = try await WebSocketClient.connect(
                url: url.absoluteString,
                configuration: configuration,
                tlsConfiguration: secure ? login.trust.clientConfiguration : nil,
                logger: quietLogger
            ) { inbound, writer, _ in
                try await exchange(
                    inbound: inbound,
                    writer: writer,
                    queue: queue,
                    handshake: handshake,
                    deliver: deliver,
                    logger: logger
                )
            }
            if let frame {
                let code = closeCodeNumber(of: frame)
                end = SocketEnd(closeCode: code, reason: frame.reason ?? "")
            } else {
                end = SocketEnd(closeCode: nil, reason: "the connection was lost")
            }
        } catch {
            end = SocketEnd(closeCode: nil, reason: TLSFailure.describe(error, host: host) ?? "\(error)")
        }
        let closed = end.closeCode.map {
            "the server closed the connection (\($0)\(end.reason.isEmpty ? "" : ": \(end.reason)"))"
        }
        handshake.resolve(.failure(LinkFailure(reason: closed ?? end.reason)))
        return end
    }

    /// Writes `queue` to the WebSocket until asked to close, and reads the server's messages:
    /// the first to `handshake`, the others to `deliver` (binary or unreadable ones dropped,
    /// logged).
    private static func exchange(
        inbound: WebSocketInboundStream,
        writer: WebSocketOutboundWriter,
        queue: AsyncStream<SignalingOutbox.Item>,
        handshake: OneShot<Result<SignalingMessage, LinkFailure>>,
        deliver: AsyncStream<SignalingMessage>.Continuation,
        logger: Logger
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                writing: for await item in queue {
                    switch item {
                    case let .text(text): try await writer.writeTextMessage(text)
                    case .close: break writing
                    }
                }
                // Asked to close, or the queue finished (a close that did not fit in it).
                if !Task.isCancelled { try await writer.close(.normalClosure, reason: nil) }
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
                if !handshake.resolve(.success(message)) { deliver.yield(message) }
            }
            group.cancelAll()
        }
    }

    /// The number of a close frame's code (RFC 6455 §7.4.1).
    private static func closeCodeNumber(of frame: WebSocketCloseFrame) -> Int {
        switch frame.closeCode {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let number): Int(number)
        }
    }
}
