import Foundation
import Testing

/// `callbot sdp check`, run as a user would on recorded SDPs.
enum SDPFiles {
    /// `<package root>/Fixtures/sdp`, from this file's path.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sdp")

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}

@Test func checkSummarizesEachMediaSection() async throws {
    let result = try await Callbot.run([
        "sdp", "check", SDPFiles.path("chrome-156-offer-audio-video-full-candidates-host-srflx-relay-tcp-ipv6.sdp"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    // A short output fails the test here rather than trapping the whole run on an index.
    try #require(lines.count == 6)
    #expect(lines[0] == "session  o=- id 19772912674211942 version 2, 2 media sections")
    #expect(
        lines[1].contains("BUNDLE 0 1") && lines[1].contains("ice-options trickle")
            && lines[1].contains("extmap-allow-mixed")
    )
    #expect(
        lines[2]
            == "         fingerprint sha-256 FA:B4:71:67:5F:CB:D3:C9:FD:23:45:CF:DB:B6:4F:37:EB:99:48:AC:B6:F5:38:AC:FA:5F:2C:BC:C1:5D:66:A8"
    )
    #expect(lines[3] == "         setup actpass | ice-ufrag 0Mmr")
    #expect(
        lines[4]
            == "mid 0 audio sendrecv UDP/TLS/RTP/SAVPF port 49163 | codecs 111 opus, 63 red, 9 G722, 0 PCMU, 8 PCMA, 13 CN, 110 telephone-event, 126 telephone-event | ssrcs 132470188 | 8 candidates (host 4, srflx 1, relay 3)"
    )
    #expect(
        lines[5].hasPrefix("mid 1 video sendrecv UDP/TLS/RTP/SAVPF port 49180 | codecs 96 VP8, 97 rtx(96), 102 H264,")
    )
    #expect(
        lines[5].hasSuffix(
            "| ssrcs 2614277530 1307682046 FID(2614277530,1307682046) | 8 candidates (host 4, srflx 1, relay 3)"
        )
    )
}

@Test func checkShowsDataChannelsRejectionsAndBundleOnly() async throws {
    let firefox = try await Callbot.run([
        "sdp", "check", SDPFiles.path("firefox-153-offer-audio-video-data-full-candidates.sdp"),
    ])
    #expect(firefox.status == 0)
    #expect(
        firefox.stdout.contains(
            "mid 2 application sendrecv UDP/DTLS/SCTP port 49230 | sctp-port 5000 max-message-size 1073741823 | 9 candidates (host 4, srflx 2, relay 3), end-of-candidates\n"
        )
    )
    let gstreamer = try await Callbot.run([
        "sdp", "check", SDPFiles.path("gstreamer-1.22-webrtcbin-offer-video-audio-max-bundle-trickle.sdp"),
    ])
    #expect(
        gstreamer.stdout.contains(
            "mid audio1 audio sendrecv bundle-only UDP/TLS/RTP/SAVPF port 0 | codecs 111 OPUS | ssrcs 1939141854 | 0 candidates\n"
        )
    )
    let answer =
        "v=0\no=- 7 2 IN IP4 127.0.0.1\ns=-\nt=0 0\na=ice-lite\nm=application 0 UDP/DTLS/SCTP webrtc-datachannel\nc=IN IP4 0.0.0.0\na=mid:2\n"
    let rejected = try await Callbot.run(["sdp", "check", "-"], stdin: answer)
    #expect(rejected.status == 0)
    #expect(
        rejected.stdout == """
            session  o=- id 7 version 2, 1 media section
                     no BUNDLE | ice-lite
                     no fingerprint (DTLS cannot be verified)
                     setup none | ice-ufrag none
            mid 2 application rejected (port 0) UDP/DTLS/SCTP

            """
    )
}

@Test func writeThenJsonEqualsJson() async throws {
    for name in [
        "firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp",
        "safari-12-2020-offer-audio-video-data-planb-h264-first.sdp",
        "spec-jsep-draft-offer-bundle-only-msid.sdp",
    ] {
        let json = try await Callbot.run(["sdp", "check", "--json", SDPFiles.path(name)])
        #expect(json.status == 0)
        let written = try await Callbot.run(["sdp", "check", "--write", SDPFiles.path(name)])
        #expect(written.status == 0)
        #expect(written.stdout.hasPrefix("v=0\r\no="))
        let again = try await Callbot.run(["sdp", "check", "--json", "-"], stdin: written.stdout)
        #expect(again.status == 0)
        #expect(again.stdout == json.stdout, "\(name)")
        // The JSON is the model: real values at the expected places.
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let media = try #require(object["media"] as? [[String: Any]])
        #expect(media.count >= 2)
        #expect((object["origin"] as? [String: Any])?["sessionId"] != nil)
    }
}

@Test func brokenInputExitsOneWithTheLineNumber() async throws {
    let broken =
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48k/2\r\n"
    let result = try await Callbot.run(["sdp", "check", "-"], stdin: broken)
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(
        result.stderr
            == "callbot sdp check: <stdin>: line 6 \"a=rtpmap:111 opus/48k/2\": expected a clock rate number in a=rtpmap\n"
    )
    let missing = try await Callbot.run(["sdp", "check", "/nonexistent/offer.sdp"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("cannot read /nonexistent/offer.sdp"))
    let both = try await Callbot.run(["sdp", "check", "--json", "--write", "-"], stdin: broken)
    #expect(both.status != 0)
}
