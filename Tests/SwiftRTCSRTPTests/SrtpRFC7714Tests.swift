import CSRTP
import Testing

@testable import SwiftRTCSRTP

/// RFC 7714 §16-17 vectors against the AES-GCM ciphers libsrtp runs for the AEAD profiles
/// (stock and the nettle replacements),
/// with the IV and AAD built as RFC 7714 §8-9 and libsrtp do. The vectors give session keys,
/// which no master key produces, so they drive the cipher; real GCM traffic with master keys
/// goes through `SrtpSession` in `SrtpRealTrafficTests`.
@Suite struct SrtpRFC7714Tests {
    @Test(arguments: ["AEAD_AES_128_GCM", "AEAD_AES_256_GCM"], SrtpCrypto.allCases)
    func gcmMatchesRFC7714(section: String, crypto: SrtpCrypto) throws {
        let vectors = try fixtureJSON("srtp-rfc7714-aes-gcm.json").object(section)
        let key = try vectors.hex("session_key"), salt = try vectors.hex("session_salt")
        let type = try CryptoTypes.aesGcm(key.count, crypto)
        let keyWithSalt = key + salt  // libsrtp's GCM key length counts the salt
        func iv(_ fields: [UInt8]) -> [UInt8] { zip(fields, salt).map { $0 ^ $1 } }

        // RTP: IV = (0x0000 || SSRC || ROC || SEQ) XOR salt; AAD = the header.
        let rtp = try vectors.hex("rtp_plain")
        let header = Array(rtp[0..<12])
        let rtpIV = iv([0, 0] + rtp[8..<12] + [0, 0, 0, 0] + rtp[2..<4])
        let encrypted = try vectors.hex("srtp_encrypted")
        let sealed = try runCipher(
            type,
            key: keyWithSalt,
            tagLength: 16,
            iv: rtpIV,
            aad: header,
            data: Array(rtp[12...])
        )
        #expect(header + sealed == encrypted)
        let opened = try runCipher(
            type,
            key: keyWithSalt,
            tagLength: 16,
            iv: rtpIV,
            aad: header,
            data: Array(encrypted[12...]),
            decrypt: true
        )
        #expect(header + opened == Array(rtp))
        var tampered = Array(encrypted[12...])
        tampered[tampered.count - 1] ^= 1
        #expect(throws: FixtureError.self) {
            try runCipher(type, key: keyWithSalt, tagLength: 16, iv: rtpIV, aad: header, data: tampered, decrypt: true)
        }
        // Authentication only: the whole packet is AAD.
        let authOnly = try runCipher(type, key: keyWithSalt, tagLength: 16, iv: rtpIV, aad: rtp, data: [])
        #expect(rtp + authOnly == (try vectors.hex("srtp_auth_only")))

        // RTCP: IV = (0x0000 || SSRC || 0x0000 || 0 || index) XOR salt; AAD = header || E,index.
        let rtcp = try vectors.hex("rtcp_plain")
        let protectedRTCP = try vectors.hex("srtcp_encrypted_with_E_and_index")
        let trailer = Array(protectedRTCP.suffix(4))
        #expect(trailer == [0x80, 0x00, 0x05, 0xD4])
        let rtcpIV = iv([0, 0] + rtcp[4..<8] + [0, 0, 0x00, 0x00, 0x05, 0xD4])
        let sealedRTCP = try runCipher(
            type,
            key: keyWithSalt,
            tagLength: 16,
            iv: rtcpIV,
            aad: Array(rtcp[0..<8]) + trailer,
            data: Array(rtcp[8...])
        )
        #expect(Array(rtcp[0..<8]) + sealedRTCP + trailer == protectedRTCP)
        let authOnlyRTCP = try runCipher(
            type,
            key: keyWithSalt,
            tagLength: 16,
            iv: rtcpIV,
            aad: rtcp + [0x00, 0x00, 0x05, 0xD4],
            data: []
        )
        #expect(rtcp + authOnlyRTCP + [0x00, 0x00, 0x05, 0xD4] == (try vectors.hex("srtcp_auth_only_with_index")))
    }
}
