import Dispatch
import Glibc
import SwiftRTCSCTP
import Synchronization

/// What ``DataChannelTransportCore/send(_:stream:ppid:options:)`` did.
enum SendResult {
    case sent, noRoom
    case refused(Int32)
}

/// The transport's state, shared with its channels and the association's callbacks.
final class DataChannelTransportCore: Sendable {
    struct State {
        var parameters: DataChannelTransport.Parameters?
        var connected = false
        var closed = false
        var channels: [UInt16: DataChannel] = [:]
        /// Channels opened in band before the DTLS role gave them an id.
        var unassigned: [DataChannel] = []
        /// Channels made before the association was up: their opens go out once it is.
        var waiting: [DataChannel] = []
        var nextID: UInt16 = 0
        var early: [[UInt8]] = []
        var statistics = DataChannelTransport.Statistics()
    }

    let state = Mutex(State())
    let association = Mutex<SctpAssociation?>(nil)
    /// Messages received on every channel and not yet read, and whether they hold the
    /// association's reading.
    private let unread = Mutex<(messages: Int, bytes: Int, holding: Bool)>((0, 0, false))
    private let announce: AsyncStream<DataChannel>.Continuation
    /// Channels with messages waiting for room, flushed here (never on usrsctp's threads,
    /// which may hold its locks).
    private let flushing = DispatchQueue(label: "swiftrtc.datachannel.flush")
    /// In the order they began to wait: the longest waiting is flushed first, so a channel
    /// with megabytes queued does not take every room before a waiting open or small message.
    private let needRoom = Mutex<(order: [DataChannel], members: Set<ObjectIdentifier>)>(([], []))
    /// Whether a flush is scheduled for ``retryInterval`` from now.
    private let retryScheduled = Atomic<Bool>(false)
    /// How soon channels still waiting after a flush are tried again. usrsctp tells of room
    /// only when a SACK frees some; a send it refused for want of memory (ENOBUFS) while
    /// nothing of ours was in flight would wait forever for that.
    static let retryInterval = DispatchTimeInterval.milliseconds(10)

    init(announce: AsyncStream<DataChannel>.Continuation) {
        self.announce = announce
    }

    /// The peer's `a=max-message-size` (64 KiB until negotiation said): read by every send,
    /// so kept apart from the state's lock.
    private let remoteLimit = Atomic<Int>(65536)
    var remoteMaxMessageSize: Int { remoteLimit.load(ordering: .relaxed) }

    func start(
        _ parameters: DataChannelTransport.Parameters,
        send: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) throws(SctpError) {
        let unassigned = state.withLock { state -> [DataChannel]? in
            guard state.parameters == nil, !state.closed else { return nil }
            state.parameters = parameters
            remoteLimit.store(parameters.remoteMaxMessageSize, ordering: .relaxed)
            state.nextID = parameters.isDTLSClient ? 0 : 1
            defer { state.unassigned = [] }
            return state.unassigned
        }
        guard let unassigned else { return }
        for channel in unassigned {
            let id = state.withLock { state -> UInt16? in
                guard let id = Self.freeID(&state) else { return nil }
                state.channels[id] = channel
                return id
            }
            if let id { channel.assign(id) } else { channel.closed() }
        }
        let made = try SctpAssociation(configuration: parameters.sctp, send: send) { [weak self] event in
            self?.handle(event)
        }
        association.withLock { $0 = made }
        try made.connect()
        let early = state.withLock { state in
            defer { state.early = [] }
            return state.early
        }
        for packet in early { packet.withUnsafeBytes { made.receive($0) } }
    }

    func receive(_ packet: UnsafeRawBufferPointer) {
        if let association = association.withLock({ $0 }) {
            association.receive(packet)
            return
        }
        state.withLock { state in
            if state.early.count < DataChannelTransport.maxEarlyPackets {
                state.early.append(Array(packet))
            } else {
                state.statistics.earlyPacketsDropped += 1
            }
        }
    }

    /// This side's parity, the first free id (nil: none left).
    private static func freeID(_ state: inout State) -> UInt16? {
        guard state.channels.count < DataChannelTransport.maxChannels else { return nil }
        var candidate = state.nextID
        while state.channels[candidate] != nil {
            guard candidate <= UInt16.max - 2 else { return nil }
            candidate += 2
        }
        state.nextID = candidate &+ 2
        return candidate
    }

    func create(label: String, options: DataChannel.Options) throws(DataChannelError) -> DataChannel {
        // DCEP carries each in 16 bits of length (RFC 8832 §5.1); W3C refuses longer ones.
        guard label.utf8.count <= 65535, options.protocol.utf8.count <= 65535 else { throw .labelTooLong }
        let made = state.withLock { state -> (DataChannel, sendNow: Bool)? in
            guard !state.closed, state.channels.count + state.unassigned.count < DataChannelTransport.maxChannels
            else { return nil }
            let id: UInt16?
            if let chosen = options.negotiatedID {
                guard state.channels[chosen] == nil else { return nil }
                id = chosen
            } else if state.parameters != nil {
                guard let free = Self.freeID(&state) else { return nil }
                id = free
            } else {
                id = nil
            }
            let channel = DataChannel(label: label, id: id, options: options, transport: self)
            if let id { state.channels[id] = channel } else { state.unassigned.append(channel) }
            if !state.connected { state.waiting.append(channel) }
            return (channel, state.connected)
        }
        guard let (channel, sendNow) = made else { throw .noStreamLeft }
        if sendNow { open(channel) }
        return channel
    }

    /// Sends the channel's `DATA_CHANNEL_OPEN` (unless negotiated) and marks it open.
    private func open(_ channel: DataChannel) {
        guard channel.id != nil, channel.state == .connecting else { return }
        if channel.options.negotiatedID == nil {
            let delivery: DataChannelOpen.Delivery =
                if let count = channel.options.maxRetransmits {
                    .maxRetransmits(count)
                } else if let lifetime = channel.options.maxPacketLifeTime {
                    .maxPacketLifeTime(milliseconds: lifetime)
                } else {
                    .reliable
                }
            let message = DataChannelProtocolMessage.open(
                DataChannelOpen(
                    ordered: channel.options.ordered,
                    delivery: delivery,
                    label: channel.label,
                    protocol: channel.options.protocol
                )
            )
            channel.sendProtocolMessage(message.bytes)
        }
        opened(channel)
    }

    private func opened(_ channel: DataChannel) {
        channel.opened()
        state.withLock { $0.statistics.dataChannelsOpened += 1 }
    }

    func send(_ bytes: [UInt8], stream: UInt16, ppid: PayloadProtocol, options: DataChannel.Options) -> SendResult {
        guard let association = association.withLock({ $0 }) else { return .refused(ENOTCONN) }
        let reliability = SctpAssociation.Reliability(
            ordered: options.ordered,
            maxRetransmits: options.maxRetransmits,
            maxPacketLifeTime: options.maxPacketLifeTime
        )
        return bytes.withUnsafeBytes { buffer in
            do throws(SctpAssociation.SendError) {
                try association.send(buffer, stream: stream, ppid: ppid.rawValue, reliability: reliability)
                return .sent
            } catch {
                switch error {
                case .bufferFull: return .noRoom
                case .refused(let code): return .refused(code)
                }
            }
        }
    }

    /// `channel` has messages waiting: it is flushed when the association has room again,
    /// and, when it begins to wait, tried once more now (the room may have come before it
    /// asked). A channel waiting already is flushed at the next room or retry, so a message
    /// queued behind others costs no hop.
    func waitForRoom(_ channel: DataChannel) {
        let began = needRoom.withLock {
            guard $0.members.insert(ObjectIdentifier(channel)).inserted else { return false }
            $0.order.append(channel)
            return true
        }
        if began { flushing.async { [self] in flush() } }
    }

    var isWaitingForRoom: Bool { needRoom.withLock { !$0.order.isEmpty } }

    /// `channel` has nothing waiting any more (called under its queue's lock, as
    /// ``waitForRoom(_:)`` is: a message queued after its flush is never missed).
    func stopWaitingForRoom(_ channel: DataChannel) {
        needRoom.withLock {
            guard $0.members.remove(ObjectIdentifier(channel)) != nil else { return }
            $0.order.removeAll { $0 === channel }
        }
    }

    private func flush() {
        for channel in needRoom.withLock({ $0.order }) { channel.flush() }
        guard needRoom.withLock({ !$0.order.isEmpty }),
            retryScheduled.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        flushing.asyncAfter(deadline: .now() + Self.retryInterval) { [weak self] in
            guard let self else { return }
            retryScheduled.store(false, ordering: .relaxed)
            flush()
        }
    }

    /// A channel kept a message for its reader (on the thread reading the association): at
    /// the limit, the association stops reading (``SctpAssociation/holdReading()``).
    func unreadArrived(bytes: Int) {
        let hold = unread.withLock { unread in
            unread.messages += 1
            unread.bytes += bytes
            guard !unread.holding,
                unread.messages >= DataChannelTransport.maxUnreadMessages
                    || unread.bytes >= DataChannelTransport.maxUnreadBytes
            else { return false }
            unread.holding = true
            return true
        }
        guard hold else { return }
        state.withLock { $0.statistics.unreadLimitReached += 1 }
        association.withLock { $0 }?.holdReading()
    }

    /// A reader took messages (or a channel went with them unread): at half the limit, the
    /// association reads again.
    func unreadTaken(messages: Int, bytes: Int) {
        let lift = unread.withLock { unread in
            unread.messages -= messages
            unread.bytes -= bytes
            guard unread.holding, unread.messages <= DataChannelTransport.maxUnreadMessages / 2,
                unread.bytes <= DataChannelTransport.maxUnreadBytes / 2
            else { return false }
            unread.holding = false
            return true
        }
        if lift { association.withLock { $0 }?.liftReadingHold() }
    }

    func reset(_ id: UInt16) {
        try? association.withLock { $0 }?.resetStreams([id])
    }

    func close() {
        let channels = state.withLock { state -> [DataChannel] in
            state.closed = true
            defer {
                state.channels = [:]
                state.unassigned = []
                state.waiting = []
            }
            return Array(state.channels.values) + state.unassigned
        }
        association.withLock { association in
            association?.close()
            association = nil
        }
        for channel in channels { closed(channel) }
        announce.finish()
    }

    private func closed(_ channel: DataChannel) {
        if channel.state == .open || channel.state == .closing {
            state.withLock { $0.statistics.dataChannelsClosed += 1 }
        }
        channel.closed()
    }

    // MARK: From the association (usrsctp's threads)

    private func handle(_ event: SctpAssociation.Event) {
        switch event {
        case .connected:
            let waiting = state.withLock { state -> [DataChannel] in
                state.connected = true
                defer { state.waiting = [] }
                return state.waiting
            }
            // Not on usrsctp's thread: an open may wait for room in the channel's queue.
            flushing.async { [self] in for channel in waiting { open(channel) } }
        case let .message(stream, ppid, data):
            if ppid == PayloadProtocol.dcep.rawValue {
                protocolMessage(data, on: stream)
            } else if let channel = state.withLock({ $0.channels[stream] }) {
                channel.received(data, ppid: ppid)
            }
        case let .streamsReset(streams):
            for stream in streams {
                guard let channel = state.withLock({ $0.channels.removeValue(forKey: stream) }) else { continue }
                // Our side of the stream is reset too, unless we began the close.
                if channel.state != .closing { reset(stream) }
                closed(channel)
            }
        case .sendBufferHasRoom:
            flushing.async { [self] in flush() }
        case .closed:
            close()
        }
    }

    /// A DCEP message: an open from the peer makes a channel (acknowledged once announced);
    /// an ack changes nothing (ours is open once its open is sent); anything else is ignored.
    private func protocolMessage(_ data: [UInt8], on stream: UInt16) {
        guard case let .open(open)? = try? DataChannelProtocolMessage(parsing: data) else { return }
        guard state.withLock({ $0.parameters != nil }) else { return }
        var options = DataChannel.Options(ordered: open.ordered, protocol: open.protocol)
        switch open.delivery {
        case .reliable: break
        case .maxRetransmits(let count): options.maxRetransmits = count
        case .maxPacketLifeTime(let milliseconds): options.maxPacketLifeTime = milliseconds
        }
        let channel = DataChannel(label: open.label, id: stream, options: options, transport: self)
        let isNew = state.withLock { state in
            // One channel per stream; the limit. The peer's streams should have the other parity
            // (RFC 8832 §6), but Janus takes the first free stream whatever its role: a free one
            // of ours is taken as well (``freeID(_:)`` skips it when we make ours).
            guard state.channels[stream] == nil,
                state.channels.count < DataChannelTransport.maxChannels
            else {
                if state.channels[stream] == nil { state.statistics.remoteChannelsRefused += 1 }
                return false
            }
            state.channels[stream] = channel
            return true
        }
        guard isNew else { return }
        opened(channel)
        // Acknowledged once announced (a channel refused for the unread limit never is),
        // through the channel's queue: with the association's buffer full (a peer opening
        // channels by the hundred) the ack waits for room instead of being lost.
        let announced = channel.announce {
            if case .dropped = announce.yield(channel) { return false }
            return true
        }
        if !announced {
            state.withLock {
                _ = $0.channels.removeValue(forKey: stream)
                $0.statistics.remoteChannelsRefused += 1
            }
            reset(stream)
            closed(channel)
        }
    }
}
