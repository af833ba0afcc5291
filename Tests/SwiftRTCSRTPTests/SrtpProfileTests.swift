import Testing
@testable import SwiftRTCSRTP

@Test func profilesSplitKeyingMaterialAsRFC5764() {
    #expect(SrtpProfile.aes128CmHmacSha1_80.keyingMaterialLength == 60)
    #expect(SrtpProfile.aeadAes128Gcm.keyingMaterialLength == 56)
    #expect(SrtpProfile.aeadAes256Gcm.keyingMaterialLength == 88)
    #expect(SrtpProfile(rawValue: 0x0007) == .aeadAes128Gcm)
    #expect(SrtpProfile.aes128CmHmacSha1_32.rtpTagLength == 4)
    #expect(SrtpLibrary.version.hasPrefix("libsrtp2 2."))
}
