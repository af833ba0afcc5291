import Testing

@testable import SwiftRTCCalls

/// A client's memory of ended sessions stays bounded however many calls it takes.
@Test func endedSessionIDsKeepTheMostRecentUpToTheLimit() {
    var ended = EndedSessionIDs()
    let total = EndedSessionIDs.limit + 10
    for index in 0..<total { ended.insert("session-\(index)") }
    ended.insert("session-\(total - 1)")  // again: no second place
    #expect(ended.count == EndedSessionIDs.limit)
    #expect((0..<10).allSatisfy { !ended.contains("session-\($0)") })
    #expect((10..<total).allSatisfy { ended.contains("session-\($0)") })
}
