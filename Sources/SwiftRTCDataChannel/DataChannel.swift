import SwiftRTCCore
import Synchronization

/// One data channel (RFC 8831): a label, a stream of its SCTP association, and messages of
/// text or bytes both ways, as the W3C `RTCDataChannel` has them. Made by
/// ``DataChannelTransport/createDataChannel(label:options:)`` (`PeerConnection`'s
/// `createDataChannel`) or announced by the peer (``DataChannelTransport/remoteChannels``).
///
/// ```swift
/// let chat = try await pc.createDataChannel(label: "chat")
/// guard await chat.opened() else { return }
/// try chat.send("hello")
/// for await message in chat.messages { print(message) }
/// ```
public final class DataChannel: Sendable {
    /// Where the channel is in its life.
    public enum State: String, Sendable, Hashable {
        case connecting, open, closing, closed
    }

    /// A message of the channel.
    public enum Message: Sendable, Hashable {
        case text(String)
        case binary([UInt8])

        /// Its length in bytes (UTF-8 for text).
        public var count: Int {
            switch self {
            case .text(let text): text.utf8.count
            case .binary(let bytes): bytes.count
            }
        }
    }

    /// How the channel was asked for (W3C `RTCDataChannelInit`).
    public struct Options: Sendable, Hashable {
        /// Messages arrive in the order sent.
        public var ordered = true
        /// Given up after this many retransmissions.
        public var maxRetransmits: UInt32?
        /// Given up this many milliseconds after being first sent.
        public var maxPacketLifeTime: UInt32?
        /// The subprotocol, told to the peer.
        public var `protocol` = ""
        /// With an id: negotiated by the application (both sides create it with this id;
        /// nothing is sent to open it). Without: opened in band (DCEP), with an id chosen here.
        public var negotiatedID: UInt16?

        /// Reliable and ordered, opened in band.
        public init(
            ordered: Bool = true,
            maxRetransmits: UInt32? = nil,
            maxPacketLifeTime: UInt32? = nil,
            protocol: String = "",
            negotiatedID: UInt16? = nil
        ) {
            self.ordered = ordered
            self.maxRetransmits = maxRetransmits
            self.maxPacketLifeTime = maxPacketLifeTime
            self.protocol = `protocol`
            self.negotiatedID = negotiatedID
        }
    }

    /// Messages and bytes each way (W3C `RTCDataChannelStats`).
    public struct Statistics: Sendable, Hashable {
        public var messagesSent = 0
        public var bytesSent = 0
        public var messagesReceived = 0
        public var bytesReceived = 0
    }
    /// The most bytes ``bufferedAmount`` may reach: a send beyond it is refused
    /// (``DataChannelError/bufferFull``), as browsers refuse past 16 MiB.
    public static let maxBufferedAmount = 16 << 20

    public let label: String
    public let options: Options
    let transport: DataChannelTransportCore
    /// What one lock guards: the state, the stream id, the counts, the buffered amount, and
    /// who waits for the channel to open or its buffer to drain.
    struct Inner {
        var state = State.connecting
        var id: UInt16?
        var statistics = Statistics()
        /// Bytes in ``DataChannel/pending``.
        var bufferedAmount = 0
        var bufferedAmountLowThreshold = 0
        var openWaiters: [CheckedContinuation<Bool, Never>] = []
        var lowWaiters: [CheckedContinuation<Void, Never>] = []
    }
    let inner: Mutex<Inner>
    /// Messages the association had no room for yet, in order (`count`: the message's own
    /// length, 0 for an empty one sent as one byte).
    let pending = Mutex<[(bytes: [UInt8], ppid: PayloadProtocol, count: Int)]>([])
    /// Messages received and not yet read, and the reader waiting for one
    /// (`DataChannel+Messages.swift`); counted in the transport's
    /// ``DataChannelTransport/maxUnreadBytes``.
    let inbox = Mutex(Inbox())

    init(label: String, id: UInt16?, options: Options, transport: DataChannelTransportCore) {
        self.label = label
        self.options = options
        self.transport = transport
        inner = Mutex(Inner(id: id))
    }

    deinit {
        // What was never read no longer holds the association's reading.
        let unread = inbox.withLock { ($0.messages.count, $0.bytes) }
        if unread.0 > 0 { transport.unreadTaken(messages: unread.0, bytes: unread.1) }
    }

    /// The state now.
    public var state: State { inner.withLock { $0.state } }

    /// The SCTP stream, the same both ways; nil until the DTLS role is known (W3C).
    public var id: UInt16? { inner.withLock { $0.id } }

    /// Messages and bytes sent and received.
    public var statistics: Statistics { inner.withLock { $0.statistics } }

    /// Bytes of messages sent and not yet taken by the association (its send buffer was full).
    public var bufferedAmount: Int { inner.withLock { $0.bufferedAmount } }

    /// ``bufferedAmountLow()`` returns once ``bufferedAmount`` is at most this (default 0).
    public var bufferedAmountLowThreshold: Int {
        get { inner.withLock { $0.bufferedAmountLowThreshold } }
        set { inner.withLock { $0.bufferedAmountLowThreshold = max(0, newValue) } }
    }

    /// Waits until the channel is open: true, or it closed first: false.
    public func opened() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = inner.withLock { inner -> Bool? in
                switch inner.state {
                case .open: return true
                case .closing, .closed: return false
                case .connecting:
                    inner.openWaiters.append(continuation)
                    return nil
                }
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Waits until ``bufferedAmount`` is at most ``bufferedAmountLowThreshold`` (or the
    /// channel closed): the back-pressure a sender awaits between sends.
    public func bufferedAmountLow() async {
        await withCheckedContinuation { continuation in
            let now = inner.withLock { inner -> Bool in
                guard inner.bufferedAmount > inner.bufferedAmountLowThreshold, inner.state != .closed else {
                    return true
                }
                inner.lowWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Sends a text message.
    /// - Throws: ``DataChannelError`` when the channel is not open, the message is over the
    ///   peer's limit, or ``maxBufferedAmount`` bytes wait already.
    public func send(_ text: String) throws(DataChannelError) {
        let bytes = Array(text.utf8)
        try send(bytes, ppid: bytes.isEmpty ? .stringEmpty : .string)
    }

    /// Sends a binary message (see ``send(_:)-(String)``).
    public func send(_ bytes: [UInt8]) throws(DataChannelError) {
        try send(bytes, ppid: bytes.isEmpty ? .binaryEmpty : .binary)
    }

    /// Sends a message.
    public func send(_ message: Message) throws(DataChannelError) {
        switch message {
        case .text(let text): try send(text)
        case .binary(let bytes): try send(bytes)
        }
    }

    /// Closes the channel: its outgoing stream is reset, and the peer resets its own.
    public func close() {
        let id = inner.withLock { inner -> UInt16?? in
            guard inner.state == .open || inner.state == .connecting else { return nil }
            inner.state = .closing
            return .some(inner.id)
        }
        guard let id else { return }
        if let id { transport.reset(id) } else { closed() }
    }

    private func send(_ bytes: [UInt8], ppid: PayloadProtocol) throws(DataChannelError) {
        let limit = transport.remoteMaxMessageSize
        guard limit == 0 || bytes.count <= limit else { throw .tooLarge(bytes: bytes.count, limit: limit) }
        // An empty message goes as one zero byte (RFC 8831 §6.6).
        let payload = bytes.isEmpty ? [0] : bytes
        // Sends are serialized by `pending`'s lock, never the state's: usrsctp's threads take
        // that one when they deliver, and a send may wait on usrsctp's own locks.
        try pending.withLock { pending throws(DataChannelError) in
            let id = try inner.withLock { inner throws(DataChannelError) -> UInt16 in
                guard inner.state == .open, let id = inner.id else { throw .notOpen(inner.state) }
                guard inner.bufferedAmount + bytes.count <= Self.maxBufferedAmount else { throw .bufferFull }
                inner.statistics.messagesSent += 1
                inner.statistics.bytesSent += bytes.count
                return id
            }
            try enqueue(payload, ppid: ppid, count: bytes.count, id: id, into: &pending)
        }
    }

    /// Sends `payload` now when nothing waits and the association has room, else queues it.
    private func enqueue(
        _ payload: [UInt8],
        ppid: PayloadProtocol,
        count: Int,
        id: UInt16,
        into pending: inout [(bytes: [UInt8], ppid: PayloadProtocol, count: Int)]
    ) throws(DataChannelError) {
        if pending.isEmpty {
            switch transport.send(payload, stream: id, ppid: ppid, options: sendOptions(ppid)) {
            case .sent: return
            case .noRoom: break
            case .refused(let code): throw .refused(errno: code)
            }
        }
        pending.append((payload, ppid, count))
        inner.withLock { $0.bufferedAmount += count }
        transport.waitForRoom(self)
    }

    /// DCEP goes reliable and ordered whatever the channel's kind (RFC 8832 §6).
    private func sendOptions(_ ppid: PayloadProtocol) -> Options { ppid == .dcep ? Options() : options }

    // MARK: From the transport

    /// Sends what waited while the association has room.
    func flush() {
        let low = pending.withLock { pending in
            var sent = 0
            var taken = 0
            // A channel still connecting has its own open (or the ack of the peer's) waiting
            // here: a flush may come between that send being refused for room and the
            // channel becoming open. Only a closing or closed channel's messages are dropped.
            let id = inner.withLock { $0.state == .open || $0.state == .connecting ? $0.id : nil }
            while taken < pending.count, let id {
                let next = pending[taken]
                guard
                    case .sent = transport.send(
                        next.bytes,
                        stream: id,
                        ppid: next.ppid,
                        options: sendOptions(next.ppid)
                    )
                else {
                    break
                }
                taken += 1
                sent += next.count
            }
            pending.removeFirst(taken)
            if id == nil { pending.removeAll() }
            if pending.isEmpty { transport.stopWaitingForRoom(self) }
            let waiters = inner.withLock { inner -> [CheckedContinuation<Void, Never>] in
                inner.bufferedAmount = max(0, inner.bufferedAmount - sent)
                guard inner.bufferedAmount <= inner.bufferedAmountLowThreshold else { return [] }
                defer { inner.lowWaiters = [] }
                return inner.lowWaiters
            }
            return waiters
        }
        for waiter in low { waiter.resume() }
    }

    /// A channel the peer opened: `announce` hands it to the application (false when that
    /// was refused), and once it has, the DCEP ack is queued, under the lock a send takes, so
    /// that nothing the application sends on it goes before the ack. A refused channel is
    /// never acknowledged. Whether it was announced.
    func announce(_ announce: () -> Bool) -> Bool {
        pending.withLock { pending in
            guard announce() else { return false }
            if let id = inner.withLock({ $0.id }) {
                try? enqueue(DataChannelProtocolMessage.ack.bytes, ppid: .dcep, count: 0, id: id, into: &pending)
            }
            return true
        }
    }

    /// Sends a DCEP message ahead of anything the application sends (the channel is not open
    /// yet); nothing when it has no id or cannot be sent.
    func sendProtocolMessage(_ bytes: [UInt8]) {
        pending.withLock { pending in
            guard let id = inner.withLock({ $0.id }) else { return }
            try? enqueue(bytes, ppid: .dcep, count: 0, id: id, into: &pending)
        }
    }

    /// Takes the stream id the DTLS role gave it.
    func assign(_ id: UInt16) { inner.withLock { $0.id = $0.id ?? id } }

    func opened() {
        let waiters = inner.withLock { inner -> [CheckedContinuation<Bool, Never>] in
            guard inner.state == .connecting else { return [] }
            inner.state = .open
            defer { inner.openWaiters = [] }
            return inner.openWaiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    func closed() {
        let (opening, low) = inner.withLock { inner in
            inner.state = .closed
            inner.bufferedAmount = 0
            defer {
                inner.openWaiters = []
                inner.lowWaiters = []
            }
            return (inner.openWaiters, inner.lowWaiters)
        }
        for waiter in opening { waiter.resume(returning: false) }
        for waiter in low { waiter.resume() }
        // What waited to be sent goes at the next flush (not here: usrsctp's threads call this).
        transport.waitForRoom(self)
        finishMessages()
    }
}

/// Why a data channel could not send.
public enum DataChannelError: Error, Sendable, Hashable {
    /// The channel is not open.
    case notOpen(DataChannel.State)
    /// The message is longer than the peer takes (`a=max-message-size`).
    case tooLarge(bytes: Int, limit: Int)
    /// ``DataChannel/maxBufferedAmount`` bytes wait to be sent already: await
    /// ``DataChannel/bufferedAmountLow()`` and send again.
    case bufferFull
    /// The association refused it (its errno).
    case refused(errno: Int32)
    /// Every stream id of this side is taken.
    case noStreamLeft
    /// The label or the protocol is longer than 65535 bytes of UTF-8.
    case labelTooLong
}
