import DequeModule
import SwiftRTCCore
import Synchronization

// A data channel's receive side: the messages the association delivers wait in the channel's
// inbox for its one reader. The reader is woken once per burst of the transport thread
// (``EndOfBurst``), not once per message. When the inboxes of all the transport's channels
// hold ``DataChannelTransport/maxUnreadBytes`` or ``DataChannelTransport/maxUnreadMessages``,
// the association stops reading, so the peer waits instead of anything being dropped: SCTP's
// own flow control (its receive window) carries the readers' pace back to the sender.

extension DataChannel {
    /// What the peer sent, in order (per the channel's kind), until the channel closes and
    /// everything was read. One consumer; a task cancelled while it waits gets nil.
    ///
    /// ```swift
    /// for await message in channel.messages {
    ///     if case .text(let text) = message { print(text) }
    /// }
    /// ```
    public var messages: Messages { Messages(channel: self) }

    /// The messages of a channel, as they arrive (``DataChannel/messages``).
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = Message
        public typealias Failure = Never

        let channel: DataChannel

        /// Waits for each message in turn.
        public struct AsyncIterator: AsyncIteratorProtocol {
            public typealias Element = Message
            public typealias Failure = Never

            let channel: DataChannel

            /// The next message; nil once the channel closed and all were read.
            public mutating func next() async -> Message? { await channel.nextMessage() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }
    }

    /// Messages received and not yet read, and who waits for them.
    struct Inbox {
        var messages = Deque<Message>()
        /// Their bytes.
        var bytes = 0
        /// The reader, waiting for a message.
        var reader: CheckedContinuation<Message?, Never>?
        /// The reader is woken at the end of the transport thread's burst.
        var wakeScheduled = false
        /// The channel closed: nothing more comes.
        var finished = false

        /// The first message, taken.
        mutating func takeFirst() -> Message? {
            guard let message = messages.popFirst() else { return nil }
            bytes -= message.count
            return message
        }

        /// The waiting reader with the first message, taken (nil: none waits, or nothing came).
        mutating func wakeReader() -> (CheckedContinuation<Message?, Never>, Message)? {
            guard let reader, let message = takeFirst() else { return nil }
            self.reader = nil
            return (reader, message)
        }
    }

    /// A message from the association (on the thread reading it).
    func received(_ data: [UInt8], ppid: UInt32) {
        let message: Message
        switch PayloadProtocol(rawValue: ppid) {
        case .string: message = .text(String(decoding: data, as: UTF8.self))
        case .binary: message = .binary(data)
        case .stringEmpty: message = .text("")
        case .binaryEmpty: message = .binary([])
        case .dcep, nil: return
        }
        // Counted before it is handed over: a reader that has it sees it counted.
        inner.withLock {
            $0.statistics.messagesReceived += 1
            $0.statistics.bytesReceived += message.count
        }
        let (kept, woken) = inbox.withLock { inbox -> (Bool, (CheckedContinuation<Message?, Never>, Message)?) in
            guard !inbox.finished else { return (false, nil) }
            inbox.messages.append(message)
            inbox.bytes += message.count
            guard inbox.reader != nil, !inbox.wakeScheduled else { return (true, nil) }
            if EndOfBurst.schedule(self) {
                inbox.wakeScheduled = true
                return (true, nil)
            }
            return (true, inbox.wakeReader())
        }
        if kept { transport.unreadArrived(bytes: message.count) }
        resume(woken)
    }

    /// The next message, waiting for one: nil once the channel closed and every message was
    /// read, when another reader waits already, or when the task is cancelled.
    func nextMessage() async -> Message? {
        let ready = inbox.withLock { inbox -> Message?? in
            if let message = inbox.takeFirst() { return message }
            return inbox.finished ? .some(nil) : nil
        }
        if let ready {
            guard let message = ready else { return nil }
            transport.unreadTaken(messages: 1, bytes: message.count)
            return message
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Message?, Never>) in
                let now = inbox.withLock { inbox -> Message?? in
                    if let message = inbox.takeFirst() { return message }
                    guard !inbox.finished, inbox.reader == nil, !Task.isCancelled else { return .some(nil) }
                    inbox.reader = continuation
                    return nil
                }
                guard let now else { return }
                if let message = now { transport.unreadTaken(messages: 1, bytes: message.count) }
                continuation.resume(returning: now)
            }
        } onCancel: {
            inbox.withLock { inbox in
                defer { inbox.reader = nil }
                return inbox.reader
            }?.resume(returning: nil)
        }
    }

    /// Nothing more comes: a waiting reader gets nil once every message was read. (What is
    /// still unread counts for the transport's limit until it is read or the channel goes.)
    func finishMessages() {
        let reader = inbox.withLock { inbox -> CheckedContinuation<Message?, Never>? in
            inbox.finished = true
            guard inbox.messages.isEmpty else { return nil }
            defer { inbox.reader = nil }
            return inbox.reader
        }
        reader?.resume(returning: nil)
    }

    private func resume(_ woken: (CheckedContinuation<Message?, Never>, Message)?) {
        guard let (reader, message) = woken else { return }
        transport.unreadTaken(messages: 1, bytes: message.count)
        reader.resume(returning: message)
    }
}

extension DataChannel: EndOfBurst.Flushing {
    /// The transport thread's burst ended: the reader is woken with the first message of it.
    package func endOfBurst() {
        resume(
            inbox.withLock { inbox in
                inbox.wakeScheduled = false
                return inbox.wakeReader()
            }
        )
    }
}
