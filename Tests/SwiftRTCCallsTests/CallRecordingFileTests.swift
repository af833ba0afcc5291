import Foundation
import SwiftRTCSignaling
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// Recording file names come from this side alone (issue 17): a caller's session id with `../`
/// and `/` in it, or a user id of dots, writes nothing outside the recording folder, and
/// recording twice in one call keeps both recordings. (A user id with `/` does not even reach
/// the callee: messages naming one are refused where they are decoded.)
@Suite(.serialized, .realTime) struct CallRecordingFileTests {
    @Test func hostileIdsCannotLeaveTheFolderAndASecondRecordingKeepsTheFirst() async throws {
        let root = try ScratchFolder.make("call-recording-names")
        // The folder bob records into sits two levels down, so that `../..` from it is still
        // inside `root`, where the test can see anything that escaped.
        let folder = root.appendingPathComponent("a/recordings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        let hub = InProcessSignalingHub()
        let mallory = await Bot("......mallory", hub: hub), bob = await Bot("bob", hub: hub)
        // The caller picks the session id: a path that climbs, as a dishonest client would send
        // it (built from parts: it is input, not a file of the repository's).
        let hostileID = ["..", "..", "escaped", "..", "..", "x"].joined(separator: "/")
        let outgoing = await mallory.client.makeSession(
            id: hostileID,
            initiator: "......mallory",
            opponents: ["bob"],
            conferenceType: .audio
        )
        await mallory.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        #expect(incoming.id == hostileID)
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "......mallory") })

        // Two recordings in the same call, at once after each other (the same second: the
        // same name part), each with about a second of the caller's audio.
        var files: [URL] = []
        for _ in 0..<2 {
            try await incoming.startRecording(.localAndRemoteAudio, directory: folder)
            try await Task.sleep(for: .seconds(1))
            files += await incoming.stopRecording()
        }
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "end") { $0.record != nil })

        // Four files (bob's audio and mallory's, twice), all directly in the folder, none the same.
        let resolvedFolder = folder.resolvingSymlinksInPath().path
        #expect(files.count == 4, "\(files.map(\.path))")
        #expect(Set(files).count == files.count)
        for file in files {
            #expect(file.deletingLastPathComponent().resolvingSymlinksInPath().path == resolvedFolder, "\(file.path)")
            #expect(!file.lastPathComponent.contains(".."), "\(file.lastPathComponent)")
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            #expect(size > 1000, "\(file.lastPathComponent): \(size) bytes")
        }
        let names = files.map(\.lastPathComponent).sorted()
        #expect(names.filter { $0.hasSuffix("-bob.ogg") || $0.hasSuffix("-bob-2.ogg") }.count == 2, "\(names)")
        #expect(names.filter { $0.contains("______mallory") }.count == 2, "\(names)")
        // Nothing anywhere else under root: every file written is one of those.
        let everything =
            FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath } ?? []
        #expect(
            Set(everything.map { $0.resolvingSymlinksInPath().path })
                == Set(files.map { $0.resolvingSymlinksInPath().path }),
            "\(everything.map(\.path))"
        )
    }

    /// A recording with a rollover of one second: each participant's file goes on in parts
    /// (`-part2.webm`...), each beginning with a video keyframe and playing to its end.
    @Test func aRolloverSplitsEachParticipantsFileIntoPlayableParts() async throws {
        let folder = try ScratchFolder.make("call-recording-rollover")
        let (alice, bob, outgoing, incoming) = try await aliceCallsBob(.video) { playMedia($0, frequency: 440) }
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })

        try await incoming.startRecording(.remoteAudioVideo, directory: folder, rollover: .init(duration: .seconds(1)))
        try await Task.sleep(for: .seconds(3.5))
        let files = await incoming.stopRecording()
        await outgoing.hangUp()
        let names = files.map(\.lastPathComponent)
        print("call recording rollover: \(names)")
        #expect(files.count >= 3 && files.count <= 5, "\(names)")
        let first = try #require(names.first)
        #expect(first.hasSuffix("-alice.webm"))
        let base = first.dropLast(".webm".count)
        #expect(names.dropFirst().enumerated().allSatisfy { $1 == "\(base)-part\($0 + 2).webm" }, "\(names)")
        var seconds = 0.0
        for file in files {
            let decode = try await runToEnd(
                URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"]
            )
            #expect(decode.status == 0, "\(file.lastPathComponent) does not decode to its end")
            #expect(try await beginsWithKeyframe(file.path), "\(file.lastPathComponent) begins with a keyframe")
            let duration = try await runToEnd(
                URL(fileURLWithPath: "/usr/bin/ffprobe"),
                ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path]
            ).stdout
            seconds += Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        #expect(abs(seconds - 3.5) < 0.7, "\(seconds) s in the parts")
    }

    @Test func recordingFolderNamesAreSafeAndNeverReplaceAFile() throws {
        let root = try ScratchFolder.make("recording-folder")
        let folder = try RecordingFolder(root)
        #expect(RecordingFolder.safeName("../../etc/passwd") == "______etc_passwd")
        #expect(RecordingFolder.safeName("") == "_")
        #expect(RecordingFolder.safeName("élan vital") == "_lan_vital")
        #expect(RecordingFolder.safeName(String(repeating: "a", count: 300)).count == RecordingFolder.maxNamePartLength)
        // Taken names are skipped, whatever holds them: a file, a folder, a symbolic link
        // (dangling too: O_EXCL does not follow it).
        try Data("keep".utf8).write(to: root.appendingPathComponent("x.ogg"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("x-2.ogg"),
            withIntermediateDirectories: false
        )
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("x-3.ogg").path,
            withDestinationPath: "/nonexistent/target"
        )
        let created = try folder.createFile(base: "x", extension: "ogg")
        #expect(created.lastPathComponent == "x-4.ogg")
        #expect(try Data(contentsOf: root.appendingPathComponent("x.ogg")) == Data("keep".utf8))
        #expect(try folder.createFile(base: "x", extension: "ogg").lastPathComponent == "x-5.ogg")
        // A base that is a path is refused, not resolved.
        for bad in ["../x", "a/b", ".hidden", "..", ""] {
            #expect(throws: RecordingFileError.self) { try folder.createFile(base: bad, extension: "ogg") }
        }
        #expect(throws: RecordingFileError.self) { try RecordingFolder(root.appendingPathComponent("missing")) }
        #expect(throws: RecordingFileError.self) { try RecordingFolder(root.appendingPathComponent("x.ogg")) }
    }
}
