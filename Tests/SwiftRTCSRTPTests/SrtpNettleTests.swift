import CSRTP
import Foundation
import Testing

@testable import SwiftRTCSRTP

/// The nettle-backed AES-ICM-128, AES-GCM and HMAC-SHA1 against libsrtp's own self-tests and against
/// stock libsrtp, byte for byte, in both directions.
@Suite struct SrtpNettleTests {
    @Test func replacementsPassLibsrtpSelfTests() throws {
        #expect(srtp_cipher_type_self_test(try CryptoTypes.aesIcm128(.nettle)) == srtp_err_status_ok)
        #expect(srtp_auth_type_self_test(try CryptoTypes.hmacSha1(.nettle)) == srtp_err_status_ok)
        for keyLength in [16, 32] {
            let fast = try CryptoTypes.aesGcm(keyLength, .nettle), stock = try CryptoTypes.aesGcm(keyLength, .stock)
            #expect(srtp_cipher_type_self_test(fast) == srtp_err_status_ok)
            #expect(srtp_cipher_type_test(fast, stock.pointee.test_data) == srtp_err_status_ok)
            #expect(fast.pointee.id == stock.pointee.id)
        }
        // And against the stock types' vectors, as srtp_replace_* does.
        let stockCipher = try CryptoTypes.aesIcm128(.stock), stockAuth = try CryptoTypes.hmacSha1(.stock)
        #expect(
            srtp_cipher_type_test(try CryptoTypes.aesIcm128(.nettle), stockCipher.pointee.test_data)
                == srtp_err_status_ok
        )
        #expect(
            srtp_auth_type_test(try CryptoTypes.hmacSha1(.nettle), stockAuth.pointee.test_data) == srtp_err_status_ok
        )
        #expect(stockCipher.pointee.id == SRTP_AES_ICM_128 && stockAuth.pointee.id == SRTP_HMAC_SHA1)
    }

    @Test func libsrtpTakesTheReplacements() throws {
        let profile = SrtpProfile.aes128CmHmacSha1_80
        let keys = testKeys(profile, seed: 9)
        #expect(try SrtpSession(profile: profile, local: keys, remote: keys, crypto: .nettle).crypto == .nettle)
        #expect(try SrtpSession(profile: profile, local: keys, remote: keys, crypto: .stock).crypto == .stock)
        let fromEnvironment = ProcessInfo.processInfo.environment["SWIFTRTC_SRTP_CRYPTO"]
        #expect(SrtpCrypto.default == (fromEnvironment == "stock" ? .stock : .nettle))
    }

    @Test(arguments: [1, 10, 20], [0, 1, 20, 63, 64, 65, 1200])
    func hmacMatchesStock(tagLength: Int, dataLength: Int) throws {
        let key = (0..<20).map { UInt8($0 &* 11 &+ 1) }
        let data = (0..<dataLength).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let roc: [UInt8] = [0, 0, 0, 1]
        let stock = try runAuth(CryptoTypes.hmacSha1(.stock), key: key, tagLength: tagLength, chunks: [data, roc])
        #expect(
            try runAuth(CryptoTypes.hmacSha1(.nettle), key: key, tagLength: tagLength, chunks: [data, roc]) == stock
        )
        #expect(
            try runAuth(CryptoTypes.hmacSha1(.nettle), key: key, tagLength: tagLength, chunks: [data + roc]) == stock
        )
    }

    @Test(arguments: SrtpProfile.allCases)
    func protectIsByteIdenticalToStockBothWays(profile: SrtpProfile) throws {
        let local = testKeys(profile, seed: 3), remote = testKeys(profile, seed: 77)
        let fast = try SrtpSession(profile: profile, local: local, remote: remote, crypto: .nettle)
        let stock = try SrtpSession(profile: profile, local: local, remote: remote, crypto: .stock)
        // Receivers of each (their remote key is our local key).
        let fastPeer = try SrtpSession(profile: profile, local: remote, remote: local, crypto: .nettle)
        let stockPeer = try SrtpSession(profile: profile, local: remote, remote: local, crypto: .stock)
        #expect(fast.crypto == .nettle && stock.crypto == .stock)

        for (index, sequence) in (UInt16(65_000)...UInt16(65_535)).enumerated()
        where index % 7 == 0 || sequence > 65_530 {
            let plain = rtpPacket(sequence: sequence, payloadLength: (index * 37) % 1250)
            let byFast = try fast.apply(.protectRTP, plain).get()
            let byStock = try stock.apply(.protectRTP, plain).get()
            #expect(byFast == byStock, "seq \(sequence)")
            #expect(try stockPeer.apply(.unprotectRTP, byFast).get() == plain)
            #expect(try fastPeer.apply(.unprotectRTP, byStock).get() == plain)
        }
        // Past the rollover: the ROC goes to 1 on both.
        for sequence in UInt16(0)..<3 {
            let plain = rtpPacket(sequence: sequence, payloadLength: 1200)
            let byFast = try fast.apply(.protectRTP, plain).get()
            #expect(byFast == (try stock.apply(.protectRTP, plain).get()))
            #expect(try stockPeer.apply(.unprotectRTP, byFast).get() == plain)
        }
        for _ in 0..<3 {
            let rtcp = rtcpPacket() + (0..<100).map { UInt8($0) }
            let byFast = try fast.apply(.protectRTCP, rtcp).get()
            let byStock = try stock.apply(.protectRTCP, rtcp).get()
            #expect(byFast == byStock)
            #expect(try stockPeer.apply(.unprotectRTCP, byFast).get() == rtcp)
            #expect(try fastPeer.apply(.unprotectRTCP, byStock).get() == rtcp)
        }
        #expect(fastPeer.counters.unprotected == stockPeer.counters.unprotected - 3)
        #expect(fastPeer.counters.authenticationFailures == 0 && stockPeer.counters.authenticationFailures == 0)
    }
}
