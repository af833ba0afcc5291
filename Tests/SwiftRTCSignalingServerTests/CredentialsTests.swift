import Foundation
import Testing
import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// Password hashing (RFC 7914 §11 vectors and a hash made by Python's hashlib), credential
/// files and their errors.
@Suite struct CredentialsTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// PBKDF2-HMAC-SHA256 vectors: the first of RFC 7914 §11 (its second, 80 000 iterations,
    /// takes 10 s in a debug build) and a 2-block one from Python's hashlib; computed on a
    /// thread of their own, off the cooperative pool.
    @Test(arguments: [
        ("passwd", "salt", 1, 64, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
        ("Password", "NaCl", 1_000, 40, "c27dad0abae39af4ebb9965719d584e8b4eb2ee69e1fc9f8f4784d1ca68696e28ffbab5f75a7f35d"),
    ])
    func pbkdf2MatchesRFC7914(password: String, salt: String, iterations: Int, length: Int, expected: String) async throws {
        let derived = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: PasswordHash.pbkdf2SHA256(password: Array(password.utf8), salt: Array(salt.utf8),
                                                                         iterations: iterations, length: length))
            }
        }
        #expect(Self.hex(derived) == expected)
    }

    @Test func aHashWrittenByPythonHashlibVerifies() throws {
        // python3 -c 'import hashlib,base64; s=b"python-made-salt"; print("pbkdf2-sha256$1000$"
        //   + base64.b64encode(s).decode() + "$" + base64.b64encode(hashlib.pbkdf2_hmac("sha256", "pässword".encode(), s, 1000)).decode())'
        let hash = try PasswordHash(parsing: "pbkdf2-sha256$1000$cHl0aG9uLW1hZGUtc2FsdA==$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=")
        #expect(hash.matches(password: "pässword"))
        #expect(!hash.matches(password: "password"))
        #expect(hash.description == "pbkdf2-sha256$1000$cHl0aG9uLW1hZGUtc2FsdA==$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=")
    }

    @Test func madeHashesAreSaltedAndRoundTrip() throws {
        let one = PasswordHash.make(password: "secret", iterations: 1_000)
        let two = PasswordHash.make(password: "secret", iterations: 1_000)
        #expect(one.salt != two.salt)
        #expect(one.derivedKey != two.derivedKey)
        let parsed = try PasswordHash(parsing: one.description)
        #expect(parsed == one)
        #expect(parsed.matches(password: "secret"))
    }

    @Test(arguments: [
        ("sha256$1000$c2FsdHNhbHQ=$AAAA", "unknown scheme 'sha256'"),
        ("pbkdf2-sha256$10$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "iterations '10'"),
        ("pbkdf2-sha256$many$c2FsdHNhbHQ=$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "iterations 'many'"),
        ("pbkdf2-sha256$1000$!!$PR1JKFSlRr6TO8uix7TFSsemzpC1sx03sgaK9oGF3xY=", "salt"),
        ("pbkdf2-sha256$1000$c2FsdHNhbHQ=$AAAA", "32 bytes"),
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
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signaling-credentials-\(UUID().uuidString)")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func aTokensFileAuthenticatesEachUser() throws {
        let path = try Self.file("""
        # users of the test server
        alice:alice-token-0123456789

        bob:bob-token-0123456789abcdef
        """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let credentials = try SignalingCredentials.load(tokensFile: path)
        #expect(credentials.userIDs == ["alice", "bob"])
        #expect(credentials.authenticate(token: "alice-token-0123456789") == "alice")
        #expect(credentials.authenticate(token: "bob-token-0123456789abcdef") == "bob")
        #expect(credentials.authenticate(token: "alice-token-012345678") == nil)
        #expect(credentials.authenticate(token: "alice:alice-token-0123456789") == nil)
    }

    @Test func aUsersFileAuthenticatesPasswords() throws {
        let path = try Self.file("erin:\(PasswordHash.make(password: "pw of erin", iterations: 1_000))\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let credentials = try SignalingCredentials.load(usersFile: path)
        #expect(credentials.authenticate(token: "erin:pw of erin") == "erin")
        #expect(credentials.authenticate(token: "erin:pw of bob") == nil)
        #expect(credentials.authenticate(token: "bob:pw of erin") == nil)
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
        (false, "\n\nerin:pbkdf2-sha256$1000$c2FsdHNhbHQ=$AAAA", ":3: malformed password hash"),
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
