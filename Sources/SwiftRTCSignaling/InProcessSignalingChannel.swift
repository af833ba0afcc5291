import Synchronization

/// One user's channel of an ``InProcessSignalingHub``.
public final class InProcessSignalingChannel: SignalingChannel {
    /// The user this channel was connected as.
    public let userID: String
    /// Messages for this user.
    public let messages: AsyncStream<SignalingMessage>
    private let continuation: AsyncStream<SignalingMessage>.Continuation
    private let hub: InProcessSignalingHub
    private let closed = Atomic<Bool>(false)

    init(userID: String, hub: InProcessSignalingHub) {
        self.userID = userID
        self.hub = hub
        (messages, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// Routes a message through the hub; refusals arrive as `error` messages on ``messages``.
    public func send(_ message: SignalingMessage) async throws(SignalingChannelError) {
        guard !closed.load(ordering: .acquiring) else { throw .closed }
        hub.route(message, from: self)
    }

    /// Leaves the hub and finishes ``messages``.
    public func close() async { hub.disconnect(self) }

    func deliver(_ message: SignalingMessage) { continuation.yield(message) }

    func finish() {
        closed.store(true, ordering: .releasing)
        continuation.finish()
    }
}
