import Foundation
import SwiftRTCDataChannel
import SwiftRTCSDP
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// Data channels between two connections on loopback: a data-only connection, a channel added
/// by renegotiation to a call with media, channels from both sides, and back-pressure.
@Suite(.serialized, .realTime) struct DataChannelCallTests {
    static func first<T: Sendable>(
        _ stream: some AsyncSequence<T, Never> & Sendable,
        count: Int = 1,
        timeout: Duration = .seconds(20)
    ) async
        -> [T]
    {
        await withTaskGroup(of: [T]?.self) { group in
            group.addTask {
                var items: [T] = []
                for await item in stream {
                    items.append(item)
                    if items.count == count { break }
                }
                return items
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let items = await group.next() ?? nil
            group.cancelAll()
            return items ?? []
        }
    }

    /// Offer and answer only (no candidates: the descriptions carry them after gathering).
    static func negotiate(_ offerer: PeerConnection, _ answerer: PeerConnection) async throws -> String {
        let offer = try await offerer.createOffer()
        try await offerer.setLocalDescription(offer)
        try await answerer.setRemoteDescription(offer)
        let answer = try await answerer.createAnswer()
        try await answerer.setLocalDescription(answer)
        try await offerer.setRemoteDescription(answer)
        return offer.sdp
    }

    @Test func aDataOnlyConnectionCarriesTextBinaryAndLargeMessagesBothWays() async throws {
        let offerer = try PeerConnection(configuration: LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: LoopbackCall.configuration)
        defer { Task { await offerer.close() } }
        defer { Task { await answerer.close() } }
        let chat = try await offerer.createDataChannel(label: "chat", options: .init(protocol: "chat-v1"))
        #expect(chat.id == nil, "no id before the DTLS role is known")
        try await LoopbackCall.exchange(offerer: offerer, answerer: answerer)
        let offer = try #require(await offerer.localDescription).sdp
        #expect(offer.contains(" UDP/DTLS/SCTP webrtc-datachannel\r\n"))
        #expect(!offer.contains("m=audio") && offer.contains("a=max-message-size:262144"))

        let remote = try #require(await Self.first(answerer.dataChannels).first)
        #expect(await chat.opened())
        #expect(remote.label == "chat" && remote.options.protocol == "chat-v1" && remote.id == chat.id)
        // The offerer answered actpass with active: it is the DTLS server here... either way
        // the two ids agree and have the DTLS client's parity rule behind them.
        #expect(remote.state == .open && chat.state == .open)

        let large = (0..<262_144).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try chat.send("hello")
        try chat.send([1, 2, 3])
        try chat.send(large)
        let received = await Self.first(remote.messages, count: 3)
        #expect(received == [.text("hello"), .binary([1, 2, 3]), .binary(large)])
        try remote.send("back")
        #expect(await Self.first(chat.messages) == [.text("back")])
        #expect(chat.statistics.bytesSent == 5 + 3 + 262_144)
        #expect(remote.statistics.messagesReceived == 3)
        #expect(throws: DataChannelError.tooLarge(bytes: 262_145, limit: 262_144)) {
            try chat.send([UInt8](repeating: 0, count: 262_145))
        }

        // The stats have the channel (W3C data-channel) and the statsString a DC line.
        let stats = await offerer.stats()
        let entry = try #require(stats.all(.dataChannel).first)
        #expect(entry.string("label") == "chat" && entry.string("protocol") == "chat-v1")
        #expect(entry.string("state") == "open" && entry.number("messagesSent") == 3)
        #expect(entry.number("bytesSent") == 262_152 && entry.number("messagesReceived") == 1)
        #expect(entry.number("dataChannelIdentifier") == chat.id.map(Double.init))
        #expect(stats.first(.peerConnection)?.number("dataChannelsOpened") == 1)
        #expect(await offerer.statsString().contains("DC 1 open | (s)3 msg"))

        // The answerer opens one too: no renegotiation needed once the association is up.
        let back = try await answerer.createDataChannel(label: "events")
        let atOfferer = try #require(await Self.first(offerer.dataChannels).first)
        #expect(atOfferer.label == "events" && back.id != chat.id)
        #expect(back.id.map { $0 % 2 } != chat.id.map { $0 % 2 }, "the two sides take ids of different parity")
    }

    @Test func aChannelAddedByRenegotiationJoinsACallWithMedia() async throws {
        let call = try await LoopbackCall.start(video: true)
        defer { Task { await call.close() } }
        #expect(call.connectedAfter != nil)
        let events = try await call.offerer.createDataChannel(label: "events", options: .init(ordered: false))
        let offer = try await Self.negotiate(call.offerer, call.answerer)
        // The media sections keep their places; the data section comes after them.
        let kinds = offer.components(separatedBy: "\r\n").filter { $0.hasPrefix("m=") }.map { $0.prefix(7) }
        #expect(kinds == ["m=audio", "m=video", "m=appli"])
        let remote = try #require(await Self.first(call.answerer.dataChannels).first)
        #expect(await events.opened())
        #expect(remote.options.ordered == false)
        try events.send("during the call")
        #expect(await Self.first(remote.messages) == [.text("during the call")])
        // Media still flows.
        let before = call.answererMedia.values.withLock { $0.audioFrames }
        try await Task.sleep(for: .milliseconds(500))
        #expect(call.answererMedia.values.withLock { $0.audioFrames } > before)
        // A further renegotiation keeps the data section where it was.
        let again = try await Self.negotiate(call.offerer, call.answerer)
        #expect(again.components(separatedBy: "\r\n").filter { $0.hasPrefix("m=") }.count == 3)
        try events.send("still here")
        #expect(await Self.first(remote.messages) == [.text("still here")])
    }

    @Test func aPeerFloodingChannelsLeavesTheCallsMediaUnharmed() async throws {
        let call = try await LoopbackCall.start(video: false)
        defer { Task { await call.close() } }
        #expect(call.connectedAfter != nil)
        _ = try await call.offerer.createDataChannel(label: "ours")
        _ = try await Self.negotiate(call.offerer, call.answerer)
        // The answerer opens 3000 channels and fills one with messages; the offerer's
        // application reads nothing.
        let flood = try await (0..<3000).asyncMap { try await call.answerer.createDataChannel(label: "flood-\($0)") }
        #expect(await flood[0].opened())
        // More than the offerer keeps unread (4096 messages).
        let floodMessages = DataChannelTransport.maxUnreadMessages + 1000
        for _ in 0..<floodMessages { try? flood[0].send([UInt8](repeating: 1, count: 1000)) }
        let before = call.offererMedia.values.withLock { $0.audioFrames }
        let started = ContinuousClock.now
        // The channel nobody reads fills once: the association stops reading there (the rest
        // of the flood, and any open behind it, waits at the peer; nothing is dropped) while
        // the audio goes on.
        var stats = await call.offerer.stats()
        func full() -> Double { stats.first(.peerConnection)?.number("dataUnreadLimitReached") ?? 0 }
        while full() < 1, ContinuousClock.now - started < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
            stats = await call.offerer.stats()
        }
        try await Task.sleep(until: max(started + .seconds(1), .now))
        stats = await call.offerer.stats()
        #expect(full() == 1, "\(full())")
        // Audio went on all the while: about 50 frames a second.
        let during = call.offererMedia.values.withLock { $0.audioFrames } - before
        let seconds =
            Double((ContinuousClock.now - started).components.seconds)
            + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        #expect(Double(during) >= 40 * seconds, "\(during) audio frames in \(seconds) s")
        // Read at last, the flooded channel gives every message: the reader's pace lifts the
        // hold and the association reads on. (The peer's opens arrive in no particular order:
        // find it among those kept.)
        var announced = call.offerer.dataChannels.makeAsyncIterator()
        var found: DataChannel?
        var taken = 0
        while found == nil, let channel = await announced.next() {
            taken += 1
            if channel.label == "flood-0" { found = channel }
        }
        let flooded = try #require(found)
        let messages = await Self.first(flooded.messages, count: floodMessages, timeout: .seconds(20))
        #expect(messages.count == floodMessages)
        #expect(flood[0].bufferedAmount == 0)
        // Every open arrives now: kept while fewer than the limit of unread channels wait
        // (the `taken` read above made room for as many), the rest refused.
        func opens() -> (arrived: Double, refused: Double) {
            let connection = stats.first(.peerConnection)
            // Opened counts our own channel too, and the peer's refused ones (open, then reset).
            return ((connection?.number("dataChannelsOpened") ?? 0) - 1, connection?.number("dataChannelsRefused") ?? 0)
        }
        let reading = ContinuousClock.now
        while opens().arrived < 3000, ContinuousClock.now - reading < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
            stats = await call.offerer.stats()
        }
        let (arrived, refused) = opens()
        #expect(arrived == 3000)
        let overLimit = Double(3000 - DataChannelTransport.maxUnreadRemoteChannels)
        #expect(refused <= overLimit && refused >= overLimit - Double(taken), "\(refused) refused, \(taken) read")
    }

    @Test func aSenderWaitsOnBufferedAmountAndEverythingArrivesInOrder() async throws {
        let offerer = try PeerConnection(configuration: LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: LoopbackCall.configuration)
        defer { Task { await offerer.close() } }
        defer { Task { await answerer.close() } }
        let bulk = try await offerer.createDataChannel(label: "bulk")
        try await LoopbackCall.exchange(offerer: offerer, answerer: answerer)
        let remote = try #require(await Self.first(answerer.dataChannels).first)
        #expect(await bulk.opened())
        // 64 messages of 64 KiB (4 MiB) sent as fast as the buffer takes them.
        bulk.bufferedAmountLowThreshold = 256 * 1024
        let count = 64
        var sawBuffering = false
        let received = Task { await Self.first(remote.messages, count: count, timeout: .seconds(60)) }
        for index in 0..<count {
            try bulk.send([UInt8](repeating: UInt8(index), count: 65_536))
            if bulk.bufferedAmount > bulk.bufferedAmountLowThreshold {
                sawBuffering = true
                await bulk.bufferedAmountLow()
            }
        }
        let messages = await received.value
        #expect(messages.count == count)
        #expect(
            messages.enumerated().allSatisfy {
                $0.element == .binary([UInt8](repeating: UInt8($0.offset), count: 65_536))
            }
        )
        #expect(sawBuffering, "4 MiB do not fit the association's 1 MiB send buffer at once")
        #expect(bulk.bufferedAmount == 0)
    }
}

extension Range where Bound == Int {
    /// `transform` of each element, in order, awaited one after another.
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
