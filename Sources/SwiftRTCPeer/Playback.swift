import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// A source playing into a track (``MediaStreamTrack/play(_:pacing:)``).
public struct Playback: Sendable {
    let task: Task<Void, any Error>

    /// Waits until the source has played to its end. Throws what stopped it early: a file that
    /// could not be read further, or `CancellationError` when it was replaced, stopped, or the
    /// track stopped.
    public func finished() async throws {
        try await task.value
        if task.isCancelled { throw CancellationError() }
    }

    /// Stops playing (the track stays).
    public func stop() { task.cancel() }
}
