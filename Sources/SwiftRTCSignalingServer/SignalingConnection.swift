import Foundation
import Hummingbird
import HummingbirdWebSocket
import SwiftRTCSignaling

/// One WebSocket connection of the signaling server: reads whole messages (reassembling
/// fragments, refusing oversized, binary or unparsable ones and floods with an error reply),
/// hands parsed messages to the ``SignalingHub``, and writes what the hub queues for it.
struct SignalingConnection: Sendable {
    let hub: SignalingHub
    let configuration: SignalingServer.Configuration

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, clientAddress: String) async {
        let (queue, continuation) = AsyncStream.makeStream(
            of: SignalingHub.Outbound.self,
            bufferingPolicy: .bufferingOldest(configuration.sendQueueLimit)
        )
        let id: Int
        switch await hub.open(outbound: continuation, address: clientAddress) {
        case let .opened(opened):
            id = opened
        case let .refused(reason):
            // The refusal answers the client's first message (its hello, sent at once by a
            // client), or goes out after a second of silence: a frame that follows the
            // upgrade's 101 response too closely can be lost by a client still switching
            // protocols (HummingbirdWSClient loses it, and then waits for its timeout).
            let replyTo = await Self.firstMessageID(of: inbound, within: Self.refusalWait)
            let refusal = SignalingMessage(
                body: .error(.init(code: .tooManyMessages, reason: reason, replyTo: replyTo))
            )
            try? await outbound.writeTextMessage(String(decoding: refusal.jsonData(), as: UTF8.self))
            try? await outbound.close(.policyViolation, reason: "connection limit")
            return
        case .stopping:
            try? await outbound.close(.goingAway, reason: "server shutting down")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The writer: ends on a close request, when the queue finishes, or on a write error.
                for await item in queue {
                    do {
                        switch item {
                        case let .text(text):
                            try await outbound.writeTextMessage(text)
                        case let .close(code, reason):
                            switch code {
                            case .goingAway: try await outbound.close(.goingAway, reason: reason)
                            case .policyViolation: try await outbound.close(.policyViolation, reason: reason)
                            }
                            return
                        }
                    } catch {
                        return
                    }
                }
            }
            await read(inbound, connection: id)
            // The peer closed (or the connection failed): the writer has nothing left to do.
            continuation.finish()
            await group.waitForAll()
        }
        await hub.closed(id)
    }

    /// Reads messages until the peer closes the connection.
    private func read(_ inbound: WebSocketInboundStream, connection id: Int) async {
        let limit = SignalingLimits.maxMessageBytes
        var limiter = MessageRateLimiter(perSecond: configuration.messagesPerSecond, burst: configuration.messageBurst)
        var frames = inbound.makeAsyncIterator()
        var message = ByteBuffer()
        var isText = true
        var oversized = 0
        var inMessage = false
        while true {
            let frame: WebSocketDataFrame
            do {
                guard let next = try await frames.next() else { return }
                frame = next
            } catch {
                return
            }
            switch frame.opcode {
            case .text, .binary:
                isText = frame.opcode == .text
                message.clear()
                oversized = 0
                inMessage = true
            case .continuation:
                guard inMessage else {
                    await hub.refuse(
                        connection: id,
                        code: .malformed,
                        reason: "a continuation frame without a message to continue",
                        replyTo: nil
                    )
                    continue
                }
            }
            if oversized > 0 || message.readableBytes + frame.data.readableBytes > limit {
                // Keep counting, drop the bytes: memory stays bounded by one frame.
                oversized = max(oversized, message.readableBytes) + frame.data.readableBytes
                message.clear()
            } else {
                var data = frame.data
                message.writeBuffer(&data)
            }
            guard frame.fin else { continue }
            inMessage = false
            guard limiter.allow() else {
                hub.limits.hit(
                    .messagesOverRateLimit,
                    "a message of connection \(id): over \(Int(configuration.messagesPerSecond)) per second"
                )
                await hub.refuse(
                    connection: id,
                    code: .tooManyMessages,
                    reason: "more than \(Int(configuration.messagesPerSecond)) messages per second",
                    replyTo: nil
                )
                continue
            }
            if oversized > 0 {
                hub.limits.hit(
                    .messagesTooLarge,
                    "a message of \(oversized) bytes from connection \(id), at most \(limit)"
                )
                await hub.refuse(
                    connection: id,
                    code: .tooLarge,
                    reason: "message of \(oversized) bytes, at most \(limit)",
                    replyTo: nil
                )
                continue
            }
            guard isText else {
                await hub.refuse(
                    connection: id,
                    code: .malformed,
                    reason: "binary message: send the JSON as a text message",
                    replyTo: nil
                )
                continue
            }
            let data = Data(message.readableBytesView)
            let parsed: SignalingMessage
            do throws(SignalingProtocolError) {
                parsed = try SignalingMessage(json: data)
            } catch {
                await hub.refuse(
                    connection: id,
                    code: error.code,
                    reason: error.description,
                    replyTo: Self.messageID(in: data)
                )
                continue
            }
            if case let .hello(hello) = parsed.body {
                await authenticate(hello, messageID: parsed.id, connection: id)
            } else {
                await hub.receive(parsed, connection: id)
            }
        }
    }

    /// Checks a hello's token and tells the hub who it names. A password check (PBKDF2) runs off
    /// the cooperative pool and only if one of ``SignalingServer/Configuration/maxConcurrentPasswordChecks``
    /// places is free; otherwise the hello is refused at once (429) and the connection closed.
    private func authenticate(_ hello: SignalingBody.Hello, messageID: String?, connection id: Int) async {
        guard await hub.awaitsHello(connection: id) else {
            // Already authenticated (or closing): the hub answers that.
            await hub.hello(user: nil, messageID: messageID, connection: id)
            return
        }
        let credentials = hub.credentials
        guard credentials.requiresPasswordCheck else {
            await hub.hello(user: credentials.authenticate(token: hello.token), messageID: messageID, connection: id)
            return
        }
        guard hub.passwordChecks.tryEnter() else {
            await hub.refusePasswordCheck(connection: id, messageID: messageID)
            return
        }
        let user = await credentials.authenticateOffPool(token: hello.token)
        hub.passwordChecks.leave()
        await hub.hello(user: user, messageID: messageID, connection: id)
    }

    /// How long a connection refused for a limit is kept waiting for its first message.
    static let refusalWait: Duration = .seconds(1)

    /// The `id` of the first frame's message (when it has one), once it arrives or after `wait`.
    private static func firstMessageID(of inbound: WebSocketInboundStream, within wait: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                var frames = inbound.makeAsyncIterator()
                guard let frame = try? await frames.next(), frame.opcode == .text else { return nil }
                return messageID(in: Data(frame.data.readableBytesView))
            }
            group.addTask {
                try? await Task.sleep(for: wait)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    /// The `id` of a message that failed to parse, when it has a readable one (for `replyTo`).
    static func messageID(in data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["id"] as? String, id.utf8.count <= 128
        else { return nil }
        return id
    }
}
