import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore

/// A PostgreSQL database that many signaling server instances share (``SignalingStorage/postgres(_:)``):
/// they behave as one server.
///
/// - The call log (``callLog``), the call sessions and their rules' state, which instance holds
///   each user's connection (refreshed by heartbeats, expired when an instance dies), and the
///   users and tokens are in the database.
/// - A message for a user connected to another instance goes to that instance by `NOTIFY` on
///   its channel (`signaling_<instance id>`), in order; a message larger than `NOTIFY`'s
///   payload limit goes into the table `signaling_payload` and the notification carries its id.
/// - Each server creates or migrates the schema when it starts (one at a time, under an
///   advisory lock): tables `call`, `call_participant`, `signaling_instance`,
///   `signaling_presence`, `signaling_session`, `signaling_payload`, `signaling_credential`,
///   `signaling_credential_version` (where the stored users came from: their file's
///   modification time and their digest), and `signaling_schema` (the version).
///
/// The database is the instances' trust boundary: what is in it (the users, the sessions, the
/// notifications on an instance's channel) is taken as written by an instance, so whoever can
/// write to it can impersonate one. Give the instances a database and role of their own,
/// reachable only from their hosts, over TLS (README.md beside this file, "The database is
/// trusted").
///
/// The connection pool runs from ``init(url:password:)`` until ``close()``.
public final class PostgresStorage: Sendable {
    /// The call log, in the database.
    public let callLog: PostgresCallLog
    let state: PostgresSignalingState
    let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger = SwiftRTCLogging.logger("signaling.postgres")
    /// The URL without its password (for logs).
    public let displayURL: String

    /// Connects to the database at `url` (the connections open as they are needed):
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, or
    /// over a Unix socket `postgres://USER@/DATABASE?host=/SOCKET/FOLDER[&port=P]` (the socket
    /// `.s.PGSQL.P` in that folder, as libpq names it). TLS is required unless the host is a
    /// loopback address or a socket, or `sslmode` says otherwise. `password`, when given, is used
    /// instead of the URL's (read from a file or the environment, it stays out of the URL and so
    /// out of process listings).
    /// - Throws: ``PostgresStorageError/invalidURL(_:)`` with what is wrong.
    public init(url: String, password: String? = nil) throws(PostgresStorageError) {
        let (configuration, display) = try Self.configuration(parsing: url, password: password)
        client = PostgresClient(
            configuration: configuration,
            backgroundLogger: Logger(label: "swiftrtc.postgres") { _ in SwiftLogNoOpLogHandler() }
        )
        let client = self.client
        running = Task { await client.run() }
        displayURL = display
        callLog = PostgresCallLog(client: client)
        state = PostgresSignalingState(client: client)
    }

    deinit { running.cancel() }

    /// Stops the connection pool.
    public func close() { running.cancel() }

    /// Creates the schema, or migrates it to this version (run by every server as it starts).
    /// - Throws: ``PostgresStorageError/failed(_:)``.
    public func migrate() async throws(PostgresStorageError) {
        do {
            try await PostgresSchema.migrate(client, logger: logger)
        } catch {
            throw .failed("creating or migrating the schema: \(String(reflecting: error))")
        }
    }

    /// What ``storeCredentials(_:modified:)`` did with the users it was given.
    public enum CredentialsStoreResult: Sendable, Hashable {
        /// They are the stored users now (replacing those stored before); the running
        /// instances were told, and load them.
        case stored
        /// The same users (the same SHA-256 digest of their entries) were stored already:
        /// nothing was written.
        case unchanged
        /// The stored users come from a file modified later (at `modified`): they stay, and
        /// nothing was written. Use them (``loadCredentials()``).
        case newerStored(modified: Date)
    }

    /// Makes `credentials` the users every instance accepts, replacing those stored before,
    /// and tells the running instances; unless the stored users are the same
    /// (``CredentialsStoreResult/unchanged``) or came from a file modified after `modified`
    /// (``CredentialsStoreResult/newerStored(modified:)``): an instance started with a stale
    /// copy of the users file does not take the newer users away from every instance.
    ///
    /// - Parameter modified: when the file the users come from was last modified (by default
    ///   now: these users win over any stored before). Instances on several hosts compare
    ///   their files' modification times: keep the clocks in sync, and copy the file keeping
    ///   its time (`rsync -t`, `scp -p`). To bring back an older file, `touch` it.
    /// - Throws: ``PostgresStorageError/failed(_:)``.
    @discardableResult
    public func storeCredentials(
        _ credentials: SignalingCredentials,
        modified: Date = Date()
    ) async throws(PostgresStorageError) -> CredentialsStoreResult {
        do {
            return try await state.storeCredentials(credentials.entries, modified: modified, digest: credentials.digest)
        } catch {
            throw .failed("storing the users: \(String(reflecting: error))")
        }
    }

    /// The users stored by ``storeCredentials(_:)``, or nil when none are.
    public func loadCredentials() async throws(PostgresStorageError) -> SignalingCredentials? {
        let entries: [SignalingCredentials.Entry]
        do {
            entries = try await state.loadCredentials()
        } catch {
            throw .failed("reading the users: \(String(reflecting: error))")
        }
        guard !entries.isEmpty else { return nil }
        do {
            return try SignalingCredentials(entries: entries)
        } catch {
            throw .failed("the stored users: \(error)")
        }
    }

    /// `text` with what may be a password (from the `:` after `://USER` to the last `@`) left
    /// out, for an error message about a URL that does not parse: a password holding `/`, `?`,
    /// `#` or `@` unescaped is what makes one fail.
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.lastIndex(of: "@"), scheme.upperBound < at,
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    /// The configuration of a `postgres://` URL (with `password` instead of the URL's, when
    /// given), and the URL without its password.
    static func configuration(
        parsing text: String,
        password given: String? = nil
    ) throws(PostgresStorageError) -> (PostgresClient.Configuration, String) {
        guard let components = URLComponents(string: text),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else {
            throw .invalidURL("'\(Self.withoutPassword(text).prefix(200))' is not a postgres:// URL")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { _, last in last }
        )
        guard let user = components.user.map({ $0.removingPercentEncoding ?? $0 }), !user.isEmpty else {
            throw .invalidURL("the URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let password = given ?? components.password.map { $0.removingPercentEncoding ?? $0 }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw .invalidURL("the URL names no database (postgres://USER@HOST/DATABASE)")
        }
        let portText = components.port.map(String.init) ?? query["port"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw .invalidURL("port \(portText) is not a TCP port")
        }
        var configuration: PostgresClient.Configuration
        var display = "postgres://\(user)@"
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            configuration = .init(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)",
                username: user,
                password: password,
                database: database
            )
            display += "/\(database)?host=\(socketFolder)"
        } else {
            guard let host = components.host, !host.isEmpty else { throw .invalidURL("the URL names no host") }
            let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
            let tls: PostgresClient.Configuration.TLS
            switch query["sslmode"] ?? (loopback ? "disable" : "require") {
            case "disable": tls = .disable
            case "prefer": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-full": tls = .require(.makeClientConfiguration())
            case let other: throw .invalidURL("sslmode=\(other): use disable, prefer or require")
            }
            configuration = .init(
                host: host,
                port: port,
                username: user,
                password: password,
                database: database,
                tls: tls
            )
            display += "\(host):\(port)/\(database)"
        }
        configuration.options.maximumConnections = 16
        return (configuration, display)
    }
}
