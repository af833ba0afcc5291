// announcer-bot: calls a user, plays a WAV file to them once they answer (text to speech made
// with espeak-ng, say), and hangs up.
//
//   espeak-ng -w hello.wav "Hello from SwiftRTC"
//   swift run announcer-bot ws://127.0.0.1:8080/signaling <token> <user> hello.wav
//
// Prints `played <file>` and `ended <result>`; exits 0 when the announcement was played.
import Foundation
import SwiftRTC

let (user, file) = (CommandLine.arguments[3], CommandLine.arguments[4])
let client = try await CallClient.connect(to: URL(string: CommandLine.arguments[1])!, token: CommandLine.arguments[2])
let session = try await client.createSession(opponents: [user], conferenceType: .audio)
let events = await session.events()
try await session.startCall()
var played = false
for await event in events {
    switch event {
    case .connected:
        try await session.localAudioTrack.play(file: file).finished()
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
