import Foundation
import Testing
@testable import SwiftRTCDTLS

/// The RFC 5764 §4.2 split, checked against the exporter output and keys recorded from real
/// Chromium/Firefox <-> aiortc calls (browser = DTLS server in all three).
@Suite struct SrtpKeyingMaterialTests {
    static let files = [
        "srtp-real-chrome-156-aes128-cm-sha1-80.json",
        "srtp-real-firefox-153-aes128-cm-sha1-80.json",
        "srtp-real-chrome-156-aead-aes128-gcm.json",
    ]

    @Test(arguments: files)
    func splitsRecordedExporterOutput(file: String) throws {
        let url = fixturesDirectory.appendingPathComponent("vectors").appendingPathComponent(file)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let keying = try #require(json?["keying"] as? [String: Any])
        let profile = try #require(
            ["SRTP_AES128_CM_SHA1_80": DtlsSrtpProfile.aes128CmHmacSha1_80, "SRTP_AEAD_AES_128_GCM": .aeadAes128Gcm][
                keying["srtp_profile"] as? String ?? ""])
        let field = { (name: String) throws -> [UInt8] in bytes(hex: try #require(keying[name] as? String)) }
        let exported = try field("exported_keying_material")
        #expect(exported.count == SrtpKeyingMaterial.exporterLength(for: profile))
        #expect(profile.masterKeyLength == keying["master_key_length"] as? Int)
        #expect(profile.masterSaltLength == keying["master_salt_length"] as? Int)

        let client = try SrtpKeyingMaterial(exporterOutput: exported, profile: profile, role: .client)
        #expect(client.localKey == (try field("client_write_master_key")))
        #expect(client.localSalt == (try field("client_write_master_salt")))
        #expect(client.remoteKey == (try field("server_write_master_key")))
        #expect(client.remoteSalt == (try field("server_write_master_salt")))

        let server = try SrtpKeyingMaterial(exporterOutput: exported, profile: profile, role: .server)
        #expect(server.localKey == client.remoteKey && server.localSalt == client.remoteSalt)
        #expect(server.remoteKey == client.localKey && server.remoteSalt == client.localSalt)
    }

    @Test func rejectsWrongLength() {
        #expect(throws: DtlsError.keyingMaterialLength(profile: .aeadAes256Gcm, expected: 88, actual: 60)) {
            try SrtpKeyingMaterial(exporterOutput: Array(repeating: 0, count: 60), profile: .aeadAes256Gcm, role: .client)
        }
    }

    @Test func profileIdsAndLengthsFollowTheRegistry() {
        #expect(DtlsSrtpProfile.aes128CmHmacSha1_80.rawValue == 0x0001)
        #expect(DtlsSrtpProfile.aes128CmHmacSha1_32.rawValue == 0x0002)
        #expect(DtlsSrtpProfile.aeadAes128Gcm.rawValue == 0x0007)
        #expect(DtlsSrtpProfile.aeadAes256Gcm.rawValue == 0x0008)
        #expect(SrtpKeyingMaterial.exporterLength(for: .aes128CmHmacSha1_80) == 60)
        #expect(SrtpKeyingMaterial.exporterLength(for: .aeadAes128Gcm) == 56)
        #expect(SrtpKeyingMaterial.exporterLength(for: .aeadAes256Gcm) == 88)
        // GnuTLS 3.7.9 (Debian 12) knows only the AES-CM profiles; a newer one adds AEAD first.
        #expect(DtlsSrtpProfile.supported.suffix(2) == [.aes128CmHmacSha1_80, .aes128CmHmacSha1_32])
    }
}
