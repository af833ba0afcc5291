import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// Why a track refused an operation.
public enum MediaStreamTrackError: Error, Hashable, Sendable {
    /// PCM can be written only to a local audio track.
    case notALocalAudioTrack(id: String)
}
