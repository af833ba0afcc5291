import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// The call log: answering queries, storing ended calls, pruning.
extension SignalingHub {
    /// The largest `callLog` answer, in bytes of JSON.
    static let maxCallLogReplyBytes = 512 * 1024

    /// The newest of `records` whose answer stays under ``maxCallLogReplyBytes`` (well under a
    /// client's frame limit): each record is encoded once, and the oldest give way.
    static func fitting(_ records: [CallRecord]) -> [CallRecord] {
        let encoder = JSONEncoder()
        var total = 1024  // the message around the records
        var kept = 0
        for record in records {
            total += ((try? encoder.encode(record).count) ?? maxCallLogReplyBytes) + 1
            guard total <= maxCallLogReplyBytes || kept == 0 else { break }
            kept += 1
        }
        return Array(records.prefix(max(1, min(kept, records.count))))
    }

    /// Answers a call-log query with the user's calls, newest first (as many as fit).
    func answer(
        _ query: SignalingBody.CallLogQuery,
        from user: String,
        messageID: String?,
        connection id: Int
    ) async {
        do {
            let records = try await callLog.calls(
                of: user,
                role: query.role,
                result: query.result,
                limit: query.limit ?? SignalingLimits.defaultCallLogLimit,
                offset: query.offset ?? 0
            )
            reply(to: id, .callLog(.init(replyTo: messageID, records: Self.fitting(records))))
        } catch {
            logger.error("signaling: \(error)")
            refuse(connection: id, code: .internalError, reason: "the call log cannot be read", replyTo: messageID)
        }
    }

    /// Removes the calls ``SignalingServer/Configuration/callLogRetention`` no longer keeps.
    func pruneCallLog() async {
        callsSincePrune = 0
        lastPrune = .now
        let retention = configuration.callLogRetention
        do {
            let removed = try await callLog.removeCalls(
                endedBefore: Date().addingTimeInterval(-retention.maxAge.seconds),
                keepingAtMost: retention.maxCalls
            )
            guard removed > 0 else { return }
            metrics.callsRemoved.increment(by: removed)
            logger.info("signaling: call log: removed \(removed) calls past its retention")
        } catch {
            logger.error("signaling: \(error)")
        }
    }

    /// Stores a call that just ended (completing the row written at its start).
    func store(_ record: CallRecord) async {
        do {
            try await callLog.insert(record)
            metrics.callEnded(record.result)
            logger.info("signaling: call \(record.callId) ended: \(record.result.rawValue), \(Int(record.duration)) s")
        } catch {
            logger.error("signaling: \(error)")
        }
    }
}
