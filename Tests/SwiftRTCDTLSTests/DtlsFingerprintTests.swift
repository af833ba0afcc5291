import Foundation
import SwiftRTCSDP
import Testing

@testable import SwiftRTCDTLS

@Suite struct DtlsFingerprintTests {
    /// `count` bytes of `hex`, as an SDP fingerprint writes them.
    static func digest(_ hex: String, count: Int) -> String {
        Array(repeating: hex, count: count).joined(separator: ":")
    }

    static let everyHashFunction: [(String, DtlsFingerprint.Algorithm, Int)] = [
        ("sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB", .sha1, 20),
        ("sha-224 " + digest("0F", count: 28), .sha224, 28),
        ("sha-256 " + digest("AB", count: 32), .sha256, 32),
        ("SHA-384 " + digest("ab", count: 48), .sha384, 48),
        ("sha-512 " + digest("00", count: 64) + "\r", .sha512, 64),
    ]

    @Test(arguments: everyHashFunction)
    func parsesEveryHashFunction(value: String, algorithm: DtlsFingerprint.Algorithm, length: Int) throws {
        let fingerprint = try DtlsFingerprint(sdpValue: value)
        #expect(fingerprint.algorithm == algorithm)
        #expect(fingerprint.digest.count == length)
        // Formatting is canonical: lower-case name, upper-case hex.
        #expect(
            fingerprint.sdpValue
                == value.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
                .replacingOccurrences(of: "SHA-", with: "sha-")
        )
        #expect(try DtlsFingerprint(sdpValue: fingerprint.sdpValue) == fingerprint)
    }

    @Test(arguments: [
        ("", "<hash-func> SP <hex bytes separated by ':'>"),
        ("sha-256", "<hash-func> SP <hex bytes separated by ':'>"),
        ("md5 AB:CD", "a hash function of sha-1, sha-224, sha-256, sha-384, sha-512, not \"md5\""),
        ("sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C", "20 bytes for sha-1, found 19"),
        ("sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:CD", "20 bytes for sha-1, found 21"),
        (
            "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AG",
            "two hex digits at byte 20, found \"AG\""
        ),
        ("sha-1 4A:AD::B1", "two hex digits at byte 3, found \"\""),
        ("sha-1 4AAD", "two hex digits at byte 1, found \"4AAD\""),
        ("sha-1 4A:AD extra", "<hash-func> SP <hex bytes separated by ':'>"),
    ])
    func rejectsMalformedValuesSayingWhat(value: String, expected: String) {
        #expect(throws: DtlsError.invalidFingerprint(value: value, expected: expected)) {
            try DtlsFingerprint(sdpValue: value)
        }
    }

    /// An SDP fingerprint is checked like its text: MD5 and wrong digest lengths are refused.
    @Test func checksFingerprintsReadFromSDP() {
        #expect(throws: DtlsError.self) {
            try DtlsFingerprint(Fingerprint(hashFunction: "md5", bytes: Array(repeating: 1, count: 16)))
        }
        #expect(throws: DtlsError.self) {
            try DtlsFingerprint(Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 1, count: 31)))
        }
        #expect(throws: Never.self) {
            try DtlsFingerprint(Fingerprint(hashFunction: "SHA-256", bytes: Array(repeating: 1, count: 32)))
        }
    }

    /// Every `a=fingerprint` in the recorded browser and stack SDPs parses and formats back.
    @Test func parsesEveryRecordedSdpFingerprint() throws {
        var seen: [DtlsFingerprint.Algorithm: Int] = [:]
        for directory in ["sdp", "rtp"] {
            let folder = fixturesDirectory.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".sdp") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("a=fingerprint:") {
                    let value = String(line.dropFirst("a=fingerprint:".count))
                    let fingerprint = try DtlsFingerprint(sdpValue: value)
                    #expect(fingerprint.sdpValue.uppercased() == value.uppercased(), "\(file)")
                    // The same through SDP's model, both ways.
                    let parts = value.split(separator: " ")
                    let sdp = Fingerprint(hashFunction: String(parts[0]), value: String(parts[1]))
                    #expect(try DtlsFingerprint(sdp) == fingerprint, "\(file)")
                    #expect(fingerprint.sdpFingerprint.matches(sdp), "\(file)")
                    seen[fingerprint.algorithm, default: 0] += 1
                }
            }
        }
        #expect(seen[.sha256, default: 0] > 50)
        #expect(seen[.sha384, default: 0] > 0)
        #expect(seen[.sha512, default: 0] > 0)
    }

    /// RFC 8122 §5: only the fingerprints with the strongest hash function offered count.
    @Test func strongestHashFunctionDecides() throws {
        let sha1 = try DtlsFingerprint(algorithm: .sha1, digest: Array(repeating: 1, count: 20))
        let sha256a = try DtlsFingerprint(algorithm: .sha256, digest: Array(repeating: 2, count: 32))
        let sha256b = try DtlsFingerprint(algorithm: .sha256, digest: Array(repeating: 3, count: 32))
        #expect(DtlsFingerprint.strongest(of: [sha1, sha256a, sha256b]) == [sha256a, sha256b])
        #expect(DtlsFingerprint.strongest(of: [sha1]) == [sha1])
        #expect(DtlsFingerprint.strongest(of: []).isEmpty)
    }

    /// SHA-256 of the ASCII bytes "abc" (FIPS 180-2 example), through the certificate hash path.
    @Test func hashesWithGnuTLS() {
        let abc = Array("abc".utf8)
        #expect(
            DtlsFingerprint(algorithm: .sha256, certificateDER: abc).sdpValue
                == "sha-256 BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD"
        )
        #expect(
            DtlsFingerprint(algorithm: .sha1, certificateDER: abc).sdpValue
                == "sha-1 A9:99:3E:36:47:06:81:6A:BA:3E:25:71:78:50:C2:6C:9C:D0:D8:9D"
        )
    }
}
