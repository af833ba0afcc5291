import Foundation
import ServiceLifecycle
import SwiftRTCSignalingServer

/// The users file `serve` was given (`--tokens FILE` or `--users FILE`), read at the start and
/// again on each SIGHUP: a changed file takes effect without a restart (new logins use it; the
/// connections of users removed or whose secret changed are closed), a file that does not
/// load keeps the users loaded before and says why.
struct CredentialsFile: Sendable {
    enum Kind: Sendable {
        /// `USER:TOKEN` lines.
        case tokens
        /// `USER:pbkdf2-sha256$...` lines.
        case users
    }

    let kind: Kind
    let path: String

    /// The option that named the file.
    var option: String { kind == .tokens ? "--tokens" : "--users" }

    /// The users in the file.
    /// - Throws: ``SignalingCredentialsError`` naming the file (and line) and why, never a secret.
    func load() throws(SignalingCredentialsError) -> SignalingCredentials {
        switch kind {
        case .tokens: try SignalingCredentials.load(tokensFile: path)
        case .users: try SignalingCredentials.load(usersFile: path)
        }
    }

    /// The users in the file and its modification time, read before its contents (a change
    /// meanwhile makes the next reload newer, never older); the distant past when it cannot be
    /// read (such users never replace stored ones).
    func loadVersioned() throws(SignalingCredentialsError) -> (credentials: SignalingCredentials, modified: Date) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let modified = attributes?[.modificationDate] as? Date ?? .distantPast
        return (try load(), modified)
    }

    /// The warning when the users stored in `database` come from a file modified after this
    /// one (`modified`): they are kept.
    func olderThanStored(modified: Date, stored: Date, in database: String) -> String {
        let time = ISO8601DateFormatter()
        time.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return """
            warning: \(option) \(path) (modified \(time.string(from: modified))) is older than the users stored in \
            \(database) (from a file modified \(time.string(from: stored))): the stored users stay; to make this file \
            the users of every instance, write it again or touch it
            """
    }

    /// Reads the file again and makes its users those `server` lets log in (and, sharing
    /// PostgreSQL, stores them for every instance); logs what happened on standard error.
    /// Returns false, keeping the users loaded before, when the file does not load or cannot be
    /// stored.
    @discardableResult
    func reload(into server: SignalingServer, postgres: PostgresStorage?) async -> Bool {
        let kept = "the \(server.credentials.userIDs.count) users loaded before stay"
        let credentials: SignalingCredentials
        let modified: Date
        do {
            (credentials, modified) = try loadVersioned()
        } catch {
            log("error: SIGHUP: reloading \(option) failed: \(error); \(kept)")
            return false
        }
        if let postgres {
            do {
                if case let .newerStored(stored) = try await postgres.storeCredentials(credentials, modified: modified)
                {
                    log("SIGHUP: " + olderThanStored(modified: modified, stored: stored, in: postgres.displayURL))
                    return false
                }
            } catch {
                log(
                    "error: SIGHUP: storing the users of \(option) \(path) in \(postgres.displayURL): \(error); \(kept)"
                )
                return false
            }
        }
        await server.replaceCredentials(credentials)
        let count = credentials.userIDs.count
        log("SIGHUP: reloaded \(option) \(path): \(count) user\(count == 1 ? "" : "s")")
        return true
    }
}

extension ServerServices {
    /// Runs `reload` on each SIGHUP until the group shuts down.
    struct ReloadOnHangUp: Service {
        let signals: HangUpSignals
        let reload: @Sendable () async -> Void

        func run() async throws {
            for await _ in signals.received.cancelOnGracefulShutdown() { await reload() }
        }
    }
}
