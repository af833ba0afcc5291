// room-recorder: joins room ROOM of a Janus VideoRoom as a listener and records each publisher
// into `<display>-<id>.webm` in the current folder (Opus and VP8 as received), from its arrival
// until it leaves; after SECONDS it leaves the room.
//
//   swift run room-recorder ws://10.0.0.5:8188 1234 60
//
// Prints READY once in the room and `recorded <file>` as each publisher's recording ends.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[1]), url.scheme?.hasPrefix("ws") == true,
    let room = Int64(arguments[2]), room > 0, let seconds = Double(arguments[3]), seconds > 0, seconds.isFinite
else { quit("usage: room-recorder ws://HOST:PORT ROOM SECONDS", status: 64) }
var options = ConferenceSession.Options()
options.role = .listener
options.display = "room-recorder"
options.connection = PeerConnection.Configuration(
    gatherAddresses: PeerConnection.Configuration.gatherAddresses(toReach: url.host ?? "")
)
let session: ConferenceSession
do {
    options.recording = try RecordingFolder(URL(fileURLWithPath: "."))
    session = try await ConferenceSession.join(
        try await JanusSession.connect(.init(url: url)),
        room: room,
        options: options
    )
} catch { quit("\(error)", status: 69) }
print("READY")
Task {
    try await Task.sleep(for: .seconds(seconds))
    await session.leave()
}
for await event in session.events {
    if case .recordingFinished(_, let files) = event { files.forEach { print("recorded \($0.path)") } }
}
await session.janus.destroy()

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("room-recorder: \(message)\n".utf8))
    exit(status)
}
