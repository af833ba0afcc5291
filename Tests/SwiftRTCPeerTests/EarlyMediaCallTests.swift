import SwiftRTCDTLS
import SwiftRTCMedia
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// Loses the first `times` DTLS datagrams that start with a ChangeCipherSpec record (content
/// type 20): the DTLS server's last flight, and its resends.
final class LastFlightLoss: Sendable {
    let times: Int
    let lost = Atomic<Int>(0)

    init(times: Int) { self.times = times }

    func drops(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard datagram.first == 20 else { return false }
        return lost.add(1, ordering: .relaxed).oldValue < times
    }
}

/// The DTLS server keys SRTP when the client's last flight arrives and sends media at once;
/// when its own last flight is lost, the client keys only after its retransmission timer.
/// What the client receives in between waits and is unprotected once it is keyed: no packet
/// of that first stretch is lost and the first keyframe decodes (with no PLI after a short
/// wait). The flight comes again when the client retransmits its own (GnuTLS doubles that
/// timer: 200, 400, 800 ms) and every 500 ms from the server itself: lost once, the client
/// keyed 0.5 s after connecting began, lost three times 1.0 s after (about 30 frames and 50
/// audio packets wait at 30 frames a second). The server stops resending once the client's
/// first SRTP arrives.
@Suite(.realTime) struct EarlyMediaCallTests {
    @Test(arguments: [1, 3])
    func mediaBeforeKeyingIsKept(flightsLost: Int) async throws {
        let offerer = try PeerConnection(configuration: LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: LoopbackCall.configuration)
        defer {
            Task {
                await offerer.close()
                await answerer.close()
            }
        }
        let audio = MediaStreamTrack(kind: .audio), video = MediaStreamTrack(kind: .video)
        audio.play(ToneGenerator(frequency: 440, amplitude: 0.3))
        video.play(TestPatternSource(width: 160, height: 120, framesPerSecond: 30))
        try await offerer.addTrack(audio)
        try await offerer.addTrack(video)
        let media = DecodedMedia()
        media.follow(await answerer.remoteTracks())

        let loss = LastFlightLoss(times: flightsLost)
        let relay = try UDPRelay()
        defer { relay.stop() }
        // The answerer is the DTLS client: the offerer's ChangeCipherSpec and Finished are lost.
        relay.dropping { loss.drops($0) }
        try await LoopbackCall.exchange(
            offerer: offerer,
            answerer: answerer,
            relay: relay,
            answering: { answer in try #require(answer.sdp.contains("a=setup:active")) }
        )

        let offererConnected = await LoopbackCall.waitConnected(offerer),
            answererConnected = await LoopbackCall.waitConnected(answerer)
        #expect(offererConnected && answererConnected)
        #expect(loss.lost.load(ordering: .relaxed) > flightsLost, "every lost flight was sent again")
        #expect(await LoopbackCall.wait { media.values.withLock { $0.videoFrames >= 60 && $0.audioFrames >= 100 } })
        relay.dropping(nil)
        // The client's media told the server it has the keys: no resend after that.
        let server = try #require(await offerer.transport?.dtlsTransport)
        let resends = server.lastFlightResends
        try await Task.sleep(for: .seconds(1.2))
        #expect(server.lastFlightResends == resends)
        #expect(
            resends < DtlsTransport.maximumLastFlightResends,
            "the client's media, not the limit, stopped the \(resends) resends"
        )

        let sent = await offerer.stats(), received = await answerer.stats()
        let transport = try #require(received.first(.transport))
        let earlyDropped = transport.number("srtpBeforeKeyingDropped")
        #expect(earlyDropped == 0)
        let inboundVideo = try #require(received.first(.inboundRTP, kind: "video"))
        let inboundAudio = try #require(received.first(.inboundRTP, kind: "audio"))
        let outboundAudio = try #require(sent.first(.outboundRTP, kind: "audio"))
        // The first keyframe came before keying and was kept: no keyframe had to be asked for.
        // (After three losses, about 30 frames come at once; on a machine busy with the whole
        // test suite the decoder may fall behind such a burst and ask for one: only decoding
        // was late.)
        let pliCount = inboundVideo.number("pliCount"), keyFrames = inboundVideo.number("keyFramesDecoded")
        #expect((keyFrames ?? 0) >= 1)
        if flightsLost == 1 { #expect(pliCount == 0 && keyFrames == 1) }
        // Every packet sent arrived but those still in flight (a frame or two of each).
        let audioSent = try #require(outboundAudio.number("packetsSent")),
            audioReceived = try #require(inboundAudio.number("packetsReceived"))
        #expect(audioSent - audioReceived <= 3, "sent \(audioSent), received \(audioReceived)")
        let outboundVideo = try #require(sent.first(.outboundRTP, kind: "video"))
        let videoSent = try #require(outboundVideo.number("packetsSent")),
            videoReceived = try #require(inboundVideo.number("packetsReceived"))
        #expect(videoSent - videoReceived <= 6, "sent \(videoSent), received \(videoReceived)")
        print(
            "early media, last flight lost \(flightsLost) times: audio sent \(audioSent) received \(audioReceived), video sent \(videoSent) received \(videoReceived), pli \(pliCount ?? -1) keyframes \(keyFrames ?? -1)"
        )
    }
}
