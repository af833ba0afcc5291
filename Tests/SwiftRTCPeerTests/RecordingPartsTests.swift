import Foundation
import SwiftRTCMedia
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// The parts of a rolled-over recording: named `<name>-partN.<ext>` beside the first, never
/// replacing a file, and at most ``MediaRecorder/maximumParts`` of them (here a limit of 3):
/// at the limit no part is due, so the last goes on to the end.
@Suite struct RecordingPartsTests {
    static func firstFile() throws -> URL {
        let folder = try ScratchFolder.make("recording-parts")
        let first = folder.appendingPathComponent("long.wav")
        #expect(MediaRecorder.createExclusively(first) == nil)
        return first
    }

    @Test func partsAreNamedBesideTheFirstAndStopAtTheLimit() throws {
        let parts = RecordingParts(first: try Self.firstFile(), rollover: .init(bytes: 65_536), limit: 3)
        var full = RecordingParts.Progress()
        full.bytes = 65_536
        #expect(!parts.isDue(RecordingParts.Progress()), "an empty part is not due")
        #expect(parts.isDue(full))
        _ = try parts.next()
        #expect(parts.isDue(full) && !parts.isAtLimit)
        _ = try parts.next()
        #expect(parts.files.map(\.lastPathComponent) == ["long.wav", "long-part2.wav", "long-part3.wav"])
        #expect(parts.isAtLimit)
        #expect(!parts.isDue(full), "at the limit the last part goes on")
        #expect(parts.files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
    }

    @Test func aPartNeverReplacesAFile() throws {
        let first = try Self.firstFile()
        let taken = first.deletingLastPathComponent().appendingPathComponent("long-part2.wav")
        try Data("keep".utf8).write(to: taken)
        let parts = RecordingParts(first: first, rollover: .init(duration: .seconds(1)))
        #expect(throws: MediaFileError.self) { try parts.next() }
        #expect(try Data(contentsOf: taken) == Data("keep".utf8))
        #expect(parts.files == [first])
    }

    @Test func aLimitUnderOneIsOne() throws {
        let parts = RecordingParts(first: try Self.firstFile(), rollover: .init(bytes: 1), limit: 0)
        var full = RecordingParts.Progress()
        full.bytes = 65_536
        #expect(parts.isAtLimit && !parts.isDue(full))
    }
}
