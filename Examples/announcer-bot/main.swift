// announcer-bot: calls a user, plays a WAV file to them once they answer (text to speech made
// with espeak-ng, say), and hangs up.
//
//   espeak-ng -w hello.wav "Hello from SwiftRTC"
//   swift run announcer-bot ws://127.0.0.1:8080/signaling <token> <user> hello.wav
//
// Prints `played <file>` and `ended <result>`; exits 0 when the announcement was played.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 5, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true else {
    quit("usage: announcer-bot ws://HOST:PORT/signaling TOKEN USER FILE.wav", status: 64)
}
let (user, file) = (arguments[3], arguments[4])
let client: CallClient, session: CallSession, events: AsyncStream<CallSessionEvent>
do {
    client = try await CallClient.connect(to: server, token: arguments[2])
    session = try await client.createSession(opponents: [user], conferenceType: .audio)
    events = await session.events()
    try await session.startCall()
} catch {
    quit("\(error)", status: 69)
}
var played = false
for await event in events {
    switch event {
    case .connected:
        do { try await session.localAudioTrack.play(file: file).finished() } catch { quit("\(error)", status: 1) }
        played = true
        print("played \(file)")
        await session.hangUp()
    case .rejected, .didNotRespond:
        await session.hangUp()
    case .ended(let record):
        print("ended \(record.result.rawValue)")
        await client.disconnect()
        exit(played ? 0 : 1)
    default:
        break
    }
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("announcer-bot: \(message)\n".utf8))
    exit(status)
}
