import SwiftRTCDataChannel
import SwiftRTCPeer
import SwiftRTCSignaling

/// A message of a call's chat channel: who sent it, and what.
public struct ChatMessage: Sendable, Hashable {
    /// The participant who sent it: the user at the other end of the connection it came on
    /// (the one whose certificate fingerprint the signaling carried; the server never sees
    /// the message).
    public var from: String
    /// Text or bytes, as the sender sent it.
    public var message: DataChannel.Message

    /// A message from `from`.
    public init(from: String, message: DataChannel.Message) {
        self.from = from
        self.message = message
    }
}

// The chat channel: one data channel on each participant's connection, made with the
// connection so that it is in the first offer and answer. It is negotiated (the same label
// and stream id on both ends, nothing sent to open it): both ends of a pair make it, whoever
// offers, and a browser does the same with
// `pc.createDataChannel("chat", {negotiated: true, id: 0})`.
extension CallSession {
    /// The chat channel's label.
    public static let chatLabel = "chat"
    /// The chat channel's stream id, the same on both ends (a negotiated channel).
    public static let chatChannelID: UInt16 = 0
    /// Messages to one participant that wait for the chat channel with them to open, at most:
    /// a further ``send(_:to:)`` to them throws until it has opened.
    public static let maxWaitingChatMessages = 256
    /// Messages received and not yet read by one ``messages()`` stream, at most: 1024 for each
    /// other participant of a full mesh. Past it the newest are dropped for that stream.
    public static let maxUnreadChatMessages = 1024 * (SignalingLimits.maxParticipants - 1)

    /// The chat messages the other participants send, from now on, with who sent each
    /// (``ChatMessage/from``); the stream finishes when the session ends. Subscribe before
    /// ``startCall(userInfo:)`` or ``acceptCall(userInfo:)`` to miss none. Each stream holds
    /// at most ``maxUnreadChatMessages`` unread messages: read them.
    ///
    /// ```swift
    /// for await chat in await session.messages() {
    ///     if case .text(let text) = chat.message { print("\(chat.from): \(text)") }
    /// }
    /// ```
    public func messages() -> AsyncStream<ChatMessage> { chatHub.subscribe() }

    /// Chat messages dropped because a ``messages()`` stream held ``maxUnreadChatMessages``
    /// unread (counted once per stream that dropped one).
    public nonisolated var chatMessagesDropped: Int { chatHub.dropped }

    /// Sends `message` to `user` on the chat channel with them. While the connection with
    /// them is being made the message waits (at most ``maxWaitingChatMessages``) and goes,
    /// in order, once the channel opens; a message over the peer's size limit is then logged
    /// and dropped.
    /// - Throws: ``CallError/messageNotSent(to:reason:)`` when this side has no connection
    ///   with `user` (not in the call, gone, or not connecting yet), the channel closed (the
    ///   peer did not take the chat channel, or left), too many messages wait, or the
    ///   channel refused it (too large, too much waiting to be sent).
    public func send(_ message: DataChannel.Message, to user: String) throws(CallError) {
        guard let link = links[user], let chat = link.chat else {
            throw .messageNotSent(to: user, reason: "no connection with \(user)")
        }
        guard link.chatOpen else {
            // An open channel this session has not heard of yet (``chatOpened(_:_:)`` is on
            // its way) takes the message in turn too: what waits goes first.
            guard chat.state == .connecting || chat.state == .open else {
                throw .messageNotSent(to: user, reason: "the chat channel is \(chat.state.rawValue)")
            }
            guard link.chatWaiting.count < Self.maxWaitingChatMessages else {
                throw .messageNotSent(
                    to: user,
                    reason: "\(Self.maxWaitingChatMessages) messages wait for the chat channel to open"
                )
            }
            link.chatWaiting.append(message)
            return
        }
        do { try chat.send(message) } catch {
            throw .messageNotSent(to: user, reason: "\(error)")
        }
    }

    /// Sends `message` to every other participant this side is connected to or connecting
    /// with (as ``send(_:to:)`` does to each); returns those it went to, or waits for.
    /// - Throws: ``CallError/messageNotSent(to:reason:)`` when it went to nobody (the first
    ///   participant's reason, or nobody is in the call).
    @discardableResult
    public func sendToAll(_ message: DataChannel.Message) throws(CallError) -> [String] {
        var recipients: [String] = []
        var firstError: CallError?
        for user in connectedParticipants {
            do throws(CallError) {
                try send(message, to: user)
                recipients.append(user)
            } catch {
                logger.warning("chat message not sent: \(error)", metadata: ["user": "\(user)"])
                firstError = firstError ?? error
            }
        }
        if recipients.isEmpty {
            throw firstError ?? .messageNotSent(to: "everyone", reason: "nobody is connected")
        }
        return recipients
    }

    /// The chat channel on a new connection (before its first offer or answer).
    static func makeChatChannel(on connection: PeerConnection) async throws(PeerConnectionError) -> DataChannel {
        try await connection.createDataChannel(
            label: chatLabel,
            options: DataChannel.Options(negotiatedID: chatChannelID)
        )
    }

    /// Follows the link's chat channel: once it is open, what waited goes out and what the
    /// peer sends is handed to every ``messages()`` stream.
    func followChat(_ chat: DataChannel, of link: PeerLink) {
        link.chat = chat
        let user = link.user, serial = link.serial, hub = chatHub
        link.tasks.append(
            Task { [weak self] in
                guard await chat.opened() else { return }
                await self?.chatOpened(user, serial)
                for await message in chat.messages { hub.yield(ChatMessage(from: user, message: message)) }
            }
        )
    }

    /// Sends, in order, what waited for the link's chat channel to open.
    func chatOpened(_ user: String, _ serial: Int) {
        guard let link = link(user, serial), let chat = link.chat else { return }
        link.chatOpen = true
        let waiting = link.chatWaiting
        link.chatWaiting = []
        for message in waiting {
            do { try chat.send(message) } catch {
                logger.warning("chat message not sent: \(error)", metadata: ["user": "\(user)"])
            }
        }
    }
}
