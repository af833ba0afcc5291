import CSRTP
import Testing

@testable import SwiftRTCSRTP

/// RFC 3711 Appendix B vectors against the AES-ICM-128 cipher libsrtp runs, stock and the
/// nettle replacement: the keystream (B.2) and the key derivation (B.3), which libsrtp computes
/// with that same cipher (IV = label in octet 7, master key and master salt as the key).
@Suite struct SrtpRFC3711Tests {
    @Test(arguments: SrtpCrypto.allCases)
    func aesCmKeystreamMatchesAppendixB2(crypto: SrtpCrypto) throws {
        let vectors = try fixtureJSON("srtp-rfc3711-aes-cm-and-kdf.json").object("B.2_aes_cm")
        let sessionKey = try vectors.hex("session_key")
        let salt = try Array(vectors.hex("session_salt_shifted")[0..<14])
        let rows = try #require(vectors["counter_to_keystream"] as? [String: String])
        #expect(rows.count == 6)

        // One IV of zero: counter = salt || block number. Rows up to block 0xFF01.
        let blocks = 0xFF02
        let keystream = try runCipher(
            CryptoTypes.aesIcm128(crypto),
            key: sessionKey + salt,
            iv: [],
            data: [UInt8](repeating: 0, count: 16 * blocks)
        )
        for (counter, expected) in rows {
            let counterBytes = try hexBytes(counter)
            #expect(Array(counterBytes[0..<14]) == salt)
            let block = Int(counterBytes[14]) << 8 | Int(counterBytes[15])
            #expect(Array(keystream[16 * block..<16 * block + 16]) == (try hexBytes(expected)), "block \(counter)")
        }
    }

    @Test(arguments: SrtpCrypto.allCases)
    func keystreamContinuesAcrossCallsAndPartialBlocks(crypto: SrtpCrypto) throws {
        let key = (0..<30).map { UInt8($0 &* 5 &+ 3) }
        let iv: [UInt8] = [0, 0, 0, 0, 0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 1, 0x23, 0x45, 0, 0]
        let data = (0..<1203).map { UInt8(truncatingIfNeeded: $0) }
        let whole = try runCipher(CryptoTypes.aesIcm128(crypto), key: key, iv: iv, data: data)
        for split in [1, 7, 16, 17, 600, 1202] {
            #expect(try runCipher(CryptoTypes.aesIcm128(crypto), key: key, iv: iv, data: data, split: split) == whole)
        }
        // The same bytes from the other implementation.
        let other: SrtpCrypto = crypto == .nettle ? .stock : .nettle
        #expect(try runCipher(CryptoTypes.aesIcm128(other), key: key, iv: iv, data: data) == whole)
        // XOR is its own inverse.
        #expect(try runCipher(CryptoTypes.aesIcm128(crypto), key: key, iv: iv, data: whole, decrypt: true) == data)
    }

    @Test(arguments: SrtpCrypto.allCases)
    func keyDerivationMatchesAppendixB3(crypto: SrtpCrypto) throws {
        let vectors = try fixtureJSON("srtp-rfc3711-aes-cm-and-kdf.json").object("B.3_key_derivation")
        let master = try vectors.hex("master_key") + vectors.hex("master_salt")
        let labels: [(UInt8, String)] = [
            (0, "srtp_cipher_key_label0"), (1, "srtp_auth_key_label1"), (2, "srtp_salt_label2"),
            (3, "srtcp_cipher_key_label3"), (4, "srtcp_auth_key_label4"), (5, "srtcp_salt_label5"),
        ]
        for (label, name) in labels {
            let expected = try vectors.hex(name)
            var iv = [UInt8](repeating: 0, count: 16)
            iv[7] = label  // key_id = label || r (r = 0 at key derivation rate 0), times 2^16
            let derived = try runCipher(
                CryptoTypes.aesIcm128(crypto),
                key: master,
                iv: iv,
                data: [UInt8](repeating: 0, count: expected.count)
            )
            #expect(derived == expected, "label \(label)")
        }
    }
}
