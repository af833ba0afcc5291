// voice-agent: answers one call at a time (a second caller is told busy at once) and talks
// with the caller, listening all the while: it greets them with a WAV file (text to speech
// made with espeak-ng, say), stops speaking the moment they talk (barge-in: the speech still
// queued is dropped) and, when they pause, answers with the file again. Everything the caller
// says is heard, also while the agent speaks, and written to `<user>-heard.wav` (16 kHz mono,
// what a speech-to-text engine takes).
//
//   espeak-ng -w reply.wav "Hello, this is the voice agent. How can I help you today?"
//   swift run voice-agent ws://127.0.0.1:8080/signaling <token> reply.wav
//
// Prints READY; `barge-in at <t> s: dropped <d> of speech` when the caller interrupts it; `heard
// <s> s` after each thing they said; `call with <user>: heard <s> s, <n> samples dropped` as
// the call ends.
import Foundation
import SwiftRTC

let arguments = CommandLine.arguments
guard arguments.count == 4, let server = URL(string: arguments[1]), server.scheme?.hasPrefix("ws") == true,
    var file = try? WAVReader(path: arguments[3])
else { quit("usage: voice-agent ws://HOST:PORT/signaling TOKEN REPLY.wav", status: 64) }
var reply: [Int16] = []
while let frame = file.readFrame() { reply += frame.samples }
let speech = Speech(samples: reply, format: PCMFormat(sampleRate: 48_000, channels: file.format.channels))
let client: CallClient
do {
    // One conversation at a time: the library rejects a call beyond it as busy.
    client = try await CallClient.connect(to: server, token: arguments[2], configuration: .init(maxConcurrentCalls: 1))
} catch {
    quit("\(error)", status: 69)
}
print("READY")
for await case .incomingSession(let session, _) in await client.events() {
    Task { await converse(in: session, speech) }
}

struct Speech: Sendable {
    var samples: [Int16]
    var format: PCMFormat
    /// Speaks on `track` in a task of its own, so the agent goes on listening.
    func say(on track: MediaStreamTrack) { Task { try? await track.write(pcm: samples, format: format) } }
}

/// Answers `session`, greets the caller and listens to them until the call ends.
func converse(in session: CallSession, _ speech: Speech) async {
    let events = await session.events()
    // The caller may have given up meanwhile: this call is over, the agent goes on.
    do { try await session.acceptCall() } catch { return print("not answered: \(error)") }
    for await event in events {
        switch event {
        case .connected: speech.say(on: session.localAudioTrack)
        case .receivedRemoteAudioTrack(let user, let caller):
            Task { try await listen(to: caller, user, answering: session.localAudioTrack, speech) }
        default: break
        }
    }
}

/// Hears `caller` all through the call (while the agent speaks too): stops the agent's speech
/// when the caller starts talking, answers when they pause (0.8 s without speech).
func listen(
    to caller: MediaStreamTrack,
    _ user: String,
    answering agent: MediaStreamTrack,
    _ speech: Speech
)
    async throws
{
    let name = RecordingFolder.safeName(user)
    let heard = try WAVWriter(path: "\(name)-heard.wav", channels: 1, sampleRate: 16_000)
    var voice = VoiceActivityDetector()
    voice.hangoverMilliseconds = 800
    var (talking, total, said) = (false, 0, 0)
    let pcm = try caller.pcm(PCMFormat(sampleRate: 48_000, channels: 1))
    for await chunk in pcm {
        let frame = AudioFrame(samples: chunk.samples, channels: 1, timestamp: chunk.position)
        try heard.write(frame)
        total += chunk.samples.count
        let speaking = voice.isSpeech(frame)
        if speaking && !talking {
            let dropped = agent.stopSpeaking()
            if dropped > .zero {
                let at = Double(chunk.position) / 48_000
                print("barge-in at \(at) s: dropped \(dropped) of speech, \(agent.queuedSpeech) queued")
            }
        }
        if speaking { said += chunk.samples.count }
        if !speaking && talking {
            print("heard \(Double(said) / 48_000) s")
            said = 0
            speech.say(on: agent)
        }
        talking = speaking
    }
    try heard.close()
    print("call with \(user): heard \(Double(total) / 48_000) s, \(pcm.droppedSamples) samples dropped")
}

/// Prints `message` on standard error and exits with `status`.
func quit(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("voice-agent: \(message)\n".utf8))
    exit(status)
}
