import Foundation
import SwiftRTCMedia
import Synchronization

extension MediaRecorder {
    /// When a recording goes on in a new file, so that a day-long recording is a series of
    /// files of which a crash can damage only the last: once a file has recorded for
    /// `duration`, or holds `bytes` of media, whichever comes first (either may be nil).
    ///
    /// A file with video ends at a keyframe (one is asked for from the sender when the time
    /// comes), so that every file plays on its own from its start. The files after the first
    /// are named `<name>-part2.<ext>`, `<name>-part3.<ext>`, ... beside it, each created when
    /// it begins and never replacing a file. Durations under a second and sizes under 64 KiB
    /// are taken as those.
    public struct Rollover: Sendable, Hashable {
        /// The longest a file records.
        public var duration: Duration?
        /// The most media bytes (encoded frames, or PCM for WAV) a file takes.
        public var bytes: Int?

        /// A rollover after `duration` or at `bytes`, whichever comes first.
        public init(duration: Duration? = nil, bytes: Int? = nil) {
            self.duration = duration.map { max($0, .seconds(1)) }
            self.bytes = bytes.map { max($0, 65_536) }
        }
    }
}

extension MediaRecorder {
    /// The most files one recording is split into: 10,000 (a day in parts of 9 s, a year in
    /// parts of an hour). At the limit the last part goes on to the end of the recording,
    /// and ``partLimitsReached`` counts it.
    public static let maximumParts = 10_000
}

/// The files of one recording: the first, then a part after each rollover, at most `limit`.
package final class RecordingParts: Sendable {
    package let rollover: MediaRecorder.Rollover?
    /// The most media bytes the whole recording takes (nil: no limit).
    package let maxBytes: Int?
    /// The first file.
    let first: URL
    private let limit: Int
    private let urls: Mutex<[URL]>
    private let recordedBytes = Atomic<Int>(0)

    /// The parts of the recording whose first file is `first` (already created), at most
    /// `limit` of them, holding at most `maxBytes` of media in all.
    package init(
        first: URL,
        rollover: MediaRecorder.Rollover?,
        limit: Int = MediaRecorder.maximumParts,
        maxBytes: Int? = nil
    ) {
        self.first = first
        self.rollover = rollover
        self.limit = max(limit, 1)
        self.maxBytes = maxBytes.map { max($0, 1) }
        urls = Mutex([first])
    }

    /// Counts `bytes` of media written; false once the recording holds ``maxBytes``: it stops.
    func wrote(_ bytes: Int) -> Bool {
        let (total, _) = recordedBytes.wrappingAdd(max(0, bytes), ordering: .relaxed)
        guard let maxBytes else { return true }
        return total < maxBytes
    }

    /// Whether the recording stopped because it held ``maxBytes``.
    var isAtSizeLimit: Bool {
        guard let maxBytes else { return false }
        return recordedBytes.load(ordering: .relaxed) >= maxBytes
    }

    /// Every file so far, in order.
    package var files: [URL] { urls.withLock { $0 } }

    /// Whether the recording has as many files as it may have: the last goes on to the end.
    var isAtLimit: Bool { urls.withLock { $0.count >= limit } }

    /// Whether the part `progress` describes is full and a next part may begin.
    func isDue(_ progress: Progress) -> Bool {
        progress.isDue(rollover) && !isAtLimit
    }

    /// Creates the next part's file, `<name>-partN.<ext>`, empty (never replacing one).
    func next() throws(MediaFileError) -> URL {
        let number = urls.withLock { $0.count } + 1
        let name = first.deletingPathExtension().lastPathComponent
        let url = first.deletingLastPathComponent().appendingPathComponent(
            "\(name)-part\(number).\(first.pathExtension)"
        )
        if let code = MediaRecorder.createExclusively(url) {
            throw .io(path: url.path, operation: "create", errno: code)
        }
        urls.withLock { $0.append(url) }
        return url
    }

    /// How far the part being written has come, and whether it is time for the next.
    struct Progress {
        let started = ContinuousClock.now
        var bytes = 0
        var keyframeAsked: ContinuousClock.Instant?

        /// Whether `rollover` says the part is full.
        func isDue(_ rollover: MediaRecorder.Rollover?) -> Bool {
            guard let rollover else { return false }
            if let limit = rollover.bytes, bytes >= limit { return true }
            if let limit = rollover.duration, ContinuousClock.now - started >= limit { return true }
            return false
        }

        /// Whether to ask for a keyframe now: at once when the part is due (or the file has
        /// none yet), then every second until one comes (a request may be lost, or refused as
        /// too soon).
        mutating func shouldAskForKeyframe() -> Bool {
            if let asked = keyframeAsked, ContinuousClock.now - asked < .seconds(1) { return false }
            keyframeAsked = ContinuousClock.now
            return true
        }
    }
}
