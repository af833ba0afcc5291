// recorder-bot: answers every call, each in a task of its own, and records each remote user
// into `<user>.webm` in the current folder (`<user>-2.webm`... when taken; Opus and VP8 as
// received, no re-encoding), one file per user per call.
//
//   swift run recorder-bot ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in and `recorded <file>` as each user leaves; runs until stopped.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true else {
    quit("usage: recorder-bot ws://HOST:PORT/signaling TOKEN", status: 64)
}
let client: CallClient
do { client = try await CallClient.connect(to: server, token: arguments[2]) } catch { quit("\(error)", status: 69) }
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    Task { await record(session) }
}

/// Answers `session` and records each user in it until they leave.
func record(_ session: CallSession) async {
    let events = await session.events()
    // The caller may have given up meanwhile: this call is over, the bot goes on.
    do { try await session.acceptCall() } catch { return print("not answered: \(error)") }
    var recorders: [String: MediaRecorder] = [:]
    for await event in events {
        do {
            switch event {
            case .connected(let user):
                let tracks = [await session.remoteAudioTrack(for: user), await session.remoteVideoTrack(for: user)]
                let name = RecordingFolder.safeName(user)
                let path = (1...).lazy.map { $0 == 1 ? "\(name).webm" : "\(name)-\($0).webm" }
                    .first { !FileManager.default.fileExists(atPath: $0) }!
                recorders[user] = try MediaRecorder(tracks: tracks.compactMap { $0 }, path: path)
            case .hungUp(let user, _), .connectionClosed(let user):
                for file in try await recorders.removeValue(forKey: user)?.stop() ?? [] {
                    print("recorded \(file.path)")
                }
            default:
                break
            }
        } catch {
            print("recording failed: \(error)")
        }
    }
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("recorder-bot: \(message)\n".utf8))
    exit(status)
}
