import SwiftRTCSDP
import Testing

/// What our answer to a recorded offer must say, per m-section: the payload types accepted
/// (the offerer's numbers; nil = rejected with port 0) and the BUNDLE group.
private struct ExpectedAnswer: Sendable, CustomStringConvertible {
    var offer: String
    var sections: [[UInt8]?]
    var bundle: [String]
    var description: String { offer }
}

private let expectedAnswers: [ExpectedAnswer] = [
    .init(offer: "chrome-156-offer-audio-video-bundle-trickle.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(
        offer: "chrome-156-offer-audio-video-full-candidates-host-srflx-relay-tcp-ipv6.sdp",
        sections: [[111], [96, 97]],
        bundle: ["0", "1"]
    ),
    .init(
        offer: "chrome-156-offer-audio-video-data-full-candidates.sdp",
        sections: [[111], [96, 97], nil],
        bundle: ["0", "1"]
    ),
    .init(offer: "chrome-156-offer-audio-only.sdp", sections: [[111]], bundle: ["0"]),
    .init(offer: "chrome-156-offer-video-only.sdp", sections: [[96, 97]], bundle: ["0"]),
    .init(offer: "chrome-156-offer-recvonly-audio-video.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(offer: "chrome-156-offer-simulcast-rid-q-h-f.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(offer: "chrome-156-offer-audio-video-ice-restart.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(offer: "chrome-156-offer-datachannel-only-trickle.sdp", sections: [nil], bundle: []),
    .init(offer: "chromium-156-offer-audio-video-trickle.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(offer: "chromium-156-offer-audio-video-candidates.sdp", sections: [[111], [96, 97]], bundle: ["0", "1"]),
    .init(
        offer: "firefox-153-offer-audio-video-bundle-trickle.sdp",
        sections: [[109], [120, 124]],
        bundle: ["0", "1"]
    ),
    .init(
        offer: "firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp",
        sections: [[109], [120, 124]],
        bundle: ["0", "1"]
    ),
    .init(
        offer: "firefox-153-offer-audio-video-data-full-candidates.sdp",
        sections: [[109], [120, 124], nil],
        bundle: ["0", "1"]
    ),
    .init(offer: "firefox-153-offer-audio-only.sdp", sections: [[109]], bundle: ["0"]),
    .init(offer: "firefox-153-offer-recvonly-audio-video.sdp", sections: [[109], [120, 124]], bundle: ["0", "1"]),
    .init(offer: "firefox-153-offer-simulcast-rid-q-h-f.sdp", sections: [[109], [120, 124]], bundle: ["0", "1"]),
    .init(offer: "firefox-153-offer-datachannel-only-trickle.sdp", sections: [nil], bundle: []),
    .init(offer: "firefox-58-offer-datachannel-legacy-dtls-sctp.sdp", sections: [nil], bundle: []),
    .init(offer: "firefox-153-to-aiortc.offer.sdp", sections: [[109], [120, 124]], bundle: ["0", "1"]),
    // Firefox's WHIP offer: video bundle-only on port 0, directions on a=extmap, ::1 and TCP candidates.
    .init(offer: "firefox-153-whip-offer-to-callbot.sdp", sections: [[109], [120, 124]], bundle: ["0", "1"]),
    .init(
        offer: "aiortc-1.16-offer-audio-video-full-candidates-host-srflx-relay.sdp",
        sections: [[96], [97, 98]],
        bundle: ["0", "1"]
    ),
    .init(offer: "aiortc-1.16-offer-audio-video-candidates.sdp", sections: [[96], [97, 98]], bundle: ["0", "1"]),
    .init(offer: "aiortc-1.16-offer-datachannel-only.sdp", sections: [nil], bundle: []),
    .init(
        offer: "safari-12-2020-offer-audio-video-data-planb-h264-first.sdp",
        sections: [[111], [100, 101], nil],
        bundle: ["audio", "video"]
    ),
    .init(
        offer: "gstreamer-1.22-webrtcbin-offer-video-audio-max-bundle-trickle.sdp",
        sections: [[96], [111]],
        bundle: ["video0", "audio1"]
    ),
    .init(
        offer: "jitsi-jicofo-2020-offer-planb-ssrc-group-sim-fid.sdp",
        sections: [[111], [100]],
        bundle: ["audio", "video"]
    ),
    .init(offer: "spec-jsep-draft-offer-bundle-only-msid.sdp", sections: [[96], [100, 101]], bundle: ["a1", "v1"]),
    // Plain RTP (Chromium with encryption disabled): DTLS-SRTP is mandatory, so both are rejected.
    .init(offer: "chrome-156-plain-rtp-opus-vp8-rtx-twcc.offer.sdp", sections: [nil, nil], bundle: []),
]

@Test(arguments: expectedAnswers)
private func ourAnswerToRecordedOffer(_ expected: ExpectedAnswer) throws {
    let offer = try SDPFixtures.parse(expected.offer)
    let answer = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    // The answer is valid SDP that reads back as written.
    #expect(try SessionDescription(parsing: answer.sdp) == answer)
    let negotiation = try Negotiation(offer: offer, answer: answer)
    #expect(negotiation.bundle == expected.bundle)
    #expect(negotiation.media.map { $0.accepted ? $0.codecs.map(\.payloadType) : nil } == expected.sections)
    for (index, section) in negotiation.media.enumerated() {
        let offered = offer.resolved(offer.media[index])
        let answered = answer.media[index]
        #expect(answered.mid == offered.mid, "mids are kept")
        guard section.accepted else {
            #expect(answered.port == 0)
            #expect(answered.kind == offered.kind && answered.proto == offered.proto)
            continue
        }
        // Codec names as offered; Opus gets our fmtp; RTX repairs an accepted codec.
        if section.kind == .audio { #expect(section.codecs.first?.encodingName == "opus") }
        if section.kind == .audio { #expect(section.codecs.first?.formatParameters == "minptime=10;useinbandfec=1") }
        if section.kind == .video { #expect(section.codecs.first?.encodingName == "vp8") }
        for rtx in section.codecs where rtx.encodingName == "rtx" {
            #expect(section.codecs.contains { $0.payloadType == rtx.associatedPayloadType })
        }
        // rtcp-fb: only what both sides do.
        for codec in section.codecs {
            let offeredFeedback = offered.attributes.codec(codec.payloadType)?.feedback ?? []
            #expect(codec.feedback.allSatisfy { offeredFeedback.contains($0) || offered.wildcardFeedback.contains($0) })
        }
        // Extensions: the offer's ids for the URIs we support.
        for ext in section.extensions {
            #expect(offered.extensions.contains { $0.id == ext.id && $0.uri == ext.uri })
        }
        if offered.extensions.contains(where: { $0.uri == ExtMap.URI.mid }) {
            #expect(section.extensions.contains { $0.uri == ExtMap.URI.mid })
        }
        // Directions: RFC 3264 answer of our sendrecv to the offered direction.
        #expect(section.answererDirection == section.offererDirection.reversed)
        // DTLS: every recorded offer says actpass; we take the client role as browsers do.
        #expect(section.answererSetup == .active)
        #expect(answered.fingerprints == [TestPeer.fingerprint])
        #expect(answered.iceUfrag == "SwRt" && answered.rtcpMux)
    }
}

@Test func answerToSimulcastOfferReceivesTheRids() throws {
    for name in ["chrome-156-offer-simulcast-rid-q-h-f.sdp", "firefox-153-offer-simulcast-rid-q-h-f.sdp"] {
        let answer = try JSEP.createAnswer(
            to: SDPFixtures.parse(name),
            transceivers: TestPeer.transceivers,
            local: TestPeer.local()
        )
        let video = answer.media[1]
        #expect(
            video.rids == [
                Rid(id: "q", direction: .recv), Rid(id: "h", direction: .recv), Rid(id: "f", direction: .recv),
            ],
            "\(name)"
        )
        #expect(
            video.simulcast == Simulcast(recv: [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]]),
            "\(name)"
        )
        #expect(video.extensions.contains { $0.uri == ExtMap.URI.rtpStreamId }, "\(name)")
        #expect(answer.sdp.contains("a=simulcast:recv q;h;f\r\n"))
    }
}

@Test func answerWritesSourcesOnlyWhenSending() throws {
    let offer = try SDPFixtures.parse("chrome-156-offer-audio-video-bundle-trickle.sdp")
    let answer = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    #expect(answer.media[1].ssrcGroups == [SsrcGroup(semantics: "FID", ssrcs: [2222, 3333])])
    #expect(answer.media[1].msids == [Msid(streamId: "stream0", trackId: "video0")])
    #expect(
        answer.media[0].ssrcs == [
            SsrcAttribute(ssrc: 1111, attribute: "cname", value: "swiftrtc-test"),
            SsrcAttribute(ssrc: 1111, attribute: "msid", value: "stream0 audio0"),
        ]
    )
    #expect(answer.msidSemantic == MsidSemantic(semantic: "WMS", identifiers: ["stream0"]))
    #expect(answer.extmapAllowMixed, "Chrome offered extmap-allow-mixed")

    let recvonly = [LocalTransceiver(kind: .audio, direction: .recvonly, streamId: "-", trackId: "-")]
    let listening = try JSEP.createAnswer(to: offer, transceivers: recvonly, local: TestPeer.local())
    #expect(listening.media[0].direction == .recvonly)
    #expect(listening.media[0].ssrcs.isEmpty && listening.media[0].msids.isEmpty)
    // No transceiver for video: answered recvonly with default capabilities, as browsers do.
    #expect(listening.media[1].direction == .recvonly)
    #expect(listening.media[1].payloadTypes == [96, 97])
}

@Test(arguments: [
    (DTLSSetup.actpass, DTLSSetup.active, DTLSSetup.active),
    (.actpass, .passive, .passive),
    (.active, .active, .passive),
    (.passive, .active, .active),
    (.passive, .passive, .active),
])
func answerSetupFollowsDTLSRules(offered: DTLSSetup, preferred: DTLSSetup, answered: DTLSSetup) throws {
    var offer = try SDPFixtures.parse("chrome-156-offer-audio-only.sdp")
    offer.media[0].setup = offered
    let answer = try JSEP.createAnswer(
        to: offer,
        transceivers: TestPeer.transceivers,
        local: TestPeer.local(answerSetup: preferred)
    )
    #expect(answer.media[0].setup == answered)
}

@Test func holdconnAndMissingTransportAreErrors() throws {
    var offer = try SDPFixtures.parse("chrome-156-offer-audio-only.sdp")
    offer.media[0].setup = .holdconn
    #expect(throws: JSEPError.invalidSetup(mid: "0", setup: "holdconn")) {
        try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    }
    offer = try SDPFixtures.parse("chrome-156-offer-audio-only.sdp")
    offer.media[0].fingerprints = []
    #expect(throws: JSEPError.missingFingerprint(mid: "0")) {
        try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    }
    offer = try SDPFixtures.parse("firefox-153-offer-audio-only.sdp")
    offer.media[0].iceUfrag = nil
    #expect(throws: JSEPError.missingICECredentials(mid: "0")) {
        try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    }
    // Firefox puts the fingerprint at session level: inherited, so no error.
    let firefox = try SDPFixtures.parse("firefox-153-offer-audio-only.sdp")
    #expect(firefox.media[0].fingerprints.isEmpty && firefox.fingerprints.count == 1)
    #expect(
        try JSEP.createAnswer(to: firefox, transceivers: TestPeer.transceivers, local: TestPeer.local()).media[0].port
            == 9
    )
}

@Test(arguments: [
    (MediaDirection.sendrecv, MediaDirection.sendrecv, MediaDirection.sendrecv),
    (.sendrecv, .recvonly, .recvonly),
    (.sendrecv, .sendonly, .sendonly),
    (.sendonly, .sendrecv, .recvonly),
    (.sendonly, .sendonly, .inactive),
    (.recvonly, .sendrecv, .sendonly),
    (.recvonly, .recvonly, .inactive),
    (.inactive, .sendrecv, .inactive),
])
func directionAnswers(offered: MediaDirection, local: MediaDirection, answered: MediaDirection) {
    #expect(offered.answer(local: local) == answered)
}

/// Recorded browser pairs: the answers real browsers and aiortc gave to recorded offers line
/// up with those offers (the same check our own answers pass).
@Test(arguments: [
    (
        "chrome-156-offer-audio-video-bundle-trickle.sdp", "firefox-153-answer-to-chrome-156-offer-audio-video.sdp",
        [UInt8(111), 96], DTLSSetup.active
    ),
    (
        "chrome-156-offer-audio-video-bundle-trickle.sdp", "aiortc-1.16-answer-to-chrome-156-offer-audio-video.sdp",
        [111, 96], .active
    ),
    ("chrome-156-offer-audio-video-bundle-trickle.sdp", "chrome-156-answer-audio-video.sdp", [111, 96], .active),
    (
        "firefox-153-offer-audio-video-bundle-trickle.sdp", "chrome-156-answer-to-firefox-153-offer-audio-video.sdp",
        [109, 120], .active
    ),
    (
        "firefox-153-offer-audio-video-bundle-trickle.sdp", "aiortc-1.16-answer-to-firefox-153-offer-audio-video.sdp",
        [109, 120], .active
    ),
    ("chromium-156-offer-audio-video-trickle.sdp", "chromium-156-answer-audio-video-trickle.sdp", [111, 96], .active),
    (
        "aiortc-1.16-offer-audio-video-candidates.sdp", "aiortc-1.16-answer-audio-video-candidates.sdp", [96, 97],
        .active
    ),
])
func recordedPairsNegotiate(offer: String, answer: String, firstPayloadTypes: [UInt8], setup: DTLSSetup) throws {
    let negotiation = try Negotiation(offer: SDPFixtures.parse(offer), answer: SDPFixtures.parse(answer))
    #expect(negotiation.bundle == ["0", "1"])
    #expect(negotiation.media.map { $0.codecs.first?.payloadType } == firstPayloadTypes.map { Optional($0) })
    #expect(negotiation.media.allSatisfy { $0.answererSetup == setup && !$0.offererIsDTLSClient })
}

@Test func negotiationRejectsAnswersThatUseWhatWasNotOffered() throws {
    let offer = try SDPFixtures.parse("chrome-156-offer-audio-video-bundle-trickle.sdp")
    var answer = try SDPFixtures.parse("firefox-153-answer-to-chrome-156-offer-audio-video.sdp")
    answer.media[0].codecs[0].name = "PCMU"
    #expect(throws: JSEPError.codecMismatch(mid: "0", payloadType: 111)) {
        try Negotiation(offer: offer, answer: answer)
    }
    answer = try SDPFixtures.parse("firefox-153-answer-to-chrome-156-offer-audio-video.sdp")
    answer.media[1].extensions.append(ExtMap(id: 99, uri: "urn:example:not-offered"))
    #expect(throws: JSEPError.extensionMismatch(mid: "1", id: 99)) { try Negotiation(offer: offer, answer: answer) }
    answer = try SDPFixtures.parse("firefox-153-answer-to-chrome-156-offer-audio-video.sdp")
    answer.media.removeLast()
    #expect(throws: JSEPError.self) { try Negotiation(offer: offer, answer: answer) }
}

@Test func answerToAnOfferWithoutMidsAddsNone() throws {
    // FreeSWITCH-style SDP without a=mid or BUNDLE, turned into an offer.
    var offer = try SDPFixtures.parse("freeswitch-2018-answer-audio-pcma-dtls.sdp")
    offer.media[0].setup = .actpass
    offer.media[0].codecs.insert(RtpCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2), at: 0)
    offer.media[0].formats.insert("111", at: 0)
    let answer = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    #expect(answer.media[0].mid == nil && answer.groups.isEmpty)
    #expect(answer.media[0].payloadTypes == [111])
    let negotiation = try Negotiation(offer: offer, answer: answer)
    #expect(negotiation.media.map(\.mid) == ["0"] && negotiation.media[0].accepted)
}

/// Firefox may write `a=rtcp-fb` for a payload type its m-line does not list; such a line is
/// ignored (RFC 4585 §4.2 ties feedback to the formats of the m-line), the offer is answered.
@Test func feedbackForAPayloadTypeNotInTheMLineIsIgnored() throws {
    let text = try SDPFixtures.text("firefox-153-whip-offer-to-callbot.sdp")
        .replacingOccurrences(
            of: "a=rtcp-fb:120 nack\r\n",
            with: "a=rtcp-fb:126 nack\r\na=rtcp-fb:126 nack pli\r\na=rtcp-fb:120 nack\r\n"
        )
    #expect(text.contains("a=rtcp-fb:126 nack pli"))
    let offer = try SessionDescription(parsing: text)
    let answer = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
    let video = try Negotiation(offer: offer, answer: answer).media[1]
    #expect(video.accepted && video.codecs.map(\.payloadType) == [120, 124])
    #expect(!answer.sdp.contains(":126 "))
}
