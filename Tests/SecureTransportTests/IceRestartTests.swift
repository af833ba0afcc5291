import Foundation
import Testing
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSRTP
import TransportTestSupport

/// An ICE restart (RFC 8445 §9) changes the credentials and may change the path, but keeps
/// the DTLS association and the SRTP sessions: media goes on without a new handshake.
@Suite(.serialized) struct IceRestartTests {
    @Test func srtpFlowsAcrossAnIceRestartWithoutANewHandshake() async throws {
        let pair = try await AgentPair(offerer: loopback(.controlling), answerer: loopback(.controlled))
        let offerSide = try SecureEndpoint(agent: pair.offerer)
        let answerSide = try SecureEndpoint(agent: pair.answerer)
        defer { Task { await offerSide.close(); await answerSide.close() } }
        async let server = offerSide.connect(role: .server, remote: answerSide.certificate.fingerprint, profiles: SrtpProfile.dtlsSupported)
        async let client = answerSide.connect(role: .client, remote: offerSide.certificate.fingerprint, profiles: SrtpProfile.dtlsSupported)
        let (serverInfo, _) = try await (server, client)

        for index in 0..<10 {
            #expect(try offerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0FFE_0001, payload: "before \(index)")))
        }
        #expect(await waitUntil { answerSide.received.withLock { $0.count } == 10 })

        // Both sides restart and exchange the new credentials and candidates, as a
        // renegotiation with new a=ice-ufrag/a=ice-pwd carries them.
        let offererCredentials = try pair.offerer.restart()
        let answererCredentials = try pair.answerer.restart()
        try pair.offerer.setRemoteCredentials(answererCredentials)
        try pair.answerer.setRemoteCredentials(offererCredentials)
        for candidate in pair.answerer.localCandidates { try await pair.offerer.addRemoteCandidate(candidate) }
        for candidate in pair.offerer.localCandidates { try await pair.answerer.addRemoteCandidate(candidate) }
        try pair.offerer.remoteGatheringComplete()
        try pair.answerer.remoteGatheringComplete()

        // The same SRTP sessions keep going: sequence numbers continue, no replays, no auth failures.
        for index in 10..<30 {
            #expect(try offerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0FFE_0001, payload: "after \(index)")))
            #expect(try answerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0A45_0002, payload: "back \(index)")))
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await waitUntil { answerSide.received.withLock { $0.count } == 30 && offerSide.received.withLock { $0.count } == 20 })
        #expect(answerSide.received.withLock { $0 }.suffix(20) == (10..<30).map { rtpPacket(sequence: UInt16($0), ssrc: 0x0FFE_0001, payload: "after \($0)") })
        #expect(answerSide.counters?.authenticationFailures == 0 && answerSide.counters?.replays == 0)
        #expect(pair.offerer.localCredentials == offererCredentials)
        #expect(!pair.offererStates.all.contains(.failed))
        // The handshake happened once: the keys in force are the first ones.
        #expect(offerSide.connectedInfo?.keyingMaterial == serverInfo.keyingMaterial)
    }
}
