import Testing

@testable import SwiftRTCICE

@Test func parsesWebRTCServerURLs() throws {
    let stun = try IceServer(url: "stun:127.0.0.1")
    #expect(stun.scheme == .stun && stun.host == "127.0.0.1" && stun.port == 3478)

    let turn = try IceServer(url: "turn:relay.example:3479?transport=tcp", username: "u", credential: "p")
    #expect(turn.scheme.isRelay && turn.port == 3479 && turn.transport == .tcp)
    #expect(turn.description == "turn:relay.example:3479?transport=tcp")

    let turns = try IceServer(url: "turns:[::1]", username: "u", credential: "p")
    #expect(turns.host == "::1" && turns.port == 5349 && turns.transport == .tcp)
    #expect(turns.description == "turns:[::1]:5349?transport=tcp")
}

@Test(arguments: [
    ("http://x", "unknown scheme"), ("stun://host", "no '//'"), ("stun:", "missing host"),
    ("stun:host:99999", "port"), ("turn:host", "username"), ("stun:host?transport=udp", "query"),
    ("nothing", "scheme"), ("turn:h?transport=sctp", "transport"),
])
func rejectsBrokenURLs(url: String, mentions: String) {
    #expect {
        _ = try IceServer(url: url)
    } throws: { error in
        "\(error)".contains(mentions) && "\(error)".contains(url)
    }
}

@Test func reportsTheLibraryVersion() {
    #expect(IceLibrary.version.hasPrefix("libnice 0.1."))
}
