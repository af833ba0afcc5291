import Foundation
import TestScheduling
import Testing

/// `callbot demo`: two bots call over the embedded signaling, with live statsString, chat lines
/// both ways, a custom item, the hang up, the call log and a summary.
@Test(.realTime) func demoMakesACallAndPrintsStatsAndTheCallLog() async throws {
    let demo = try await Callbot.run([
        "demo", "--duration", "3", "--stats-interval", "1", "--width", "160", "--height", "120", "--fps", "15",
    ])
    #expect(demo.status == 0, "\(demo.stdout)\n\(demo.stderr)")
    let lines = demo.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("demo: connected (ICE ") })
    #expect(lines.contains("demo: bob gets a call from alice (video), user info [\"topic\": \"demo\"]"))
    #expect(lines.contains("demo: alice sees bob accept, user info [\"answer\": \"hi alice\"]"))
    #expect(lines.contains("demo: bob sees alice set custom items stage=halfway,topic=SwiftRTC demo"))
    #expect(lines.contains("demo: bob sees alice hang up, user info [\"bye\": \"see you\"]"))
    // The chat: alice greets, bob replies quoting her, and alice says something half way.
    for line in [
        "demo: alice says on the chat: hello bob, this is alice",
        "demo: bob gets chat from alice: hello bob, this is alice",
        "demo: bob says on the chat: hi alice, got \"hello bob, this is alice\"",
        "demo: alice gets chat from bob: hi alice, got \"hello bob, this is alice\"",
        "demo: bob gets chat from alice: halfway: the topic is now SwiftRTC demo",
    ] {
        #expect(lines.contains(line), "\(line)\n\(demo.stdout)")
    }
    // The call log: one completed video call alice -> bob with the custom items kept.
    #expect(
        lines.contains {
            $0.hasPrefix("demo: bob's call ended: completed, ")
                && $0.hasSuffix("custom items stage=halfway,topic=SwiftRTC demo")
        }
    )
    let logIndex = try #require(lines.firstIndex(of: "demo: call log of alice (1):"))
    #expect(
        lines[logIndex + 1].range(
            of: #"^  [0-9A-F-]{36} alice -> bob video completed \d+\.\d s started \d{4}-"#,
            options: .regularExpression
        ) != nil
    )
    // Live stats: one block per side per interval.
    #expect(lines.filter { $0.hasPrefix("--- caller") }.count >= 2)
    let cn = lines.filter {
        $0.range(
            of: #"^CN (\d+ms|-) \| host->(host|prflx)/udp \| \(s\)\d+Kbps \| \(r\)\d+Kbps$"#,
            options: .regularExpression
        ) != nil
    }
    #expect(cn.count >= 4, "\(demo.stdout)")
    let vr = lines.filter {
        $0.range(
            of: #"^VR \(recv\) 160x120@\d+fps \| \(decoded\)\d+ \| \(output\)\d+fps \| \d+Kbps/\d+bps \| \d+ms$"#,
            options: .regularExpression
        ) != nil
    }
    #expect(vr.count >= 4)
    #expect(
        lines.contains {
            $0.range(of: #"^AR \d+Kbps \| opus \| \d+ms \| \(expandrate\)\d+\.\d+$"#, options: .regularExpression)
                != nil
        }
    )
    // The summary: both sides decoded audio with a level and video of the right size.
    let summary = try #require(lines.last)
    let match = try #require(
        summary.firstMatch(
            of:
                /caller decoded audio (\d+) frames rms ([0-9.]+), video (\d+) frames 160x120 \| callee decoded audio (\d+) frames rms ([0-9.]+), video (\d+) frames 160x120/
        )
    )
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
