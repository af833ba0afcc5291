import Foundation

/// Where a ``SignalingServer`` keeps what outlives a message: the call log, the call sessions
/// and who is connected where.
///
/// - ``inMemory()`` and ``sqlite(path:)``: a server that runs alone. The call log is in SQLite
///   (``SQLiteCallLog``), sessions and presence in the process.
/// - ``postgres(_:)``: many server instances on one PostgreSQL database behave as one server
///   (``PostgresStorage``): the call log, the sessions, presence and the users are in the
///   database, and messages for a user connected to another instance travel through it.
public struct SignalingStorage: Sendable {
    /// The call log.
    public let callLog: any CallLogStore
    let state: any SignalingState
    /// What runs beside the server while it serves (PostgreSQL's client), if anything.
    let service: PostgresStorage?

    /// A call log in memory, gone with the process (tests, `callbot demo`).
    public static func inMemory() -> SignalingStorage {
        SignalingStorage(callLog: SQLiteCallLog(), state: LocalSignalingState(), service: nil)
    }

    /// The call log in the SQLite database at `path` (created if missing; the folder must exist).
    /// - Throws: ``CallLogError/cannotOpen(path:_:)``.
    public static func sqlite(path: String) throws(CallLogError) -> SignalingStorage {
        SignalingStorage(callLog: try SQLiteCallLog(path: path), state: LocalSignalingState(), service: nil)
    }

    /// A call log of your own (e.g. an ``SQLiteCallLog`` you query as well) for a server that
    /// runs alone.
    public static func callLog(_ callLog: any CallLogStore) -> SignalingStorage {
        SignalingStorage(callLog: callLog, state: LocalSignalingState(), service: nil)
    }

    /// Everything in PostgreSQL, shared with the other instances on the same database.
    public static func postgres(_ storage: PostgresStorage) -> SignalingStorage {
        SignalingStorage(callLog: storage.callLog, state: storage.state, service: storage)
    }
}
