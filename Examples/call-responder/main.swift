// call-responder: a test robot for calling apps. Answers every call, each in a task of its
// own, sends each caller's own audio and video back to them (an echo the app under test can
// check), and prints a JSON report of each call as it ends: the call record and the last
// stats of every user.
//
//   swift run call-responder ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in, then one `REPORT {...}` line per call.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true else {
    quit("usage: call-responder ws://HOST:PORT/signaling TOKEN", status: 64)
}
let client: CallClient
do {
    client = try await CallClient.connect(
        to: server,
        token: arguments[2],
        configuration: CallConfiguration(statsInterval: .seconds(1))
    )
} catch {
    quit("\(error)", status: 69)
}
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    Task { await respond(to: session) }
}

/// Answers `session`, echoes every caller and prints the call's report when it ends.
func respond(to session: CallSession) async {
    let events = await session.events()
    // The caller may have given up meanwhile: this call is over, the bot goes on.
    do { try await session.acceptCall() } catch { return print("not answered: \(error)") }
    var stats: [String: StatsReport] = [:]
    for await event in events {
        switch event {
        case .receivedRemoteAudioTrack(_, let remote): echo(remote, into: session.localAudioTrack)
        case .receivedRemoteVideoTrack(_, let remote):
            if let local = session.localVideoTrack { echo(remote, into: local) }
        case .stats(let user, let report, _): stats[user] = report
        case .ended(let record):
            let report = try? JSONEncoder().encode(CallReport(record: record, stats: stats))
            print("REPORT " + String(decoding: report ?? Data(), as: UTF8.self))
        default: break
        }
    }
}

/// Sends what `remote` decodes back out on `local`.
func echo(_ remote: MediaStreamTrack, into local: MediaStreamTrack) {
    let frames = remote.frames()
    Task { for await frame in frames { local.push(frame) } }
}

struct CallReport: Encodable {
    var record: CallRecord
    var stats: [String: StatsReport]
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("call-responder: \(message)\n".utf8))
    exit(status)
}
