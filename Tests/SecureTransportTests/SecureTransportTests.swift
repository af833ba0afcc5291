import Foundation
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSRTP
import Synchronization
import Testing
import TransportTestSupport

/// One side of a call's secure transport, put together as the peer layer does: DTLS runs over
/// the ICE component, the exported keys make an SRTP session, and the RFC 7983 demultiplexer
/// hands DTLS records to DTLS and RTP/RTCP to SRTP on the transport thread.
final class SecureEndpoint: Sendable {
    let agent: IceAgent
    let certificate: DtlsCertificate
    let received = Mutex<[[UInt8]]>([])
    let receivedRTCP = Mutex<[[UInt8]]>([])
    private let dtls = Mutex<DtlsTransport?>(nil)
    private let srtp = Mutex<SrtpSession?>(nil)
    private let info = Mutex<DtlsConnectionInfo?>(nil)

    init(agent: IceAgent) throws {
        self.agent = agent
        certificate = try DtlsCertificate.generate()
    }

    /// Starts DTLS towards a peer with `remote`'s certificate, waits for the handshake and keys SRTP.
    func connect(role: DtlsRole, remote: DtlsFingerprint, profiles: [SrtpProfile]) async throws -> DtlsConnectionInfo {
        var configuration = DtlsTransport.Configuration(
            role: role,
            certificate: certificate,
            remoteFingerprints: [remote]
        )
        configuration.srtpProfiles = profiles
        let transport = try DtlsTransport(configuration: configuration, sender: agent.component)
        dtls.withLock { $0 = transport }
        agent.demultiplexer.setHandler({ transport.receive($0) }, for: .dtls)
        agent.demultiplexer.setHandler({ [weak self] in self?.unprotect($0, rtcp: false) }, for: .rtp)
        agent.demultiplexer.setHandler({ [weak self] in self?.unprotect($0, rtcp: true) }, for: .rtcp)
        transport.start()
        let info = try await transport.connected()
        let material = info.keyingMaterial
        let session = try SrtpSession(profile: material.profile, local: material.local, remote: material.remote)
        srtp.withLock { $0 = session }
        self.info.withLock { $0 = info }
        return info
    }

    /// What the (only) DTLS handshake agreed.
    var connectedInfo: DtlsConnectionInfo? { info.withLock { $0 } }

    var counters: SrtpSession.Counters? { srtp.withLock { $0?.counters } }

    /// Protects `packet` in place and sends it through the ICE component.
    func send(_ packet: [UInt8], rtcp: Bool = false) throws -> Bool {
        guard let session = srtp.withLock({ $0 }) else { return false }
        var buffer = packet + [UInt8](repeating: 0, count: 32)
        return try buffer.withUnsafeMutableBytes { bytes in
            let length =
                rtcp
                ? try session.protectRTCP(bytes, length: packet.count)
                : try session.protectRTP(bytes, length: packet.count)
            return agent.component.send(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        }
    }

    func close() async {
        dtls.withLock { $0 }?.close()
        await agent.close()
    }

    /// Runs on the transport thread: copies the datagram (libnice owns its buffer), unprotects
    /// it in place and keeps the plaintext.
    private func unprotect(_ datagram: UnsafeRawBufferPointer, rtcp: Bool) {
        guard let session = srtp.withLock({ $0 }) else { return }
        var buffer = Array(datagram)
        let length = buffer.withUnsafeMutableBytes { bytes in
            rtcp
                ? try? session.unprotectRTCP(bytes, length: datagram.count)
                : try? session.unprotectRTP(bytes, length: datagram.count)
        }
        guard let length else { return }
        let plain = Array(buffer[0..<length])
        if rtcp { receivedRTCP.withLock { $0.append(plain) } } else { received.withLock { $0.append(plain) } }
    }
}

/// Both sides of a call over an agent pair, DTLS connected: the offerer (`a=setup:actpass`)
/// is the DTLS server, the answerer (`active`) the client.
struct SecureCall {
    let offerSide: SecureEndpoint
    let answerSide: SecureEndpoint
    let server: DtlsConnectionInfo
    let client: DtlsConnectionInfo

    init(_ pair: AgentPair, profiles: [SrtpProfile] = SrtpProfile.dtlsSupported) async throws {
        let offerSide = try SecureEndpoint(agent: pair.offerer)
        let answerSide = try SecureEndpoint(agent: pair.answerer)
        async let server = offerSide.connect(
            role: .server,
            remote: answerSide.certificate.fingerprint,
            profiles: profiles
        )
        async let client = answerSide.connect(
            role: .client,
            remote: offerSide.certificate.fingerprint,
            profiles: profiles
        )
        (self.server, self.client) = try await (server, client)
        self.offerSide = offerSide
        self.answerSide = answerSide
    }

    func close() async {
        await offerSide.close()
        await answerSide.close()
    }
}

/// An RTP packet (RFC 3550 §5.1): V=2, PT 111, the sequence number, timestamp and SSRC, then
/// a payload naming its sender and index.
func rtpPacket(sequence: UInt16, ssrc: UInt32, payload: String) -> [UInt8] {
    let timestamp = UInt32(sequence) &* 960
    return [
        0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
        UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
        UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF),
    ] + Array(payload.utf8)
}

/// An empty receiver report (RFC 3550 §6.4.2): V=2, RC=0, PT 201, length 1, sender SSRC.
func receiverReport(ssrc: UInt32) -> [UInt8] {
    [0x80, 201, 0, 1, UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
}

func waitUntil(_ timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// ICE + DTLS + SRTP over real libnice agents on loopback (and through a real coturn).
@Suite(.serialized) struct SecureTransportTests {
    /// The offerer says `a=setup:actpass`, the answerer takes `active`: it is the DTLS client.
    func call(
        offerer: IceAgent.Configuration,
        answerer: IceAgent.Configuration,
        profile: SrtpProfile,
        expectedPair: String
    ) async throws {
        let pair = try await AgentPair(offerer: offerer, answerer: answerer)
        let started = ContinuousClock.now
        let call = try await SecureCall(pair, profiles: [profile])
        defer { Task { await call.close() } }
        let (offerSide, answerSide, server, client) = (call.offerSide, call.answerSide, call.server, call.client)
        print(
            "ICE + DTLS (\(profile)) connected in \(ContinuousClock.now - started) over \(pair.offerer.selectedPair?.typesDescription ?? "?")"
        )

        #expect(pair.offerer.selectedPair?.typesDescription == expectedPair)
        #expect(server.keyingMaterial.profile == profile && client.keyingMaterial.profile == profile)
        // The keys agree crosswise: what one side writes with, the other reads with.
        #expect(server.keyingMaterial.local.key == client.keyingMaterial.remote.key)
        #expect(server.keyingMaterial.local.salt == client.keyingMaterial.remote.salt)
        #expect(server.keyingMaterial.remote.key == client.keyingMaterial.local.key)
        #expect(server.keyingMaterial.local.key != server.keyingMaterial.remote.key)
        #expect(server.remoteFingerprint == answerSide.certificate.fingerprint)
        #expect(client.remoteFingerprint == offerSide.certificate.fingerprint)

        let count = 50
        for index in 0..<count {
            #expect(
                try offerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0FFE_0001, payload: "offerer \(index)"))
            )
            #expect(
                try answerSide.send(rtpPacket(sequence: UInt16(index), ssrc: 0x0A45_0002, payload: "answerer \(index)"))
            )
        }
        #expect(try offerSide.send(receiverReport(ssrc: 0x0FFE_0001), rtcp: true))
        #expect(try answerSide.send(receiverReport(ssrc: 0x0A45_0002), rtcp: true))

        #expect(
            await waitUntil {
                answerSide.received.withLock { $0.count } == count && offerSide.received.withLock { $0.count } == count
            }
        )
        #expect(
            await waitUntil {
                answerSide.receivedRTCP.withLock { $0.count } == 1 && offerSide.receivedRTCP.withLock { $0.count } == 1
            }
        )
        // Loopback keeps order: every packet arrives decrypted to exactly what was sent.
        #expect(
            answerSide.received.withLock { $0 }
                == (0..<count).map { rtpPacket(sequence: UInt16($0), ssrc: 0x0FFE_0001, payload: "offerer \($0)") }
        )
        #expect(
            offerSide.received.withLock { $0 }
                == (0..<count).map { rtpPacket(sequence: UInt16($0), ssrc: 0x0A45_0002, payload: "answerer \($0)") }
        )
        #expect(answerSide.receivedRTCP.withLock { $0 } == [receiverReport(ssrc: 0x0FFE_0001)])
        #expect(answerSide.counters?.unprotected == UInt64(count + 1))
        #expect(answerSide.counters?.authenticationFailures == 0)
        #expect(offerSide.counters?.protected == UInt64(count + 1))
    }

    @Test(arguments: SrtpProfile.dtlsSupported)
    func directOverLoopback(profile: SrtpProfile) async throws {
        try await call(
            offerer: loopback(.controlling),
            answerer: loopback(.controlled),
            profile: profile,
            expectedPair: "host->host/udp"
        )
    }

    @Test func relayOnlyThroughCoturn() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        try await call(
            offerer: coturn.relayOnly(.controlling),
            answerer: coturn.relayOnly(.controlled),
            profile: .aes128CmHmacSha1_80,
            expectedPair: "relay->relay/udp"
        )
    }

    /// A tampered SRTP packet on the wire is dropped and counted, never delivered.
    @Test func tamperedPacketsAreCountedNotDelivered() async throws {
        let pair = try await AgentPair(offerer: loopback(.controlling), answerer: loopback(.controlled))
        let call = try await SecureCall(pair)
        defer { Task { await call.close() } }
        let (offerSide, answerSide) = (call.offerSide, call.answerSide)

        // Bytes that look like RTP but were never protected with the session's key.
        let forged = rtpPacket(sequence: 7, ssrc: 0x0BAD_0BAD, payload: "forged") + [UInt8](repeating: 0xAB, count: 10)
        #expect(forged.withUnsafeBytes { pair.offerer.component.send($0) })
        #expect(try offerSide.send(rtpPacket(sequence: 8, ssrc: 0x0FFE_0001, payload: "genuine")))
        #expect(await waitUntil { answerSide.received.withLock { $0.count } == 1 })
        #expect(await waitUntil { answerSide.counters?.authenticationFailures == 1 })
        #expect(answerSide.received.withLock { $0 } == [rtpPacket(sequence: 8, ssrc: 0x0FFE_0001, payload: "genuine")])
    }
}
