import Foundation
import SwiftRTCCore
import Synchronization
import Testing

@Suite struct BroadcastTests {
    @Test func everySubscriberGetsEveryValueInOrder() async {
        let broadcast = Broadcast<Int>(replaysLatest: false)
        let first = broadcast.subscribe(), second = broadcast.subscribe()
        for value in 1...5 { broadcast.yield(value) }
        broadcast.finish()
        var a: [Int] = [], b: [Int] = []
        for await value in first { a.append(value) }
        for await value in second { b.append(value) }
        #expect(a == [1, 2, 3, 4, 5])
        #expect(b == [1, 2, 3, 4, 5])
    }

    @Test func stateSequencesReplayTheLatestThenEnd() async {
        let broadcast = Broadcast<String>(replaysLatest: true, initial: "new")
        broadcast.yield("checking")
        let late = broadcast.subscribe(replaying: ["kept"])
        broadcast.yield("connected")
        broadcast.finish()
        var seen: [String] = []
        for await value in late { seen.append(value) }
        #expect(seen == ["checking", "kept", "connected"])
        // After the end a subscriber gets only the latest value.
        var after: [String] = []
        for await value in broadcast.subscribe() { after.append(value) }
        #expect(after == ["connected"])
    }

    /// Subscribers are counted as they come and go (the data plane's check before a yield),
    /// and a broadcast that does not replay keeps nothing of a value nobody followed.
    @Test func subscribersAreCountedAndUnfollowedValuesAreNotKept() async {
        final class Payload: Sendable {}
        let broadcast = Broadcast<Payload>(replaysLatest: false)
        #expect(!broadcast.hasSubscribers)
        weak var dropped: Payload?
        do {
            let payload = Payload()
            dropped = payload
            broadcast.yield(payload)
        }
        #expect(dropped == nil, "a value nobody followed is still held")
        #expect(broadcast.latest == nil)

        let stream = broadcast.subscribe()
        #expect(broadcast.hasSubscribers)
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        broadcast.yield(Payload())
        consumer.cancel()
        _ = await consumer.value
        #expect(!broadcast.hasSubscribers, "a cancelled subscriber is still counted")
        let kept = broadcast.subscribe()
        broadcast.finish()
        #expect(!broadcast.hasSubscribers)
        for await _ in kept {}
    }

    /// A consumer cancelled while a value is handed to it. Handing over takes the consumer
    /// task's status lock; cancelling holds it while the stream's termination handler runs.
    /// When the broadcast held its subscriber lock around the hand-over and the handler took
    /// the same lock, these two deadlocked (a hung call-session test run).
    @Test func cancellingConsumersWhileValuesFlowNeverDeadlocks() async throws {
        let broadcast = Broadcast<Int>(replaysLatest: true, initial: 0)
        let running = Atomic<Bool>(true)
        let yielded = Atomic<Int>(0)
        let producer = Thread {
            var value = 0
            while running.load(ordering: .relaxed) {
                value += 1
                broadcast.yield(value)
                yielded.store(value, ordering: .relaxed)
            }
        }
        producer.start()
        defer { running.store(false, ordering: .relaxed) }
        var received = 0
        for _ in 0..<2_000 {
            let stream = broadcast.subscribe()
            let consumer = Task {
                var count = 0
                for await _ in stream { count += 1 }
                return count
            }
            await Task.yield()
            consumer.cancel()
            received += await consumer.value
        }
        #expect(yielded.load(ordering: .relaxed) > 0)
        #expect(received > 0, "no consumer received a value")
    }

    /// A subscriber that does not read keeps its buffer's worth; what its full buffer refused
    /// is counted, once per subscriber that dropped it.
    @Test func whatAFullBufferDropsIsCounted() async {
        let broadcast = Broadcast<Int>(replaysLatest: false, buffering: .bufferingOldest(2))
        let slow = broadcast.subscribe(), alsoSlow = broadcast.subscribe()
        for value in 0..<5 { broadcast.yield(value) }
        #expect(broadcast.dropped == 6)
        broadcast.finish()
        var kept: [Int] = []
        for await value in slow { kept.append(value) }
        #expect(kept == [0, 1])
        _ = alsoSlow
    }
}
