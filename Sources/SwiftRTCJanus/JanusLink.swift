import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import SwiftRTCSignaling

/// One WebSocket to Janus, in its `janus-protocol` subprotocol: text frames out from a queue,
/// each text frame in handed to `deliver` (at most ``maxFrameBytes``), and how it ended.
final class JanusLink: Sendable {
    /// The largest message taken from Janus (a subscription's offer for a full room is far below).
    static let maxFrameBytes = 1 << 20
    /// Messages waiting to go out before the link counts as stuck and sends no more.
    static let maxQueued = 256

    private let writer: AsyncStream<String>.Continuation
    private let task: Task<String, Never>

    private init(writer: AsyncStream<String>.Continuation, task: Task<String, Never>) {
        self.writer = writer
        self.task = task
    }

    /// Opens the WebSocket to `url` (`ws://` or `wss://`, verified against `trust`), within
    /// `timeout`.
    static func open(
        url: URL,
        trust: TLSTrust,
        timeout: Duration,
        logger: Logger,
        deliver: @escaping @Sendable (String) -> Void
    ) async throws(JanusError) -> JanusLink {
        let (queue, writer) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(maxQueued))
        let opened = OneShot<String?>()
        let task = Task {
            let end = await run(url: url, trust: trust, queue: queue, opened: opened, logger: logger, deliver: deliver)
            opened.resolve(end)
            return end
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            opened.resolve("no WebSocket to \(url.absoluteString) within \(timeout)")
        }
        let failure = await opened.value
        timer.cancel()
        if let failure {
            task.cancel()
            writer.finish()
            throw .unreachable(failure)
        }
        return JanusLink(writer: writer, task: task)
    }

    /// Queues `text` to go out.
    func send(_ text: String) { writer.yield(text) }

    /// Closes the WebSocket (a close handshake) without waiting.
    func finish() { writer.finish() }

    /// Closes the WebSocket (a close handshake) and waits for its end.
    func close() async {
        writer.finish()
        _ = await task.value
    }

    /// Why the link ended, once it has.
    var ended: String { get async { await task.value } }

    private static let quietLogger = Logger(label: "swiftrtc.janus.ws") { _ in SwiftLogNoOpLogHandler() }

    /// Runs the WebSocket: resolves `opened` with nil once upgraded, writes the queue, delivers
    /// what comes in; returns why it ended.
    private static func run(
        url: URL,
        trust: TLSTrust,
        queue: AsyncStream<String>,
        opened: OneShot<String?>,
        logger: Logger,
        deliver: @escaping @Sendable (String) -> Void
    ) async -> String {
        let host = url.host ?? ""
        let secure = url.scheme?.lowercased() == "wss"
        var headers = HTTPFields()
        headers[HTTPField.Name.secWebSocketProtocol] = "janus-protocol"
        var configuration = WebSocketClientConfiguration(
            maxFrameSize: maxFrameBytes,
            additionalHeaders: headers,
            closeTimeout: .seconds(2),
            autoPing: .disabled
        )
        // NIOSSL refuses an IP address as the TLS server name; the same address as an absolute
        // name passes, and the certificate's IP entries are checked (as WebSocketSignalingChannel).
        if secure, WebSocketSignalingChannel.isIPAddress(host) { configuration.sniHostname = host + "." }
        do {
            let frame = try await WebSocketClient.connect(
                url: url.absoluteString,
                configuration: configuration,
                tlsConfiguration: secure ? trust.clientConfiguration : nil,
                logger: quietLogger
            ) { inbound, writer, _ in
                opened.resolve(nil)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in queue { try await writer.writeTextMessage(text) }
                        if !Task.isCancelled { try await writer.close(.normalClosure, reason: nil) }
                    }
                    for try await message in inbound.messages(maxSize: maxFrameBytes) {
                        guard case .text(let text) = message else {
                            logger.warning("janus: binary message dropped")
                            continue
                        }
                        deliver(text)
                    }
                    group.cancelAll()
                }
            }
            return frame.map { "closed by Janus (\($0.closeCode))" } ?? "the connection was lost"
        } catch {
            return TLSFailure.describe(error, host: host) ?? "\(error)"
        }
    }
}
