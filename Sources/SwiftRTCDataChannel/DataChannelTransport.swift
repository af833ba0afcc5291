import SwiftRTCSCTP
import Synchronization

/// The data channels of one SCTP association (RFC 8831, 8832): channels made here get a stream
/// id of this side's parity (even for the DTLS client, odd for the server, RFC 8832 §6) and
/// are opened with `DATA_CHANNEL_OPEN` once the association is up; the peer's opens become
/// ``remoteChannels``, acknowledged. Messages go to their channel by stream; a stream the peer
/// resets closes its channel, and ours is reset in turn.
public final class DataChannelTransport: Sendable {
    /// What the transport needs from below.
    public struct Configuration: Sendable {
        /// Whether this side is the DTLS client (it takes the even stream ids).
        public var isDTLSClient: Bool
        /// The association's ports and packet size.
        public var sctp = SctpAssociation.Configuration()
        /// The largest message the peer takes (its `a=max-message-size`; 0: no limit stated,
        /// RFC 8841 §6.1 says 64 KiB then).
        public var remoteMaxMessageSize = 65536

        /// A configuration for the given DTLS role.
        public init(isDTLSClient: Bool) {
            self.isDTLSClient = isDTLSClient
        }
    }

    /// Channels the peer opened, as they open. One consumer; at most
    /// ``maxUnreadRemoteChannels`` wait unread (more are refused: their stream reset).
    public let remoteChannels: AsyncStream<DataChannel>
    /// The largest number of channels the peer may have opened and not yet been read.
    public static let maxUnreadRemoteChannels = 1024

    let core: DataChannelTransportCore

    /// Sets up the association; `send` takes its packets (into DTLS).
    public init(
        configuration: Configuration,
        send: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) throws(SctpError) {
        let (channels, continuation) = AsyncStream.makeStream(
            of: DataChannel.self,
            bufferingPolicy: .bufferingOldest(Self.maxUnreadRemoteChannels)
        )
        remoteChannels = channels
        core = try DataChannelTransportCore(configuration: configuration, send: send, announce: continuation)
    }

    /// Starts the association (both ends do, RFC 8831 §6.2).
    public func connect() throws(SctpError) { try core.association.withLock { $0 }?.connect() }

    /// An SCTP packet from the peer (DTLS application data).
    public func receive(_ packet: UnsafeRawBufferPointer) { core.association.withLock { $0 }?.receive(packet) }

    /// A new channel; it opens once the association is up (at once if it is).
    public func createDataChannel(
        label: String,
        options: DataChannel.Options = DataChannel.Options()
    ) throws(DataChannelError) -> DataChannel {
        try core.create(label: label, options: options)
    }

    /// Whether the association is up.
    public var isConnected: Bool { core.state.withLock { $0.connected } }

    /// Ends the association; every channel closes.
    public func close() { core.close() }
}

/// The transport's state, shared with its channels and the association's callbacks.
final class DataChannelTransportCore: Sendable {
    struct State {
        var connected = false
        var channels: [UInt16: DataChannel] = [:]
        /// Channels made before the association was up: their opens go out once it is.
        var waiting: [DataChannel] = []
        var nextID: UInt16
    }

    let configuration: DataChannelTransport.Configuration
    let state: Mutex<State>
    let association = Mutex<SctpAssociation?>(nil)
    private let announce: AsyncStream<DataChannel>.Continuation

    init(
        configuration: DataChannelTransport.Configuration,
        send: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        announce: AsyncStream<DataChannel>.Continuation
    ) throws(SctpError) {
        self.configuration = configuration
        self.announce = announce
        state = Mutex(State(nextID: configuration.isDTLSClient ? 0 : 1))
        let made = try SctpAssociation(configuration: configuration.sctp, send: send) { [weak self] event in
            self?.handle(event)
        }
        association.withLock { $0 = made }
    }

    func create(label: String, options: DataChannel.Options) throws(DataChannelError) -> DataChannel {
        let made = state.withLock { state -> (DataChannel, sendNow: Bool)? in
            let id: UInt16
            if let chosen = options.negotiatedID {
                guard state.channels[chosen] == nil else { return nil }
                id = chosen
            } else {
                // This side's parity, the first free.
                var candidate = state.nextID
                while state.channels[candidate] != nil {
                    guard candidate <= UInt16.max - 2 else { return nil }
                    candidate += 2
                }
                id = candidate
                state.nextID = candidate &+ 2
            }
            let channel = DataChannel(label: label, id: id, options: options, transport: self)
            state.channels[id] = channel
            if !state.connected { state.waiting.append(channel) }
            return (channel, state.connected)
        }
        guard let (channel, sendNow) = made else { throw .noStreamLeft }
        if sendNow { open(channel) }
        return channel
    }

    /// Sends the channel's `DATA_CHANNEL_OPEN` (unless negotiated) and marks it open.
    private func open(_ channel: DataChannel) {
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
            // DCEP goes reliable and ordered whatever the channel's kind (RFC 8832 §6).
            _ = try? message.bytes.withUnsafeBytes {
                try association.withLock { $0 }?.send($0, stream: channel.id, ppid: PayloadProtocol.dcep.rawValue)
            }
        }
        channel.opened()
    }

    func send(_ bytes: [UInt8], on channel: DataChannel, ppid: PayloadProtocol) throws(DataChannelError) {
        let limit = configuration.remoteMaxMessageSize
        guard limit == 0 || bytes.count <= limit else { throw .tooLarge(bytes: bytes.count, limit: limit) }
        guard let association = association.withLock({ $0 }) else { throw .notOpen(.closed) }
        let reliability = SctpAssociation.Reliability(
            ordered: channel.options.ordered,
            maxRetransmits: channel.options.maxRetransmits,
            maxPacketLifeTime: channel.options.maxPacketLifeTime
        )
        let failure = bytes.withUnsafeBytes { buffer -> SctpAssociation.SendError? in
            do throws(SctpAssociation.SendError) {
                try association.send(buffer, stream: channel.id, ppid: ppid.rawValue, reliability: reliability)
                return nil
            } catch {
                return error
            }
        }
        switch failure {
        case nil: return
        case .bufferFull: throw .bufferFull
        case .refused(let code): throw .refused(errno: code)
        }
    }

    func reset(_ channel: DataChannel) {
        try? association.withLock { $0 }?.resetStreams([channel.id])
    }

    func close() {
        let channels = state.withLock { state -> [DataChannel] in
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        association.withLock { association in
            association?.close()
            association = nil
        }
        for channel in channels { channel.closed() }
        announce.finish()
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
            for channel in waiting { open(channel) }
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
                if channel.state != .closing { reset(channel) }
                channel.closed()
            }
        case .sendBufferEmpty:
            break
        case .closed:
            close()
        }
    }

    /// A DCEP message: an open from the peer makes a channel (acknowledged); an ack changes
    /// nothing (ours is open once its open is sent); anything else is ignored.
    private func protocolMessage(_ data: [UInt8], on stream: UInt16) {
        guard case let .open(open)? = try? DataChannelProtocolMessage(parsing: data) else { return }
        // The peer's streams have the other parity.
        guard stream % 2 == (configuration.isDTLSClient ? 1 : 0) else { return }
        var options = DataChannel.Options(ordered: open.ordered, protocol: open.protocol)
        switch open.delivery {
        case .reliable: break
        case .maxRetransmits(let count): options.maxRetransmits = count
        case .maxPacketLifeTime(let milliseconds): options.maxPacketLifeTime = milliseconds
        }
        let channel = DataChannel(label: open.label, id: stream, options: options, transport: self)
        let isNew = state.withLock { state in
            guard state.channels[stream] == nil else { return false }
            state.channels[stream] = channel
            return true
        }
        guard isNew else { return }
        _ = try? DataChannelProtocolMessage.ack.bytes.withUnsafeBytes {
            try association.withLock { $0 }?.send($0, stream: stream, ppid: PayloadProtocol.dcep.rawValue)
        }
        channel.opened()
        if case .dropped = announce.yield(channel) {
            state.withLock { _ = $0.channels.removeValue(forKey: stream) }
            reset(channel)
            channel.closed()
        }
    }
}
