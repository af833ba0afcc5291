import SwiftRTCCore
import Testing

@testable import SwiftRTCSRTP

/// A peer with the keys that keeps changing SSRCs: libsrtp would clone a stream for each and
/// keep it; the session keeps at most ``RemoteInputLimits/maxRemoteSSRCsPerTransport``.
@Suite struct SrtpStreamLimitTests {
    @Test func anSSRCFloodKeepsTheStreamTableBounded() throws {
        let (peer, us) = try sessionPair(.aes128CmHmacSha1_80)
        let limit = RemoteInputLimits.maxRemoteSSRCsPerTransport
        let flood = 40 * limit
        for ssrc in 1...UInt32(flood) {
            let protected = try peer.apply(.protectRTP, rtpPacket(sequence: 1, ssrc: ssrc)).get()
            _ = try us.apply(.unprotectRTP, protected).get()
        }
        #expect(us.counters.remoteStreams == limit)
        #expect(us.counters.remoteStreamsEvicted == UInt64(flood - limit))
        // An evicted SSRC that comes back gets a fresh stream; the newest ones are still there.
        let again = try peer.apply(.protectRTP, rtpPacket(sequence: 2, ssrc: 1)).get()
        #expect(try us.apply(.unprotectRTP, again).get() == rtpPacket(sequence: 2, ssrc: 1))
        let recent = try peer.apply(.protectRTP, rtpPacket(sequence: 2, ssrc: UInt32(flood))).get()
        #expect(try us.apply(.unprotectRTP, recent).get() == rtpPacket(sequence: 2, ssrc: UInt32(flood)))
        #expect(us.counters.remoteStreams == limit)
    }

    /// The streams in use are kept: two SSRCs that keep sending survive a flood of others.
    @Test func activeStreamsSurviveAFlood() throws {
        let (peer, us) = try sessionPair(.aes128CmHmacSha1_80)
        var early: [UInt8] = []
        for round in 0..<200 {
            for ssrc: UInt32 in [0xA, 0xB] {
                let protected = try peer.apply(.protectRTP, rtpPacket(sequence: UInt16(round), ssrc: ssrc)).get()
                _ = try us.apply(.unprotectRTP, protected).get()
                if round == 5, ssrc == 0xA { early = protected }
            }
            let stranger = try peer.apply(.protectRTP, rtpPacket(sequence: 1, ssrc: 0x1000 + UInt32(round))).get()
            _ = try us.apply(.unprotectRTP, stranger).get()
        }
        // A replay of an early packet of 0xA is still refused: its stream (and replay window)
        // stayed; a stream made afresh would take it.
        #expect(us.apply(.unprotectRTP, early) == .failure(.replayed))
        #expect(us.counters.remoteStreams == RemoteInputLimits.maxRemoteSSRCsPerTransport)
    }
}
