import SwiftRTCSDP
import Testing

/// A deterministic, seeded stand-in for the libFuzzer run (Fuzz/SDPFuzzer) that runs with the
/// tests: mutated recorded SDPs either parse (and then round-trip) or fail with an error
/// inside the text. Nothing traps.
private struct XorShift {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}

@Test(arguments: [
    "chrome-156-offer-audio-video-full-candidates-host-srflx-relay-tcp-ipv6.sdp",
    "firefox-153-offer-simulcast-rid-q-h-f.sdp",
    "gstreamer-1.22-webrtcbin-offer-video-audio-full-candidates-tcp-passive.sdp",
    "safari-12-2020-offer-audio-video-data-planb-h264-first.sdp",
])
func mutatedFixturesNeverTrap(name: String) throws {
    let original = Array(try SDPFixtures.text(name).utf8)
    var random = XorShift(state: 0x9E37_79B9_7F4A_7C15 ^ UInt64(original.count))
    let interesting: [[UInt8]] = [
        "\r\n", " ", ":", "/", "=", "0", "-1", "99999999999999999999", "a=", "m=", "\u{0}", "\u{FF}",
    ].map { Array($0.utf8) }
    var parsed = 0, rejected = 0
    for _ in 0..<400 {
        var bytes = original
        for _ in 0...random.below(4) {
            let at = random.below(bytes.count)
            switch random.below(5) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(40)))
            case 2: bytes.insert(contentsOf: interesting[random.below(interesting.count)], at: at)
            case 3: bytes = Array(bytes.prefix(at))
            default:
                let from = random.below(bytes.count)
                bytes.insert(
                    contentsOf: bytes[from..<min(bytes.count, from + random.below(80))],
                    at: min(at, bytes.count)
                )
            }
            if bytes.isEmpty { break }
        }
        let lineCount = String(decoding: bytes, as: UTF8.self)
            .split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }.count
        do {
            let d = try SessionDescription(parsing: bytes)
            #expect(try SessionDescription(parsing: d.sdp) == d)
            parsed += 1
        } catch {
            #expect((1...max(1, lineCount)).contains(error.lineNumber))
            rejected += 1
        }
    }
    // Both outcomes happen: the mutations are not all fatal, nor all harmless.
    #expect(parsed > 20 && rejected > 20, "parsed \(parsed), rejected \(rejected)")
}
