import Foundation
import SwiftRTCSDP
import Synchronization
import TestScheduling
import Testing

/// Real peers accept what SwiftRTC writes: aiortc (PyPI) and headless Chromium (Debian
/// `chromium` + `chromium-driver`) answer our offer, and take our answer to their offer.
/// The drivers are `Fixtures/sdp/aiortc_sdp.py` and `chromium_sdp.py`. Set
/// `SWIFTRTC_RECORD_FIXTURES=1` to store the exchanged SDPs in `Fixtures/sdp/`.
@Suite(.serialized, .realTime)
struct JSEPInteropTests {
    enum Peer: String, CaseIterable {
        case aiortc, chromium
        var script: URL { SDPFixtures.ownFolder.appendingPathComponent("\(rawValue)_sdp.py") }
        var install: String {
            switch self {
            case .aiortc: ProjectPython.setUp + " (it installs aiortc 1.16 into .venv/)"
            case .chromium: ProjectPython.setUp + " (it installs chromium and chromium-driver)"
            }
        }
    }

    struct PeerFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `<the project's Python> <driver> <mode>` (``ProjectPython``), handing `respond` what the driver prints before
    /// `--END--` (if anything) and writing its reply to the driver's stdin.
    /// Runs off the cooperative pool (the drivers take seconds).
    static func run(
        _ peer: Peer,
        _ mode: String...,
        stdin: String? = nil,
        respond: (@Sendable (String) throws -> String)? = nil
    ) async throws -> String {
        try await offThePool { try runBlocking(peer, mode, stdin: stdin, respond: respond) }
    }

    private static func runBlocking(
        _ peer: Peer,
        _ mode: [String],
        stdin: String?,
        respond: (@Sendable (String) throws -> String)?
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProjectPython.path)
        process.arguments = [peer.script.path] + mode
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        do {
            try process.run()
        } catch {
            throw PeerFailure(
                description: "cannot run \(ProjectPython.path) for \(peer): \(error); \(ProjectPython.setUp)"
            )
        }
        var output = Data()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        if let respond {
            let marker = Data("--END--\n".utf8)
            while output.range(of: marker) == nil {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                output.append(chunk)
            }
            if let range = output.range(of: marker) {
                let reply = try respond(String(decoding: output[..<range.lowerBound], as: UTF8.self))
                input.fileHandleForWriting.write(Data(reply.utf8))
                output.removeSubrange(..<range.upperBound)
            }
        }
        try? input.fileHandleForWriting.close()
        output.append(try out.fileHandleForReading.readToEnd() ?? Data())
        let stderr = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure(
                description:
                    "\(peer) \(mode.joined(separator: " ")) failed (exit \(process.terminationStatus)): \(stderr.suffix(2000))\nIf a tool is missing: \(peer.install)"
            )
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func record(_ name: String, _ sdp: String) throws {
        guard ProcessInfo.processInfo.environment["SWIFTRTC_RECORD_FIXTURES"] == "1" else { return }
        try sdp.write(to: SDPFixtures.ownFolder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test(arguments: Peer.allCases)
    func peerAnswersOurOffer(peer: Peer) async throws {
        let offer = TestPeer.offer
        let answerText = try await Self.run(peer, "answer", stdin: offer.sdp)
        let answer = try SessionDescription(parsing: answerText)
        let negotiation = try Negotiation(offer: offer, answer: answer)
        #expect(negotiation.bundle == ["0", "1"])
        #expect(negotiation.media.map(\.accepted) == [true, true])
        #expect(negotiation.media.map(\.answererDirection) == [.sendrecv, .sendrecv])
        // The peer is the DTLS client: SwiftRTC offered actpass, browsers and aiortc pick active.
        #expect(negotiation.media.map(\.answererSetup) == [.active, .active])
        #expect(negotiation.media[0].codecs.map(\.payloadType) == [111])
        #expect(negotiation.media[0].codecs.first?.encodingName == "opus")
        #expect(negotiation.media[1].codecs.map(\.payloadType) == [96, 97])
        #expect(negotiation.media[1].codecs.map(\.encodingName) == ["vp8", "rtx"])
        #expect(negotiation.media[1].codecs[1].associatedPayloadType == 96)
        let audioExtensions = negotiation.media[0].extensions.map(\.uri)
        #expect(audioExtensions.contains(ExtMap.URI.mid))
        #expect(audioExtensions.contains(ExtMap.URI.audioLevel))
        #expect(negotiation.media[1].extensions.map(\.uri).contains(ExtMap.URI.absSendTime))
        if peer == .chromium {
            #expect(Set(negotiation.media[0].extensions.map(\.id)) == [1, 2, 3, 4])
            #expect(negotiation.media[1].codecs[0].feedback.contains(RtcpFeedback("nack", "pli")))
            #expect(negotiation.media[1].codecs[0].feedback.contains(RtcpFeedback("transport-cc")))
        }
        try Self.record("swiftrtc-offer-audio-video.sdp", offer.sdp)
        try Self.record(
            peer == .chromium
                ? "chromium-156-answer-to-swiftrtc-offer.sdp" : "aiortc-1.16-answer-to-swiftrtc-offer.sdp",
            answerText
        )
    }

    @Test(arguments: Peer.allCases)
    func peerAcceptsOurAnswer(peer: Peer) async throws {
        let exchanged = Mutex<(offer: SessionDescription, answer: SessionDescription)?>(nil)
        let result = try await Self.run(peer, "offer") { offerText in
            let parsed = try SessionDescription(parsing: offerText)
            let made = try JSEP.createAnswer(
                to: parsed,
                transceivers: TestPeer.transceivers,
                local: TestPeer.local(candidates: [TestPeer.hostCandidate])
            )
            exchanged.withLock { $0 = (parsed, made) }
            return made.sdp
        }
        #expect(result.contains("accepted stable"), "\(result)")
        let (offer, answer) = try #require(exchanged.withLock { $0 })
        let negotiation = try Negotiation(offer: offer, answer: answer)
        #expect(negotiation.media.map(\.kind) == [.audio, .video])
        #expect(negotiation.media.allSatisfy { $0.accepted && $0.answererSetup == .active })
        #expect(negotiation.media[0].codecs.first?.encodingName == "opus")
        #expect(negotiation.media[1].codecs.first?.encodingName == "vp8")
    }

    @Test(arguments: Peer.allCases)
    func peerAcceptsOurRejectionOfItsDataChannel(peer: Peer) async throws {
        let made = Mutex<SessionDescription?>(nil)
        let result = try await Self.run(peer, "offer", "data") { offerText in
            let offer = try SessionDescription(parsing: offerText)
            let answer = try JSEP.createAnswer(to: offer, transceivers: TestPeer.transceivers, local: TestPeer.local())
            made.withLock { $0 = answer }
            return answer.sdp
        }
        let answer = made.withLock { $0 }
        #expect(result.contains("accepted stable"), "\(result)")
        let sections = try #require(answer).media
        #expect(sections.map(\.kind) == [.audio, .video, .application])
        #expect(sections.map(\.port) == [9, 9, 0])
        #expect(try #require(answer).bundleGroups == [["0", "1"]])
    }

    /// Chromium takes our ICE restart offer on the same connection and restarts ICE too.
    @Test func chromiumAcceptsOurICERestart() async throws {
        let first = TestPeer.offer
        let restart = JSEP.iceRestartOffer(previous: first, iceUfrag: "ReSt", icePwd: "restartpasswordrestart00")
        let output = try await Self.run(.chromium, "renegotiate", stdin: first.sdp + "--NEXT--\n" + restart.sdp)
        let answers = try output.components(separatedBy: "--NEXT--\n").map { try SessionDescription(parsing: $0) }
        #expect(answers.count == 2)
        let before = try Negotiation(offer: first, answer: answers[0])
        let after = try Negotiation(offer: restart, answer: answers[1])
        // Same media, codecs and roles; new ICE credentials on Chromium's side as well.
        #expect(after.media == before.media)
        #expect(answers[0].media[0].iceUfrag != answers[1].media[0].iceUfrag)
    }
}
