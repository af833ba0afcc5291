import Foundation
import SwiftRTCSDP
import Testing

@Test func fixturesArePresent() {
    // Fixtures/sdp: 50 from the 2026-11-21 lab recording and public repositories, plus the ones
    // record.sh and the interop tests wrote; Fixtures/rtp: the 10 offers and answers of the captured calls.
    #expect(SDPFixtures.all.count >= 66)
}

@Test(arguments: SDPFixtures.allNames)
func fixtureParsesAndRoundTrips(name: String) throws {
    let text = try SDPFixtures.text(name)
    let parsed: SessionDescription
    do {
        parsed = try SessionDescription(parsing: text)
    } catch {
        Issue.record("\(name): \(error)")
        return
    }
    #expect(!parsed.media.isEmpty)
    let written = parsed.sdp
    #expect(written.hasSuffix("\r\n"))
    #expect(!written.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    let reparsed = try SessionDescription(parsing: written)
    #expect(reparsed == parsed, "\(name) changed when written and parsed again")
    // Writing is stable: the canonical form writes itself.
    #expect(reparsed.sdp == written)
    // Nothing is lost: every a= line of the input comes back (order may change).
    let lines: (String) -> [String] = {
        $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    let before = lines(text).map(normalize).sorted()
    let after = lines(written).map(normalize).sorted()
    #expect(before == after, "\(name): lines differ: \(Set(before).symmetricDifference(Set(after)).sorted())")
}

/// Spelling differences the writer normalizes on purpose.
private func normalize(_ line: String) -> String {
    var l = line
    if l.hasPrefix("a=msid-semantic:") && !l.hasPrefix("a=msid-semantic: ") {
        l = "a=msid-semantic: " + l.dropFirst("a=msid-semantic:".count)
    }
    return l
}
