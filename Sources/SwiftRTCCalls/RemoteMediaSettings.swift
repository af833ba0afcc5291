import SwiftRTCPeer
import SwiftRTCSignaling

/// What another participant said of the media they send (``CallSession/remoteMediaSettings(for:)``).
public struct RemoteMediaSettings: Sendable, Hashable {
    /// Whether they send audio (false: muted, silence comes).
    public var audioEnabled = true
    /// Whether they send video (false: black frames come).
    public var videoEnabled = true

    /// Both on, as until a participant says otherwise.
    public init(audioEnabled: Bool = true, videoEnabled: Bool = true) {
        self.audioEnabled = audioEnabled
        self.videoEnabled = videoEnabled
    }
}
