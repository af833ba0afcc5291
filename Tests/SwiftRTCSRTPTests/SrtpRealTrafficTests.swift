import Foundation
import SwiftRTCCapture
import SwiftRTCRTP
import Testing

@testable import SwiftRTCSRTP

/// Real SRTP from live calls recorded on this machine (Chromium 156 and Firefox 153 with
/// aiortc 1.16, whose libsrtp did the SRTP), with the DTLS-SRTP keys of each call.
@Suite struct SrtpRealTrafficTests {
    /// Both ends of one recorded call: aiortc was the DTLS client, the browser the server.
    struct Call {
        var profile: SrtpProfile
        var vectors: [String: Any]
        var aiortc: SrtpSession
        var browser: SrtpSession
        var keys: (client: SrtpMasterKey, server: SrtpMasterKey)
        var crypto: SrtpCrypto

        init(_ file: String, crypto: SrtpCrypto) throws {
            vectors = try fixtureJSON(file)
            let keying = try vectors.object("keying")
            let name = try keying.string("srtp_profile")
            profile =
                name.contains("AES_128_GCM")
                ? .aeadAes128Gcm : name.hasSuffix("_80") ? .aes128CmHmacSha1_80 : .aes128CmHmacSha1_32
            keys = try #require(profile.masterKeys(fromKeyingMaterial: try keying.hex("exported_keying_material")))
            self.crypto = crypto
            #expect(keys.client.key == (try keying.hex("client_write_master_key")))
            #expect(keys.server.salt == (try keying.hex("server_write_master_salt")))
            aiortc = try SrtpSession(profile: profile, local: keys.client, remote: keys.server, crypto: crypto)
            browser = try SrtpSession(profile: profile, local: keys.server, remote: keys.client, crypto: crypto)
        }
    }

    static let calls = [
        "srtp-real-chrome-156-aes128-cm-sha1-80.json",
        "srtp-real-firefox-153-aes128-cm-sha1-80.json",
        "srtp-real-chrome-156-aead-aes128-gcm.json",
    ]

    @Test(arguments: calls, SrtpCrypto.allCases)
    func recordedPacketsUnprotectAndProtectAsTheBrowsersDid(file: String, crypto: SrtpCrypto) throws {
        let call = try Call(file, crypto: crypto)
        var rtcpCount = 0
        for (direction, sender, receiver) in [
            ("browser_to_aiortc", call.browser, call.aiortc),
            ("aiortc_to_browser", call.aiortc, call.browser),
        ] {
            for entry in try call.vectors.objects(direction) {
                let plain = try entry.hex("plaintext"), protected = try entry.hex("protected")
                if try entry.string("kind") == "rtp" {
                    #expect(
                        try receiver.apply(.unprotectRTP, protected).get() == plain,
                        "\(direction) seq \(entry["seq"] ?? "")"
                    )
                    #expect(
                        try sender.apply(.protectRTP, plain).get() == protected,
                        "\(direction) seq \(entry["seq"] ?? "")"
                    )
                } else {
                    rtcpCount += 1
                    #expect(try receiver.apply(.unprotectRTCP, protected).get() == plain, "\(direction) RTCP")
                    // Our SRTCP index differs from the browser's, so compare by round trip (through
                    // a fresh receiver: the index may be one the first has seen).
                    let ours = try sender.apply(.protectRTCP, plain).get()
                    #expect(ours.count == protected.count)
                    let fresh =
                        sender === call.browser
                        ? try SrtpSession(
                            profile: call.profile,
                            local: call.keys.client,
                            remote: call.keys.server,
                            crypto: crypto
                        )
                        : try SrtpSession(
                            profile: call.profile,
                            local: call.keys.server,
                            remote: call.keys.client,
                            crypto: crypto
                        )
                    #expect(try fresh.apply(.unprotectRTCP, ours).get() == plain)
                }
            }
        }
        #expect(rtcpCount >= 4)
        #expect(call.aiortc.counters.authenticationFailures + call.browser.counters.authenticationFailures == 0)
    }

    static let captures = [
        (
            "srtp-real-chrome-156-aes128-cm-sha1-80.json", "chrome-156-to-aiortc-srtp-aes128-cm-sha1-80-wire.pcap",
            "chrome-156-to-aiortc-decrypted.pcap"
        ),
        (
            "srtp-real-firefox-153-aes128-cm-sha1-80.json", "firefox-153-to-aiortc-srtp-aes128-cm-sha1-80-wire.pcap",
            "firefox-153-to-aiortc-decrypted.pcap"
        ),
        (
            "srtp-real-chrome-156-aead-aes128-gcm.json", "chrome-156-to-aiortc-srtp-aead-aes128-gcm-wire.pcap",
            "chrome-156-to-aiortc-gcm-decrypted.pcap"
        ),
    ]

    /// Every SRTP and SRTCP datagram of a recorded call, both directions, unprotected with the
    /// call's keys, equals the same frame of the decrypted twin capture.
    @Test(arguments: captures, SrtpCrypto.allCases)
    func wireCaptureDecryptsToItsDecryptedTwin(capture: (String, String, String), crypto: SrtpCrypto) throws {
        let call = try Call(capture.0, crypto: crypto)
        let rtpDirectory = fixturesDirectory.appendingPathComponent("rtp")
        let wire = try udpDatagrams(rtpDirectory.appendingPathComponent(capture.1))
        let decrypted = try udpDatagrams(rtpDirectory.appendingPathComponent(capture.2))
        #expect(wire.count == decrypted.count)

        // The DTLS client (aiortc) is the end that sent the ClientHello.
        let clientHello = try #require(
            wire.first { datagram in
                datagram.payload.count > 13 && datagram.payload[0] == 22 && datagram.payload[13] == 1
            }
        )

        var rtp = 0, rtcp = 0
        for (index, (datagram, twin)) in zip(wire, decrypted).enumerated() {
            guard let first = datagram.payload.first, (128...191).contains(first), datagram.payload.count >= 2 else {
                continue
            }
            let fromDtlsClient =
                datagram.sourceAddress == clientHello.sourceAddress && datagram.sourcePort == clientHello.sourcePort
            let receiver = fromDtlsClient ? call.browser : call.aiortc
            let isRTCP = (192...223).contains(datagram.payload[1])  // RFC 5761 §4
            let result = receiver.apply(isRTCP ? .unprotectRTCP : .unprotectRTP, datagram.payload)
            #expect(result == .success(twin.payload), "UDP datagram \(index + 1)")
            if isRTCP { rtcp += 1 } else { rtp += 1 }
        }
        #expect(rtp > 300)
        #expect(rtcp > 5)
        let counters = [call.aiortc.counters, call.browser.counters]
        #expect(counters.map(\.unprotected).reduce(0, +) == UInt64(rtp + rtcp))
        #expect(counters.allSatisfy { $0.unprotected > 0 && $0.authenticationFailures == 0 && $0.replays == 0 })
    }
}

/// The UDP datagrams of a capture, in order, read with SwiftRTCCapture's ``CaptureReader``.
private func udpDatagrams(_ url: URL) throws -> [CaptureReader.Datagram] {
    var iterator = try CaptureReader(bytes: [UInt8](Data(contentsOf: url))).makeIterator()
    var datagrams: [CaptureReader.Datagram] = []
    while let datagram = iterator.next() { datagrams.append(datagram) }
    if let error = iterator.error { throw error }
    return datagrams
}
