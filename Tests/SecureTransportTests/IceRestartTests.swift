import Foundation
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSRTP
import Testing
import TransportTestSupport

/// An ICE restart (RFC 8445 §9) changes the credentials and may change the path, but keeps
/// the DTLS association and the SRTP sessions: media goes on without a new handshake.
@Suite(.serialized) struct IceRestartTests {
    @Test func srtpFlowsAcrossAnIceRestartWithoutANewHandshake() async throws {
        let pair = try await AgentPair(offerer: loopback(.controlling), answerer: loopback(.controlled))
        let call = try await SecureCall(pair)
        defer { Task { await call.close() } }
        let (offerSide, answerSide, serverInfo) = (call.offerSide, call.answerSide, call.server)

        for index in 0..<10 {
            #expect(
                try offerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0FFE_0001, payload: "before \(index)"))
            )
        }
        #expect(await waitUntil { answerSide.received.withLock { $0.count } == 10 })

        // Both sides restart ICE and exchange what a renegotiation would carry.
        let offererCredentials = try await pair.restartBothAndExchange()

        // The same SRTP sessions keep going: sequence numbers continue, no replays, no auth failures.
        for index in 10..<30 {
            #expect(
                try offerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0FFE_0001, payload: "after \(index)"))
            )
            #expect(
                try answerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0A45_0002, payload: "back \(index)"))
            )
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(
            await waitUntil {
                answerSide.received.withLock { $0.count } == 30 && offerSide.received.withLock { $0.count } == 20
            }
        )
        let sentAfter = (10..<30).map { (n: Int) in
            rtpPacket(sequence: UInt16(n), ssrc: 0x0FFE_0001, payload: "after \(n)")
        }
        #expect(Array(answerSide.received.withLock { $0 }.suffix(20)) == sentAfter)
        #expect(answerSide.counters?.authenticationFailures == 0 && answerSide.counters?.replays == 0)
        #expect(pair.offerer.localCredentials == offererCredentials)
        #expect(!pair.offererStates.all.contains(.failed))
        // The handshake happened once: the keys in force are the first ones.
        #expect(offerSide.connectedInfo?.keyingMaterial == serverInfo.keyingMaterial)
    }
}
