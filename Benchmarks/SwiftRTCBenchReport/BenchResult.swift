/// One measured scenario of `swiftrtc-bench`: a row of the table, a line of `--json`.
///
/// The first fields are the ones every line has (issue 10): `impl`, `profile`, `scenario`,
/// `packets_sent`, `packets_received`, `seconds`, `pps_received`, `mbps`, `cpu_user_s`,
/// `cpu_sys_s`, `max_rss_mb`; scenario-specific figures follow in ``extra``, in order.
public struct BenchResult: Sendable, Equatable {
    /// Who moved the packets: `swiftrtc` for ours; `udp` and `libsrtp-c` for the limits.
    public var impl: String
    /// The SRTP profile: `cm80` (AES_CM_128_HMAC_SHA1_80), `cm32`, `gcm` (AEAD_AES_128_GCM),
    /// `gcm256`, or `none`; for our rows the one the connection negotiated
    /// (``profile(srtpCipher:)``).
    public var profile: String
    /// The scenario, e.g. `throughput`, `throughput-vp8`, `limit-udp`, `connections-100`.
    public var scenario: String
    public var packetsSent: Int
    public var packetsReceived: Int
    /// The measured interval.
    public var seconds: Double
    /// CPU time of the process over the interval.
    public var cpuUserSeconds: Double
    public var cpuSystemSeconds: Double
    /// The process's peak resident memory (getrusage `ru_maxrss`) at the end of the interval.
    public var maxRSSMegabytes: Double
    /// Bytes of RTP payload (or datagram) per packet, for ``mbps``.
    public var payloadBytes: Int
    /// Scenario-specific figures (name, value), printed after the common fields.
    public var extra: [(name: String, value: Double?)]
    /// A short free-text remark (what limited the scenario, what was scaled down).
    public var note: String?

    /// The bench's name of a DTLS-SRTP protection profile given its IANA name (the transport
    /// stats' `srtpCipher`, e.g. `SRTP_AES128_CM_HMAC_SHA1_80` gives `cm80`); `unknown` for any
    /// other name or none.
    public static func profile(srtpCipher: String?) -> String {
        switch srtpCipher {
        case "SRTP_AES128_CM_HMAC_SHA1_80": "cm80"
        case "SRTP_AES128_CM_HMAC_SHA1_32": "cm32"
        case "SRTP_AEAD_AES_128_GCM": "gcm"
        case "SRTP_AEAD_AES_256_GCM": "gcm256"
        default: "unknown"
        }
    }

    /// The bench's name of a DTLS cipher suite given its name as GnuTLS gives it (the
    /// transport stats' `dtlsCipher`, e.g. `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256` gives
    /// `dtls-aes128gcm`): the profile of data channel rows, which no SRTP protects; `unknown`
    /// for any other cipher or none.
    public static func profile(dtlsCipher: String?) -> String {
        guard let dtlsCipher else { return "unknown" }
        let ciphers = [
            ("_AES_128_GCM_", "aes128gcm"), ("_AES_256_GCM_", "aes256gcm"), ("_CHACHA20_POLY1305", "chacha20"),
            ("_AES_128_CBC_", "aes128cbc"), ("_AES_256_CBC_", "aes256cbc"),
        ]
        return ciphers.first { dtlsCipher.contains($0.0) }.map { "dtls-" + $0.1 } ?? "unknown"
    }

    /// Creates a result.
    public init(
        impl: String,
        profile: String,
        scenario: String,
        packetsSent: Int,
        packetsReceived: Int,
        seconds: Double,
        cpuUserSeconds: Double,
        cpuSystemSeconds: Double,
        maxRSSMegabytes: Double,
        payloadBytes: Int,
        extra: [(name: String, value: Double?)] = [],
        note: String? = nil
    ) {
        self.impl = impl
        self.profile = profile
        self.scenario = scenario
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.seconds = seconds
        self.cpuUserSeconds = cpuUserSeconds
        self.cpuSystemSeconds = cpuSystemSeconds
        self.maxRSSMegabytes = maxRSSMegabytes
        self.payloadBytes = payloadBytes
        self.extra = extra
        self.note = note
    }

    /// Packets received per second.
    public var ppsReceived: Double { seconds > 0 ? Double(packetsReceived) / seconds : 0 }
    /// Payload megabits per second received.
    public var mbps: Double { ppsReceived * Double(payloadBytes) * 8 / 1_000_000 }
    /// Packets sent but not received.
    public var lost: Int { max(0, packetsSent - packetsReceived) }

    /// The value of an ``extra`` figure, if present.
    public subscript(extra name: String) -> Double? {
        extra.first(where: { $0.name == name })?.value ?? nil
    }

    public static func == (a: BenchResult, b: BenchResult) -> Bool {
        a.jsonLine == b.jsonLine
    }

    /// The result as one line of JSON (no newline), fields in a fixed order.
    public var jsonLine: String {
        var fields: [(String, String)] = [
            ("impl", Self.json(impl)),
            ("profile", Self.json(profile)),
            ("scenario", Self.json(scenario)),
            ("packets_sent", String(packetsSent)),
            ("packets_received", String(packetsReceived)),
            ("seconds", Self.json(seconds)),
            ("pps_received", Self.json(ppsReceived)),
            ("mbps", Self.json(mbps)),
            ("cpu_user_s", Self.json(cpuUserSeconds)),
            ("cpu_sys_s", Self.json(cpuSystemSeconds)),
            ("max_rss_mb", Self.json(maxRSSMegabytes)),
        ]
        for (name, value) in extra { fields.append((name, value.map(Self.json) ?? "null")) }
        if let note { fields.append(("note", Self.json(note))) }
        return "{" + fields.map { "\(Self.json($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON number: finite values with up to 4 decimals (trailing zeros dropped), else null.
    static func json(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String((value * 10_000).rounded() / 10_000)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A JSON string with the escapes RFC 8259 requires.
    static func json(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
