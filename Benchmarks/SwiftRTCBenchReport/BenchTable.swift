/// The human table of `swiftrtc-bench`, and the ratios of our throughput to the limits.
public enum BenchTable {
    /// The limit scenarios a throughput row is compared with: (scenario, ratio field name).
    public static let limits: [(scenario: String, field: String)] = [
        ("limit-udp", "ratio_udp"),
        ("limit-srtp-cm80", "ratio_libsrtp_cm80"),
        ("limit-srtp-gcm", "ratio_libsrtp_gcm"),
        ("limit-udp-2t", "ratio_udp_2t"),
        ("limit-srtp-cm80-2t", "ratio_libsrtp_cm80_2t"),
        ("limit-srtp-gcm-2t", "ratio_libsrtp_gcm_2t"),
        ("limit-nettle-cm80-2t", "ratio_nettle_cm80_2t"),
        ("limit-nettle-gcm-2t", "ratio_nettle_gcm_2t"),
    ]

    /// `results` with, on every `swiftrtc` throughput row, its packets per second received
    /// divided by each limit's of ``limits`` measured in the same run (`ratio_udp`,
    /// `ratio_libsrtp_cm80_2t`...; absent when that limit was not run).
    public static func addingRatios(_ results: [BenchResult]) -> [BenchResult] {
        results.map { result in
            guard result.impl == "swiftrtc", result.scenario.hasPrefix("throughput") else { return result }
            var result = result
            for (scenario, field) in limits {
                guard let limit = results.first(where: { $0.scenario == scenario }), limit.ppsReceived > 0 else {
                    continue
                }
                result.extra.append((field, result.ppsReceived / limit.ppsReceived))
            }
            return result
        }
    }

    static let header = [
        "scenario", "impl", "profile", "sent", "received", "lost", "pkt/s", "Mbit/s", "cpu u+s", "maxRSS MB", "figures",
    ]

    /// A plain-text table, one row per result, columns aligned.
    public static func render(_ results: [BenchResult]) -> String {
        var rows = [header]
        for r in results {
            let figures =
                r.extra.map { "\($0.name)=\($0.value.map(format) ?? "-")" }.joined(separator: " ")
                + (r.note.map { " (\($0))" } ?? "")
            rows.append([
                r.scenario, r.impl, r.profile, String(r.packetsSent), String(r.packetsReceived), String(r.lost),
                format(r.ppsReceived), format(r.mbps), format(r.cpuUserSeconds + r.cpuSystemSeconds),
                format(r.maxRSSMegabytes), figures,
            ])
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// A number for the table: 3 significant digits below 1000, whole numbers above.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        if abs(value) >= 1000 || value == value.rounded() { return String(Int64(value.rounded())) }
        if abs(value) >= 100 { return String((value * 10).rounded() / 10) }
        if abs(value) >= 1 { return String((value * 100).rounded() / 100) }
        return String((value * 1000).rounded() / 1000)
    }
}

extension String {
    fileprivate func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }
}
