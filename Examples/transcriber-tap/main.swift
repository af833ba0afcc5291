// transcriber-tap: answers calls, each in a task of its own, and writes what each remote user
// says as 16 kHz mono WAV segments cut by voice activity (`<user>-1.wav`, `<user>-2.wav`...,
// numbered on across calls), the input a speech-to-text engine takes.
//
//   swift run transcriber-tap ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in and `segment <file>` as each one is complete.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true else {
    quit("usage: transcriber-tap ws://HOST:PORT/signaling TOKEN", status: 64)
}
let client: CallClient
do { client = try await CallClient.connect(to: server, token: arguments[2]) } catch { quit("\(error)", status: 69) }
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    Task {
        let events = await session.events()
        // The caller may have given up meanwhile: this call is over, the bot goes on.
        do { try await session.acceptCall() } catch { return print("not answered: \(error)") }
        for await case .receivedRemoteAudioTrack(let user, let track) in events {
            Task {
                do { try await transcribe(track, as: RecordingFolder.safeName(user)) } catch {
                    print("failed: \(error)")
                }
            }
        }
    }
}

/// Writes each stretch of speech on `track` to its own `<name>-<n>.wav` (the first free n).
func transcribe(_ track: MediaStreamTrack, as name: String) async throws {
    var (voice, segment, count) = (VoiceActivityDetector(), WAVWriter?.none, 0)
    for await case .audio(let frame) in track.frames() {
        let speech = voice.isSpeech(frame)
        if speech, segment == nil {
            repeat { count += 1 } while FileManager.default.fileExists(atPath: "\(name)-\(count).wav")
            segment = try WAVWriter(path: "\(name)-\(count).wav", channels: 1, sampleRate: 16_000)
        }
        try segment?.write(frame)
        if !speech, let done = segment {
            try done.close()
            segment = nil
            print("segment \(name)-\(count).wav")
        }
    }
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("transcriber-tap: \(message)\n".utf8))
    exit(status)
}
