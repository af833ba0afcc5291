import Foundation
import Hummingbird
import HummingbirdWebSocket
import SwiftRTCSignaling

/// One WebSocket connection of the signaling server: reads whole messages (reassembling
/// fragments, refusing oversized, binary or unparsable ones and floods with an error reply),
/// hands parsed messages to the ``SignalingHub``, and writes what the hub queues for it.
///
/// When the hub closes the connection, the close frame follows what is queued; a client
/// that does not read (its writes stuck) is cut off ``closeGrace`` later all the same.
struct SignalingConnection: Sendable {
    let hub: SignalingHub
    let configuration: SignalingServer.Configuration

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, clientAddress: String) async {
        // Unbounded as a stream: the hub reserves each message's place in `sendQueue` first,
        // and a close is always queued.
        let (queue, continuation) = AsyncStream.makeStream(of: SignalingHub.Outbound.self)
        let sendQueue = SendQueue(maxMessages: configuration.sendQueueLimit, maxBytes: configuration.sendQueueBytes)
        let (closeRequests, closer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int
        switch await hub.open(outbound: continuation, queue: sendQueue, closer: closer, address: clientAddress) {
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
            group.addTask { await Self.write(queue, to: outbound, releasing: sendQueue) }
            group.addTask {
                // A close from the hub: the writer has `closeGrace` to send what is queued and
                // the close frame; a client that does not read is cut off then.
                for await _ in closeRequests {
                    try? await Task.sleep(for: Self.closeGrace)
                    return
                }
            }
            group.addTask { await read(inbound, connection: id, address: clientAddress) }
            // The first to end (the peer closed, the writer closed or failed, the grace ran
            // out) ends the connection.
            await group.next()
            continuation.finish()
            closer.finish()
            group.cancelAll()
        }
        await hub.closed(id)
    }

    /// The writer: writes `queue` to `outbound`, releasing each text's bytes from `sendQueue`
    /// once written; ends on a close request, when the queue finishes, or on a write error.
    private static func write(
        _ queue: AsyncStream<SignalingHub.Outbound>,
        to outbound: WebSocketOutboundWriter,
        releasing sendQueue: SendQueue
    ) async {
        for await item in queue {
            do {
                switch item {
                case let .text(text):
                    defer { sendQueue.release(text.utf8.count) }
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

    /// How long a connection the hub closes has to take its last messages and the close frame.
    static let closeGrace: Duration = .seconds(2)

    /// Reads messages until the peer closes the connection.
    private func read(_ inbound: WebSocketInboundStream, connection id: Int, address: String) async {
        let limit = SignalingLimits.maxMessageBytes
        var limiter = MessageRateLimiter(perSecond: configuration.messagesPerSecond, burst: configuration.messageBurst)
        var frames = inbound.makeAsyncIterator()
        var message = ByteBuffer()
        var isText = true
        var oversized = 0
        var inMessage = false
        // Over the rate, one answer a second says so: a flood costs the hub nothing more.
        var lastRateAnswer: ContinuousClock.Instant?
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
                    await hub.refuseUnread(
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
            await received(
                message,
                isText: isText,
                oversized: oversized,
                limiter: &limiter,
                lastRateAnswer: &lastRateAnswer,
                connection: id,
                address: address
            )
        }
    }

    /// A whole message of connection `id`, `oversized` bytes when over the limit (its bytes
    /// dropped): refused when over the rate (answered at most once a second, in
    /// `lastRateAnswer`), too large or binary, else handled.
    private func received(
        _ message: ByteBuffer,
        isText: Bool,
        oversized: Int,
        limiter: inout MessageRateLimiter,
        lastRateAnswer: inout ContinuousClock.Instant?,
        connection id: Int,
        address: String
    ) async {
        let limit = SignalingLimits.maxMessageBytes
        guard limiter.allow() else {
            hub.limits.hit(
                .messagesOverRateLimit,
                "a message of connection \(id): over \(Int(configuration.messagesPerSecond)) per second"
            )
            let now = ContinuousClock.now
            if let last = lastRateAnswer, now - last < .seconds(1) { return }
            lastRateAnswer = now
            await hub.refuseUnread(
                connection: id,
                code: .tooManyMessages,
                reason: "more than \(Int(configuration.messagesPerSecond)) messages per second",
                replyTo: nil
            )
            return
        }
        if oversized > 0 {
            hub.limits.hit(
                .messagesTooLarge,
                "a message of \(oversized) bytes from connection \(id), at most \(limit)"
            )
            await hub.refuseUnread(
                connection: id,
                code: .tooLarge,
                reason: "message of \(oversized) bytes, at most \(limit)",
                replyTo: nil
            )
            return
        }
        guard isText else {
            await hub.refuseUnread(
                connection: id,
                code: .malformed,
                reason: "binary message: send the JSON as a text message",
                replyTo: nil
            )
            return
        }
        await handle(Data(message.readableBytesView), connection: id, address: address)
    }

    /// One whole text message of connection `id`, within the size and rate limits: parsed
    /// (refused when it does not), then a `hello` authenticates and anything else goes to the
    /// hub.
    func handle(_ data: Data, connection id: Int, address: String) async {
        let parsed: SignalingMessage
        do throws(SignalingProtocolError) {
            parsed = try SignalingMessage(json: data)
        } catch {
            await hub.refuseUnread(
                connection: id,
                code: error.code,
                reason: error.description,
                replyTo: Self.messageID(in: data)
            )
            return
        }
        if case let .hello(hello) = parsed.body {
            await authenticate(hello, messageID: parsed.id, connection: id, address: address)
        } else {
            await hub.receive(parsed, connection: id)
        }
    }

    /// Checks a hello's token and tells the hub who it names. A password login first passes
    /// the failed-login budgets (``LoginThrottle``: refused unchecked, 429, when over); its
    /// check (PBKDF2) runs off the cooperative pool in one of
    /// ``SignalingServer/Configuration/maxConcurrentPasswordChecks`` places. An address never
    /// seen failing waits up to ``passwordCheckWait`` for a place; a suspect one is refused at
    /// once (429) when none is free. Refused, the connection is closed.
    private func authenticate(
        _ hello: SignalingBody.Hello,
        messageID: String?,
        connection id: Int,
        address: String
    ) async {
        guard await hub.awaitsHello(connection: id) else {
            // Already authenticated (or closing): the hub answers that.
            await hub.hello(user: nil, messageID: messageID, connection: id)
            return
        }
        let version = hub.credentialsVersion
        let credentials = version.credentials
        guard credentials.requiresPasswordCheck else {
            await hub.hello(
                user: credentials.authenticate(token: hello.token),
                messageID: messageID,
                connection: id,
                checkedWith: version
            )
            return
        }
        let name = hello.token.firstIndex(of: ":").map { String(hello.token[..<$0]) } ?? ""
        let suspect: Bool
        switch hub.loginThrottle.admit(address: address, user: name, exists: credentials.hasPassword(user: name)) {
        case let .wait(wait):
            await hub.refuseThrottledLogin(connection: id, messageID: messageID, wait: wait)
            return
        case let .check(isSuspect):
            suspect = isSuspect
        }
        let entered =
            suspect
            ? hub.passwordChecks.tryEnter() : await hub.passwordChecks.enter(waitingAtMost: Self.passwordCheckWait)
        guard entered else {
            await hub.refusePasswordCheck(connection: id, messageID: messageID)
            return
        }
        let user = await credentials.authenticateOffPool(token: hello.token)
        hub.passwordChecks.leave()
        if user == nil {
            hub.loginThrottle.failed(address: address)
        } else {
            hub.loginThrottle.succeeded(address: address)
        }
        await hub.hello(user: user, messageID: messageID, connection: id, checkedWith: version)
    }

    /// How long a login from an address never seen failing waits for a password check's place.
    static let passwordCheckWait: Duration = .seconds(3)

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
