import SwiftRTCSDP
import Testing

private let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
private let audio = head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n"

/// Broken descriptions and the exact error each gives: line number, line, what was expected.
private let malformed: [(name: String, sdp: String, line: Int, text: String, expected: String)] = [
    ("empty", "", 1, "", "v=0 (the description is empty)"),
    ("only blank lines", "\r\n\n  \r\n", 1, "", "v=0 (the description is empty)"),
    ("truncated after v", "v=0\r\n", 1, "v=0", "an o= (origin) line after v=0 (the description ends here)"),
    (
        "truncated after o", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n", 2, "o=- 1 2 IN IP4 127.0.0.1",
        "an s= (session name) line after o= (the description ends here)"
    ),
    (
        "truncated origin", "v=0\no=- 1 2 IN IP4\ns=-\nt=0 0\n", 2, "o=- 1 2 IN IP4",
        "o=<username> <session id> <session version> <nettype> <addrtype> <address>"
    ),
    ("wrong version", "v=1\r\no=- 1 2 IN IP4 127.0.0.1\r\n", 1, "v=1", "v=0 as the first line"),
    (
        "bad session id", "v=0\r\no=- 12x 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", 2, "o=- 12x 2 IN IP4 127.0.0.1",
        "a numeric session id in o="
    ),
    (
        "bad session version", "v=0\r\no=- 1 -2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", 2, "o=- 1 -2 IN IP4 127.0.0.1",
        "a numeric session version in o="
    ),
    ("missing o", "v=0\r\ns=-\r\nt=0 0\r\n", 2, "s=-", "o= (origin) after v=0"),
    ("missing s", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\nt=0 0\r\n", 3, "t=0 0", "s= (session name) after o="),
    (
        "missing t before m", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nm=audio 9 RTP/AVP 0\r\n", 4,
        "m=audio 9 RTP/AVP 0",
        "a t= (timing) line before the first m= line"
    ),
    (
        "missing t at all", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\na=ice-lite\r\n", 4, "a=ice-lite",
        "a t= (timing) line (the description ends without one)"
    ),
    (
        "bad timing", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 now\r\n", 4, "t=0 now",
        "t=<start time> <stop time> (numbers)"
    ),
    (
        "second origin", head + "o=- 1 2 IN IP4 127.0.0.1\r\n", 5, "o=- 1 2 IN IP4 127.0.0.1",
        "a single o= line at the top of the description"
    ),
    (
        "unknown line type", head + "x=whatever\r\n", 5, "x=whatever",
        "a line of the form <type>=<value> with type v, o, s, i, u, e, p, c, b, t, r, z, k, a or m"
    ),
    (
        "not a line", audio + "candidate:1 1 udp 1 1.2.3.4 9 typ host\r\n", 7, "candidate:1 1 udp 1 1.2.3.4 9 typ host",
        "a line of the form <type>=<value> with type v, o, s, i, u, e, p, c, b, t, r, z, k, a or m"
    ),
    (
        "session line in media", audio + "t=0 0\r\n", 7, "t=0 0",
        "i=, c=, b=, k=, a= or m= lines in a media section (t= belongs at session level)"
    ),
    ("bad bandwidth", head + "b=AS:lots\r\n", 5, "b=AS:lots", "b=<type>:<bandwidth number>"),
    ("bad connection", audio + "c=IN IP4\r\n", 7, "c=IN IP4", "c=<nettype> <addrtype> <address>"),
    (
        "truncated m line", head + "m=audio 9 UDP/TLS/RTP/SAVPF\r\n", 5, "m=audio 9 UDP/TLS/RTP/SAVPF",
        "m=<media> <port> <proto> <format> ... (at least one format)"
    ),
    (
        "bad m port", head + "m=audio 9x UDP/TLS/RTP/SAVPF 111\r\n", 5, "m=audio 9x UDP/TLS/RTP/SAVPF 111",
        "an m= port from 0 to 65535"
    ),
    (
        "m port too big", head + "m=audio 65536 UDP/TLS/RTP/SAVPF 111\r\n", 5, "m=audio 65536 UDP/TLS/RTP/SAVPF 111",
        "an m= port from 0 to 65535"
    ),
    (
        "bad payload type", head + "m=video 9 UDP/TLS/RTP/SAVPF 96 200\r\n", 5, "m=video 9 UDP/TLS/RTP/SAVPF 96 200",
        "RTP payload types from 0 to 127 as formats, not \"200\""
    ),
    (
        "truncated rtpmap", audio + "a=rtpmap:111\r\n", 7, "a=rtpmap:111",
        "a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]"
    ),
    (
        "rtpmap without rate", audio + "a=rtpmap:111 opus\r\n", 7, "a=rtpmap:111 opus",
        "a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]"
    ),
    (
        "bad clock rate", audio + "a=rtpmap:111 opus/48k/2\r\n", 7, "a=rtpmap:111 opus/48k/2",
        "a clock rate number in a=rtpmap"
    ),
    (
        "bad channels", audio + "a=rtpmap:111 opus/48000/two\r\n", 7, "a=rtpmap:111 opus/48000/two",
        "a channel count number in a=rtpmap"
    ),
    (
        "rtpmap payload type 128", audio + "a=rtpmap:128 opus/48000/2\r\n", 7, "a=rtpmap:128 opus/48000/2",
        "a payload type from 0 to 127 after a=rtpmap:"
    ),
    (
        "rtpmap twice", audio + "a=rtpmap:111 opus/48000/2\r\na=rtpmap:111 PCMU/8000\r\n", 8, "a=rtpmap:111 PCMU/8000",
        "one a=rtpmap per payload type (111 is mapped twice)"
    ),
    (
        "bad fmtp payload type", audio + "a=fmtp:x minptime=10\r\n", 7, "a=fmtp:x minptime=10",
        "a payload type from 0 to 127 after a=fmtp:"
    ),
    (
        "truncated rtcp-fb", audio + "a=rtcp-fb:111\r\n", 7, "a=rtcp-fb:111",
        "a=rtcp-fb:<payload type or *> <type> [<parameter>]"
    ),
    (
        "truncated candidate", audio + "a=candidate:1 1 udp 2122260223 192.0.2.1\r\n", 7,
        "a=candidate:1 1 udp 2122260223 192.0.2.1",
        "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>"
    ),
    (
        "candidate priority overflow", audio + "a=candidate:1 1 udp 99999999999 192.0.2.1 5000 typ host\r\n", 7,
        "a=candidate:1 1 udp 99999999999 192.0.2.1 5000 typ host", "a candidate priority from 0 to 4294967295"
    ),
    (
        "candidate port overflow", audio + "a=candidate:1 1 udp 1 192.0.2.1 70000 typ host\r\n", 7,
        "a=candidate:1 1 udp 1 192.0.2.1 70000 typ host", "a candidate port from 0 to 65535"
    ),
    (
        "candidate component 0", audio + "a=candidate:1 0 udp 1 192.0.2.1 5000 typ host\r\n", 7,
        "a=candidate:1 0 udp 1 192.0.2.1 5000 typ host", "a candidate component from 1 to 256"
    ),
    (
        "candidate type", audio + "a=candidate:1 1 udp 1 192.0.2.1 5000 typ turn\r\n", 7,
        "a=candidate:1 1 udp 1 192.0.2.1 5000 typ turn", "a candidate type (host, srflx, prflx or relay)"
    ),
    (
        "candidate raddr cut", audio + "a=candidate:1 1 udp 1 192.0.2.1 5000 typ srflx raddr\r\n", 7,
        "a=candidate:1 1 udp 1 192.0.2.1 5000 typ srflx raddr", "a value after the candidate extension \"raddr\""
    ),
    (
        "candidate bad rport", audio + "a=candidate:1 1 udp 1 192.0.2.1 5000 typ srflx raddr 10.0.0.1 rport x\r\n", 7,
        "a=candidate:1 1 udp 1 192.0.2.1 5000 typ srflx raddr 10.0.0.1 rport x", "a number from 0 to 65535 after rport"
    ),
    (
        "candidate bad tcptype", audio + "a=candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype sideways\r\n", 7,
        "a=candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype sideways", "a tcptype (active, passive or so)"
    ),
    (
        "candidate bad generation", audio + "a=candidate:1 1 udp 1 192.0.2.1 9 typ host generation -1\r\n", 7,
        "a=candidate:1 1 udp 1 192.0.2.1 9 typ host generation -1", "a number from 0 to 4294967295 after generation"
    ),
    (
        "extmap id 0", audio + "a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid\r\n", 7,
        "a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid",
        "an extmap id from 1 to 255"
    ),
    (
        "extmap direction", audio + "a=extmap:1/sideways urn:x\r\n", 7, "a=extmap:1/sideways urn:x",
        "an extmap direction (sendrecv, sendonly, recvonly or inactive)"
    ),
    ("extmap without uri", audio + "a=extmap:1\r\n", 7, "a=extmap:1", "a=extmap:<id>[/<direction>] <uri>"),
    (
        "bad ssrc", audio + "a=ssrc:abc cname:x\r\n", 7, "a=ssrc:abc cname:x",
        "a=ssrc:<ssrc number 0-4294967295> <attribute>[:<value>]"
    ),
    (
        "ssrc too big", audio + "a=ssrc:4294967296 cname:x\r\n", 7, "a=ssrc:4294967296 cname:x",
        "a=ssrc:<ssrc number 0-4294967295> <attribute>[:<value>]"
    ),
    (
        "bad ssrc-group", audio + "a=ssrc-group:FID 1 two\r\n", 7, "a=ssrc-group:FID 1 two",
        "SSRC numbers (0-4294967295) after the group semantics"
    ),
    ("bad setup", audio + "a=setup:maybe\r\n", 7, "a=setup:maybe", "a=setup:active, passive, actpass or holdconn"),
    (
        "bad fingerprint", audio + "a=fingerprint:sha-256 ZZ:11\r\n", 7, "a=fingerprint:sha-256 ZZ:11",
        "a=fingerprint:<hash function> <hex bytes separated by colons>"
    ),
    (
        "fingerprint without hash", head + "a=fingerprint:AB:CD\r\n", 5, "a=fingerprint:AB:CD",
        "a=fingerprint:<hash function> <hex bytes separated by colons>"
    ),
    ("empty ufrag", audio + "a=ice-ufrag:\r\n", 7, "a=ice-ufrag:", "a value after a=ice-ufrag:"),
    ("flag with value", audio + "a=rtcp-mux:yes\r\n", 7, "a=rtcp-mux:yes", "a=rtcp-mux without a value"),
    (
        "bad rtcp port", audio + "a=rtcp:port IN IP4 0.0.0.0\r\n", 7, "a=rtcp:port IN IP4 0.0.0.0",
        "a=rtcp:<port 0-65535> [<nettype> <addrtype> <address>]"
    ),
    ("bad rid", audio + "a=rid:q sideways\r\n", 7, "a=rid:q sideways", "a=rid:<id> send|recv [<restrictions>]"),
    (
        "bad simulcast", audio + "a=simulcast:send\r\n", 7, "a=simulcast:send",
        "a=simulcast:send|recv <rid>[;<rid>...] [send|recv <rid>[;<rid>...]]"
    ),
    (
        "bad sctp-port", head + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=sctp-port:99999\r\n", 6,
        "a=sctp-port:99999",
        "a=sctp-port: a number from 0 to 65535"
    ),
    (
        "bad max-message-size", head + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=max-message-size:-1\r\n",
        6,
        "a=max-message-size:-1", "a=max-message-size: a number from 0 to 18446744073709551615"
    ),
    (
        "bad sctpmap", head + "m=application 9 DTLS/SCTP 5000\r\na=sctpmap:5000\r\n", 6, "a=sctpmap:5000",
        "a=sctpmap:<port> <application> [<streams>]"
    ),
    ("empty attribute", audio + "a=\r\n", 7, "a=", "an attribute name after a="),
    (
        "binary garbage", "\u{0}\u{FFFD}\u{FFFD}\u{1}PNG\r\n\u{2}", 1, "\u{0}\u{FFFD}\u{FFFD}\u{1}PNG",
        "v=0 as the first line"
    ),
]

@Test(arguments: malformed.indices)
func malformedInputGivesExactError(index: Int) {
    let c = malformed[index]
    do {
        let parsed = try SessionDescription(parsing: c.sdp)
        Issue.record("\(c.name): parsed without error: \(parsed)")
    } catch {
        #expect(error == SDPParseError(lineNumber: c.line, line: c.text, expected: c.expected), "\(c.name)")
    }
}

@Test func errorDescriptionNamesLineAndEscapesControlCharacters() {
    let error = SDPParseError(
        lineNumber: 7,
        line: "a=rtpmap:x\u{1}",
        expected: "a payload type from 0 to 127 after a=rtpmap:"
    )
    #expect(error.description == "line 7 \"a=rtpmap:x\\u{1}\": expected a payload type from 0 to 127 after a=rtpmap:")
}

@Test func binaryBytesAreRejectedNotTrapped() {
    let bytes: [UInt8] = [0x00, 0xFF, 0xFE, 0x76, 0x3D, 0x30, 0x0A, 0xC3]
    #expect(throws: SDPParseError.self) { try SessionDescription(parsing: bytes) }
}

@Test func sloppinessRealStacksProduceIsAccepted() throws {
    let canonical =
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=msid-semantic: WMS\r\n"
        + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n"
        + "a=candidate:1 1 UDP 2122260223 192.0.2.1 5000 typ host\r\na=rtpmap:111 opus/48000/2\r\n"
    let sloppy =
        "v=0\no=-  1 2 IN IP4 127.0.0.1 \n\ns=-\nt=0 0\t\na=msid-semantic:WMS\n"
        + "m=audio 9 UDP/TLS/RTP/SAVPF 111\nc=IN IP4 0.0.0.0\n"
        + "a=rtpmap:111 opus/48000/2\na=candidate:1 1 UDP 2122260223 192.0.2.1 5000 typ host\n\n"
    let a = try SessionDescription(parsing: canonical)
    let b = try SessionDescription(parsing: sloppy)
    #expect(a == b)
    #expect(b.media[0].candidates[0].transport == "UDP")
    #expect(b.media[0].candidates[0].isTCP == false)
}

@Test func unknownAttributesAndLinesAreKeptInOrder() throws {
    let text =
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nu=http://example.org\r\nt=0 0\r\nr=7d 1h 0 25h\r\na=x-session-thing:1\r\n"
        + "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\nk=prompt\r\na=ptime:20\r\na=x-google-flag:conference\r\na=maxptime:120\r\n"
    let d = try SessionDescription(parsing: text)
    #expect(d.other == [SDPAttribute(name: "x-session-thing", value: "1")])
    #expect(
        d.otherLines == [
            SDPOtherLine(type: "u", value: "http://example.org"), SDPOtherLine(type: "r", value: "7d 1h 0 25h"),
        ]
    )
    #expect(d.media[0].other.map(\.name) == ["ptime", "x-google-flag", "maxptime"])
    #expect(d.media[0].otherLines == [SDPOtherLine(type: "k", value: "prompt")])
    #expect(d.sdp == text)
}
