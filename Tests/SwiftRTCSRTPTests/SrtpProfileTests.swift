import Testing

@testable import SwiftRTCSRTP

@Test func profilesSplitKeyingMaterialAsRFC5764() {
    #expect(SrtpProfile.aes128CmHmacSha1_80.keyingMaterialLength == 60)
    #expect(SrtpProfile.aeadAes128Gcm.keyingMaterialLength == 56)
    #expect(SrtpProfile.aeadAes256Gcm.keyingMaterialLength == 88)
    #expect(SrtpProfile(rawValue: 0x0007) == .aeadAes128Gcm)
    // IANA ids and names (RFC 5764 §4.1.2, RFC 7714 §14.2).
    #expect(SrtpProfile.aes128CmHmacSha1_80.rawValue == 0x0001)
    #expect(SrtpProfile.aes128CmHmacSha1_32.rawValue == 0x0002)
    #expect(SrtpProfile.aeadAes128Gcm.rawValue == 0x0007)
    #expect(SrtpProfile.aeadAes256Gcm.rawValue == 0x0008)
    #expect("\(SrtpProfile.aes128CmHmacSha1_80)" == "SRTP_AES128_CM_HMAC_SHA1_80")
    #expect(SrtpProfile.aeadAes256Gcm.keyLength == 32 && SrtpProfile.aeadAes256Gcm.saltLength == 12)
    #expect(SrtpProfile.aes128CmHmacSha1_32.rtpTagLength == 4)
    #expect(SrtpLibrary.version.hasPrefix("libsrtp2 2."))
}
