import SwiftRTCSignaling
import Synchronization

/// Log lines of each kind at most once per ``interval``, the next line saying how many were
/// not logged: what strangers cause (refusals at the servers' door and limits) is logged with
/// its address without letting a flood fill the log.
package final class LogThrottle<Kind: Hashable & Sendable>: Sendable {
    /// The shortest time between two lines of one kind.
    package let interval: Duration

    private struct State {
        var lastLogged: [Kind: ContinuousClock.Instant] = [:]
        var unlogged: [Kind: Int] = [:]
    }

    private let state = Mutex(State())

    package init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Whether a line of `kind` goes out now: nil if one did within ``interval`` (it is
    /// counted), else how many were not logged since the last one.
    package func admit(_ kind: Kind, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            if let last = state.lastLogged[kind], now - last < interval {
                state.unlogged[kind, default: 0] += 1
                return nil
            }
            state.lastLogged[kind] = now
            return state.unlogged.removeValue(forKey: kind) ?? 0
        }
    }

    /// ` (and N more not logged in the last …)` for `unlogged` lines, or nothing.
    package func more(_ unlogged: Int) -> String {
        unlogged > 0 ? " (and \(unlogged) more not logged in the last \(interval))" : ""
    }
}
