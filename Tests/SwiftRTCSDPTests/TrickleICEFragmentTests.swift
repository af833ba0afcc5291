import Testing

@testable import SwiftRTCSDP

/// `application/trickle-ice-sdpfrag` bodies (RFC 8840 §9.2) as RFC 9725 §4.3 shows them, read
/// and written back, and the hostile ones refused.
@Suite struct TrickleICEFragmentTests {
    /// RFC 9725 §4.3.1's trickle example (two of its candidates).
    static let rfcExample = """
        a=group:BUNDLE 0 1\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        a=mid:0\r
        a=ice-ufrag:EsAw\r
        a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r
        a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1\r
        a=candidate:473322822 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active generation 0 ufrag EsAw network-id 1\r
        a=end-of-candidates\r

        """

    @Test func theRFCExampleReadsAndWritesBack() throws {
        let fragment = try TrickleICEFragment(parsing: Self.rfcExample)
        #expect(fragment.usernameFragment == "EsAw")
        #expect(fragment.password == "P2uYro0UCOQ4zxjKXaWCBui1")
        #expect(fragment.mid == "0")
        #expect(fragment.candidates.count == 2)
        #expect(fragment.candidates.first?.hasPrefix("candidate:1387637174 1 udp") == true)
        #expect(fragment.endOfCandidates)
        #expect(try TrickleICEFragment(parsing: fragment.sdpfrag) == fragment)
        #expect(fragment.sdpfrag.hasPrefix("a=ice-ufrag:EsAw\r\na=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r\nm=audio 9"))
        #expect(!fragment.description.contains("P2uYro0UCOQ4zxjKXaWCBui1"), "the password stays out of logs")
    }

    @Test(arguments: [
        ("a=candidate:garbage\r\n", "candidate:<foundation>"),
        ("a=ice-ufrag:a\r\na=ice-ufrag:b\r\n", "one a=ice-ufrag"),
        ("a=mid:0\r\na=mid:1\r\n", "one a=mid"),
        (
            String(repeating: "a=candidate:1 1 udp 1 192.0.2.1 9 typ host\r\n", count: 65),
            "at most 64 candidates"
        ),
        (String(repeating: "a=x\r\n", count: 257), "at most 256 lines"),
    ])
    func hostileFragmentsAreRefused(text: String, expected: String) {
        #expect {
            try TrickleICEFragment(parsing: text)
        } throws: { error in
            (error as? SDPParseError)?.expected.contains(expected) == true
        }
    }
}
