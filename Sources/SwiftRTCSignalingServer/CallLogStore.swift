import Foundation
import SwiftRTCSignaling

/// The signaling server's call log: one row per call, written when the call starts, updated
/// when it is answered and when it ends; ended calls (``CallRecord``) are queryable per user by
/// role, end result and count.
///
/// Two stores keep it: ``SQLiteCallLog`` (a file or memory, for a server that runs alone) and
/// the PostgreSQL store of ``PostgresStorage`` (for many server instances on one database).
/// Both keep the same rules:
///
/// - A call id is used once: ``callStarted(id:caller:callees:conferenceType:at:)`` and
///   ``insert(_:)`` never replace a row (``CallLogError/duplicateCall(_:)``).
/// - A row without an end is a call in progress, or one a killed server never ended:
///   ``closeInterruptedCalls()`` ends those as `connection_lost` at the last moment their row
///   was written.
/// - Times are Unix seconds; `duration` is talk time (from the answer to the end).
public protocol CallLogStore: Sendable {
    /// Writes the row of a call that starts (no end yet), with its participants: a server
    /// killed during the call leaves it in the log.
    /// - Throws: ``CallLogError/duplicateCall(_:)`` when a call with this id is already in
    ///   the log (ended or not): a call id is used once.
    func callStarted(
        id: String,
        caller: String,
        callees: [String],
        conferenceType: ConferenceType,
        at started: Date
    ) async throws(CallLogError)

    /// Records the first answer of a call in progress (a later answer, or a call already
    /// ended, changes nothing).
    func callAnswered(id: String, at answered: Date) async throws(CallLogError)

    /// Stores an ended call: completes the row ``callStarted(id:caller:callees:conferenceType:at:)``
    /// wrote, or adds the whole call when it has none.
    /// - Throws: ``CallLogError/duplicateCall(_:)`` when the call id is already in the log as
    ///   an ended call: a record is never replaced.
    func insert(_ record: CallRecord) async throws(CallLogError)

    /// Ends every call left in progress (its server killed, or its machine stopped) as
    /// `connection_lost`, at the last moment its row was written; returns how many. A server
    /// that runs alone calls it before it listens; servers sharing a database never do (their
    /// calls outlive any one instance).
    @discardableResult
    func closeInterruptedCalls() async throws(CallLogError) -> Int

    /// The ids of the calls started and not ended, oldest first.
    func openCallIDs() async throws(CallLogError) -> [String]

    /// The calls `user` took part in, newest (by end time) first.
    /// - Parameters:
    ///   - role: only calls the user made (`caller`) or received (`callee`); nil: both.
    ///   - result: only calls that ended this way; nil: any.
    ///   - limit: at most this many (clamped to 1...``SignalingLimits/maxCallLogLimit``).
    ///   - offset: after skipping this many newer ones (clamped to 0...``SignalingLimits/maxCallLogOffset``).
    func calls(
        of user: String,
        role: CallRole?,
        result: CallEndResult?,
        limit: Int,
        offset: Int
    ) async throws(CallLogError) -> [CallRecord]

    /// The ended call with this id, if it is in the log (a call in progress is not yet: see
    /// ``openCallIDs()``).
    func call(id: String) async throws(CallLogError) -> CallRecord?

    /// How many ended calls the log holds.
    func count() async throws(CallLogError) -> Int

    /// Removes the ended calls that ended before `cutoff`, then the oldest ended calls beyond
    /// the newest `maxCalls`; returns how many it removed. Calls in progress stay.
    @discardableResult
    func removeCalls(endedBefore cutoff: Date, keepingAtMost maxCalls: Int) async throws(CallLogError) -> Int
}

extension CallLogStore {
    /// The calls `user` took part in, newest first (see ``calls(of:role:result:limit:offset:)``).
    public func calls(
        of user: String,
        role: CallRole? = nil,
        result: CallEndResult? = nil,
        limit: Int = SignalingLimits.defaultCallLogLimit
    ) async throws(CallLogError) -> [CallRecord] {
        try await calls(of: user, role: role, result: result, limit: limit, offset: 0)
    }
}
