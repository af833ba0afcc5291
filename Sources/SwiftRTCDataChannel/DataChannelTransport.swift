import Dispatch
import Glibc
import SwiftRTCSCTP
import Synchronization

/// The data channels of one SCTP association (RFC 8831, 8832). Channels can be made before
/// the association exists; ``start(_:send:)`` makes it once DTLS is up and its role known.
/// Channels made here then get a stream id of this side's parity (even for the DTLS client,
/// odd for the server, RFC 8832 §6) and are opened with `DATA_CHANNEL_OPEN` once the
/// association is up; the peer's opens become ``remoteChannels``, acknowledged. Messages go to
/// their channel by stream; a stream the peer resets closes its channel, and ours is reset in
/// turn.
public final class DataChannelTransport: Sendable {
    /// What negotiation decided.
    public struct Parameters: Sendable {
        /// Whether this side is the DTLS client (it takes the even stream ids).
        public var isDTLSClient: Bool
        /// The association's ports, packet size and the largest message taken.
        public var sctp = SctpAssociation.Configuration()
        /// The largest message the peer takes (its `a=max-message-size`; 0: no limit).
        public var remoteMaxMessageSize = 65536

        /// Parameters for the given DTLS role, ports 5000, 64 KiB messages to the peer.
        public init(isDTLSClient: Bool) {
            self.isDTLSClient = isDTLSClient
        }
    }

    /// What the transport counted (W3C `RTCPeerConnectionStats` and the limits).
    public struct Statistics: Sendable, Hashable {
        /// Channels that reached `open`, either side's.
        public var dataChannelsOpened = 0
        /// Channels that closed after opening.
        public var dataChannelsClosed = 0
        /// The peer's opens refused: ``DataChannelTransport/maxUnreadRemoteChannels`` waited
        /// unread, ``DataChannelTransport/maxChannels`` were open, or its stream was ours.
        public var remoteChannelsRefused = 0
        /// Packets that came before the association was made and did not fit
        /// ``DataChannelTransport/maxEarlyPackets``.
        public var earlyPacketsDropped = 0
        /// Messages longer than the limit we announced, dropped.
        public var oversizedMessagesDropped = 0
        /// The peer's SCTP packets dropped for a malformed parameter list
        /// (``SctpAssociation/droppedMalformedPackets``).
        public var malformedPacketsDropped = 0
        /// Times the channels' unread messages reached ``DataChannelTransport/maxUnreadBytes``
        /// or ``DataChannelTransport/maxUnreadMessages``: the association stopped reading (the
        /// peer waited) until half had been read.
        public var unreadLimitReached = 0
    }

    /// Channels the peer opened, as they open. One consumer; at most
    /// ``maxUnreadRemoteChannels`` wait unread (more are refused: their stream reset).
    public let remoteChannels: AsyncStream<DataChannel>
    /// The largest number of channels the peer may have opened and not yet been read.
    public static let maxUnreadRemoteChannels = 1024
    /// The most channels open at once on one association, both sides' (a stream each way per
    /// channel; RFC 8831 allows 65535).
    public static let maxChannels = 65535
    /// Packets from the peer held until ``start(_:send:)`` (its INIT may come first).
    public static let maxEarlyPackets = 16
    /// Bytes of messages received on all the channels and not yet read, at most: there the
    /// association stops reading (its window closes and the peer waits, every channel's
    /// messages with it) until half of them have been read. Nothing a reliable channel
    /// receives is dropped; read every channel, or close it and let it go.
    public static let maxUnreadBytes = 4 << 20
    /// Messages received on all the channels and not yet read, at most (as ``maxUnreadBytes``).
    public static let maxUnreadMessages = 4096

    let core: DataChannelTransportCore

    /// A transport with no association yet.
    public init() {
        let (channels, continuation) = AsyncStream.makeStream(
            of: DataChannel.self,
            bufferingPolicy: .bufferingOldest(Self.maxUnreadRemoteChannels)
        )
        remoteChannels = channels
        core = DataChannelTransportCore(announce: continuation)
    }

    /// Makes the association with what negotiation decided and starts it (both ends do,
    /// RFC 8831 §6.2); `send` takes its packets (into DTLS). Once only.
    public func start(
        _ parameters: Parameters,
        send: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    )
        throws(SctpError)
    {
        try core.start(parameters, send: send)
    }

    /// An SCTP packet from the peer (DTLS application data).
    public func receive(_ packet: UnsafeRawBufferPointer) { core.receive(packet) }

    /// A new channel; it opens once the association is up (at once if it is).
    public func createDataChannel(
        label: String,
        options: DataChannel.Options = DataChannel.Options()
    ) throws(DataChannelError) -> DataChannel {
        try core.create(label: label, options: options)
    }

    /// Whether the association has been started.
    public var isStarted: Bool { core.state.withLock { $0.parameters != nil } }

    /// Whether the association is up.
    public var isConnected: Bool { core.state.withLock { $0.connected } }

    /// Whether a channel has messages (its own, or DCEP) waiting for room in the association.
    package var isWaitingForRoom: Bool { core.isWaitingForRoom }

    /// The channels open or opening now, either side's.
    public var channels: [DataChannel] {
        core.state.withLock { Array($0.channels.values) + $0.unassigned }.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    /// What the transport counted.
    public var statistics: Statistics {
        var statistics = core.state.withLock { $0.statistics }
        let association = core.association.withLock { $0 }
        statistics.oversizedMessagesDropped = association?.droppedOversizedMessages ?? 0
        statistics.malformedPacketsDropped = association?.droppedMalformedPackets ?? 0
        return statistics
    }

    /// Ends the association; every channel closes.
    public func close() { core.close() }
}
