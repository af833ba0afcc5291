// whip-publisher: publishes a media file to a WHIP endpoint (RFC 9725): a WebM's audio and
// video, or a WAV, Ogg Opus, IVF or Y4M file, played in real time; the session is deleted
// when the file has played.
//
//   swift run whip-publisher http://127.0.0.1:8080/whip clip.webm [bearer-token]
//
// Prints `published <session URL>` and `done`.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let endpoint = URL(string: arguments[1]), endpoint.host != nil,
    FileManager.default.fileExists(atPath: arguments[2])
else {
    FileHandle.standardError.write(Data("usage: whip-publisher http(s)://HOST:PORT/whip FILE [BEARER-TOKEN]\n".utf8))
    exit(64)
}
let file = arguments[2]
let connection = try PeerConnection(
    configuration: .init(gatherAddresses: PeerConnection.Configuration.gatherAddresses(toReach: endpoint.host!))
)
let tracks = try MediaStreamTrack.kinds(inFile: file).map { MediaStreamTrack(kind: $0) }
for track in tracks { try await connection.addTrack(track) }
try await connection.setLocalDescription(try await connection.createOffer())
await connection.gatheringComplete()
let whip = WHIPClient(endpoint: endpoint, bearerToken: arguments.dropFirst(3).first)
let session = try await whip.publish(offer: await connection.localDescription!.sdp)
print("published \(session.location)")
try await connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: session.answer))
for await state in await connection.connectionStates() where state == .connected { break }
let playbacks = try tracks.map { try $0.play(file: file) }
for playback in playbacks { try await playback.finished() }
try await whip.end(session)
await connection.close()
print("done")
