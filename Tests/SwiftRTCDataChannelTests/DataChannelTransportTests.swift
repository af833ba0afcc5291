import Dispatch
import SwiftRTCDataChannel
import Synchronization
import Testing

/// Two data-channel transports back to back in memory (their SCTP packets handed over on a
/// queue each way, as DTLS would carry them): a channel opened on one appears on the other
/// with its label, kind and protocol; text, bytes and empty messages go both ways; a
/// negotiated channel needs no open; closing one side closes both.
@Suite struct DataChannelTransportTests {
    final class Pair: Sendable {
        let client: DataChannelTransport
        let server: DataChannelTransport

        init() throws {
            let toClient = DispatchQueue(label: "to-client"), toServer = DispatchQueue(label: "to-server")
            client = DataChannelTransport()
            server = DataChannelTransport()
            try client.start(.init(isDTLSClient: true)) { [server] packet in
                let bytes = Array(packet)
                toServer.async { bytes.withUnsafeBytes { server.receive($0) } }
            }
            try server.start(.init(isDTLSClient: false)) { [client] packet in
                let bytes = Array(packet)
                toClient.async { bytes.withUnsafeBytes { client.receive($0) } }
            }
        }

        func close() {
            client.close()
            server.close()
        }
    }

    static func first<T: Sendable>(_ stream: some AsyncSequence<T, Never> & Sendable, count: Int = 1) async -> [T] {
        await withTaskGroup(of: [T].self) { group in
            group.addTask {
                var items: [T] = []
                for await item in stream {
                    items.append(item)
                    if items.count == count { break }
                }
                return items
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return []
            }
            let items = await group.next() ?? []
            group.cancelAll()
            return items
        }
    }

    @Test func aChannelOpenedOnOneSideAppearsOnTheOtherAndCarriesMessages() async throws {
        let pair = try Pair()
        defer { pair.close() }
        let chat = try pair.client.createDataChannel(
            label: "chat",
            options: .init(ordered: false, maxRetransmits: 2, protocol: "json")
        )
        #expect(chat.id.map { $0 % 2 } == 0, "the DTLS client takes even ids")
        let remote = try #require(await Self.first(pair.server.remoteChannels).first)
        #expect(remote.label == "chat" && remote.id == chat.id && remote.state == .open)
        #expect(
            remote.options.ordered == false && remote.options.maxRetransmits == 2 && remote.options.protocol == "json"
        )
        #expect(chat.state == .open)
        try chat.send("hello")
        try chat.send([1, 2, 3])
        try chat.send("")
        try chat.send([UInt8]())
        let received = await Self.first(remote.messages, count: 4)
        #expect(Set(received) == [.text("hello"), .binary([1, 2, 3]), .text(""), .binary([])])
        try remote.send("back")
        #expect(await Self.first(chat.messages) == [.text("back")])
        #expect(chat.statistics.messagesSent == 4 && remote.statistics.messagesReceived == 4)
    }

    @Test func theServerSideOpensOddIdsAndANegotiatedChannelNeedsNoOpen() async throws {
        let pair = try Pair()
        defer { pair.close() }
        let fromServer = try pair.server.createDataChannel(label: "events")
        #expect(fromServer.id.map { $0 % 2 } == 1)
        let atClient = try #require(await Self.first(pair.client.remoteChannels).first)
        #expect(atClient.label == "events")
        // Both create channel 100 themselves; nothing is announced.
        let mine = try pair.client.createDataChannel(label: "n", options: .init(negotiatedID: 100))
        let theirs = try pair.server.createDataChannel(label: "n", options: .init(negotiatedID: 100))
        // The association is up by now (the remote channel came): both are open.
        #expect(mine.state == .open && theirs.state == .open)
        try mine.send("negotiated")
        #expect(await Self.first(theirs.messages) == [.text("negotiated")])
    }

    @Test func aLabelOrProtocolOverDCEPsLengthIsRefused() throws {
        let pair = try Pair()
        defer { pair.close() }
        let long = String(repeating: "é", count: 32_768)  // 65536 bytes of UTF-8
        #expect(throws: DataChannelError.labelTooLong) { try pair.client.createDataChannel(label: long) }
        #expect(throws: DataChannelError.labelTooLong) {
            try pair.client.createDataChannel(label: "x", options: .init(protocol: long))
        }
        #expect(
            try pair.client.createDataChannel(label: String(repeating: "é", count: 32_767)).label.utf8.count == 65534
        )
    }

    @Test func closingOneSideClosesBoth() async throws {
        let pair = try Pair()
        defer { pair.close() }
        let chat = try pair.client.createDataChannel(label: "bye")
        let remote = try #require(await Self.first(pair.server.remoteChannels).first)
        chat.close()
        // The peer's messages stream ends when its channel closes.
        _ = await Self.first(remote.messages)
        #expect(remote.state == .closed)
        let deadline = ContinuousClock.now + .seconds(5)
        while chat.state != .closed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(chat.state == .closed)
        #expect(throws: DataChannelError.notOpen(.closed)) { try chat.send("too late") }
    }
}
