import ArgumentParser
import Foundation
import SwiftRTC

/// `--events-json` of `call`, `answer` and `whip`: each event of the call also as one line,
/// `EVENT {...}` (keys sorted; `event` names it, `session` is the call's id, `t` the seconds
/// since the command started), for scripts that follow a call without parsing the human lines.
struct EventsOptions: ParsableArguments {
    @Flag(help: "Print each call event as a JSON line too: EVENT {\"event\":NAME,...}.")
    var eventsJSON = false
}

/// The `EVENT` lines.
enum EventLine {
    /// When the process started: every line's `t` counts from here.
    private static let start = ContinuousClock.now

    /// Prints `EVENT ` and `fields` as one JSON object, with `t`.
    static func print(_ fields: [String: any Sendable]) {
        var object = fields
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        object["t"] = (seconds * 1000).rounded() / 1000
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { return }
        printLine("EVENT " + String(decoding: data, as: UTF8.self))
    }

    /// The fields of a call session's event (nil for the stats, which have `--stats-json`).
    static func fields(of event: CallSessionEvent, session: String) -> [String: any Sendable]? {
        var fields: [String: any Sendable] = ["session": session]
        switch event {
        case .stateChanged(let state): fields.merge(["event": "state", "state": state.rawValue]) { $1 }
        case let .connectionStateChanged(user, state):
            fields.merge(["event": "connection_state", "user": user, "state": state.rawValue]) { $1 }
        case let .accepted(user, info): fields.merge(["event": "accepted", "user": user, "user_info": info]) { $1 }
        case let .rejected(user, info, busy):
            fields.merge(["event": "rejected", "user": user, "user_info": info, "busy": busy]) { $1 }
        case let .hungUp(user, info): fields.merge(["event": "hung_up", "user": user, "user_info": info]) { $1 }
        case .didNotRespond(let user): fields.merge(["event": "did_not_respond", "user": user]) { $1 }
        case .startedConnecting(let user): fields.merge(["event": "started_connecting", "user": user]) { $1 }
        case .connected(let user): fields.merge(["event": "connected", "user": user]) { $1 }
        case .connectionFailed(let user): fields.merge(["event": "connection_failed", "user": user]) { $1 }
        case .disconnected(let user): fields.merge(["event": "disconnected", "user": user]) { $1 }
        case .connectionClosed(let user): fields.merge(["event": "connection_closed", "user": user]) { $1 }
        case let .reconnectionStateChanged(user, state):
            fields.merge(["event": "reconnection", "user": user, "state": state.rawValue]) { $1 }
        case .receivedRemoteAudioTrack(let user, _): fields.merge(["event": "remote_audio", "user": user]) { $1 }
        case .receivedRemoteVideoTrack(let user, _): fields.merge(["event": "remote_video", "user": user]) { $1 }
        case let .remoteMediaSettingsChanged(user, audio, video):
            fields.merge(["event": "remote_media", "user": user]) { $1 }
            if let audio { fields["audio"] = audio }
            if let video { fields["video"] = video }
        case .stats: return nil
        case .talking(let users): fields.merge(["event": "talking", "users": users.sorted()]) { $1 }
        case let .customItemsChanged(by, _, _, items):
            fields.merge(["event": "custom_items", "user": by, "items": items]) { $1 }
        case let .remoteRecordingChanged(user, active, option):
            fields.merge(["event": "remote_recording", "user": user, "active": active, "option": option.rawValue]) {
                $1
            }
        case .recordingFailed(let reason): fields.merge(["event": "recording_failed", "reason": reason]) { $1 }
        case .ended(let record):
            fields.merge(["event": "ended", "result": record.result.rawValue, "duration": record.duration]) { $1 }
        }
        return fields
    }
}
