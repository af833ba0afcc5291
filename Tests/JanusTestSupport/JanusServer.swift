import Foundation
import SocketTestSupport
import TestScheduling

/// A real Janus (Debian's `janus` 1.1.2) for a test: a config folder of the test's own (only the
/// VideoRoom plugin and the WebSocket transport, on 127.0.0.1 and a free port), started and
/// waited for until its WebSocket port answers; `stop()` kills it. Signaling only: Janus skips
/// loopback interfaces when it gathers candidates, so media tests run it in a namespace.
final class JanusServer: @unchecked Sendable {
    static let executable = "/usr/bin/janus"
    /// Where Debian installs Janus's modules.
    static let modules = "/usr/lib/x86_64-linux-gnu/janus"

    /// Whether Janus is installed (Scripts/bootstrap.sh --tests installs it).
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let port: Int
    let folder: URL
    private var process: Process?

    var url: URL { URL(string: "ws://127.0.0.1:\(port)")! }

    /// Writes the configuration (`sessionTimeout`: Janus ends a session that sent nothing for
    /// that long; `reclaimTimeout`: it keeps a session whose connection dropped that long for
    /// a `claim`) and starts Janus.
    init(sessionTimeout: Int = 60, reclaimTimeout: Int = 10) async throws {
        folder = try ScratchFolder.make("janus")
        // Below the ephemeral range and free on loopback (a port from a bind to 0 could be
        // taken by any busy test before Janus binds it).
        guard let port = unusedLoopbackPort() else { throw JanusServerError(reason: "no unused port") }
        self.port = Int(port)
        let disabledPlugins = [
            "audiobridge", "echotest", "recordplay", "sip", "nosip", "streaming", "textroom", "videocall",
            "voicemail", "duktape", "lua",
        ].map { "libjanus_\($0).so" }.joined(separator: ",")
        let disabledTransports = ["http", "rabbitmq", "mqtt", "pfunix", "nanomsg"].map { "libjanus_\($0).so" }
            .joined(separator: ",")
        let files = [
            "janus.jcfg": """
            general: {
                configs_folder = "\(folder.path)"
                plugins_folder = "\(Self.modules)/plugins"
                transports_folder = "\(Self.modules)/transports"
                events_folder = "\(Self.modules)/events"
                loggers_folder = "\(Self.modules)/loggers"
                log_to_stdout = true
                debug_level = 4
                session_timeout = \(sessionTimeout)
                reclaim_session_timeout = \(reclaimTimeout)
            }
            certificates: {}
            media: {}
            nat: {
                ignore_mdns = true
            }
            plugins: {
                disable = "\(disabledPlugins)"
            }
            transports: {
                disable = "\(disabledTransports)"
            }
            loggers: {
                disable = "libjanus_jsonlog.so"
            }
            events: {
                broadcast = false
            }
            """,
            "janus.transport.websockets.jcfg": """
            general: {
                json = "compact"
                ws = true
                ws_port = \(port)
                ws_ip = "127.0.0.1"
                wss = false
            }
            admin: {
                admin_ws = false
                admin_wss = false
            }
            """,
            "janus.plugin.videoroom.jcfg": "general: {\n}\n",
        ]
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try await start()
    }

    /// Starts Janus on the configuration and waits (at most 20 s) until its port answers.
    func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["--configs-folder=\(folder.path)", "--config=\(folder.path)/janus.jcfg"]
        let log = folder.appendingPathComponent("janus.log")
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.accepts(port: port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw JanusServerError(reason: "Janus did not listen on \(port): \(logTail())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills Janus (SIGKILL: a crash, nothing said to its clients) and waits for it.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// The end of Janus's log.
    func logTail() -> String {
        let text = (try? String(contentsOf: folder.appendingPathComponent("janus.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    struct JanusServerError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
