import SwiftRTCDTLS
import SwiftRTCDataChannel
import SwiftRTCSDP

extension PeerConnection {
    /// The largest message this side takes (`a=max-message-size` of its descriptions).
    public static let maxDataMessageSize = 262_144

    /// Creates a data channel (W3C `createDataChannel`). Its id is chosen once the DTLS role
    /// is known; it opens once the SCTP association is up. The first channel puts a data
    /// section into the next offer: negotiate (again) after making it.
    ///
    /// ```swift
    /// let chat = try await pc.createDataChannel(label: "chat")
    /// // ... offer, answer ...
    /// if await chat.opened() { try chat.send("hello") }
    /// ```
    public func createDataChannel(
        label: String,
        options: DataChannel.Options = DataChannel.Options()
    ) throws(PeerConnectionError) -> DataChannel {
        guard !isClosed else { throw .closed }
        dataWanted = true
        do { return try dataTransport.createDataChannel(label: label, options: options) } catch {
            throw .dataChannel(error)
        }
    }

    /// The channels the peer opens, as they open (W3C `ondatachannel`). One consumer; see
    /// ``DataChannelTransport/maxUnreadRemoteChannels``.
    public nonisolated var dataChannels: AsyncStream<DataChannel> { dataTransport.remoteChannels }

    /// What this side says of its data channels.
    var dataSection: JSEP.DataSection {
        var section = JSEP.DataSection(mid: dataMid)
        section.maxMessageSize = UInt64(Self.maxDataMessageSize)
        return section
    }

    /// Adds the data section to an offer once a channel was asked for or one was negotiated,
    /// where the last negotiation had it.
    func addDataSection(to offer: inout SessionDescription, local: LocalParameters) {
        guard dataWanted || dataMid != nil else { return }
        let previous = (currentLocal ?? currentRemote)?.media.firstIndex { $0.kind == .application && $0.isDataChannel }
        offer = JSEP.addingDataSection(dataSection, to: offer, local: local, at: previous)
    }

    /// After an offer/answer: an accepted data section gives the association's ports and the
    /// peer's message limit; the association starts once DTLS is up (at once if it is).
    func applyDataSection(offer: SessionDescription, answer: SessionDescription, localIsOfferer: Bool) {
        guard
            let index = answer.media.firstIndex(where: { $0.kind == .application && $0.isDataChannel && $0.port != 0 }),
            index < offer.media.count
        else { return }
        let local = localIsOfferer ? offer : answer
        let remote = localIsOfferer ? answer : offer
        let mine = local.resolved(local.media[index])
        let theirs = remote.resolved(remote.media[index])
        dataMid = offer.media[index].mid
        guard dataNegotiated == nil else { return }
        // The role is set when DTLS connects; the rest now.
        var parameters = DataChannelTransport.Parameters(isDTLSClient: false)
        parameters.sctp.localPort = mine.sctpPort ?? 5000
        parameters.sctp.remotePort = theirs.sctpPort ?? 5000
        parameters.sctp.maxMessageSize = Self.maxDataMessageSize
        // RFC 8841 §6.1: none said is 64 KiB; 0 is no limit (ours: the send buffer's quarter).
        let limit = theirs.maxMessageSize ?? 65_536
        parameters.remoteMaxMessageSize = limit == 0 ? 1 << 20 : Int(min(limit, 1 << 20))
        dataNegotiated = parameters
        if let role = dtlsNegotiated?.role { startDataChannels(role: role) }
    }

    /// Starts the association over the connected DTLS transport, once.
    func startDataChannels(role: DtlsRole) {
        guard var parameters = dataNegotiated, !dataTransport.isStarted, let dtls = transport?.dtlsTransport else {
            return
        }
        parameters.isDTLSClient = role == .client
        parameters.sctp.maxPacketSize = dtls.maxApplicationDataSize
        do {
            try dataTransport.start(parameters) { [weak dtls] packet in dtls?.sendApplicationData(packet) }
        } catch {
            logger.warning("data channels: \(error)")
        }
    }
}
