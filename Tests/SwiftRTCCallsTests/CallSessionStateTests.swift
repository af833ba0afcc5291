import Testing

@testable import SwiftRTCCalls

@Test func sessionStatesOnlyMoveForward() {
    #expect(CallSessionState.new.canMove(to: .pending))
    #expect(CallSessionState.connecting.canMove(to: .closed))
    #expect(!CallSessionState.connected.canMove(to: .pending))
    #expect(!CallSessionState.closed.canMove(to: .new))
}
