import Foundation
import SwiftRTCSDP
import Testing

@Test func offerCarriesWhatTheIssueAsksFor() throws {
    let offer = TestPeer.offer
    let text = offer.sdp
    #expect(try SessionDescription(parsing: text) == offer)
    #expect(offer.bundleGroups == [["0", "1"]])
    #expect(offer.media.map(\.kind) == [.audio, .video])
    #expect(offer.media.map(\.mid) == ["0", "1"])
    for line in [
        "m=audio 50000 UDP/TLS/RTP/SAVPF 111",
        "c=IN IP4 127.0.0.1",
        "a=rtpmap:111 opus/48000/2",
        "a=fmtp:111 minptime=10;useinbandfec=1",
        "a=rtcp-fb:111 transport-cc",
        "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
        "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
        "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
        "m=video 50000 UDP/TLS/RTP/SAVPF 96 97",
        "a=rtpmap:96 VP8/90000",
        "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir", "a=rtcp-fb:96 nack",
        "a=rtcp-fb:96 nack pli",
        "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        "a=ssrc-group:FID 2222 3333",
        "a=ssrc:3333 cname:swiftrtc-test",
        "a=msid:stream0 video0",
        "a=setup:actpass", "a=rtcp-mux", "a=rtcp-rsize", "a=ice-options:trickle", "a=ice-ufrag:SwRt",
        "a=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host generation 0",
        "a=end-of-candidates",
        "a=group:BUNDLE 0 1",
        "a=msid-semantic: WMS stream0",
        "a=fingerprint:sha-256 " + TestPeer.fingerprint.value,
    ] {
        #expect(text.contains(line + "\r\n"), "offer lacks \(line)")
    }
}

@Test func trickleOfferUsesTheDiscardPort() {
    let offer = JSEP.createOffer(transceivers: TestPeer.transceivers, local: TestPeer.local())
    #expect(
        offer.media.allSatisfy {
            $0.port == 9 && $0.connection == ConnectionData() && $0.candidates.isEmpty && !$0.endOfCandidates
        }
    )
}

@Test func iceRestartOfferChangesOnlyCredentialsCandidatesAndVersion() throws {
    let first = TestPeer.offer
    let restart = JSEP.iceRestartOffer(previous: first, iceUfrag: "NeW1", icePwd: "anotherpasswordof24chars")
    #expect(restart.origin.sessionVersion == first.origin.sessionVersion + 1)
    #expect(restart.origin.sessionId == first.origin.sessionId)
    #expect(
        restart.media.allSatisfy {
            $0.iceUfrag == "NeW1" && $0.icePwd == "anotherpasswordof24chars" && $0.candidates.isEmpty
        }
    )
    // Everything else is the same: undo the changes and compare.
    var undone = restart
    undone.origin.sessionVersion -= 1
    for i in undone.media.indices {
        undone.media[i].iceUfrag = first.media[i].iceUfrag
        undone.media[i].icePwd = first.media[i].icePwd
        undone.media[i].candidates = first.media[i].candidates
        undone.media[i].endOfCandidates = first.media[i].endOfCandidates
        undone.media[i].port = first.media[i].port
        undone.media[i].connection = first.media[i].connection
    }
    #expect(undone == first)

    // A recorded browser offer restarts the same way, session-level credentials included.
    let firefox = try SDPFixtures.parse("firefox-153-offer-audio-video-bundle-trickle.sdp")
    let restarted = JSEP.iceRestartOffer(previous: firefox, iceUfrag: "abcd", icePwd: "0123456789abcdef01234567")
    #expect(restarted.media.map { restarted.resolved($0).iceUfrag } == ["abcd", "abcd"])
    #expect(restarted.media.map(\.codecs) == firefox.media.map(\.codecs))
}

/// The recorded answers of Chromium and aiortc to our offer (written by JSEPInteropTests
/// with SWIFTRTC_RECORD_FIXTURES=1) agree with it.
@Test(arguments: ["chromium-156-answer-to-swiftrtc-offer.sdp", "aiortc-1.16-answer-to-swiftrtc-offer.sdp"])
func recordedAnswersToOurOffer(answer: String) throws {
    let negotiation = try Negotiation(
        offer: SDPFixtures.parse("swiftrtc-offer-audio-video.sdp"),
        answer: SDPFixtures.parse(answer)
    )
    #expect(negotiation.bundle == ["0", "1"])
    #expect(negotiation.media.map { $0.codecs.map(\.payloadType) } == [[111], [96, 97]])
    #expect(negotiation.media.allSatisfy { $0.answererSetup == .active && $0.answererDirection == .sendrecv })
    #expect(negotiation.media[0].extensions.contains { $0.id == 4 && $0.uri == ExtMap.URI.mid })
}

@Test func offerAssignsFreeMids() {
    let transceivers = [
        LocalTransceiver(kind: .audio, mid: "1", streamId: "s", trackId: "a"),
        LocalTransceiver(kind: .video, streamId: "s", trackId: "v"),
        LocalTransceiver(kind: .video, streamId: "s", trackId: "w"),
    ]
    let offer = JSEP.createOffer(transceivers: transceivers, local: TestPeer.local())
    #expect(offer.media.map(\.mid) == ["1", "0", "2"])
    #expect(offer.bundleGroups == [["1", "0", "2"]])
}

@Test func modelEncodesAndDecodesAsJSON() throws {
    for name in [
        "chrome-156-offer-audio-video-full-candidates-host-srflx-relay-tcp-ipv6.sdp",
        "firefox-153-offer-simulcast-rid-q-h-f.sdp",
        "safari-12-2020-offer-audio-video-data-planb-h264-first.sdp",
    ] {
        let d = try SDPFixtures.parse(name)
        let json = try JSONEncoder().encode(d)
        #expect(try JSONDecoder().decode(SessionDescription.self, from: json) == d, "\(name)")
        // Absent attributes are left out of the JSON.
        #expect(!String(decoding: json, as: UTF8.self).contains("\"rtcpMuxOnly\":false"))
    }
}

@Test func swiftRTCAnswersItsOwnOffer() throws {
    let offer = TestPeer.offer
    var local = TestPeer.local(ufrag: "Othr", pwd: "otherpasswordotherpasswd")
    local.iceLite = true
    let answer = try JSEP.createAnswer(
        to: try SessionDescription(parsing: offer.sdp),
        transceivers: TestPeer.transceivers,
        local: local
    )
    #expect(answer.iceLite && answer.sdp.contains("\r\na=ice-lite\r\n"))
    let negotiation = try Negotiation(offer: offer, answer: answer)
    #expect(negotiation.bundle == ["0", "1"])
    #expect(negotiation.media.map { $0.codecs.map(\.payloadType) } == [[111], [96, 97]])
    #expect(negotiation.media[1].codecs[0].feedback == MediaCapabilities.video.codecs[0].feedback)
    #expect(negotiation.media.map { $0.extensions.map(\.id) } == [[1, 2, 3, 4], [2, 3, 4]])
    #expect(negotiation.media.allSatisfy { $0.answererSetup == .active && $0.answererDirection == .sendrecv })
}

/// A simulcast sender's offer (RFC 8853): a send rid per encoding, highest first, the
/// simulcast streams in that order, the rid header extensions under free ids, and no SSRC
/// lines (the encodings are told apart by rid).
@Test func simulcastOfferListsTheRidsAndTheirExtensions() throws {
    var video = TestPeer.transceivers[1]
    video.direction = .sendonly
    video.simulcastRids = ["h", "m", "l"]
    let offer = JSEP.createOffer(transceivers: [TestPeer.transceivers[0], video], local: TestPeer.local())
    let text = offer.sdp
    let section = try #require(try SessionDescription(parsing: text).media.last)
    #expect(
        section.rids == [
            Rid(id: "h", direction: .send), Rid(id: "m", direction: .send), Rid(id: "l", direction: .send),
        ]
    )
    #expect(section.simulcast == Simulcast(send: [[.init(rid: "h")], [.init(rid: "m")], [.init(rid: "l")]]))
    #expect(text.contains("a=simulcast:send h;m;l\r\n"))
    let ids = section.extensions.map(\.id)
    #expect(Set(ids).count == ids.count, "extension ids are unique: \(ids)")
    #expect(section.extensions.contains { $0.uri == ExtMap.URI.rtpStreamId && (1...14).contains($0.id) })
    #expect(section.extensions.contains { $0.uri == ExtMap.URI.repairedRtpStreamId && (1...14).contains($0.id) })
    #expect(section.ssrcs.isEmpty && section.ssrcGroups.isEmpty)
    #expect(section.msids == [Msid(streamId: "stream0", trackId: "video0")])
    // The audio section is as before.
    #expect(offer.media.first?.ssrcs.isEmpty == false && offer.media.first?.rids.isEmpty == true)
}
