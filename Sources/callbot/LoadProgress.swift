import Foundation
import Synchronization

/// What a `callbot load` run has done so far, for the progress line it prints on standard
/// error every `--progress-interval` seconds (the report comes at the end).
final class LoadProgress: Sendable {
    /// Bots that logged in.
    let loggedIn = Atomic<Int>(0)
    /// Calls whose every member's media is up now.
    let callsUp = Atomic<Int>(0)
    /// Calls that have ended, and how many of those failed.
    let callsEnded = Atomic<Int>(0)
    let callsFailed = Atomic<Int>(0)
    /// RTP packets received and lost by the calls that have ended.
    let packetsReceived = Atomic<Int>(0)
    let packetsLost = Atomic<Int>(0)

    /// Counts a call that ended with `result` (it was up if it connected).
    func ended(_ result: LoadCallResult) {
        if result.connected { callsUp.subtract(1, ordering: .relaxed) }
        callsEnded.add(1, ordering: .relaxed)
        if result.failure != nil { callsFailed.add(1, ordering: .relaxed) }
        packetsReceived.add(result.packetsReceived, ordering: .relaxed)
        packetsLost.add(result.packetsLost, ordering: .relaxed)
    }

    /// `load: 10 s: 180/200 bots logged in, 88 calls up, 2 of 100 ended (1 failed), loss 0.0002`.
    func line(elapsed: Duration, bots: Int, calls: Int) -> String {
        let received = packetsReceived.load(ordering: .relaxed), lost = packetsLost.load(ordering: .relaxed)
        let loss = received + lost > 0 ? String(format: "%.4f", Double(lost) / Double(received + lost)) : "-"
        return "load: \(elapsed.components.seconds) s: \(loggedIn.load(ordering: .relaxed))/\(bots) bots logged in, "
            + "\(callsUp.load(ordering: .relaxed)) calls up, \(callsEnded.load(ordering: .relaxed)) of \(calls) ended "
            + "(\(callsFailed.load(ordering: .relaxed)) failed), loss \(loss)"
    }
}
