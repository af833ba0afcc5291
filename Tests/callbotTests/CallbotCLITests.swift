import Foundation
import TestScheduling
import Testing

/// Runs the built `callbot` executable, as a user would.
enum Callbot {
    static var executable: URL { product("callbot") }

    /// A built executable of the package (callbot, an example bot).
    static func product(_ name: String) -> URL {
        // The test bundle sits in the build products folder, beside the executables.
        var url = Bundle.main.bundleURL
        while url.pathComponents.count > 1,
            !FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path)
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent(name)
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs callbot to its end, off the cooperative pool.
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> Result {
        let output = try await runToEnd(executable, arguments, stdin: stdin)
        return Result(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }
}

@Test func helpAndVersion() async throws {
    let help = try await Callbot.run(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("USAGE: callbot"))
    let version = try await Callbot.run(["--version"])
    #expect(version.status == 0)
    #expect(version.stdout.hasPrefix("callbot 0."))
}

@Test func infoPrintsTheFiveLibraries() async throws {
    let info = try await Callbot.run(["info", "--log-level", "verbose"])
    #expect(info.status == 0)
    for name in ["libnice", "GnuTLS", "libsrtp2", "libopus", "libvpx"] {
        #expect(info.stdout.contains(name))
    }
    let bad = try await Callbot.run(["info", "--log-level", "loud"])
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("loud"))
}
