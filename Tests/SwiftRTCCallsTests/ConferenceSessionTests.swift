import Foundation
import JanusTestSupport
import SwiftRTCJanus
import Testing

@testable import SwiftRTCCalls

/// The conference session's reading of Janus's lists (hostile values clamped where they
/// enter), and joining, creating and leaving rooms on a real Janus 1.1.2 (signaling only, on
/// loopback; the media of a room: NetworkFaultTests/ConferenceRoomTests).
@Suite(.serialized) struct ConferenceSessionTests {
    /// A publisher entry of Janus's, the id read (nil: refused) and the streams kept.
    struct Entry: Sendable, CustomTestStringConvertible {
        var json: JanusJSON
        var id: Int64?
        var streams: Int
        var testDescription: String { json.description }
    }

    static let entries: [Entry] = [
        Entry(
            json: ["id": 42, "display": "ann", "streams": [["type": "audio"], ["type": "video"]]],
            id: 42,
            streams: 2
        ),
        Entry(json: ["id": -3, "display": "neg"], id: nil, streams: 0),
        Entry(json: ["id": 0], id: nil, streams: 0),
        Entry(json: ["id": 1.5], id: nil, streams: 0),
        Entry(json: ["id": "7"], id: nil, streams: 0),
        Entry(
            json: ["id": 9, "streams": [["type": "audio", "disabled": true], ["type": "video"]]],
            id: 9,
            streams: 1
        ),
        Entry(json: ["id": 5, "streams": .array(Array(repeating: ["type": "video"], count: 40))], id: 5, streams: 16),
    ]

    @Test(arguments: entries)
    func aPublisherIsReadDefensively(entry: Entry) {
        let publisher = ConferenceSession.publisher(entry.json)
        #expect(publisher?.id == entry.id)
        #expect((publisher?.streamKinds.count ?? 0) == entry.streams)
    }

    /// Subscription streams: a `mid` of at most 32 bytes; a publisher only while the stream is
    /// active, and only a positive id.
    @Test func subscriptionStreamsAreReadDefensively() {
        let list: JanusJSON = [
            ["mid": "0", "active": true, "feed_id": 42, "feed_display": "ann"],
            ["mid": "1", "active": false, "feed_id": 42],
            ["mid": "2", "feed_id": -9],
            ["mid": .string(String(repeating: "m", count: 33)), "feed_id": 5],
            ["feed_id": 6],
        ]
        let streams = ConferenceSession.subscriptionStreams(list)
        #expect(streams.map(\.mid) == ["0", "1", "2"])
        #expect(streams.map(\.publisher) == [42, nil, nil])
        #expect(streams.first?.display == "ann")
        let long = JanusJSON.array(Array(repeating: ["mid": "0", "feed_id": 1], count: 10_000))
        #expect(ConferenceSession.subscriptionStreams(long).count == 2 * ConferenceSession.maxPublishers + 1)
    }

    /// A layer event and how it reads (nil: no change).
    struct LayerEntry: Sendable, CustomTestStringConvertible {
        var json: JanusJSON
        var mid: String?
        var layer: ConferenceLayer?
        var testDescription: String { "\(json)" }
    }

    static let layerEntries: [LayerEntry] = [
        LayerEntry(json: ["mid": "1", "substream": 2], mid: "1", layer: ConferenceLayer(substream: 2)),
        LayerEntry(json: ["mid": "1", "temporal": 0], mid: "1", layer: ConferenceLayer(substream: nil, temporal: 0)),
        LayerEntry(
            json: ["mid": "3", "substream": 1, "temporal": 2],
            mid: "3",
            layer: ConferenceLayer(substream: 1, temporal: 2)
        ),
        LayerEntry(
            json: ["mid": "1", "substream": 3, "temporal": 1],
            mid: "1",
            layer: ConferenceLayer(substream: nil, temporal: 1)
        ),
        LayerEntry(json: ["mid": "1", "substream": -1]),
        LayerEntry(json: ["mid": "1", "substream": 1e300]),
        LayerEntry(json: ["mid": "1", "substream": "2"]),
        LayerEntry(json: ["substream": 1]),
        LayerEntry(json: ["mid": .string(String(repeating: "m", count: 33)), "substream": 1]),
    ]

    /// Layer changes (`onLayerChanged`): only values Janus can mean (0...2) for a `mid` of at
    /// most 32 bytes; an event with neither value is no change.
    @Test(arguments: layerEntries)
    func layerChangesAreReadDefensively(entry: LayerEntry) {
        let change = ConferenceSession.layerChange(entry.json)
        #expect(change?.mid == entry.mid)
        #expect(change?.layer == entry.layer)
    }

    @Test func aLongDisplayNameIsCut() {
        let entry: JanusJSON = ["id": 1, "display": .string(String(repeating: "x", count: 10_000))]
        #expect(ConferenceSession.publisher(entry)?.display?.count == 256)
    }

    /// Counters from stats a peer's packets drive never trap, whatever their size.
    @Test func streamCountersNeverTrap() {
        var big = StreamCounters()
        big.audioFrames = .max
        big.packetsLost = .min
        var total = big
        total += big
        #expect((StreamCounters() - big).audioFrames == 0, "a counter that went back counts as none")
        _ = big - total
    }

    static func janus() async throws -> (JanusServer, JanusSession) {
        try #require(JanusServer.isInstalled, "janus is not installed: run Scripts/bootstrap.sh --tests")
        let server = try await JanusServer()
        var configuration = JanusSession.Configuration(url: server.url)
        configuration.requestTimeout = .seconds(5)
        return (server, try await JanusSession.connect(configuration))
    }

    static var listener: ConferenceSession.Options {
        var options = ConferenceSession.Options()
        options.role = .listener
        options.display = "listener"
        return options
    }

    /// The error of a join that should fail (nil: it joined).
    static func joinError(
        _ janus: JanusSession,
        room: Int64,
        options: ConferenceSession.Options
    ) async -> ConferenceError? {
        do {
            let session = try await ConferenceSession.join(janus, room: room, options: options)
            await session.leave()
            return nil
        } catch {
            return error
        }
    }

    /// A room that does not exist is refused with VideoRoom's 426; with `createsRoom` the
    /// first bot makes it and the next finds it; leaving ends the events.
    @Test func roomsAreCreatedJoinedAndLeft() async throws {
        let (server, janus) = try await Self.janus()
        defer { server.stop() }
        let refusal = await Self.joinError(janus, room: 4711, options: Self.listener)
        guard case .janus(.plugin(let code, _)) = refusal else {
            Issue.record("joining a room that does not exist: \(String(describing: refusal))")
            return
        }
        #expect(code == 426, "no such room")
        var creating = Self.listener
        creating.createsRoom = true
        let first = try await ConferenceSession.join(janus, room: 4711, options: creating)
        let second = try await ConferenceSession.join(janus, room: 4711, options: creating)
        #expect(first.id != second.id)
        #expect(first.role == .listener && first.localAudioTrack == nil && first.localVideoTrack == nil)
        #expect(await first.publishingConnection == nil, "a listener never publishes")
        await first.leave()
        var last: ConferenceSessionEvent?
        for await event in first.events { last = event }
        guard case .ended(let reason) = last else {
            Issue.record("the events ended with \(String(describing: last))")
            return
        }
        #expect(reason == "left")
        await second.leave()
        await janus.destroy()
    }
}
