import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// Password hashing (swift-crypto's PBKDF2, a hash made by Python's hashlib, today's minimum
/// iteration count), credential files and their errors. Every derivation costs 600 000
/// iterations (about 0.2 s): the tests share hashes (``TestPasswords``) and check few passwords.
@Suite struct CredentialsTests {
    /// Python: `import hashlib,base64; s=b"python-made-salt"; print("pbkdf2-sha256$600000$" + base64.b64encode(s).decode()
    /// + "$" + base64.b64encode(hashlib.pbkdf2_hmac("sha256", "pässword".encode(), s, 600000)).decode())`
    static let pythonHash = "pbkdf2-sha256$600000$cHl0aG9uLW1hZGUtc2FsdA==$vH+RZynC/XZ+4frQjQ9QKagfvrmkesT76RGmUqgo02A="
    /// The same with 1 000 iterations: a users file written before the minimum was raised.
    static let oldPythonHash =
        "pbkdf2-sha256$1000$cHl0aG9uLW1hZGUtc2FsdA==$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY="

    @Test func aHashWrittenByPythonHashlibVerifies() async throws {
        let hash = try PasswordHash(parsing: Self.pythonHash)
        #expect(hash.iterations == 600_000)
        #expect(await TestPasswords.offPool { hash.matches(password: "pässword") })
        #expect(await TestPasswords.offPool { !hash.matches(password: "password") })
        #expect(hash.description == Self.pythonHash)
    }

    @Test func madeHashesAreSaltedAndRoundTrip() async throws {
        let one = TestPasswords.erin
        #expect(one.iterations == PasswordHash.minimumIterations)
        #expect(one.salt.count == 16)
        let two = await TestPasswords.offPool { PasswordHash.make(password: TestPasswords.erinPassword) }
        #expect(one.salt != two.salt)
        #expect(one.derivedKey != two.derivedKey)
        let parsed = try PasswordHash(parsing: one.description)
        #expect(parsed == one)
        #expect(await TestPasswords.offPool { parsed.matches(password: TestPasswords.erinPassword) })
    }

    /// A hash below 600 000 iterations is refused with what to do, even one that verified
    /// before (the old minimum was 1 000).
    @Test func aHashBelowTodaysMinimumIsRefused() {
        #expect {
            _ = try PasswordHash(parsing: Self.oldPythonHash)
        } throws: { error in
            (error as? PasswordHashError) == .tooFewIterations(1_000, minimum: 600_000)
                && "\(error)".contains("below the minimum of 600000") && "\(error)".contains("hash the password again")
        }
    }

    @Test(arguments: [
        ("sha256$1000$c2FsdHNhbHQ=$AAAA", "unknown scheme 'sha256'"),
        (
            "pbkdf2-sha256$10$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=",
            "10 PBKDF2 iterations, below the minimum"
        ),
        ("pbkdf2-sha256$0$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "iterations '0'"),
        ("pbkdf2-sha256$10000001$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "iterations '10000001'"),
        (
            "pbkdf2-sha256$99999999999999999999$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=",
            "iterations '99999999999999999999'"
        ),
        ("pbkdf2-sha256$many$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "iterations 'many'"),
        ("pbkdf2-sha256$600000$!!$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "salt"),
        ("pbkdf2-sha256$600000$c2FsdHNhbHQ=$AAAA", "32 bytes"),
        ("plaintext-password", "expected pbkdf2-sha256$"),
    ])
    func badHashesSayWhatIsWrong(text: String, message: String) {
        #expect {
            _ = try PasswordHash(parsing: text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    static func file(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "signaling-credentials-\(UUID().uuidString)"
        )
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func aTokensFileAuthenticatesEachUser() throws {
        let path = try Self.file(
            """
            # users of the test server
            alice:alice-token-0123456789

            bob:bob-token-0123456789abcdef
            """
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let credentials = try SignalingCredentials.load(tokensFile: path)
        #expect(credentials.userIDs == ["alice", "bob"])
        #expect(credentials.authenticate(token: "alice-token-0123456789") == "alice")
        #expect(credentials.authenticate(token: "bob-token-0123456789abcdef") == "bob")
        #expect(credentials.authenticate(token: "alice-token-012345678") == nil)
        #expect(credentials.authenticate(token: "alice:alice-token-0123456789") == nil)
    }

    @Test func aUsersFileAuthenticatesPasswords() async throws {
        let path = try Self.file("erin:\(TestPasswords.erin)\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let credentials = try SignalingCredentials.load(usersFile: path)
        #expect(credentials.requiresPasswordCheck)
        #expect(await credentials.authenticateOffPool(token: "erin:\(TestPasswords.erinPassword)") == "erin")
        #expect(await credentials.authenticateOffPool(token: "erin:pw of bob") == nil)
        #expect(await credentials.authenticateOffPool(token: "bob:\(TestPasswords.erinPassword)") == nil)
    }

    @Test(arguments: [
        (true, "alice alice-token-0123456789", ":1: expected USER:SECRET"),
        (true, "alice:short", ":1: the token of alice must be at least 16"),
        (true, "al ice:alice-token-0123456789", ":1: 'al ice' is not a user id"),
        (true, "alice:", ":1: no secret after 'alice:'"),
        (true, "alice:alice-token-0123456789\nbob:alice-token-0123456789", ":2: this token is already given to alice"),
        (true, "alice:alice-token-0123456789\nalice:other-token-0123456789", ":2: user alice appears twice"),
        (true, "# nothing\n\n", "no USER:SECRET lines"),
        (false, "erin:secret", ":1: malformed password hash"),
        (false, "\n\nerin:pbkdf2-sha256$600000$c2FsdHNhbHQ=$AAAA", ":3: malformed password hash"),
        (
            false, "erin:\(CredentialsTests.oldPythonHash)",
            ":1: password hash with 1000 PBKDF2 iterations, below the minimum of 600000"
        ),
        (false, "erin:\(CredentialsTests.oldPythonHash)", "`callbot serve --hash-password erin`"),
    ])
    func badFilesNameTheLineAndTheProblem(tokens: Bool, contents: String, message: String) throws {
        let path = try Self.file(contents)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try tokens ? SignalingCredentials.load(tokensFile: path) : SignalingCredentials.load(usersFile: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains(message) && text.hasPrefix(path)
        }
    }

    @Test func aMissingFileIsAClearError() {
        #expect {
            _ = try SignalingCredentials.load(tokensFile: "/nonexistent/tokens.txt")
        } throws: { error in
            "\(error)".hasPrefix("cannot read /nonexistent/tokens.txt")
        }
    }
}
