import Foundation
import SwiftRTCJanus
import SwiftRTCMedia
import SwiftRTCPeer
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// Simulcast through a real Janus: a bot publishes its video in three sizes, each in three
/// temporal layers, and each listener gets the layer it chose, changes it, and hears of each
/// change (`onLayerChanged`).
@Suite(.serialized, .realTime) struct ConferenceSimulcastTests {
    /// The layers a listener was told of, for one publisher, in order.
    final class Layers: Sendable {
        private let list = Mutex<[ConferenceLayer]>([])
        init(_ session: ConferenceSession, of publisher: Int64) {
            let events = session.events
            Task {
                for await event in events {
                    guard case .layerChanged(publisher, let layer) = event else { continue }
                    self.list.withLock { $0.append(layer) }
                }
            }
        }
        var all: [ConferenceLayer] { list.withLock { $0 } }
    }

    /// The size of the pictures `listener` decodes of `publisher`'s video now.
    static func receivedSize(_ listener: ConferenceSession, of publisher: Int64) async -> (width: Int, height: Int)? {
        guard let mid = await listener.videoMid(of: publisher),
            let report = await listener.subscriptionConnection?.stats(),
            let inbound = report.all(.inboundRTP).first(where: { $0.string("mid") == mid })
        else { return nil }
        return (Int(inbound.number("frameWidth") ?? 0), Int(inbound.number("frameHeight") ?? 0))
    }

    /// Waits until `listener` decodes `publisher`'s video at `width`, and says whether it did.
    static func receives(
        _ listener: ConferenceSession,
        of publisher: Int64,
        width: Int,
        within timeout: Duration = .seconds(15)
    ) async -> Bool {
        await ConferenceMediaTests.waitUntil(timeout) { await receivedSize(listener, of: publisher)?.width == width }
    }

    @Test func eachListenerGetsTheLayerItChoseAndHearsOfEachChange() async throws {
        try await ConferenceMediaTests.inRoom { janus, options in
            var options = options
            options.display = "alice"
            options.audio = false
            options.simulcast = true
            let alice = try await ConferenceSession.join(janus, room: 1618, options: options)
            _ = try #require(alice.localVideoTrack).play(TestPatternSource(width: 640, height: 480))
            options.role = .listener
            options.display = "bob"
            let bob = try await ConferenceSession.join(janus, room: 1618, options: options)
            let bobLayers = Layers(bob, of: alice.id)
            options.display = "carol"
            options.substream = 0
            let carol = try await ConferenceSession.join(janus, room: 1618, options: options)
            let carolLayers = Layers(carol, of: alice.id)

            // Alice sends three encodings, each its own size, rid and SSRC.
            let publishing = try #require(await alice.publishingConnection)
            #expect(
                await ConferenceMediaTests.waitUntil {
                    let sent = await publishing.stats().all(.outboundRTP).filter { $0.string("kind") == "video" }
                    return Set(sent.compactMap { $0.string("rid") }) == ["h", "m", "l"]
                        && sent.allSatisfy { ($0.number("framesSent") ?? 0) > 10 }
                }
            )
            let sent = await publishing.stats().all(.outboundRTP).filter { $0.string("kind") == "video" }
            let widths = Dictionary(
                uniqueKeysWithValues: sent.map { ($0.string("rid") ?? "", Int($0.number("frameWidth") ?? 0)) }
            )
            #expect(widths == ["h": 640, "m": 320, "l": 160], "\(widths)")
            #expect(Set(sent.compactMap { $0.number("ssrc") }).count == 3)

            // Bob gets Janus's default, the largest; Carol asked for the smallest.
            #expect(await Self.receives(bob, of: alice.id, width: 640))
            #expect(await Self.receives(carol, of: alice.id, width: 160))
            #expect(await ConferenceMediaTests.waitUntil { bobLayers.all.last?.substream == 2 }, "\(bobLayers.all)")
            #expect(await ConferenceMediaTests.waitUntil { carolLayers.all.last?.substream == 0 }, "\(carolLayers.all)")

            // Bob steps down to the middle layer, then to the smallest; Carol goes up to the largest.
            try await bob.selectLayer(of: alice.id, substream: 1)
            #expect(await Self.receives(bob, of: alice.id, width: 320))
            #expect(await ConferenceMediaTests.waitUntil { bobLayers.all.last?.substream == 1 }, "\(bobLayers.all)")
            try await bob.selectLayer(of: alice.id, substream: 0)
            try await carol.selectLayer(of: alice.id, substream: 2)
            #expect(await Self.receives(bob, of: alice.id, width: 160))
            #expect(await Self.receives(carol, of: alice.id, width: 640))
            #expect(await ConferenceMediaTests.waitUntil { carolLayers.all.last?.substream == 2 }, "\(carolLayers.all)")

            // Every switch went on decoding: the frames keep coming in the new size.
            let flowing = try await ConferenceMediaTests.rate(bob, of: alice.id, over: .seconds(2))
            #expect(flowing.video > 30, "\(flowing)")
            let stats = await bob.publisherStats().first { $0.id == alice.id }
            #expect(stats?.layer?.substream == 0)

            // Temporal layers: each encoding is sent in three (RFC 7741 TID). Bob asks for the
            // base layer alone, a quarter of the frames; then for all of them again.
            try await bob.selectLayer(of: alice.id, substream: nil, temporal: 0)
            #expect(await ConferenceMediaTests.waitUntil { bobLayers.all.last?.temporal == 0 }, "\(bobLayers.all)")
            try await Task.sleep(for: .milliseconds(300))
            let base = try await ConferenceMediaTests.rate(bob, of: alice.id, over: .seconds(2))
            try await bob.selectLayer(of: alice.id, substream: nil, temporal: 2)
            #expect(await ConferenceMediaTests.waitUntil { bobLayers.all.last?.temporal == 2 }, "\(bobLayers.all)")
            try await Task.sleep(for: .milliseconds(300))
            let all = try await ConferenceMediaTests.rate(bob, of: alice.id, over: .seconds(2))
            print("simulcast: bob decoded \(base.video) frames in 2 s of temporal layer 0, \(all.video) of all three")
            #expect(base.video > 3 && Double(base.video) < 0.4 * Double(all.video), "base \(base), all \(all)")
            #expect(await Self.receives(bob, of: alice.id, width: 160), "the substream stays")

            await carol.leave()
            await bob.leave()
            await alice.leave()
        }
    }
}
