/// A signaling transport between one authenticated user and the others: what a `CallClient`
/// needs, so users can bring their own (as the mobile call SDKs ride on their XMPP chat).
///
/// Implementations: ``InProcessSignalingHub``'s channels (bots in one process) and the
/// WebSocket client of the SwiftRTC signaling server. A channel delivers whole
/// ``SignalingMessage``s; `from` of every delivered message is the authenticated sender.
public protocol SignalingChannel: AnyObject, Sendable {
    /// The user id this channel is authenticated as.
    var userID: String { get }

    /// Every message addressed to this user, and the server's replies (`error`, `callLog`), in
    /// arrival order. One consumer; the stream finishes when the channel closes.
    var messages: AsyncStream<SignalingMessage> { get }

    /// Sends a message to its recipients (`message.to`) or, with no recipients, to the server.
    /// `from` is set by the other end and need not be filled in.
    /// - Throws: ``SignalingChannelError``.
    func send(_ message: SignalingMessage) async throws(SignalingChannelError)

    /// Closes the channel; ``messages`` finishes. Idempotent.
    func close() async

    /// The changes of the channel's connection to its server (one consumer), finishing when
    /// the channel closes for good. A `CallClient` reads it and reports the states as
    /// `CallClientEvent.signaling`. The default: a stream that finishes at once (a channel
    /// that never drops, as ``InProcessSignalingHub``'s).
    var connectionStates: AsyncStream<SignalingConnectionState> { get }
}

extension SignalingChannel {
    /// No state changes: a stream that finishes at once (the channel never drops).
    public var connectionStates: AsyncStream<SignalingConnectionState> {
        AsyncStream { $0.finish() }
    }
}
