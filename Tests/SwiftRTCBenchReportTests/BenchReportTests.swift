import Foundation
import SwiftRTCBenchReport
import Testing

/// swiftrtc-bench's options and output format, without running any benchmark.
@Suite struct BenchReportTests {
    static func sample(
        scenario: String = "throughput",
        impl: String = "swiftrtc",
        received: Int = 200_000
    ) -> BenchResult {
        BenchResult(
            impl: impl,
            profile: "cm80",
            scenario: scenario,
            packetsSent: 200_016,
            packetsReceived: received,
            seconds: 2,
            cpuUserSeconds: 1.5,
            cpuSystemSeconds: 2.25,
            maxRSSMegabytes: 41.5,
            payloadBytes: 1200,
            extra: [("cpu_us_per_packet", 18.75), ("missing", nil)],
            note: "window \"16\""
        )
    }

    @Test func jsonLineHasEveryRequiredFieldWithItsValue() throws {
        let line = Self.sample().jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["impl"] as? String == "swiftrtc")
        #expect(object["profile"] as? String == "cm80")
        #expect(object["scenario"] as? String == "throughput")
        #expect(object["packets_sent"] as? Int == 200_016)
        #expect(object["packets_received"] as? Int == 200_000)
        #expect(object["seconds"] as? Double == 2)
        #expect(object["pps_received"] as? Double == 100_000)
        #expect(object["mbps"] as? Double == 960)  // 100k/s x 1200 bytes x 8
        #expect(object["cpu_user_s"] as? Double == 1.5)
        #expect(object["cpu_sys_s"] as? Double == 2.25)
        #expect(object["max_rss_mb"] as? Double == 41.5)
        #expect(object["cpu_us_per_packet"] as? Double == 18.75)
        #expect(object["missing"] is NSNull)
        #expect(object["note"] as? String == "window \"16\"")
        // Required fields first, in the issue's order.
        #expect(
            line.hasPrefix(
                #"{"impl":"swiftrtc","profile":"cm80","scenario":"throughput","packets_sent":200016,"packets_received":200000,"seconds":2,"pps_received":100000,"mbps":960,"cpu_user_s":1.5,"cpu_sys_s":2.25,"max_rss_mb":41.5,"#
            )
        )
    }

    @Test(arguments: [
        (1.0 / 3, "0.3333"), (2.0, "2"), (-0.5, "-0.5"), (Double.nan, "null"), (Double.infinity, "null"),
        (123456.78901, "123456.789"),
    ])
    func jsonNumbers(value: Double, text: String) {
        var result = Self.sample()
        result.extra = [("x", value)]
        result.note = nil
        #expect(result.jsonLine.hasSuffix(#","x":\#(text)}"#))
    }

    /// Our rows name the profile the connection negotiated, from its IANA name (RFC 5764
    /// §4.1.2, RFC 7714 §14.2) as the transport stats give it.
    @Test(arguments: [
        ("SRTP_AES128_CM_HMAC_SHA1_80", "cm80"), ("SRTP_AES128_CM_HMAC_SHA1_32", "cm32"),
        ("SRTP_AEAD_AES_128_GCM", "gcm"), ("SRTP_AEAD_AES_256_GCM", "gcm256"),
        ("SRTP_NULL_HMAC_SHA1_80", "unknown"), ("", "unknown"),
    ])
    func profileFromTheNegotiatedSrtpCipher(srtpCipher: String, profile: String) {
        #expect(BenchResult.profile(srtpCipher: srtpCipher) == profile)
    }

    @Test func profileOfAConnectionWithoutSrtpIsUnknown() {
        #expect(BenchResult.profile(srtpCipher: nil) == "unknown")
    }

    /// Data channel rows name the DTLS cipher suite the connection negotiated (GnuTLS's name,
    /// as the transport stats' `dtlsCipher` and the C loop give it): no SRTP protects them.
    @Test(arguments: [
        ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "dtls-aes128gcm"),
        ("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "dtls-aes256gcm"),
        ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "dtls-chacha20"),
        ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA1", "dtls-aes128cbc"), ("TLS_NULL_WITH_NULL_NULL", "unknown"),
    ])
    func profileFromTheNegotiatedDtlsCipher(dtlsCipher: String, profile: String) {
        #expect(BenchResult.profile(dtlsCipher: dtlsCipher) == profile)
        #expect(BenchResult.profile(dtlsCipher: nil) == "unknown")
    }

    @Test func jsonStringsAreEscaped() throws {
        var result = Self.sample()
        result.note = "a\\b\n\t\u{01}é"
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.jsonLine.utf8)) as? [String: Any])
        #expect(object["note"] as? String == "a\\b\n\t\u{01}é")
    }

    @Test func ratiosToTheLimitsGoOnOurThroughputRowsOnly() {
        let limits = [
            Self.sample(scenario: "limit-udp", impl: "udp", received: 500_000),
            Self.sample(scenario: "limit-srtp-cm80", impl: "libsrtp-c", received: 200_000),
            Self.sample(scenario: "limit-srtp-gcm", impl: "libsrtp-c", received: 400_000),
            Self.sample(scenario: "limit-srtp-cm80-2t", impl: "libsrtp-c", received: 250_000),
            Self.sample(scenario: "limit-nettle-cm80-2t", impl: "nettle-c", received: 800_000),
        ]
        let rows = BenchTable.addingRatios(limits + [Self.sample(), Self.sample(scenario: "setup")])
        let ours = rows[5]
        #expect(ours[extra: "ratio_udp"] == 0.4)
        #expect(ours[extra: "ratio_libsrtp_cm80"] == 1)
        #expect(ours[extra: "ratio_libsrtp_gcm"] == 0.5)
        #expect(ours[extra: "ratio_libsrtp_cm80_2t"] == 0.8)
        #expect(ours[extra: "ratio_nettle_cm80_2t"] == 0.25)
        #expect(ours[extra: "ratio_udp_2t"] == nil, "that limit did not run")
        #expect(rows[6][extra: "ratio_udp"] == nil)
        #expect(rows[0][extra: "ratio_udp"] == nil)
        let table = BenchTable.render(rows)
        #expect(table.split(separator: "\n").count == 8)
        #expect(table.contains("ratio_libsrtp_cm80=1"))
        #expect(table.contains("ratio_libsrtp_gcm=0.5"))
    }

    @Test func optionsParse() throws {
        let options = try BenchOptions.parse([
            "--seconds", "2", "--json", "--calls", "10", "100", "--setup-calls", "20", "--channels", "50",
        ])
        #expect(options.seconds == 2)
        #expect(options.json)
        #expect(options.calls == [10, 100])
        #expect(options.setupCalls == 20)
        #expect(options.channels == 50)
        let defaults = try BenchOptions.parse([])
        #expect(defaults.json == false)
        #expect(defaults.calls == [10, 100, 500, 1000])
        #expect(defaults.cycles == 10_000)
        #expect(defaults.channels == 1000)
    }

    @Test(arguments: [
        ["--seconds", "0"], ["--calls", "0"], ["--setup-calls", "0"], ["--seconds", "x"], ["--bogus"],
        ["--channels", "0"], ["--channels", "30001"],
    ])
    func badOptionsAreRefused(arguments: [String]) {
        #expect(throws: (any Error).self) { try BenchOptions.parse(arguments) }
    }
}
