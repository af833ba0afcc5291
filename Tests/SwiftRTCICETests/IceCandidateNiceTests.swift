import CNice
import SwiftRTCSDP
import Testing

@testable import SwiftRTCICE

@Test(arguments: [
    "candidate:1 1 udp 2122252543 192.0.2.7 42738 typ host",
    "candidate:10 1 udp 1679819007 203.0.113.1 53119 typ srflx raddr 10.0.0.2 rport 53119",
    "candidate:13 1 udp 505413887 203.0.113.2 49205 typ relay raddr 10.0.0.2 rport 53119",
    "candidate:7 1 udp 1845501695 2001:db8::7 4000 typ prflx raddr 2001:db8::1 rport 4001",
    "candidate:11 1 tcp 847249663 203.0.113.1 9 typ srflx raddr 10.0.0.2 rport 9 tcptype active",
    "candidate:12 1 tcp 843055359 203.0.113.1 60489 typ srflx raddr 10.0.0.2 rport 60489 tcptype passive",
])
func convertsToAndFromLibniceCandidates(line: String) throws {
    let candidate = try IceCandidate(sdpLine: line)
    let nice = try #require(candidate.makeNiceCandidate(streamID: 3))
    defer { nice_candidate_free(nice) }
    #expect(nice.pointee.stream_id == 3)
    #expect(IceCandidate(nice: nice) == candidate)
}

@Test func libniceTakesOnlyIPLiterals() throws {
    let mdns = try IceCandidate(
        sdpLine: "candidate:0 1 UDP 2122187007 cfc81db2-7a04-4589-80d1-cab8e6dc23be.local 45563 typ host"
    )
    #expect(mdns.makeNiceCandidate(streamID: 1) == nil)
}

@Test func libniceTakesOnlyUDPAndTCP() throws {
    let sctp = try IceCandidate(sdpLine: "candidate:1 1 sctp 1 192.0.2.1 9 typ host")
    #expect(sctp.transportProtocol == nil)
    #expect(sctp.makeNiceCandidate(streamID: 1) == nil)
}
