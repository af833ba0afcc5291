import Foundation
import SwiftRTCCore

/// What a call recording contains (the options of the mobile call SDKs).
public enum RecordingOption: String, Sendable, Hashable, Codable, CaseIterable {
    /// The remote participants' audio and video (WebM).
    case remoteAudioVideo = "remote_audio_video"
    /// The remote participants' audio only (Ogg Opus).
    case remoteAudio = "remote_audio"
    /// The local and the remote audio (Ogg Opus, one file per source).
    case localAndRemoteAudio = "local_and_remote_audio"
    /// The local audio and the remote audio and video (WebM).
    case localAudioRemoteAudioVideo = "local_audio_remote_audio_video"
}
