import CNice
import Foundation
import Testing
@testable import SwiftRTCICE

private let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/fixtures/sdp")

/// Every `a=candidate` line that browsers and stacks wrote in the recorded SDPs.
private func recordedCandidateLines() throws -> [String] {
    let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".sdp") }
    return try files.flatMap { file in
        try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
            .split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("a=candidate:") }
            .map(String.init)
    }
}

@Test func readsEveryCandidateRecordedFromBrowsersAndStacks() throws {
    let lines = try recordedCandidateLines()
    #expect(lines.count > 100)
    for line in lines {
        let candidate = try IceCandidate(sdp: line)
        // Writing it and reading it back gives the same candidate.
        #expect(try IceCandidate(sdp: candidate.sdp) == candidate, "\(line)")
    }
}

@Test(arguments: [
    ("a=candidate:1 1 UDP 2122252543 192.168.99.7 42738 typ host",
     IceCandidate(foundation: "1", component: 1, priority: 2122252543, address: "192.168.99.7", port: 42738, type: .host)),
    ("candidate:0 1 UDP 2122187007 cfc81db2-7a04-4589-80d1-cab8e6dc23be.local 45563 typ host",
     IceCandidate(foundation: "0", component: 1, priority: 2122187007, address: "cfc81db2-7a04-4589-80d1-cab8e6dc23be.local",
                  port: 45563, type: .host)),
    ("candidate:10 1 UDP 1679819007 203.0.113.1 53119 typ srflx raddr 10.0.0.2 rport 53119",
     IceCandidate(foundation: "10", component: 1, priority: 1679819007, address: "203.0.113.1", port: 53119, type: .srflx,
                  relatedAddress: "10.0.0.2", relatedPort: 53119)),
    ("candidate:1379250940 1 udp 50339839 203.0.113.2 49207 typ relay raddr fd10::2 rport 39769 generation 0 network-cost 999",
     IceCandidate(foundation: "1379250940", component: 1, priority: 50339839, address: "203.0.113.2", port: 49207, type: .relay,
                  relatedAddress: "fd10::2", relatedPort: 39769)),
    ("candidate:12 1 TCP 843055359 203.0.113.1 60489 typ srflx raddr 10.0.0.2 rport 60489 tcptype passive",
     IceCandidate(foundation: "12", component: 1, transport: .tcp, priority: 843055359, address: "203.0.113.1", port: 60489,
                  type: .srflx, relatedAddress: "10.0.0.2", relatedPort: 60489, tcpType: .passive)),
    ("candidate:1 2 UDP 2122252542 2a02:a03f:3eb0:e000:b0aa:d60a:cff2:933c 52914 typ host\r\n",
     IceCandidate(foundation: "1", component: 2, priority: 2122252542, address: "2a02:a03f:3eb0:e000:b0aa:d60a:cff2:933c",
                  port: 52914, type: .host)),
])
func readsCandidateFields(line: String, expected: IceCandidate) throws {
    let candidate = try IceCandidate(sdp: line)
    #expect(candidate == expected)
    #expect(candidate.isMDNS == line.contains(".local"))
}

@Test func writesTheCandidateAttribute() {
    let relay = IceCandidate(foundation: "3", component: 1, priority: 16777215, address: "198.51.100.9", port: 3478, type: .relay,
                             relatedAddress: "203.0.113.1", relatedPort: 50000)
    #expect(relay.sdp == "candidate:3 1 udp 16777215 198.51.100.9 3478 typ relay raddr 203.0.113.1 rport 50000")
    let tcp = IceCandidate(foundation: "a+b/c", component: 1, transport: .tcp, priority: 1, address: "192.0.2.1", port: 9,
                           type: .host, tcpType: .active)
    #expect(tcp.sdp == "candidate:a+b/c 1 tcp 1 192.0.2.1 9 typ host tcptype active")
}

@Test(arguments: [
    ("", "start with 'candidate:'"),
    ("a=ice-ufrag:abcd", "start with 'candidate:'"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ", "at least 8 fields"),
    ("candidate:f*o 1 udp 1 192.0.2.1 9 typ host", "foundation 'f*o'"),
    ("candidate:\(String(repeating: "a", count: 33)) 1 udp 1 192.0.2.1 9 typ host", "1 to 32"),
    ("candidate:1 0 udp 1 192.0.2.1 9 typ host", "component '0'"),
    ("candidate:1 x udp 1 192.0.2.1 9 typ host", "component 'x'"),
    ("candidate:1 1 sctp 1 192.0.2.1 9 typ host", "transport 'sctp'"),
    ("candidate:1 1 udp 4294967296 192.0.2.1 9 typ host", "priority '4294967296'"),
    ("candidate:1 1 udp -1 192.0.2.1 9 typ host", "priority '-1'"),
    ("candidate:1 1 udp 1 192.0.2.1 65536 typ host", "port '65536'"),
    ("candidate:1 1 udp 1 192.0.2.1 9 type host", "expected 'typ' as field 7"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ local", "candidate type 'local'"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ srflx raddr", "extension 'raddr' has no value"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ srflx raddr 10.0.0.1 rport x", "rport 'x'"),
    ("candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype both", "tcptype 'both'"),
])
func rejectsBrokenCandidatesSayingWhy(line: String, mentions: String) {
    #expect {
        _ = try IceCandidate(sdp: line)
    } throws: { error in
        let text = "\(error)"
        return text.contains(mentions) && text.contains("'\(line)'")
    }
}

@Test(arguments: [
    "candidate:1 1 udp 2122252543 192.0.2.7 42738 typ host",
    "candidate:10 1 udp 1679819007 203.0.113.1 53119 typ srflx raddr 10.0.0.2 rport 53119",
    "candidate:13 1 udp 505413887 203.0.113.2 49205 typ relay raddr 10.0.0.2 rport 53119",
    "candidate:7 1 udp 1845501695 2001:db8::7 4000 typ prflx raddr 2001:db8::1 rport 4001",
    "candidate:11 1 tcp 847249663 203.0.113.1 9 typ srflx raddr 10.0.0.2 rport 9 tcptype active",
    "candidate:12 1 tcp 843055359 203.0.113.1 60489 typ srflx raddr 10.0.0.2 rport 60489 tcptype passive",
])
func convertsToAndFromLibniceCandidates(line: String) throws {
    let candidate = try IceCandidate(sdp: line)
    let nice = try #require(candidate.makeNiceCandidate(streamID: 3))
    defer { nice_candidate_free(nice) }
    #expect(nice.pointee.stream_id == 3)
    #expect(IceCandidate(nice: nice) == candidate)
}

@Test func libniceTakesOnlyIPLiterals() throws {
    let mdns = try IceCandidate(sdp: "candidate:0 1 UDP 2122187007 cfc81db2-7a04-4589-80d1-cab8e6dc23be.local 45563 typ host")
    #expect(mdns.makeNiceCandidate(streamID: 1) == nil)
}
