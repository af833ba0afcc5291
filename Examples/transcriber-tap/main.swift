// transcriber-tap: answers calls and writes what each remote user says as 16 kHz mono WAV
// segments cut by voice activity (`<user>-1.wav`, `<user>-2.wav`...), the input a
// speech-to-text engine takes.
//
//   swift run transcriber-tap ws://127.0.0.1:8080/signaling <token>
//
// Prints READY once logged in and `segment <file>` as each one is complete.
import Foundation
import SwiftRTC

let client = try await CallClient.connect(to: URL(string: CommandLine.arguments[1])!, token: CommandLine.arguments[2])
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    let events = await session.events()
    try await session.acceptCall()
    for await case .receivedRemoteAudioTrack(let user, let track) in events {
        Task { try await transcribe(track, as: RecordingFolder.safeName(user)) }
    }
}

/// Writes each stretch of speech on `track` to its own `<name>-<n>.wav`.
func transcribe(_ track: MediaStreamTrack, as name: String) async throws {
    var (voice, segment, count) = (VoiceActivityDetector(), WAVWriter?.none, 0)
    for await case .audio(let frame) in track.frames() {
        let speech = voice.isSpeech(frame)
        if speech, segment == nil {
            count += 1
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
