import SwiftRTCPeer
import SwiftRTCSignaling

/// What happens in a ``CallSession``, in order, from ``CallSession/events()``.
public enum CallSessionEvent: Sendable {
    /// The session's state changed.
    case stateChanged(CallSessionState)
    /// A user's connection state changed.
    case connectionStateChanged(user: String, state: CallConnectionState)
    /// A user accepted the call, with the user info of their `acceptCall(userInfo:)`.
    case accepted(user: String, userInfo: [String: String])
    /// A user rejected the call (`busy`: because they were in another call).
    case rejected(user: String, userInfo: [String: String], busy: Bool)
    /// A user hung up, with the user info of their `hangUp(userInfo:)`.
    case hungUp(user: String, userInfo: [String: String])
    /// A user did not answer before the answer timeout.
    case didNotRespond(user: String)
    /// The media connection with a user started connecting.
    case startedConnecting(user: String)
    /// The media connection with a user is up.
    case connected(user: String)
    /// The media connection with a user failed: it never came up (ICE or DTLS failed, or the
    /// disconnect interval passed first: `timed_out`), or it dropped and did not come back
    /// within the disconnect interval. ``connectionClosed(user:)`` follows.
    case connectionFailed(user: String)
    /// The media connection with a user went down: it dropped (reconnection starts), or the
    /// call ended while it was up (a hang-up: ``connectionClosed(user:)`` follows), as in the
    /// mobile call SDKs.
    case disconnected(user: String)
    /// The media connection with a user is closed (after ``disconnected(user:)`` or
    /// ``connectionFailed(user:)`` when it had been up or failed).
    case connectionClosed(user: String)
    /// A reconnection with a user moved on.
    case reconnectionStateChanged(user: String, state: CallReconnectionState)
    /// A user's audio track arrived (decoded PCM: ``MediaStreamTrack/setAudioSink(_:)``).
    case receivedRemoteAudioTrack(user: String, track: MediaStreamTrack)
    /// A user's video track arrived.
    case receivedRemoteVideoTrack(user: String, track: MediaStreamTrack)
    /// A user enabled or disabled their audio or video (nil: unchanged).
    case remoteMediaSettingsChanged(user: String, audioEnabled: Bool?, videoEnabled: Bool?)
    /// A stats report of the connection with a user, every stats interval.
    case stats(user: String, report: StatsReport, statsString: String)
    /// Who is talking now changed (voice activity of the received audio).
    case talking(users: Set<String>)
    /// A user (possibly this one) changed the custom items; `items` is the result.
    case customItemsChanged(by: String, updated: [String: String], deleted: [String], items: [String: String])
    /// A user started or stopped recording the call.
    case remoteRecordingChanged(user: String, active: Bool, option: RecordingOption)
    /// This side's recording could not write a file (`reason` names it and what failed); what
    /// it wrote before stays playable, and the call goes on.
    case recordingFailed(reason: String)
    /// The session ended; the record of the call.
    case ended(CallRecord)
}
