// call-responder: a test robot for calling apps. Answers every call, sends each caller's own
// audio and video back to them (an echo the app under test can check), and prints a JSON
// report of each call as it ends: the call record and the last stats of every user.
//
//   swift run call-responder ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in, then one `REPORT {...}` line per call.
import Foundation
import SwiftRTC

let client = try await CallClient.connect(
    to: URL(string: CommandLine.arguments[1])!,
    token: CommandLine.arguments[2],
    configuration: CallConfiguration(statsInterval: .seconds(1))
)
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    let events = await session.events()
    try await session.acceptCall()
    var stats: [String: StatsReport] = [:]
    for await event in events {
        switch event {
        case .receivedRemoteAudioTrack(_, let remote): echo(remote, into: session.localAudioTrack)
        case .receivedRemoteVideoTrack(_, let remote):
            if let local = session.localVideoTrack { echo(remote, into: local) }
        case .stats(let user, let report, _): stats[user] = report
        case .ended(let record):
            let report = try JSONEncoder().encode(CallReport(record: record, stats: stats))
            print("REPORT " + String(decoding: report, as: UTF8.self))
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
