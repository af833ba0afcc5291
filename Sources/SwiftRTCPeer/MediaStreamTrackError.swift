import SwiftRTCCore
import Foundation
import Synchronization
import SwiftRTCCodecs
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP

/// Why a track refused an operation.
public enum MediaStreamTrackError: Error, Hashable, Sendable {
    /// PCM can be written only to a local audio track.
    case notALocalAudioTrack(id: String)
}
