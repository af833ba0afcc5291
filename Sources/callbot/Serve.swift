import ArgumentParser
import Foundation
import SwiftRTC
import SwiftRTCSignalingServer

/// `callbot serve --port P (--tokens FILE | --users FILE) [--database PATH | postgres://…]`: run the SwiftRTC
/// signaling server (WebSocket at `ws://HOST:P/signaling`) for `callbot call`/`answer` and any
/// other client of the protocol. `--hash-password USER` writes a users-file line instead.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Run the signaling server: WebSocket, authenticated users, call sessions, call log in SQLite or PostgreSQL.",
        discussion: """
            Prints READY <WebSocket URL> on standard output once it listens, then serves until \
            SIGINT or SIGTERM: it then logs the ongoing calls as ended, closes every connection \
            and exits 0. Users authenticate with the first message on their connection, \
            {"type":"hello","token":"..."}: a token of --tokens FILE (USER:TOKEN lines), or \
            USER:PASSWORD checked against --users FILE (USER:pbkdf2-sha256$... lines, written by \
            --hash-password USER from the password on standard input). \
            With --database postgres://..., any number of instances on that database behave as \
            one server: users, calls and the call log are in the database, and a user may log in \
            to any instance. An instance given --tokens or --users stores those users in the \
            database for all, unless the stored users came from a file modified later (a stale \
            copy does not replace them: that instance warns and uses the stored users; touch the \
            file to make it win); one given neither uses the users stored there. \
            SIGHUP (systemctl reload) reads --tokens or --users FILE again: new logins use the \
            users it lists, and the connections of users removed or whose token or password \
            changed are closed (on every instance, sharing PostgreSQL); a file that does not load \
            keeps the users loaded before and logs why. The PostgreSQL password can stay out of the URL (and out \
            of process listings): --database-password-file FILE (first line) or \
            $\(databasePasswordVariable). Secrets are never logged. \
            With --janus ws://HOST:8188, /conference serves the web client's conference page: \
            browsers join that Janus's VideoRoom rooms there, with bots (callbot conference).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The TCP port to listen on (0 picks a free one).", valueName: "P"))
    var port: Int?

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "ADDRESS"))
    var host = "127.0.0.1"

    @OptionGroup var tls: TLSServerOptions
    @OptionGroup var door: DoorOptions
    @OptionGroup var shutdown: ShutdownOptions

    @Option(help: ArgumentHelp("Users and their bearer tokens: USER:TOKEN lines.", valueName: "FILE"))
    var tokens: String?

    @Option(help: ArgumentHelp("Users and their password hashes: USER:pbkdf2-sha256$... lines.", valueName: "FILE"))
    var users: String?

    @Option(
        help: ArgumentHelp(
            """
            Where the call log is kept: an SQLite file (created if missing; without --database, in memory), or \
            postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgres://USER@/DATABASE?host=/SOCKET/FOLDER) to share \
            users, calls and presence with the other instances on that database.
            """,
            valueName: "PATH|URL"
        )
    )
    var database: String?

    /// The environment variable the PostgreSQL password is read from when neither the URL nor
    /// `--database-password-file` gives one.
    static let databasePasswordVariable = "SWIFTRTC_DATABASE_PASSWORD"

    @Option(
        help: ArgumentHelp(
            "The password of a postgres:// --database URL that holds none: the first line of FILE (else $\(databasePasswordVariable)).",
            valueName: "FILE"
        )
    )
    var databasePasswordFile: String?

    @Option(
        help: ArgumentHelp(
            "Seconds a user whose connection dropped keeps their place in their calls, to log in again (here or on another instance).",
            valueName: "S"
        )
    )
    var reconnectGrace = SignalingServer.Configuration.defaultReconnectGrace.seconds

    /// Whether --database names a PostgreSQL database.
    private var usesPostgres: Bool {
        database.map { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") } ?? false
    }

    @Option(
        help: ArgumentHelp(
            "Print the users-file line of USER for the password read from standard input, and exit.",
            valueName: "USER"
        )
    )
    var hashPassword: String?

    @Option(
        help: ArgumentHelp(
            "WebSocket connections open at once, authenticated or not; more are refused (429).",
            valueName: "N"
        )
    )
    var maxConnections = SignalingServer.Configuration.defaultMaxConnections

    @Option(
        help: ArgumentHelp(
            "Connections open at once from one client address (IPv4 address or IPv6 /64); more are refused (429).",
            valueName: "N"
        )
    )
    var maxConnectionsPerAddress = SignalingServer.Configuration.defaultMaxConnectionsPerAddress

    @Option(
        help: ArgumentHelp(
            "--users password checks (PBKDF2, about 0.2 s of a core each) running at once; a login that finds them busy is refused (429). Default: half the cores, at least 1.",
            valueName: "N"
        )
    )
    var maxPasswordChecks = SignalingServer.Configuration.defaultMaxConcurrentPasswordChecks

    @Option(
        help: ArgumentHelp(
            "Calls one user may start in a minute (a third of them at once); more are refused (429).",
            valueName: "N"
        )
    )
    var callsPerMinute = SignalingServer.Configuration.defaultCallsPerMinutePerUser

    @Option(
        help: ArgumentHelp(
            "A Janus WebSocket API whose rooms the web client's conference page (/conference) joins.",
            valueName: "ws://HOST:8188"
        )
    )
    var janus: String?

    @Option(help: ArgumentHelp("Days the call log keeps an ended call (at least 0.001).", valueName: "DAYS"))
    var callLogDays = CallLogRetention.defaultMaxAge.seconds / 86_400

    @Option(
        help: ArgumentHelp(
            "Ended calls the call log keeps; the oldest beyond are removed. Default: 1000000, or 100000 in memory (no --database).",
            valueName: "N"
        )
    )
    var callLogMaxCalls: Int?

    func validate() throws {
        if let hashPassword {
            guard SignalingLimits.isValidUserID(hashPassword) else {
                throw ValidationError(
                    "--hash-password '\(hashPassword)' is not a user id (letters, digits, . _ - @; 1 to 64)"
                )
            }
            return
        }
        guard let port else { throw ValidationError("Missing expected argument '--port <P>'") }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is not a TCP port (0 to 65535)") }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else {
            throw ValidationError("--host '\(host)' is not an address")
        }
        try tls.check(host: host)
        for (name, value) in [
            ("--max-connections", maxConnections), ("--max-connections-per-address", maxConnectionsPerAddress),
            ("--max-password-checks", maxPasswordChecks), ("--calls-per-minute", callsPerMinute),
            ("--call-log-max-calls", callLogMaxCalls ?? 1),
        ] where value < 1 {
            throw ValidationError("\(name) \(value) must be at least 1")
        }
        if let janus, WebSocketURL.parse(janus) == nil {
            throw ValidationError("--janus '\(janus)' is not a Janus WebSocket URL (expected ws://HOST:PORT)")
        }
        try Seconds.check(reconnectGrace, "--reconnect-grace", above: 0, orEqual: true)
        try shutdown.check()
        guard callLogDays.isFinite, callLogDays >= 0.001, callLogDays <= 36_500 else {
            throw ValidationError("--call-log-days \(callLogDays) must be between 0.001 and 36500")
        }
        switch (tokens, users) {
        case (nil, nil) where !usesPostgres: throw ValidationError("give the users: --tokens FILE or --users FILE")
        case (.some, .some): throw ValidationError("--tokens and --users cannot be combined: give one")
        default: break
        }
        _ = try databasePassword()
        if let database, !usesPostgres {
            let directory = URL(fileURLWithPath: database).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ValidationError("--database \(database): the folder \(directory) does not exist")
            }
        }
    }

    /// The PostgreSQL password of a `--database` URL that holds none: the first line of
    /// `--database-password-file`, else `$SWIFTRTC_DATABASE_PASSWORD`; nil when neither is set
    /// or the URL holds one. Never logged: errors name the source, not the value.
    func databasePassword() throws -> String? {
        guard let database, usesPostgres else {
            if databasePasswordFile != nil {
                throw ValidationError("--database-password-file is the password of a postgres:// --database")
            }
            return nil
        }
        let inURL = URLComponents(string: database)?.password != nil
        if inURL, databasePasswordFile != nil {
            throw ValidationError(
                "--database holds a password and --database-password-file gives one: give one (better: the file)"
            )
        }
        // A password in the URL is used as it is (the environment's is for URLs without one).
        if inURL { return nil }
        return try Secret.read(
            option: "--database",
            value: nil,
            fileOption: "--database-password-file",
            file: databasePasswordFile,
            variable: Self.databasePasswordVariable,
            check: Secret.nonEmpty
        )
    }

    /// The `--tokens` or `--users` file, if one was given.
    var credentialsFile: CredentialsFile? {
        if let tokens { return CredentialsFile(kind: .tokens, path: tokens) }
        if let users { return CredentialsFile(kind: .users, path: users) }
        return nil
    }

    func run() async throws {
        global.apply()
        if let user = hashPassword {
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("--hash-password: give the password on standard input")
            }
            printLine("\(user):\(PasswordHash.make(password: password))")
            return
        }
        // From here a SIGHUP reloads the users file instead of ending the process.
        let hangUps = HangUpSignals()
        PrometheusExport.bootstrap()
        let credentialsFile = self.credentialsFile
        let opened: OpenedStorage
        do {
            opened = try await openStorage(credentialsFile: credentialsFile)
        } catch {
            log("error: \(error)")
            throw ExitCode.failure
        }
        let (credentials, storage, location, sharedDatabase) = opened
        log("\(credentials.userIDs.count) users; call log \(location)")
        let configuration = try serverConfiguration()
        let server = SignalingServer(configuration: configuration, credentials: credentials, storage: storage)
        // SIGTERM drains the server (ServiceLifecycle): alone, it logs the calls under way and
        // closes every connection; sharing PostgreSQL, it moves its users to other instances.
        // SIGHUP reads the users file again (ServerServices.ReloadOnHangUp).
        let postgres = sharedDatabase
        do {
            try await ServerServices.run(
                { try await server.run { url in printLine("READY \(url.absoluteString)") } },
                shutdownDeadline: shutdown.deadline,
                hangUps: hangUps,
                reload: {
                    guard let credentialsFile else {
                        return log(
                            "SIGHUP: no --tokens or --users file to read again (the users stored in \(location) stay)"
                        )
                    }
                    await credentialsFile.reload(into: server, postgres: postgres)
                }
            )
        } catch {
            log("error: signaling server on \(host):\(port ?? 0): \(error)")
            throw ExitCode.failure
        }
        let counters = server.counters
        if counters != SignalingServer.Counters() { log("refused for limits: \(counters)") }
        log("signaling server stopped")
    }

    /// What ``openStorage(credentialsFile:)`` opens: the users, the call log's storage, where
    /// that is, and the PostgreSQL storage shared with other instances, if any.
    typealias OpenedStorage = (
        credentials: SignalingCredentials, storage: SignalingStorage, location: String, postgres: PostgresStorage?
    )

    /// The users and the call log's storage: with a PostgreSQL `--database`, the users stored
    /// there (after storing those of the file, unless the stored ones came from a newer copy
    /// of it); else those of the file, with the call log in SQLite or in memory. Where the
    /// call log is, and the PostgreSQL storage shared with other instances, if any.
    func openStorage(credentialsFile: CredentialsFile?) async throws -> OpenedStorage {
        let credentials: SignalingCredentials
        let storage: SignalingStorage
        let location: String
        var sharedDatabase: PostgresStorage?
        let fromFile = try credentialsFile?.loadVersioned()
        if let database, usesPostgres {
            let postgres = try PostgresStorage(url: database, password: try databasePassword())
            try await postgres.migrate()
            if let (fromFile, modified) = fromFile, let credentialsFile {
                // An older copy of the file than the one whose users are stored does not
                // replace them for every instance: this instance uses the stored users.
                switch try await postgres.storeCredentials(fromFile, modified: modified) {
                case .stored, .unchanged:
                    credentials = fromFile
                case let .newerStored(stored):
                    guard let newer = try await postgres.loadCredentials() else {
                        throw ValidationError("the users stored in \(postgres.displayURL) vanished: start again")
                    }
                    log(
                        credentialsFile.olderThanStored(modified: modified, stored: stored, in: postgres.displayURL)
                    )
                    credentials = newer
                }
            } else if let stored = try await postgres.loadCredentials() {
                credentials = stored
            } else {
                throw ValidationError(
                    "no users are stored in \(postgres.displayURL) yet: give --tokens FILE or --users FILE"
                )
            }
            storage = .postgres(postgres)
            sharedDatabase = postgres
            location = postgres.displayURL
        } else {
            // validate() made sure a file was given.
            credentials = fromFile!.credentials
            storage = try database.map { try SignalingStorage.sqlite(path: $0) } ?? .inMemory()
            location = database ?? "in memory"
        }
        return (credentials, storage, location, sharedDatabase)
    }

    /// The server's configuration, from the command line.
    func serverConfiguration() throws -> SignalingServer.Configuration {
        var configuration = SignalingServer.Configuration(
            host: host,
            port: port ?? 0,
            maxConnections: maxConnections,
            maxConnectionsPerAddress: maxConnectionsPerAddress,
            maxConcurrentPasswordChecks: maxPasswordChecks
        )
        configuration.tls = try tls.identity()
        configuration.conferenceJanusURL = janus.flatMap(WebSocketURL.parse)
        configuration.door = door.configuration
        configuration.reconnectGrace = Seconds.duration(reconnectGrace)
        configuration.callsPerMinutePerUser = callsPerMinute
        configuration.callLogRetention = CallLogRetention(
            maxAge: .seconds(callLogDays * 86_400),
            maxCalls: callLogMaxCalls
                ?? (database == nil ? CallLogRetention.defaultMaxCallsInMemory : CallLogRetention.defaultMaxCalls)
        )
        return configuration
    }
}
