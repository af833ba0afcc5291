import Foundation
import SwiftRTCBenchReport
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSRTP

extension MemoryScenario {
    /// What the parts a connection is made of cost alone, each made ``idlePairs`` × 2 times and
    /// held, added one part after the other: an ICE agent gathered on 127.0.0.1 (libnice, its
    /// socket, our `IceAgent`), a DTLS transport on that agent (a GnuTLS session with the shared
    /// certificate, not started), and an SRTP session keyed both ways that has protected and
    /// unprotected one 84-byte packet (libsrtp's contexts and the stream made for the SSRC).
    /// Resident memory and heap in use that each part added, per connection; what
    /// `memory-stages` reports beyond their sum is the rest of the `PeerConnection` (its
    /// transceivers, senders, receivers, buffers and tasks).
    static func components() async throws -> BenchResult {
        let count = 2 * idlePairs
        var marks = MemoryMarks()

        var agents: [IceAgent] = []
        for index in 0..<count {
            let agent = try IceAgent(
                configuration: IceAgent.Configuration(
                    role: index % 2 == 0 ? .controlling : .controlled,
                    localAddresses: ["127.0.0.1"]
                )
            )
            try await agent.startGathering()
            agents.append(agent)
        }
        try await Task.sleep(for: .milliseconds(500))  // gathering done
        marks.mark("ice_agent")

        let (ours, theirs) = LoopbackCall.certificates
        var transports: [DtlsTransport] = []
        for (index, agent) in agents.enumerated() {
            let configuration = DtlsTransport.Configuration(
                role: index % 2 == 0 ? .client : .server,
                certificate: index % 2 == 0 ? ours : theirs,
                remoteFingerprints: [index % 2 == 0 ? theirs.fingerprint : ours.fingerprint]
            )
            transports.append(try DtlsTransport(configuration: configuration, sender: agent.component))
        }
        marks.mark("dtls_transport")

        var sessions: [SrtpSession] = []
        let packet = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 16)
        defer { packet.deallocate() }
        for index in 0..<idlePairs {
            let a = SrtpMasterKey(key: key(index, 1), salt: salt(index, 1))
            let b = SrtpMasterKey(key: key(index, 2), salt: salt(index, 2))
            let offerer = try SrtpSession(profile: .aes128CmHmacSha1_80, local: a, remote: b)
            let answerer = try SrtpSession(profile: .aes128CmHmacSha1_80, local: b, remote: a)
            for (from, to) in [(offerer, answerer), (answerer, offerer)] {
                // RFC 3550 header: V=2, PT 111, sequence 1, timestamp 0, SSRC by pair; 84 bytes.
                packet.initializeMemory(as: UInt8.self, repeating: 0xAB)
                let header: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 0, 0x0F, 0xFE, UInt8(index >> 8), UInt8(index & 0xFF)]
                packet.copyBytes(from: header)
                let length = try from.protectRTP(packet, length: 12 + 84)
                guard try to.unprotectRTP(packet, length: length) == 12 + 84 else {
                    throw BenchError("memory components: an SRTP packet did not come back whole")
                }
            }
            sessions += [offerer, answerer]
        }
        marks.mark("srtp_session")

        for transport in transports { transport.close() }
        for agent in agents { await agent.close() }
        withExtendedLifetime(sessions) {}
        return marks.result(
            scenario: "memory-components",
            profile: "cm80",
            connections: count,
            note: "per connection, each part alone: ICE agent gathered, DTLS transport made, SRTP session used"
        )
    }

    /// A master key and salt of pair `index`, side `side`: distinct for every session.
    private static func key(_ index: Int, _ side: UInt8) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0 &* 7) ^ side }
    }

    private static func salt(_ index: Int, _ side: UInt8) -> [UInt8] {
        (0..<14).map { UInt8(truncatingIfNeeded: index &* 17 &+ $0 &* 5) ^ (side << 4) }
    }
}
