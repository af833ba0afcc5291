import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot sdp`: tools for session descriptions.
struct Sdp: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect session descriptions (SDP).",
        subcommands: [Check.self]
    )

    /// `callbot sdp check FILE|-`: parse an SDP and say what it offers.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse an SDP and print a summary of it (one line per media section).",
            discussion: """
                Exits 0 and prints the session facts (BUNDLE, ICE, DTLS) and, per media section, its \
                mid, kind, direction, codecs, SSRCs and candidates. Exits 1 with the line number and \
                what was expected when the SDP is broken.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The SDP file, or - to read standard input.")
        var file: String

        @Flag(help: "Print the parsed model as JSON instead of the summary.")
        var json = false

        @Flag(help: "Print the SDP as SwiftRTC writes it (canonical CRLF) instead of the summary.")
        var write = false

        func validate() throws {
            if json && write { throw ValidationError("--json and --write cannot be combined") }
        }

        func run() throws {
            global.apply()
            let data: Data
            do {
                data =
                    file == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                printError("cannot read \(file): \(error.localizedDescription)")
                throw ExitCode.failure
            }
            let description: SessionDescription
            do {
                description = try SessionDescription(parsing: data)
            } catch {
                printError("\(file == "-" ? "<stdin>" : file): \(error)")
                throw ExitCode.failure
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(description), as: UTF8.self))
            } else if write {
                FileHandle.standardOutput.write(Data(description.sdp.utf8))
            } else {
                print(SDPSummary(description).text, terminator: "")
            }
        }

        private func printError(_ message: String) {
            FileHandle.standardError.write(Data("callbot sdp check: \(message)\n".utf8))
        }
    }
}

/// The human summary `callbot sdp check` prints.
struct SDPSummary {
    var text = ""

    init(_ d: SessionDescription) {
        let resolved = d.media.map(d.resolved)
        describeSession(d, resolved: resolved)
        for m in resolved { describe(m) }
    }

    /// The session lines: origin and media count; the bundling, ICE and msid facts; the
    /// fingerprints; the DTLS setups and ICE ufrags (of `resolved`, the media sections with
    /// the session's attributes).
    private mutating func describeSession(_ d: SessionDescription, resolved: [MediaDescription]) {
        let o = d.origin
        line(
            "session  o=\(o.username) id \(o.sessionId) version \(o.sessionVersion), \(d.media.count) media section\(d.media.count == 1 ? "" : "s")"
        )
        var facts: [String] = []
        for group in d.bundleGroups { facts.append("BUNDLE " + group.joined(separator: " ")) }
        if d.bundleGroups.isEmpty { facts.append("no BUNDLE") }
        if d.iceLite { facts.append("ice-lite") }
        let options = Set(resolved.flatMap(\.iceOptions)).sorted()
        if !options.isEmpty { facts.append("ice-options " + options.joined(separator: " ")) }
        if d.extmapAllowMixed { facts.append("extmap-allow-mixed") }
        if let semantic = d.msidSemantic {
            facts.append("msid-semantic \(([semantic.semantic] + semantic.identifiers).joined(separator: " "))")
        }
        line("         " + facts.joined(separator: " | "))
        var fingerprints: [String] = []
        for f in resolved.flatMap(\.fingerprints) where !fingerprints.contains("\(f.hashFunction) \(f.value)") {
            fingerprints.append("\(f.hashFunction) \(f.value)")
        }
        for f in fingerprints { line("         fingerprint \(f)") }
        if fingerprints.isEmpty { line("         no fingerprint (DTLS cannot be verified)") }
        let setups = Set(resolved.filter { $0.port != 0 || $0.bundleOnly }.compactMap { $0.setup?.rawValue }).sorted()
        let ufrags = Set(resolved.compactMap(\.iceUfrag)).sorted()
        line(
            "         setup \(setups.isEmpty ? "none" : setups.joined(separator: ", ")) | ice-ufrag \(ufrags.isEmpty ? "none" : ufrags.joined(separator: ", "))"
        )
    }

    /// The line of one media section: mid, kind, direction, transport; its data channel or
    /// codecs, sources and simulcast; its candidates.
    private mutating func describe(_ m: MediaDescription) {
        var parts = ["mid \(m.mid ?? "-")", m.kind.rawValue]
        if m.isRejected {
            parts.append("rejected (port 0) \(m.proto)")
            line(parts.joined(separator: " "))
            return
        }
        parts.append(m.direction?.rawValue ?? "sendrecv")
        if m.bundleOnly { parts.append("bundle-only") }
        parts.append("\(m.proto) port \(m.port)")
        var columns = [parts.joined(separator: " ")]
        if m.isDataChannel {
            let sctp = m.sctpPort ?? m.sctpMap?.port
            columns.append(
                "sctp-port \(sctp.map(String.init) ?? "-")"
                    + (m.maxMessageSize.map { " max-message-size \($0)" } ?? "")
            )
        } else {
            let codecs = m.payloadTypes.map { pt -> String in
                let codec = m.attributes.codec(pt)
                var name = codec?.name ?? codec?.encodingName?.uppercased() ?? "?"
                if let apt = codec?.associatedPayloadType { name += "(\(apt))" }
                return "\(pt) \(name)"
            }
            columns.append("codecs " + (codecs.isEmpty ? "none" : codecs.joined(separator: ", ")))
            var sources = m.ssrcNumbers.map(String.init)
            for group in m.ssrcGroups {
                sources.append("\(group.semantics)(\(group.ssrcs.map(String.init).joined(separator: ",")))")
            }
            columns.append("ssrcs " + (sources.isEmpty ? "none" : sources.joined(separator: " ")))
            if let simulcast = m.simulcast {
                columns.append("simulcast " + simulcastText(simulcast))
            }
        }
        var byType: [String] = []
        for type in IceCandidate.CandidateType.allCases {
            let n = m.candidates.filter { $0.type == type }.count
            if n > 0 { byType.append("\(type.rawValue) \(n)") }
        }
        columns.append(
            "\(m.candidates.count) candidate\(m.candidates.count == 1 ? "" : "s")"
                + (byType.isEmpty ? "" : " (" + byType.joined(separator: ", ") + ")")
                + (m.endOfCandidates ? ", end-of-candidates" : "")
        )
        line(columns.joined(separator: " | "))
    }

    private func simulcastText(_ s: Simulcast) -> String {
        func list(_ streams: [[Simulcast.Stream]]) -> String {
            streams.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
        }
        return [s.send.isEmpty ? nil : "send \(list(s.send))", s.recv.isEmpty ? nil : "recv \(list(s.recv))"]
            .compactMap { $0 }.joined(separator: " ")
    }

    private mutating func line(_ s: String) { text += s + "\n" }
}
