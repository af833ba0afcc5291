import Foundation
import SwiftRTCSRTP
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
            ["SRTP_AES128_CM_SHA1_80": SrtpProfile.aes128CmHmacSha1_80, "SRTP_AEAD_AES_128_GCM": .aeadAes128Gcm][
                keying["srtp_profile"] as? String ?? ""
            ]
        )
        let field = { (name: String) throws -> [UInt8] in bytes(hex: try #require(keying[name] as? String)) }
        let exported = try field("exported_keying_material")
        #expect(exported.count == profile.keyingMaterialLength)
        #expect(profile.keyLength == keying["master_key_length"] as? Int)
        #expect(profile.saltLength == keying["master_salt_length"] as? Int)

        let client = try SrtpKeyingMaterial(exporterOutput: exported, profile: profile, role: .client)
        #expect(client.profile == profile)
        #expect(
            client.local
                == SrtpMasterKey(key: try field("client_write_master_key"), salt: try field("client_write_master_salt"))
        )
        #expect(
            client.remote
                == SrtpMasterKey(key: try field("server_write_master_key"), salt: try field("server_write_master_salt"))
        )

        let server = try SrtpKeyingMaterial(exporterOutput: exported, profile: profile, role: .server)
        #expect(server.local == client.remote && server.remote == client.local)
        // Keyed straight into SRTP sessions.
        #expect(throws: Never.self) {
            try SrtpSession(profile: client.profile, local: client.local, remote: client.remote)
        }
    }

    @Test func rejectsWrongLength() {
        #expect(throws: DtlsError.keyingMaterialLength(profile: .aeadAes256Gcm, expected: 88, actual: 60)) {
            try SrtpKeyingMaterial(
                exporterOutput: Array(repeating: 0, count: 60),
                profile: .aeadAes256Gcm,
                role: .client
            )
        }
    }

    @Test func gnuTLSNegotiatesTheAESCMProfiles() {
        // GnuTLS 3.7.9 (Debian 12) knows only the AES-CM profiles; a newer one adds AEAD first.
        #expect(SrtpProfile.dtlsSupported.suffix(2) == [.aes128CmHmacSha1_80, .aes128CmHmacSha1_32])
    }
}
