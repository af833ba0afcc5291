import Testing

@testable import SwiftRTCPeer

@Test func followsTheJSEPStateMachine() {
    #expect(SignalingState.stable.applying(.offer, local: true) == .haveLocalOffer)
    #expect(SignalingState.haveLocalOffer.applying(.answer, local: false) == .stable)
    #expect(SignalingState.stable.applying(.offer, local: false) == .haveRemoteOffer)
    #expect(SignalingState.haveRemoteOffer.applying(.pranswer, local: true) == .haveLocalPranswer)
    #expect(SignalingState.haveLocalPranswer.applying(.answer, local: true) == .stable)
    #expect(SignalingState.haveRemoteOffer.applying(.rollback, local: false) == .stable)
    // Not allowed: an answer in stable, anything once closed, an offer of the other side.
    #expect(SignalingState.stable.applying(.answer, local: true) == nil)
    #expect(SignalingState.closed.applying(.offer, local: true) == nil)
    #expect(SignalingState.haveLocalOffer.applying(.offer, local: false) == nil)
}
