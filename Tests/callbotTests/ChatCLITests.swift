import Foundation
import TestScheduling
import Testing

/// `call --chat` and `answer --chat`: two callbots through `callbot serve` chat through their
/// standard input and output, on the call's chat channel.
@Suite(.serialized, .realTime) struct ChatCLITests {
    typealias Background = CallCLITests.Background

    /// A line typed before the call connected waits for it; a reply typed once the other's line
    /// was printed comes back; a peer's control characters are printed escaped, and
    /// `--events-json` has each message as an `EVENT` line too.
    @Test func twoCallbotsChatThroughStandardInputAndOutput() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let bobInput = Pipe(), aliceInput = Pipe()
        defer {
            try? bobInput.fileHandleForWriting.close()
            try? aliceInput.fileHandleForWriting.close()
        }
        let bob = try Background(
            [
                "answer", "--server", url, "--token", "bob-token-0123456789", "--chat", "--events-json", "--no-video",
                "--stats-interval", "10",
            ],
            stdin: bobInput
        )
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let alice = try Background(
            [
                "call", "bob", "--server", url, "--token", "alice-token-0123456789", "--chat", "--audio-only",
                "--duration", "5", "--stats-interval", "10",
            ],
            stdin: aliceInput
        )
        // Typed before the call connected: sent once it has.
        aliceInput.fileHandleForWriting.write(Data("hello bob\n\nred \u{1B}[31mtext\n".utf8))
        #expect(await bob.wait(for: "answer: chat alice: hello bob\n"), "\(bob.output)\n\(bob.errors)")
        #expect(await bob.wait(for: "answer: chat alice: red \\u{1B}[31mtext\n"), "\(bob.output)")
        bobInput.fileHandleForWriting.write(Data("hi alice, got it\n".utf8))
        #expect(await alice.wait(for: "call: chat bob: hi alice, got it\n"), "\(alice.output)\n\(alice.errors)")
        #expect(await alice.exit() == 0, "\(alice.output)\n\(alice.errors)")
        #expect(await bob.exit() == 0, "\(bob.output)\n\(bob.errors)")
        // The empty line was not sent; nothing else crossed.
        let bobChat = bob.output.split(separator: "\n").filter { $0.hasPrefix("answer: chat ") }
        let aliceChat = alice.output.split(separator: "\n").filter { $0.hasPrefix("call: chat ") }
        #expect(bobChat == ["answer: chat alice: hello bob", "answer: chat alice: red \\u{1B}[31mtext"])
        #expect(aliceChat == ["call: chat bob: hi alice, got it"])
        let event = try #require(bob.output.split(separator: "\n").first { $0.contains(#""event":"chat""#) })
        let fields = try #require(
            JSONSerialization.jsonObject(with: Data(event.dropFirst("EVENT ".count).utf8)) as? [String: Any]
        )
        #expect(fields["user"] as? String == "alice" && fields["text"] as? String == "hello bob", "\(event)")
    }
}
