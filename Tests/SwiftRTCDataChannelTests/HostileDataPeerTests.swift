import Dispatch
import SwiftRTCDataChannel
import Synchronization
import Testing

/// Peers that misuse data channels, each against one of our transports in memory: one that
/// opens channels on our streams' parity (Janus), one that
/// opens channels by the thousand and never has them read, one that sends messages over the
/// limit we announced, one that stops acknowledging. Memory stays bounded, each is counted,
/// and what is honest still goes through.
@Suite struct HostileDataPeerTests {
    /// Two transports whose packets go through `carry` (false: the packet is lost).
    final class Pair: Sendable {
        let ours = DataChannelTransport()
        let peer = DataChannelTransport()
        /// Whether the peer's packets still reach us, and ours it.
        let delivering = Switch()

        final class Switch: Sendable {
            private let on = Atomic<Bool>(true)
            var isOn: Bool { on.load(ordering: .relaxed) }
            func turnOff() { on.store(false, ordering: .relaxed) }
        }

        init(
            ours oursParameters: DataChannelTransport.Parameters = .init(isDTLSClient: true),
            peer peerParameters: DataChannelTransport.Parameters = .init(isDTLSClient: false)
        ) throws {
            let toOurs = DispatchQueue(label: "to-ours"), toPeer = DispatchQueue(label: "to-peer")
            try ours.start(oursParameters) { [peer, delivering] packet in
                guard delivering.isOn else { return }
                let bytes = Array(packet)
                toPeer.async { bytes.withUnsafeBytes { peer.receive($0) } }
            }
            try peer.start(peerParameters) { [ours, delivering] packet in
                guard delivering.isOn else { return }
                let bytes = Array(packet)
                toOurs.async { bytes.withUnsafeBytes { ours.receive($0) } }
            }
        }

        func close() {
            ours.close()
            peer.close()
        }
    }

    static func eventually(_ timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return condition()
    }

    /// Janus opens its channels on the first free stream whatever its DTLS role (RFC 8832 §6
    /// gives the DTLS client the even ones): an open on a free stream of our parity is taken,
    /// and our next channel skips that stream.
    @Test func aPeersOpenOnOurParityIsTakenAndOurNextChannelSkipsIt() async throws {
        let pair = try Pair(ours: .init(isDTLSClient: true), peer: .init(isDTLSClient: true))
        defer { pair.close() }
        #expect(await Self.eventually { pair.peer.isConnected && pair.ours.isConnected })
        let theirs = try pair.peer.createDataChannel(label: "janus")
        #expect(theirs.id == 0)
        let arrived = try #require(await DataChannelTransportTests.first(pair.ours.remoteChannels).first)
        #expect(arrived.label == "janus" && arrived.id == 0)
        try theirs.send("relayed")
        #expect(await DataChannelTransportTests.first(arrived.messages) == [.text("relayed")])
        let mine = try pair.ours.createDataChannel(label: "mine")
        #expect(mine.id == 2, "stream 0 is the peer's")
        let atPeer = try #require(await DataChannelTransportTests.first(pair.peer.remoteChannels).first)
        #expect(atPeer.label == "mine" && atPeer.id == 2)
        #expect(pair.ours.statistics.remoteChannelsRefused == 0)
    }

    @Test func aPeerOpeningThousandsOfChannelsNobodyReadsIsHeldToTheUnreadLimit() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await Self.eventually { pair.peer.isConnected && pair.ours.isConnected })
        // The peer opens 3000 channels; our application reads none of them.
        for index in 0..<3000 { _ = try pair.peer.createDataChannel(label: "flood-\(index)") }
        let limit = DataChannelTransport.maxUnreadRemoteChannels
        let refusedAll = await Self.eventually { pair.ours.statistics.remoteChannelsRefused == 3000 - limit }
        #expect(refusedAll, "\(pair.ours.statistics) \(pair.ours.channels.count) \(pair.peer.channels.count)")
        #expect(pair.ours.channels.count == limit, "the refused ones are forgotten")
        // Refused channels are closed at the peer too (their streams reset).
        #expect(await Self.eventually { pair.peer.channels.count == limit })
        // An honest channel of ours still opens and carries messages.
        let honest = try pair.ours.createDataChannel(label: "honest")
        #expect(await honest.opened())
        try honest.send("still here")
        var announced = pair.peer.remoteChannels.makeAsyncIterator()
        let atPeer = await announced.next()
        #expect(atPeer?.label == "honest")
        var messages = atPeer?.messages.makeAsyncIterator()
        #expect(await messages?.next() == .text("still here"))
    }

    @Test func messagesOverTheAnnouncedLimitAreDroppedAndCounted() async throws {
        // We take 64 KiB; the peer believes we take 1 MiB.
        var ours = DataChannelTransport.Parameters(isDTLSClient: true)
        ours.sctp.maxMessageSize = 65_536
        var peer = DataChannelTransport.Parameters(isDTLSClient: false)
        peer.remoteMaxMessageSize = 1 << 20
        let pair = try Pair(ours: ours, peer: peer)
        defer { pair.close() }
        let channel = try pair.peer.createDataChannel(label: "big")
        var announced = pair.ours.remoteChannels.makeAsyncIterator()
        let atOurs = try #require(await announced.next())
        try channel.send([UInt8](repeating: 1, count: 300_000))
        try channel.send([UInt8](repeating: 2, count: 65_536))
        var messages = atOurs.messages.makeAsyncIterator()
        #expect(await messages.next() == .binary([UInt8](repeating: 2, count: 65_536)))
        #expect(pair.ours.statistics.oversizedMessagesDropped == 1)
    }

    @Test func aPeerThatStopsAcknowledgingFillsOnlyTheBoundedBuffer() async throws {
        let pair = try Pair()
        defer { pair.close() }
        let channel = try pair.ours.createDataChannel(label: "stalled")
        #expect(await channel.opened())
        pair.delivering.turnOff()
        // Send until the channel refuses: usrsctp's 1 MiB buffer, then our 16 MiB.
        let message = [UInt8](repeating: 7, count: 65_536)
        var sent = 0
        var refusal: DataChannelError?
        while refusal == nil, sent < 1000 {
            do {
                try channel.send(message)
                sent += 1
            } catch {
                refusal = error
            }
        }
        #expect(refusal == .bufferFull)
        #expect(channel.bufferedAmount <= DataChannel.maxBufferedAmount)
        #expect(sent * 65_536 <= DataChannel.maxBufferedAmount + (1 << 20) + 65_536, "\(sent) messages taken")
        // Closing frees what waited.
        pair.ours.close()
        #expect(channel.state == .closed && channel.bufferedAmount == 0)
    }
}
