// chat-bot: answers every call and chats with each participant on the call's chat channel
// (`CallSession.messages()` and `send(_:to:)`, a data channel per participant): greets them
// once connected, answers `who` with who is connected, `stats` with its statsString of their
// connection, and any other line with what it heard. A browser in the web client chats with it
// in the chat box; `callbot call --chat` through standard input and output.
//
//   swift run chat-bot ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in, then `USER: TEXT` for each line it is sent.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true else {
    quit("usage: chat-bot ws://HOST:PORT/signaling TOKEN", status: 64)
}
let client: CallClient
do {
    client = try await CallClient.connect(to: server, token: arguments[2])
} catch {
    quit("\(error)", status: 69)
}
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    Task { await chat(in: session) }
}

/// Answers `session`, greets each participant once connected and answers each of their lines.
func chat(in session: CallSession) async {
    // Subscribed before the answer, so that no event and no line is missed.
    let (events, messages) = (await session.events(), await session.messages())
    // The caller may have given up meanwhile: this call is over, the bot goes on.
    do { try await session.acceptCall() } catch { return print("not answered: \(error)") }
    let answering = Task {
        for await chat in messages {
            guard case .text(let text) = chat.message else { continue }
            print("\(chat.from): \(text)")
            try? await session.send(.text(await answer(text, in: session, to: chat.from)), to: chat.from)
        }
    }
    for await case .connected(let user) in events {
        try? await session.send(.text("hello \(user), I am a bot: try who or stats"), to: user)
    }
    answering.cancel()
}

/// What the bot says to `user`'s `text`.
func answer(_ text: String, in session: CallSession, to user: String) async -> String {
    switch text.trimmingCharacters(in: .whitespaces).lowercased() {
    case "who":
        let connected = await session.connectionStates.filter { $0.value == .connected }.keys
        return "connected: " + connected.sorted().joined(separator: ", ")
    case "stats": return await session.statsString(for: user) ?? "no stats yet"
    default: return "you said: \(text)"
    }
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("chat-bot: \(message)\n".utf8))
    exit(status)
}
