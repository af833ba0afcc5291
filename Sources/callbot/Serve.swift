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
            database for all; one given neither uses the users stored there.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The TCP port to listen on (0 picks a free one).", valueName: "P"))
    var port: Int?

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "ADDRESS"))
    var host = "127.0.0.1"

    @OptionGroup var tls: TLSServerOptions

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

    func validate() throws {
        if let hashPassword {
            guard SignalingCredentials.isValidUserID(hashPassword) else {
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
            ("--max-password-checks", maxPasswordChecks),
        ] where value < 1 {
            throw ValidationError("\(name) \(value) must be at least 1")
        }
        try Seconds.check(reconnectGrace, "--reconnect-grace", above: 0, orEqual: true)
        switch (tokens, users) {
        case (nil, nil) where !usesPostgres: throw ValidationError("give the users: --tokens FILE or --users FILE")
        case (.some, .some): throw ValidationError("--tokens and --users cannot be combined: give one")
        default: break
        }
        if let database, !usesPostgres {
            let directory = URL(fileURLWithPath: database).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ValidationError("--database \(database): the folder \(directory) does not exist")
            }
        }
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
        PrometheusExport.bootstrap()
        let credentials: SignalingCredentials
        let storage: SignalingStorage
        let location: String
        do {
            let fromFile =
                try tokens.map { try SignalingCredentials.load(tokensFile: $0) }
                ?? users.map { try SignalingCredentials.load(usersFile: $0) }
            if let database, usesPostgres {
                let postgres = try PostgresStorage(url: database)
                try await postgres.migrate()
                if let fromFile {
                    try await postgres.storeCredentials(fromFile)
                    credentials = fromFile
                } else if let stored = try await postgres.loadCredentials() {
                    credentials = stored
                } else {
                    throw ValidationError(
                        "no users are stored in \(postgres.displayURL) yet: give --tokens FILE or --users FILE"
                    )
                }
                storage = .postgres(postgres)
                location = postgres.displayURL
            } else {
                // validate() made sure a file was given.
                credentials = fromFile!
                storage = try database.map { try SignalingStorage.sqlite(path: $0) } ?? .inMemory()
                location = database ?? "in memory"
            }
        } catch {
            log("error: \(error)")
            throw ExitCode.failure
        }
        log("\(credentials.userIDs.count) users; call log \(location)")
        var configuration = SignalingServer.Configuration(
            host: host,
            port: port ?? 0,
            maxConnections: maxConnections,
            maxConnectionsPerAddress: maxConnectionsPerAddress,
            maxConcurrentPasswordChecks: maxPasswordChecks
        )
        configuration.tls = try tls.identity()
        configuration.reconnectGrace = Seconds.duration(reconnectGrace)
        let server = SignalingServer(configuration: configuration, credentials: credentials, storage: storage)
        // SIGTERM drains the server (ServiceLifecycle): alone, it logs the calls under way and
        // closes every connection; sharing PostgreSQL, it moves its users to other instances.
        do {
            try await ServerServices.run { try await server.run { url in printLine("READY \(url.absoluteString)") } }
        } catch {
            log("error: signaling server on \(host):\(port ?? 0): \(error)")
            throw ExitCode.failure
        }
        let counters = server.counters
        if counters != SignalingServer.Counters() { log("refused for limits: \(counters)") }
        log("signaling server stopped")
    }
}
