import Foundation
import Testing

/// `callbot rtp inspect` on captures recorded from GStreamer, ffmpeg and Chrome.
@Suite struct RtpInspectTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func own(_ name: String) -> String { root.appendingPathComponent("Fixtures/rtp/\(name)").path }

    @Test func linesReportTheProducersFrames() async throws {
        let vp8 = try await Callbot.run(["rtp", "inspect", Self.own("gstreamer-vp8.pcapng"), "--codec", "96=VP8"])
        #expect(vp8.status == 0)
        #expect(
            vp8.stdout
                == "ssrc=1111 pt=96 codec=VP8 packets=65 gaps=0 duplicates=0 frames=60 keyframes=2 resolution=320x240\nrtcp: none\n"
        )
        let opus = try await Callbot.run(["rtp", "inspect", Self.own("ffmpeg-opus-sll2.pcapng"), "--codec", "111=opus"])
        #expect(
            opus.stdout
                == "ssrc=4444 pt=111 codec=opus packets=101 gaps=0 duplicates=0 frames=101 duration=2020ms\nrtcp: SR=1\n"
        )
        let unmapped = try await Callbot.run(["rtp", "inspect", Self.own("ffmpeg-vp8.pcap")])
        #expect(unmapped.stdout.hasPrefix("ssrc=3333 pt=96 codec=? packets=118 gaps=0 duplicates=0\n"))
    }

    @Test func jsonHasTheAgreedFieldsWithNulls() async throws {
        let result = try await Callbot.run([
            "rtp", "inspect", "--json", Self.own("chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap"),
            "--codec", "96=VP8", "--codec", "111=opus",
        ])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.count == 3)
        let keys = [
            "ssrc", "payload_type", "codec", "packets", "gaps", "duplicates", "frames", "keyframes", "width", "height",
            "duration_ms",
        ]
        for stream in streams { #expect(Set(stream.keys) == Set(keys)) }
        let video = try #require(streams.first { $0["ssrc"] as? Int == 765_957_555 })
        #expect(video["codec"] as? String == "VP8" && video["width"] as? Int == 320 && video["height"] as? Int == 180)
        #expect(video["duration_ms"] is NSNull && video["keyframes"] as? Int == 1)
        let audio = try #require(streams.first { $0["ssrc"] as? Int == 2_398_385_326 })
        #expect(audio["frames"] as? Int == 345 && audio["duration_ms"] as? Double == 6900 && audio["width"] is NSNull)
        let rtx = try #require(streams.first { $0["payload_type"] as? Int == 97 })
        #expect(rtx["codec"] is NSNull && rtx["frames"] is NSNull)
        let rtcp = try #require(json["rtcp"] as? [String: Int])
        #expect(rtcp["SR"] == 9 && rtcp["TWCC"] == 110)
        // The order of the keys is the agreed one.
        #expect(result.stdout.hasPrefix("{\"streams\":[{\"ssrc\":"))
        #expect(result.stdout.contains("\"keyframes\":null,\"width\":null,\"height\":null,\"duration_ms\":6900.0}"))
    }

    /// Payload types come from the call's own SDP: Chrome's offer maps 111 to opus, 96 to VP8
    /// and 97 to rtx; `--codec` overrides a mapping.
    @Test func sdpMapsPayloadTypes() async throws {
        let capture = Self.own("chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap")
        let offer = Self.own("chrome-156-plain-rtp-opus-vp8-rtx-twcc.offer.sdp")
        let result = try await Callbot.run(["rtp", "inspect", capture, "--sdp", offer])
        #expect(result.status == 0)
        #expect(result.stdout.contains("pt=111 codec=opus packets=345 gaps=0 duplicates=0 frames=345 duration=6900ms"))
        #expect(
            result.stdout.contains(
                "pt=96 codec=VP8 packets=101 gaps=0 duplicates=0 frames=101 keyframes=1 resolution=320x180"
            )
        )
        #expect(result.stdout.contains("pt=97 codec=rtx packets=27"))
        let overridden = try await Callbot.run(["rtp", "inspect", capture, "--sdp", offer, "--codec", "97=unknown"])
        #expect(overridden.stdout.contains("pt=97 codec=unknown"))
        let broken = try await Callbot.run(["rtp", "inspect", capture, "--sdp", Self.own("README.md")])
        #expect(broken.status != 0 && broken.stderr.contains("line 1"))
    }

    @Test func badInputFailsWithAMessage() async throws {
        let missing = try await Callbot.run(["rtp", "inspect", "/nonexistent.pcap"])
        #expect(missing.status != 0 && missing.stderr.contains("cannot read"))
        let notACapture = try await Callbot.run(["rtp", "inspect", Self.own("README.md")])
        #expect(notACapture.status != 0 && notACapture.stderr.contains("capture file magic"))
        let badCodec = try await Callbot.run(["rtp", "inspect", Self.own("ffmpeg-vp8.pcap"), "--codec", "300=VP8"])
        #expect(badCodec.status != 0 && badCodec.stderr.contains("300=VP8"))
    }
}
