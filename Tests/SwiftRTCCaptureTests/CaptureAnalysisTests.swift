import Foundation
import RTPFixtureSupport
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCapture

@Suite struct CaptureAnalysisTests {
    /// Our own recordings: the frames each producer sent (expected.json, from the producer's
    /// own output), found by the analysis from the capture alone.
    @Test(arguments: ["gstreamer-vp8.pcapng", "ffmpeg-vp8.pcap", "gstreamer-opus.pcapng", "ffmpeg-opus-sll2.pcapng"])
    func reportsTheProducersFrames(file: String) throws {
        let expected = try Fixtures.expected(file)
        let analysis = CaptureAnalysis.analyze(
            try Fixtures.datagrams(Fixtures.own.appendingPathComponent(file)),
            codecs: [96: "VP8", 111: "opus"]
        )
        let stream = try #require(analysis.streams.first { $0.ssrc == expected.ssrc })
        #expect(stream.frames == expected.frames.count)
        #expect(stream.frameSizes == expected.frames.map(\.size))
        #expect(stream.keyframeFlags == expected.frames.map(\.keyframe))
        #expect(stream.gaps == 0 && stream.duplicates == 0)
        if expected.codec == "VP8" {
            #expect(stream.keyframes == expected.frames.filter(\.keyframe).count)
            #expect(stream.width == expected.width && stream.height == expected.height)
            #expect(stream.durationMilliseconds == nil)
        } else {
            #expect(stream.durationMilliseconds == Double(expected.frames.count * 20))
            #expect(stream.keyframes == nil && stream.width == nil)
        }
    }

    @Test func chromeCaptureStreamsAndRTCP() throws {
        let url = Fixtures.own.appendingPathComponent("chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap")
        let analysis = CaptureAnalysis.analyze(
            try Fixtures.datagrams(url),
            codecs: [96: "VP8", 111: "opus", 97: "rtx"]
        )
        #expect(analysis.streams.map(\.ssrc) == [2_398_385_326, 598_342_781, 765_957_555])
        let video = analysis.streams[2]
        #expect(video.width == 320 && video.height == 180 && video.keyframes == 1 && video.gaps == 0)
        #expect(analysis.streams[1].frames == nil && analysis.streams[1].codec == "rtx")
        #expect(analysis.rtcpCounts["SR"] == 9 && analysis.rtcpCounts["TWCC"] == 110 && analysis.rtcpCounts["XR"] == 15)
        #expect(analysis.otherDatagrams > 0, "STUN checks")
    }

    /// Loss and duplicates in the capture itself: gaps count the missing sequence numbers,
    /// duplicates the repeats, frames only the whole ones.
    @Test func gapsAndDuplicatesOfADamagedCapture() throws {
        let file = "ffmpeg-vp8.pcap"
        let expected = try Fixtures.expected(file)
        let original = try Fixtures.datagrams(Fixtures.own.appendingPathComponent(file))
        let rtp = original.indices.filter { i in original[i].payload.withUnsafeBytes { !RTPDemultiplexer.isRTCP($0) } }
        let dropped: Set = [rtp[5], rtp[6], rtp[40]]
        var datagrams: [CaptureReader.Datagram] = []
        for (i, datagram) in original.enumerated() where !dropped.contains(i) {
            datagrams.append(datagram)
            if i == rtp[22] { datagrams.append(original[rtp[20]]) }  // a late duplicate
        }
        let analysis = CaptureAnalysis.analyze(datagrams, codecs: [96: "VP8"])
        let stream = try #require(analysis.streams.first)
        #expect(stream.gaps == 3 && stream.duplicates == 1 && stream.packets == rtp.count - 3 + 1)
        #expect(try #require(stream.frames) < expected.frames.count && stream.frames! >= expected.frames.count - 3)
        #expect(stream.width == 320)
    }
}
