import Testing

@testable import SwiftRTCSDP

/// The data section of JSEP (RFC 8841): answered in real browsers' and aiortc's offers (data
/// alone, and beside audio and video), offered by us, each reading back as written.
@Suite struct JSEPDataChannelTests {
    @Test(arguments: [
        ("chrome-156-offer-datachannel-only-trickle.sdp", 262_144 as UInt64),
        ("firefox-153-offer-datachannel-only-trickle.sdp", 1_073_741_823),
        ("aiortc-1.16-offer-datachannel-only.sdp", 262_144),
        ("chrome-156-offer-audio-video-data-full-candidates.sdp", 262_144),
        ("firefox-153-offer-audio-video-data-full-candidates.sdp", 1_073_741_823),
    ])
    func anOfferedDataSectionIsAccepted(fixture: String, remoteLimit: UInt64) throws {
        let offer = try SDPFixtures.parse(fixture)
        let local = TestPeer.local()
        let plain = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: local)
        let (answer, remote) = JSEP.acceptingDataSection(.init(), offer: offer, answer: plain, local: local)
        #expect(try SessionDescription(parsing: answer.sdp) == answer)
        let index = try #require(offer.media.firstIndex { $0.kind == .application })
        let data = answer.media[index]
        #expect(data.port != 0 && data.formats == ["webrtc-datachannel"] && data.sctpPort == 5000)
        #expect(data.maxMessageSize == 262_144 && data.mid == offer.media[index].mid)
        #expect(data.setup == .active && !data.fingerprints.isEmpty)
        #expect(remote?.sctpPort == 5000 && remote?.maxMessageSize == remoteLimit, "\(String(describing: remote))")
        // It is in the BUNDLE group with the media accepted.
        let bundle = try #require(answer.bundleGroups.first)
        #expect(bundle.contains(try #require(data.mid)))
    }

    /// Firefox with `bundlePolicy: "max-bundle"` offers every section after the first with
    /// port 0 and `a=bundle-only` (RFC 8843 §7.2.1): the data section is taken all the same.
    @Test func aBundleOnlyDataSectionIsAccepted() throws {
        var offer = try SDPFixtures.parse("firefox-153-offer-audio-video-data-full-candidates.sdp")
        let index = try #require(offer.media.firstIndex { $0.kind == .application })
        #expect(index > 0)
        offer.media[index].port = 0
        offer.media[index].bundleOnly = true
        let local = TestPeer.local()
        let plain = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: local)
        let (answer, remote) = JSEP.acceptingDataSection(.init(), offer: offer, answer: plain, local: local)
        #expect(answer.media[index].port != 0 && remote != nil)
    }

    @Test func anOfferWithoutADataSectionGetsNone() throws {
        let offer = try SDPFixtures.parse("chrome-156-plain-rtp-opus-vp8-rtx-twcc.offer.sdp")
        let local = TestPeer.local()
        let plain = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: local)
        let (answer, remote) = JSEP.acceptingDataSection(.init(), offer: offer, answer: plain, local: local)
        #expect(answer == plain && remote == nil)
    }

    @Test func ourOfferCarriesTheDataSectionBundledAfterTheMedia() throws {
        let local = TestPeer.local()
        let media = JSEP.createOffer(transceivers: TestPeer.transceivers, local: local)
        let offer = JSEP.addingDataSection(.init(), to: media, local: local)
        #expect(try SessionDescription(parsing: offer.sdp) == offer)
        let data = try #require(offer.media.last)
        #expect(data.kind == .application && data.proto == "UDP/DTLS/SCTP" && data.formats == ["webrtc-datachannel"])
        #expect(data.setup == .actpass && data.sctpPort == 5000 && data.maxMessageSize == 262_144)
        #expect(offer.media.count == media.media.count + 1)
        #expect(offer.bundleGroups.first == offer.media.compactMap(\.mid))
        #expect(offer.sdp.contains("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"))
        // A data-only offer.
        let alone = JSEP.addingDataSection(.init(), to: JSEP.createOffer(transceivers: [], local: local), local: local)
        #expect(alone.media.map(\.kind) == [.application] && alone.bundleGroups.first == ["0"])
    }
}
