import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A client sending a secret over `ws://` or `http://` to a host that is not loopback says so
/// on standard error (issue 36): `call`, `whip` and `load`. The host is this machine's own
/// non-loopback address, at a closed port: nothing leaves the machine.
@Suite struct CleartextWarningCLITests {
    /// An IPv4 address of this machine that is not loopback.
    static func ownAddress() throws -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { throw CLIError("getifaddrs failed") }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count))
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { return string }
        }
        throw CLIError("this machine has no IPv4 address besides loopback")
    }

    struct CLIError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func tokensInTheClearToAnotherHostAreWarnedAbout() async throws {
        let host = try Self.ownAddress()
        let call = try await Callbot.run([
            "call", "bob", "--server", "ws://\(host):9/signaling", "--token", "alice-token-0123456789",
        ])
        #expect(
            call.stderr.contains("warning: sending the login token to \(host) in the clear (ws://)"),
            "\(call.stderr)"
        )
        let whip = try await Callbot.run([
            "whip", "http://\(host):9/whip", "--token", "whip-token-0123456789", "--duration", "1",
        ])
        #expect(
            whip.stderr.contains("warning: sending the bearer token to \(host) in the clear (http://)"),
            "\(whip.stderr)"
        )
        let tokens = try ServeCLITests.write(
            "cleartext-tokens.txt",
            "a:a-token-0123456789abcdef\nb:b-token-0123456789abcdef\n"
        )
        let load = try await Callbot.run([
            "load", "--server", "ws://\(host):9/signaling", "--tokens-file", tokens, "--bots", "2", "--duration", "1",
        ])
        #expect(
            load.stderr.contains("warning: sending the bots' login tokens to \(host) in the clear"),
            "\(load.stderr)"
        )
        // Loopback stays quiet.
        let local = try await Callbot.run([
            "call", "bob", "--server", "ws://127.0.0.1:9/signaling", "--token", "alice-token-0123456789",
        ])
        #expect(!local.stderr.contains("in the clear"), "\(local.stderr)")
    }
}
