import ArgumentParser
import Foundation
import SwiftRTC
import SwiftRTCCapture

/// `callbot rtp`: tools for RTP captures.
struct Rtp: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect RTP/RTCP captures.",
        subcommands: [Inspect.self]
    )

    /// `callbot rtp inspect FILE`: one line per SSRC of a pcap/pcapng capture.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarize the RTP streams and RTCP packets of a pcap or pcapng capture.",
            discussion: """
                One line per SSRC: payload type, codec, packets, gaps (missing sequence numbers), \
                duplicates; for VP8 the frames assembled, keyframes and the keyframe resolution; \
                for Opus the frames and their duration. Then the RTCP packets by type.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The capture file (pcap or pcapng).")
        var file: String

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Map a payload type to a codec, e.g. 96=VP8 or 111=opus (repeatable).",
                valueName: "PT=NAME"
            )
        )
        var codec: [CodecMapping] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Take payload type to codec mappings from the call's SDP (its a=rtpmap lines); --codec wins where both name a payload type.",
                valueName: "FILE"
            )
        )
        var sdp: String?

        @Flag(name: .long, help: "Print JSON: {\"streams\": [...], \"rtcp\": {...}}.")
        var json = false

        func run() throws {
            global.apply()
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            let reader: CaptureReader
            do {
                reader = try CaptureReader(bytes: Array(data))
            } catch {
                throw ValidationError("\(file): \(error)")
            }
            var codecs: [UInt8: String] = [:]
            if let sdp {
                guard let text = FileManager.default.contents(atPath: sdp) else {
                    throw ValidationError("cannot read \(sdp)")
                }
                let description: SessionDescription
                do {
                    description = try SessionDescription(parsing: text)
                } catch {
                    throw ValidationError("\(sdp): \(error)")
                }
                for media in description.media {
                    for rtpCodec in media.attributes.codecs {
                        if let name = rtpCodec.name { codecs[rtpCodec.payloadType] = name }
                    }
                }
            }
            for mapping in codec { codecs[mapping.payloadType] = mapping.name }
            var iterator = reader.makeIterator()
            var analysis = CaptureAnalysis(codecs: codecs)
            while let datagram = iterator.next() { analysis.add(datagram.payload, time: datagram.time) }
            analysis.finish()
            if json {
                print(Self.json(analysis))
            } else {
                for stream in analysis.streams { print(Self.line(stream)) }
                let rtcp = analysis.rtcpCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                print("rtcp: " + (rtcp.isEmpty ? "none" : rtcp.joined(separator: " ")))
            }
            if let error = iterator.error {
                FileHandle.standardError.write(Data("warning: \(file): capture ends early: \(error)\n".utf8))
            }
        }

        static func line(_ s: CaptureAnalysis.Stream) -> String {
            var line =
                "ssrc=\(s.ssrc) pt=\(s.payloadType) codec=\(s.codec ?? "?") packets=\(s.packets) gaps=\(s.gaps) duplicates=\(s.duplicates)"
            if let frames = s.frames { line += " frames=\(frames)" }
            if let keyframes = s.keyframes { line += " keyframes=\(keyframes)" }
            if let width = s.width, let height = s.height { line += " resolution=\(width)x\(height)" }
            if let duration = s.durationMilliseconds { line += " duration=\(Int(duration.rounded()))ms" }
            return line
        }

        static func json(_ analysis: CaptureAnalysis) -> String {
            func value(_ v: Int?) -> String { v.map(String.init) ?? "null" }
            func text(_ v: String?) -> String {
                guard let v else { return "null" }
                let escaped = v.unicodeScalars.map { c -> String in
                    switch c {
                    case "\"": "\\\""
                    case "\\": "\\\\"
                    case _ where c.value < 0x20: String(format: "\\u%04x", c.value)
                    default: String(c)
                    }
                }.joined()
                return "\"\(escaped)\""
            }
            let streams = analysis.streams.map { s in
                let duration = s.durationMilliseconds.map { String(format: "%.1f", $0) } ?? "null"
                return
                    "{\"ssrc\":\(s.ssrc),\"payload_type\":\(s.payloadType),\"codec\":\(text(s.codec)),\"packets\":\(s.packets),"
                    + "\"gaps\":\(s.gaps),\"duplicates\":\(s.duplicates),\"frames\":\(value(s.frames)),\"keyframes\":\(value(s.keyframes)),"
                    + "\"width\":\(value(s.width)),\"height\":\(value(s.height)),\"duration_ms\":\(duration)}"
            }
            let rtcp = analysis.rtcpCounts.sorted { $0.key < $1.key }.map { "\(text($0.key)):\($0.value)" }
            return "{\"streams\":[\(streams.joined(separator: ","))],\"rtcp\":{\(rtcp.joined(separator: ","))}}"
        }
    }
}

/// A `PT=NAME` payload type mapping of `--codec`.
struct CodecMapping: ExpressibleByArgument {
    var payloadType: UInt8
    var name: String

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]), pt < 128, !parts[1].isEmpty else { return nil }
        payloadType = pt
        name = String(parts[1])
    }
}
