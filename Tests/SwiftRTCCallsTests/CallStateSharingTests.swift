import Foundation
import SwiftRTCMedia
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCCalls

/// What the mobile call SDKs lack, done: custom items and a mute set before dialing reach the
/// callee, every item can be deleted at once, the other side's mute and recording are kept
/// and read (not only seen as events), and a recording that cannot write its file says so
/// as an event.
@Suite(.serialized) struct CallStateSharingTests {
    @Test func itemsAndMuteSetBeforeTheCallReachTheCallee() async throws {
        let (alice, bob, outgoing, incoming) = try await aliceCallsBob(.video) { outgoing in
            playMedia(outgoing, frequency: 440)
            await outgoing.updateCustomItems(["topic": "budget", "room": "7"])
            await outgoing.setLocalAudioEnabled(false)
        }
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        // The items and the mute go out with the call, perhaps before bob followed the session's
        // events: wait on the session's state.
        let deadline = ContinuousClock.now + .seconds(10)
        var arrived = false
        while !arrived {
            let items = await incoming.customItems, settings = await incoming.remoteMediaSettings(for: "alice")
            arrived = !items.isEmpty && !settings.audioEnabled
            if arrived || ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(arrived, "the items and the mute set before the call did not reach bob within 10 s")
        #expect(await incoming.customItems == ["topic": "budget", "room": "7"])
        #expect(
            await incoming.remoteMediaSettings(for: "alice")
                == RemoteMediaSettings(audioEnabled: false, videoEnabled: true)
        )
        #expect(await outgoing.remoteMediaSettings(for: "bob") == RemoteMediaSettings())

        // Delete all, and the other side's recording as state.
        await outgoing.deleteAllCustomItems()
        #expect(
            await bob.wait(incoming, "deleted all") { events in
                events.contains {
                    if case .customItemsChanged("alice", [:], let deleted, [:]) = $0 {
                        Set(deleted) == ["topic", "room"]
                    } else {
                        false
                    }
                }
            }
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "calls-state-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await incoming.startRecording(.remoteAudio, directory: directory)
        #expect(
            await alice.wait(outgoing, "recording") { events in
                events.contains {
                    if case .remoteRecordingChanged("bob", true, .remoteAudio) = $0 { true } else { false }
                }
            }
        )
        #expect(await outgoing.remoteRecording(for: "bob") == .remoteAudio)
        _ = await incoming.stopRecording()
        #expect(
            await alice.wait(outgoing, "recording stopped") { events in
                events.contains { if case .remoteRecordingChanged("bob", false, _) = $0 { true } else { false } }
            }
        )
        #expect(await outgoing.remoteRecording(for: "bob") == nil)
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "end") { $0.record != nil })
    }

    /// The folder goes away before the first frame: the file cannot be created, and the
    /// session says so (before, only the log did).
    @Test func aRecordingThatCannotWriteSaysSo() async throws {
        let (alice, _, outgoing, incoming) = try await aliceCallsBob(.audio)
        try await incoming.acceptCall()
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calls-gone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await outgoing.startRecording(.localAndRemoteAudio, directory: directory)
        // Moved away at once (a removal raced with the remote audio's file being created in
        // it, and failed with EPERM): no file can be created at its path any more.
        let gone = directory.appendingPathExtension("gone")
        try FileManager.default.moveItem(at: directory, to: gone)
        defer { try? FileManager.default.removeItem(at: gone) }
        playMedia(outgoing, frequency: 440)
        #expect(
            await alice.wait(outgoing, "recording failed") { events in
                events.contains {
                    if case .recordingFailed(let reason) = $0 { reason.contains(directory.path) } else { false }
                }
            }
        )
        await outgoing.hangUp()
    }
}
