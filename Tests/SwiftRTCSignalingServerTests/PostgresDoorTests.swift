import Foundation
import PostgresTestSupport
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// Issue 36 ("Strangers at the door") on PostgreSQL: the queue of notifications for other
/// instances is bounded in bytes.
@Suite struct PostgresDoorTests {
    /// A queue nothing drains (the state's `run` is not started, its pool never connects) takes
    /// payloads up to ``PostgresSignalingState/maxPendingNotificationBytes`` and drops (and
    /// counts) the rest, though far fewer than ``PostgresSignalingState/maxPendingNotifications``
    /// were queued.
    @Test func theNotifyQueueIsBoundedInBytesAndCountsWhatItDrops() async throws {
        let storage = try PostgresStorage(url: "postgres://nobody@127.0.0.1:9/nothing")
        defer { storage.close() }
        let state = storage.state
        let limit = PostgresSignalingState.maxPendingNotificationBytes
        let text = String(repeating: "x", count: PostgresSignalingState.maxNotifyBytes)
        let presence = UserPresence(instance: "elsewhere", connection: 1)
        let sent = 2 * limit / text.utf8.count
        #expect(sent < PostgresSignalingState.maxPendingNotifications)
        for _ in 0..<sent { state.send(text, to: "bob", at: presence) }
        let held = state.pendingNotificationBytes
        #expect(held <= limit, "\(held) bytes held, the limit is \(limit)")
        // Filled up to the limit: one more payload of this size would not have fitted.
        #expect(held + text.utf8.count + 100 > limit, "\(held) bytes held")
        let dropped = state.droppedNotifications.load(ordering: .relaxed)
        #expect(dropped == sent - state.pendingNotificationCount)
        #expect(dropped >= sent / 3, "\(dropped) of \(sent) dropped")
    }
}
