import SwiftRTCSDP
import Testing

/// Key facts of a selection of recorded SDPs, read off the files by hand: mids, kinds, ports,
/// first codec, candidates per section, fingerprints, BUNDLE.
private struct Facts: Sendable, CustomStringConvertible {
    var file: String
    var bundle: [String]
    var mids: [String?]
    var kinds: [String]
    var ports: [UInt16]
    var firstCodec: [String?]
    var candidates: [Int]
    var fingerprint: (hash: String, prefix: String, count: Int)
    var description: String { file }
}

private let selection: [Facts] = [
    Facts(
        file: "chrome-156-offer-audio-video-data-full-candidates.sdp",
        bundle: ["0", "1", "2"],
        mids: ["0", "1", "2"],
        kinds: ["audio", "video", "application"],
        ports: [49178, 49158, 49258],
        firstCodec: ["opus/48000/2", "VP8/90000", nil],
        candidates: [8, 8, 8],
        fingerprint: ("sha-256", "E7:73:C5:9C:F5:16", 1)
    ),
    Facts(
        file: "firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp",
        bundle: ["0", "1"],
        mids: ["0", "1"],
        kinds: ["audio", "video"],
        ports: [49167, 49171],
        firstCodec: ["opus/48000/2", "VP8/90000"],
        candidates: [18, 18],
        fingerprint: ("sha-256", "CC:05:D3:36:BD:E3", 1)
    ),
    Facts(
        file: "safari-12-2020-offer-audio-video-data-planb-h264-first.sdp",
        bundle: ["audio", "video", "data"],
        mids: ["audio", "video", "data"],
        kinds: ["audio", "video", "application"],
        ports: [61015, 51044, 60277],
        firstCodec: ["opus/48000/2", "H264/90000", nil],
        candidates: [3, 3, 3],
        fingerprint: ("sha-256", "F2:68:A5:17:E7:85", 1)
    ),
    Facts(
        file: "gstreamer-1.22-webrtcbin-offer-video-audio-full-candidates-tcp-passive.sdp",
        bundle: ["video0", "audio1"],
        mids: ["video0", "audio1"],
        kinds: ["video", "audio"],
        ports: [9, 0],
        firstCodec: ["VP8/90000", "OPUS/48000/2"],
        candidates: [13, 0],
        fingerprint: ("sha-256", "CB:55:A1:A3:75:C4", 1)
    ),
    Facts(
        file: "aiortc-1.16-offer-audio-video-full-candidates-host-srflx-relay.sdp",
        bundle: ["0", "1"],
        mids: ["0", "1"],
        kinds: ["audio", "video"],
        ports: [39778, 41931],
        firstCodec: ["opus/48000/2", "VP8/90000"],
        candidates: [4, 4],
        fingerprint: ("sha-256", "CC:F6:2F:20:57:73", 3)
    ),
    Facts(
        file: "jitsi-jicofo-2020-offer-planb-ssrc-group-sim-fid.sdp",
        bundle: ["audio", "video"],
        mids: ["audio", "video"],
        kinds: ["audio", "video"],
        ports: [1, 1],
        firstCodec: ["opus/48000/2", "VP8/90000"],
        candidates: [3, 3],
        fingerprint: ("sha-256", "04:E4:A4:5B:0B:FE", 1)
    ),
    Facts(
        file: "freeswitch-2018-answer-audio-pcma-dtls.sdp",
        bundle: [],
        mids: [nil],
        kinds: ["audio"],
        ports: [16628],
        firstCodec: ["PCMA/8000"],
        candidates: [1],
        fingerprint: ("sha-256", "35:5A:BC:8E:CD:F8", 1)
    ),
    Facts(
        file: "firefox-58-offer-datachannel-legacy-dtls-sctp.sdp",
        bundle: ["sdparta_0"],
        mids: ["sdparta_0"],
        kinds: ["application"],
        ports: [45791],
        firstCodec: [nil],
        candidates: [4],
        fingerprint: ("sha-256", "39:4A:09:1E:0E:33", 1)
    ),
    Facts(
        file: "spec-jsep-draft-offer-bundle-only-msid.sdp",
        bundle: ["a1", "v1"],
        mids: ["a1", "v1"],
        kinds: ["audio", "video"],
        ports: [56500, 0],
        firstCodec: ["opus/48000/2", "VP8/90000"],
        candidates: [2, 0],
        fingerprint: ("sha-256", "19:E2:1C:3B:4B:9F", 1)
    ),
    Facts(
        file: "chrome-64-2018-offer-audio-only-ipv6-tcp-candidates.sdp",
        bundle: ["audio"],
        mids: ["audio"],
        kinds: ["audio"],
        ports: [45076],
        firstCodec: ["opus/48000/2"],
        candidates: [4],
        fingerprint: ("sha-256", "6B:8B:5D:EA:59:04", 1)
    ),
]

@Test(arguments: selection)
private func keyFactsOfRecordedSDP(_ facts: Facts) throws {
    let d = try SDPFixtures.parse(facts.file)
    #expect(d.bundleGroups.first ?? [] == facts.bundle)
    #expect(d.media.map(\.mid) == facts.mids)
    #expect(d.media.map(\.kind.rawValue) == facts.kinds)
    #expect(d.media.map(\.port) == facts.ports)
    #expect(d.media.map { $0.codecs.first?.rtpmapValue } == facts.firstCodec)
    #expect(d.media.map(\.candidates.count) == facts.candidates)
    let fingerprints = d.resolved(d.media[0]).fingerprints
    #expect(fingerprints.count == facts.fingerprint.count)
    #expect(fingerprints.first?.hashFunction == facts.fingerprint.hash)
    #expect(fingerprints.first?.value.hasPrefix(facts.fingerprint.prefix) == true)
    #expect(fingerprints.first?.bytes.count == 32)
}

@Test func candidatesOfEveryKindAreTyped() throws {
    // Chrome: IPv4/IPv6 host, srflx, relay, TCP active, libwebrtc extensions.
    let chrome = try SDPFixtures.parse("chrome-156-offer-audio-video-full-candidates-host-srflx-relay-tcp-ipv6.sdp")
        .media[0].candidates
    #expect(
        chrome[0]
            == IceCandidate(
                foundation: "1501613060",
                component: 1,
                transport: "udp",
                priority: 2_122_194_687,
                address: "10.0.0.2",
                port: 39424,
                type: .host,
                generation: 0,
                networkId: 1
            )
    )
    #expect(chrome[1].addressFamily == .ipv6)
    #expect(chrome[2].type == .srflx && chrome[2].relatedAddress == "10.0.0.2" && chrome[2].relatedPort == 39424)
    #expect(chrome.filter { $0.type == .relay }.count == 3)
    #expect(chrome[6].isTCP && chrome[6].tcpType == .active && chrome[6].port == 9)
    // Firefox: mDNS host names, upper-case transport, component 2.
    let firefox = try SDPFixtures.parse("firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp").media[0]
        .candidates
    #expect(firefox[0].address == "da7b02ee-fce2-49ca-be14-708db18b86e6.local" && firefox[0].addressFamily == .mdns)
    #expect(firefox[0].transport == "UDP" && !firefox[0].isTCP)
    #expect(firefox.filter { $0.component == 2 }.count == 9)
    // GStreamer/libnice: TCP passive and srflx TCP.
    let gst = try SDPFixtures.parse("gstreamer-1.22-webrtcbin-offer-video-audio-full-candidates-tcp-passive.sdp").media[
        0
    ].candidates
    #expect(gst.filter { $0.tcpType == .passive }.count == 4)
    #expect(gst[10].type == .srflx && gst[10].tcpType == .active && gst[10].port == 9)
    // Safari: network-cost.
    let safari = try SDPFixtures.parse("safari-12-2020-offer-audio-video-data-planb-h264-first.sdp").media[0].candidates
    #expect(safari.allSatisfy { $0.networkCost == 999 && $0.generation == 0 })
}

@Test func trickleCandidateStringsRoundTrip() throws {
    let line =
        "candidate:842163049 1 udp 1677729535 203.0.113.1 61015 typ srflx raddr 192.168.0.87 rport 61015 generation 0 ufrag XSmV network-id 1 network-cost 999"
    let candidate = try IceCandidate(sdpLine: line)
    #expect(candidate.ufrag == "XSmV" && candidate.networkId == 1 && candidate.networkCost == 999)
    #expect(candidate.sdpLine == line)
    #expect(try IceCandidate(sdpLine: "a=" + line) == candidate)
    let prflx = try IceCandidate(
        sdpLine: "candidate:4 1 udp 1845501695 198.51.100.7 40000 typ prflx raddr 10.0.0.2 rport 40000 x-future 7"
    )
    #expect(prflx.type == .prflx)
    #expect(prflx.extensions == [IceCandidate.Extension(name: "x-future", value: "7")])
    #expect(prflx.sdpLine.hasSuffix(" x-future 7"))
    #expect(
        throws: SDPParseError(
            lineNumber: 1,
            line: "m=audio 9 RTP/AVP 0",
            expected: "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>"
        )
    ) {
        try IceCandidate(sdpLine: "m=audio 9 RTP/AVP 0")
    }
}

@Test func sessionLevelAttributesAreInherited() throws {
    let firefox = try SDPFixtures.parse("firefox-153-offer-audio-video-bundle-trickle.sdp")
    #expect(firefox.media[0].fingerprints.isEmpty && firefox.direction == nil)
    let withSessionDirection = try SDPFixtures.parse(
        "firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp"
    )
    #expect(withSessionDirection.direction == .sendrecv)
    let audio = firefox.resolved(firefox.media[0])
    #expect(audio.fingerprints == firefox.fingerprints)
    #expect(audio.iceOptions == ["trickle"])
    #expect(audio.direction == .sendrecv)
    let freeswitch = try SDPFixtures.parse("freeswitch-2018-answer-audio-pcma-dtls.sdp")
    #expect(freeswitch.media[0].connection == nil)
    #expect(freeswitch.resolved(freeswitch.media[0]).connection == ConnectionData(address: "1.2.3.4"))
}

@Test func mediaLevelDetailsAreTyped() throws {
    let firefox = try SDPFixtures.parse("firefox-153-offer-simulcast-rid-q-h-f.sdp")
    let video = firefox.media[1]
    #expect(video.rids.map(\.id) == ["q", "h", "f"] && video.rids.allSatisfy { $0.direction == .send })
    #expect(video.simulcast?.send.map { $0.map(\.rid) } == [["q"], ["h"], ["f"]])
    #expect(video.ssrcGroups.filter { $0.semantics == "FID" }.count == 3)
    let audio = try SDPFixtures.parse("firefox-153-offer-audio-video-full-candidates-mdns-srflx-relay.sdp").media[0]
    #expect(
        audio.extensions[1] == ExtMap(id: 2, direction: .recvonly, uri: "urn:ietf:params:rtp-hdrext:csrc-audio-level")
    )
    #expect(audio.rtcp == RtcpAddress(port: 49214, connection: ConnectionData(address: "203.0.113.2")))
    #expect(audio.codec(101)?.formatParameters == "0-15")
    #expect(audio.codec(109)?.parameters["useinbandfec"] == "1")
    #expect(audio.codec(9)?.channels == 1)
    let legacy = try SDPFixtures.parse("firefox-58-offer-datachannel-legacy-dtls-sctp.sdp").media[0]
    #expect(legacy.sctpMap == SctpMap(port: 5000, application: "webrtc-datachannel", streams: 256))
    #expect(legacy.maxMessageSize == 1_073_741_823 && legacy.isDataChannel)
    let chrome = try SDPFixtures.parse("chrome-156-offer-datachannel-only-trickle.sdp").media[0]
    #expect(chrome.sctpPort == 5000 && chrome.formats == ["webrtc-datachannel"])
    let gst = try SDPFixtures.parse("gstreamer-1.22-webrtcbin-offer-video-audio-max-bundle-trickle.sdp")
    #expect(gst.media[1].bundleOnly && gst.media[1].rtcpMuxOnly && !gst.media[1].isRejected)
    #expect(gst.media[1].codec(111)?.encodingName == "opus")
    let planB = try SDPFixtures.parse("chrome-56-2017-offer-audio-video-planb-flexfec-fid.sdp").media[1]
    #expect(planB.ssrcGroups.map(\.semantics) == ["FID", "FEC-FR"])
    #expect(planB.ssrcs.first == SsrcAttribute(ssrc: 3_004_364_195, attribute: "cname", value: "loqPWNg7JMmrFUnr"))
}
