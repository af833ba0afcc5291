import Foundation
import SwiftRTCSDP
import Testing

private let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/sdp")

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
        let candidate = try IceCandidate(sdpLine: line)
        // Writing it and reading it back gives the same candidate, and the same text.
        #expect(try IceCandidate(sdpLine: candidate.sdpLine) == candidate, "\(line)")
        #expect("a=" + candidate.sdpLine == line)
        #expect(candidate.transportProtocol != nil, "\(line)")
    }
}

@Test(arguments: [
    (
        "a=candidate:1 1 UDP 2122252543 192.168.99.7 42738 typ host",
        IceCandidate(
            foundation: "1",
            component: 1,
            transport: "UDP",
            priority: 2122252543,
            address: "192.168.99.7",
            port: 42738,
            type: .host
        )
    ),
    (
        "candidate:0 1 UDP 2122187007 cfc81db2-7a04-4589-80d1-cab8e6dc23be.local 45563 typ host",
        IceCandidate(
            foundation: "0",
            component: 1,
            transport: "UDP",
            priority: 2122187007,
            address: "cfc81db2-7a04-4589-80d1-cab8e6dc23be.local",
            port: 45563,
            type: .host
        )
    ),
    (
        "candidate:10 1 UDP 1679819007 203.0.113.1 53119 typ srflx raddr 10.0.0.2 rport 53119",
        IceCandidate(
            foundation: "10",
            component: 1,
            transport: "UDP",
            priority: 1679819007,
            address: "203.0.113.1",
            port: 53119,
            type: .srflx,
            relatedAddress: "10.0.0.2",
            relatedPort: 53119
        )
    ),
    (
        "candidate:1379250940 1 udp 50339839 203.0.113.2 49207 typ relay raddr fd10::2 rport 39769 generation 0 network-cost 999",
        IceCandidate(
            foundation: "1379250940",
            component: 1,
            transport: "udp",
            priority: 50339839,
            address: "203.0.113.2",
            port: 49207,
            type: .relay,
            relatedAddress: "fd10::2",
            relatedPort: 39769,
            generation: 0,
            networkCost: 999
        )
    ),
    (
        "candidate:12 1 TCP 843055359 203.0.113.1 60489 typ srflx raddr 10.0.0.2 rport 60489 tcptype passive",
        IceCandidate(
            foundation: "12",
            component: 1,
            transport: "TCP",
            priority: 843055359,
            address: "203.0.113.1",
            port: 60489,
            type: .srflx,
            relatedAddress: "10.0.0.2",
            relatedPort: 60489,
            tcpType: .passive
        )
    ),
    (
        "candidate:1 2 UDP 2122252542 2a02:a03f:3eb0:e000:b0aa:d60a:cff2:933c 52914 typ host\r\n",
        IceCandidate(
            foundation: "1",
            component: 2,
            transport: "UDP",
            priority: 2122252542,
            address: "2a02:a03f:3eb0:e000:b0aa:d60a:cff2:933c",
            port: 52914,
            type: .host
        )
    ),
])
func readsCandidateFields(line: String, expected: IceCandidate) throws {
    let candidate = try IceCandidate(sdpLine: line)
    #expect(candidate == expected)
    #expect(candidate.isMDNS == line.contains(".local"))
    #expect(candidate.transportProtocol == (line.contains("TCP") ? .tcp : .udp))
    #expect(candidate.isTCP == line.contains("TCP"))
}

@Test func writesTheCandidateAttribute() {
    let relay = IceCandidate(
        foundation: "3",
        component: 1,
        transport: "udp",
        priority: 16777215,
        address: "198.51.100.9",
        port: 3478,
        type: .relay,
        relatedAddress: "203.0.113.1",
        relatedPort: 50000
    )
    #expect(relay.sdpLine == "candidate:3 1 udp 16777215 198.51.100.9 3478 typ relay raddr 203.0.113.1 rport 50000")
    #expect(relay.description == relay.sdpLine)
    let tcp = IceCandidate(
        foundation: "a+b/c",
        component: 1,
        transport: "tcp",
        priority: 1,
        address: "192.0.2.1",
        port: 9,
        type: .host,
        tcpType: .active
    )
    #expect(tcp.sdpLine == "candidate:a+b/c 1 tcp 1 192.0.2.1 9 typ host tcptype active")
}

@Test(arguments: [
    ("", "candidate:<foundation>"),
    ("a=ice-ufrag:abcd", "candidate:<foundation>"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ", "candidate:<foundation>"),
    ("candidate:f*o 1 udp 1 192.0.2.1 9 typ host", "foundation of 1 to 32"),
    ("candidate:\(String(repeating: "a", count: 33)) 1 udp 1 192.0.2.1 9 typ host", "foundation of 1 to 32"),
    ("candidate:1 0 udp 1 192.0.2.1 9 typ host", "component from 1 to 256"),
    ("candidate:1 x udp 1 192.0.2.1 9 typ host", "component from 1 to 256"),
    ("candidate:1 1 udp 4294967296 192.0.2.1 9 typ host", "priority from 0 to 4294967295"),
    ("candidate:1 1 udp -1 192.0.2.1 9 typ host", "priority from 0 to 4294967295"),
    ("candidate:1 1 udp 1 192.0.2.1 65536 typ host", "port from 0 to 65535"),
    ("candidate:1 1 udp 1 192.0.2.1 9 type host", "typ <type>"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ local", "candidate type (host, srflx, prflx or relay)"),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ srflx raddr", "value after the candidate extension \"raddr\""),
    ("candidate:1 1 udp 1 192.0.2.1 9 typ srflx raddr 10.0.0.1 rport x", "number from 0 to 65535 after rport"),
    ("candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype both", "tcptype (active, passive or so)"),
])
func rejectsBrokenCandidatesSayingWhy(line: String, mentions: String) {
    #expect {
        _ = try IceCandidate(sdpLine: line)
    } throws: { error in
        let text = "\(error)"
        return text.contains(mentions) && text.contains("line 1 \"\(line)\"")
    }
}

@Test func keepsATransportICEDoesNotRunOverAsWritten() throws {
    let sctp = try IceCandidate(sdpLine: "candidate:1 1 sctp 1 192.0.2.1 9 typ host")
    #expect(sctp.transport == "sctp")
    #expect(sctp.transportProtocol == nil)
    #expect(!sctp.isTCP)
}
