import Foundation
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// ICE servers in `Link` headers (RFC 9725 §4.6): read as RFC 8288 writes them, written back,
/// hostile ones left out; an endpoint offers its own in the `201` and to `OPTIONS`.
@Suite struct WHIPICEServerTests {
    static let turn = WHIPICEServer(
        url: "turn:turn.example.net?transport=udp",
        username: "user",
        credential: "myPassword"
    )

    @Test(arguments: [
        (
            [
                #"<stun:stun.example.net>; rel="ice-server""#,
                #"<turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="myPassword"; credential-type="password""#,
            ],
            [WHIPICEServer(url: "stun:stun.example.net"), turn]
        ),
        // Two links in one header; quotes that hold a comma, a semicolon and an escaped quote.
        (
            [
                #"<stun:a.example>; rel="ice-server", <turns:b.example:5349>; rel=ice-server; username="u,;\"x"; credential=pw"#
            ],
            [
                WHIPICEServer(url: "stun:a.example"),
                WHIPICEServer(url: "turns:b.example:5349", username: #"u,;"x"#, credential: "pw"),
            ]
        ),
        // Other links, other schemes, no angle brackets: none of them.
        (
            [
                #"<https://example.net/next>; rel="next""#, #"<http://evil.example>; rel="ice-server""#,
                #"stun:no.brackets; rel="ice-server""#, "",
            ],
            []
        ),
        (
            [#"<stun:\#(String(repeating: "a", count: 600))>; rel="ice-server""#],
            []
        ),
    ])
    func linkHeadersAreRead(headers: [String], servers: [WHIPICEServer]) {
        #expect(WHIPICEServer.servers(inLinkHeaders: headers) == servers)
    }

    @Test func aServerWritesAndReadsBackAndAtMost16AreTaken() {
        let tricky = WHIPICEServer(url: "turn:127.0.0.1:3478", username: #"a"b\c"#, credential: "p;w,d")
        #expect(WHIPICEServer.servers(inLinkHeaders: [Self.turn.linkValue, tricky.linkValue]) == [Self.turn, tricky])
        let many = (0..<40).map { #"<stun:s\#($0).example>; rel="ice-server""# }
        #expect(WHIPICEServer.servers(inLinkHeaders: many).count == WHIPICEServer.maxServers)
        #expect(!Self.turn.description.contains("myPassword"))
    }

    @Test func anEndpointOffersItsServersToThoseWithTheToken() async throws {
        var configuration = WHIPEndpoint.Configuration(bearerToken: "link-token")
        configuration.iceServers = [WHIPICEServer(url: "stun:127.0.0.1:3478"), Self.turn]
        let endpoint = WHIPEndpoint(configuration: configuration, answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url, bearerToken: "link-token")
            #expect(try await client.iceServers() == configuration.iceServers)
            let session = try await client.publish(offer: WHIPTestSDP.offer)
            #expect(session.iceServers == configuration.iceServers)
            // Without the token: 401, and no servers.
            #expect(try await WHIPClient(endpoint: url).iceServers() == [])
        }
    }
}
