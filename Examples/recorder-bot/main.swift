// recorder-bot: answers every call and records each remote user into `<user>.webm` in the
// current folder (Opus and VP8 as received, no re-encoding), one file per user per call.
//
//   swift run recorder-bot ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in and `recorded <file>` as each user leaves; runs until stopped.
import Foundation
import SwiftRTC

let client = try await CallClient.connect(to: URL(string: CommandLine.arguments[1])!, token: CommandLine.arguments[2])
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    let events = await session.events()
    try await session.acceptCall()
    var recorders: [String: MediaRecorder] = [:]
    for await event in events {
        switch event {
        case .connected(let user):
            let tracks = [await session.remoteAudioTrack(for: user), await session.remoteVideoTrack(for: user)]
            recorders[user] = try MediaRecorder(
                tracks: tracks.compactMap { $0 },
                path: RecordingFolder.safeName(user) + ".webm"
            )
        case .hungUp(let user, _), .connectionClosed(let user):
            for file in try await recorders.removeValue(forKey: user)?.stop() ?? [] { print("recorded \(file.path)") }
        default:
            break
        }
    }
}
