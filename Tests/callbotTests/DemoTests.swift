import Foundation
import Testing

/// `callbot demo`: a loopback call with live statsString and a summary.
@Test func demoMakesALoopbackCallAndPrintsStats() async throws {
    let demo = try await Callbot.run(["demo", "--duration", "3", "--stats-interval", "1", "--width", "160", "--height", "120", "--fps", "15"])
    #expect(demo.status == 0, "\(demo.stdout)\n\(demo.stderr)")
    let lines = demo.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("demo: connected (ICE ") == true)
    // Live stats: one block per side per interval.
    #expect(lines.filter { $0.hasPrefix("--- caller") }.count >= 2)
    let cn = lines.filter { $0.range(of: #"^CN (\d+ms|-) \| host->(host|prflx)/udp \| \(s\)\d+Kbps \| \(r\)\d+Kbps$"#, options: .regularExpression) != nil }
    #expect(cn.count >= 4, "\(demo.stdout)")
    let vr = lines.filter { $0.range(of: #"^VR \(recv\) 160x120@\d+fps \| \(decoded\)\d+ \| \(output\)\d+fps \| \d+Kbps/\d+bps \| \d+ms$"#, options: .regularExpression) != nil }
    #expect(vr.count >= 4)
    #expect(lines.contains { $0.range(of: #"^AR \d+Kbps \| opus \| \d+ms \| \(expandrate\)\d+\.\d+$"#, options: .regularExpression) != nil })
    // The summary: both sides decoded audio with a level and video of the right size.
    let summary = try #require(lines.last)
    let match = try #require(summary.firstMatch(of: /caller decoded audio (\d+) frames rms ([0-9.]+), video (\d+) frames 160x120 \| callee decoded audio (\d+) frames rms ([0-9.]+), video (\d+) frames 160x120/))
    #expect(Int(match.1) ?? 0 > 50)
    #expect(Double(match.2) ?? 0 > 0.05)
    #expect(Int(match.3) ?? 0 > 20)
    #expect(Int(match.4) ?? 0 > 50)
    #expect(Int(match.6) ?? 0 > 20)
}

@Test func demoRejectsBadArguments() async throws {
    let bad = try await Callbot.run(["demo", "--duration", "0"])
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("--duration"))
}
