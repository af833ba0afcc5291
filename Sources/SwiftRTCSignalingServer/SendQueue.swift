import Synchronization

/// What waits to be written to one connection, bounded in messages
/// (``SignalingServer/Configuration/sendQueueLimit``) and in bytes
/// (``SignalingServer/Configuration/sendQueueBytes``): the hub reserves a place before it
/// queues a message, the connection's writer gives it back once the message is written. A
/// client that does not read its messages holds at most this much of the server's memory.
final class SendQueue: Sendable {
    let maxMessages: Int
    let maxBytes: Int
    private let queued = Mutex<(messages: Int, bytes: Int)>((0, 0))

    init(maxMessages: Int, maxBytes: Int) {
        self.maxMessages = max(1, maxMessages)
        self.maxBytes = max(1, maxBytes)
    }

    /// Takes a place for a message of `bytes`, unless the queue is full.
    func reserve(_ bytes: Int) -> Bool {
        queued.withLock { queued in
            guard queued.messages < maxMessages, queued.bytes <= maxBytes - bytes else { return false }
            queued.messages += 1
            queued.bytes += bytes
            return true
        }
    }

    /// A message of `bytes` was written (or will never be).
    func release(_ bytes: Int) {
        queued.withLock { queued in
            queued.messages = max(0, queued.messages - 1)
            queued.bytes = max(0, queued.bytes - bytes)
        }
    }

    /// Messages and bytes waiting now.
    var count: (messages: Int, bytes: Int) { queued.withLock { $0 } }
}
