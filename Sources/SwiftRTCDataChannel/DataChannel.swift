import Synchronization

/// One data channel (RFC 8831): a label, a stream of its SCTP association, and messages of
/// text or bytes both ways, as the W3C `RTCDataChannel` has them. Made by
/// ``DataChannelTransport/createDataChannel(label:options:)`` or announced by the peer
/// (``DataChannelTransport/remoteChannels``).
public final class DataChannel: Sendable {
    /// Where the channel is in its life.
    public enum State: Sendable, Hashable {
        case connecting, open, closing, closed
    }

    /// A message of the channel.
    public enum Message: Sendable, Hashable {
        case text(String)
        case binary([UInt8])
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

    /// Messages received and not yet read, at most; more are dropped and counted
    /// (``droppedMessages``).
    public static let maxQueuedMessages = 1024

    public let label: String
    /// The SCTP stream, the same both ways.
    public let id: UInt16
    public let options: Options
    private let transport: DataChannelTransportCore
    private let current = Mutex(State.connecting)
    private let inbox: AsyncStream<Message>.Continuation
    /// What the peer sent, in order, until the channel closes. One consumer.
    public let messages: AsyncStream<Message>
    private let dropped = Atomic<Int>(0)
    private let counts = Mutex((messagesSent: 0, bytesSent: 0, messagesReceived: 0, bytesReceived: 0))

    init(label: String, id: UInt16, options: Options, transport: DataChannelTransportCore) {
        self.label = label
        self.id = id
        self.options = options
        self.transport = transport
        (messages, inbox) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.maxQueuedMessages))
    }

    /// The state now.
    public var state: State { current.withLock { $0 } }

    /// Messages dropped because ``maxQueuedMessages`` were waiting to be read.
    public var droppedMessages: Int { dropped.load(ordering: .relaxed) }

    /// Messages and bytes sent and received (W3C `data-channel` stats).
    public var statistics: (messagesSent: Int, bytesSent: Int, messagesReceived: Int, bytesReceived: Int) {
        counts.withLock { $0 }
    }

    /// Sends a text message.
    /// - Throws: ``DataChannelError`` when the channel is not open, the message is over the
    ///   peer's limit, or the association's send buffer is full.
    public func send(_ text: String) throws(DataChannelError) {
        let bytes = Array(text.utf8)
        try send(bytes, ppid: bytes.isEmpty ? .stringEmpty : .string)
    }

    /// Sends a binary message (see ``send(_:)-(String)``).
    public func send(_ bytes: [UInt8]) throws(DataChannelError) {
        try send(bytes, ppid: bytes.isEmpty ? .binaryEmpty : .binary)
    }

    private func send(_ bytes: [UInt8], ppid: PayloadProtocol) throws(DataChannelError) {
        guard state == .open else { throw .notOpen(state) }
        // An empty message goes as one zero byte (RFC 8831 §6.6).
        try transport.send(bytes.isEmpty ? [0] : bytes, on: self, ppid: ppid)
        counts.withLock {
            $0.messagesSent += 1
            $0.bytesSent += bytes.count
        }
    }

    /// Closes the channel: its outgoing stream is reset, and the peer resets its own.
    public func close() {
        let wasOpen = current.withLock { state -> Bool in
            guard state == .open || state == .connecting else { return false }
            state = .closing
            return true
        }
        if wasOpen { transport.reset(self) }
    }

    // MARK: From the transport

    func opened() {
        current.withLock { if $0 == .connecting { $0 = .open } }
    }

    func received(_ data: [UInt8], ppid: UInt32) {
        let message: Message
        switch PayloadProtocol(rawValue: ppid) {
        case .string: message = .text(String(decoding: data, as: UTF8.self))
        case .binary: message = .binary(data)
        case .stringEmpty: message = .text("")
        case .binaryEmpty: message = .binary([])
        case .dcep, nil: return
        }
        counts.withLock {
            $0.messagesReceived += 1
            $0.bytesReceived +=
                ppid == PayloadProtocol.stringEmpty.rawValue || ppid == PayloadProtocol.binaryEmpty.rawValue
                ? 0 : data.count
        }
        if case .dropped = inbox.yield(message) { dropped.add(1, ordering: .relaxed) }
    }

    func closed() {
        current.withLock { $0 = .closed }
        inbox.finish()
    }
}

/// Why a data channel could not send.
public enum DataChannelError: Error, Sendable, Hashable {
    /// The channel is not open.
    case notOpen(DataChannel.State)
    /// The message is longer than the peer takes (`a=max-message-size`).
    case tooLarge(bytes: Int, limit: Int)
    /// The association's send buffer is full: wait and send again.
    case bufferFull
    /// The association refused it (its errno).
    case refused(errno: Int32)
    /// Every stream id of this side is taken.
    case noStreamLeft
}
