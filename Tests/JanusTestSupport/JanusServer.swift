import Foundation
import SocketTestSupport
import TestScheduling

/// A real Janus (Debian's `janus` 1.1.2) for a test: a config folder of the test's own (only the
/// VideoRoom plugin, the WebSocket and HTTP transports, on one address and free ports), started
/// and waited for until its transports run; `stop()` kills it, and so does a shell that
/// watches over it once this test process is gone.
///
/// On 127.0.0.1 it serves signaling only: Janus skips loopback interfaces when it gathers
/// candidates. For media, it runs inside a network namespace of the test's (`namespace`,
/// started with `ip netns exec`), listening on `host` there and gathering only on `interface`
/// (`nat: ice_enforce_list`).
public final class JanusServer: @unchecked Sendable {
    static let executable = "/usr/bin/janus"
    /// Where Debian installs Janus's modules.
    static let modules = "/usr/lib/x86_64-linux-gnu/janus"
    /// What Janus's WebSocket and HTTP transports log once they listen.
    static let readyLines = ["WebSockets thread started", "HTTP webserver started"]

    /// Whether Janus is installed (Scripts/bootstrap.sh --tests installs it).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let port: Int
    /// The port of Janus's HTTP API (`/janus`), for peers that speak it (aiortc's).
    public let httpPort: Int
    public let host: String
    public let folder: URL
    private let namespace: String?
    private var process: Process?

    /// Janus's WebSocket API.
    public var url: URL { URL(string: "ws://\(host):\(port)")! }
    /// Janus's HTTP API.
    public var httpURL: URL { URL(string: "http://\(host):\(httpPort)/janus")! }

    /// Writes the configuration (`sessionTimeout`: Janus ends a session that sent nothing for
    /// that long; `reclaimTimeout`: it keeps a session whose connection dropped that long for
    /// a `claim`) and starts
    /// Janus, on 127.0.0.1 or in `namespace` on `host`, gathering on `interface`.
    public init(
        sessionTimeout: Int = 60,
        reclaimTimeout: Int = 10,
        namespace: String? = nil,
        host: String = "127.0.0.1",
        interface: String? = nil
    ) async throws {
        folder = try ScratchFolder.make("janus")
        self.namespace = namespace
        self.host = host
        // Below the ephemeral range and free on loopback (a port from a bind to 0 could be
        // taken by any busy test before Janus binds it; in a namespace of its own any port is).
        guard let port = unusedLoopbackPort(), var httpPort = unusedLoopbackPort() else {
            throw JanusServerError(reason: "no unused port")
        }
        while httpPort == port {
            guard let another = unusedLoopbackPort() else { throw JanusServerError(reason: "no unused port") }
            httpPort = another
        }
        self.port = Int(port)
        self.httpPort = Int(httpPort)
        let disabledPlugins = [
            "audiobridge", "echotest", "recordplay", "sip", "nosip", "streaming", "textroom", "videocall",
            "voicemail", "duktape", "lua",
        ].map { "libjanus_\($0).so" }.joined(separator: ",")
        let disabledTransports = ["rabbitmq", "mqtt", "pfunix", "nanomsg"].map { "libjanus_\($0).so" }
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
                ignore_mdns = true\(interface.map { "\n    ice_enforce_list = \"\($0)\"" } ?? "")
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
                ws_ip = "\(host)"
                wss = false
            }
            admin: {
                admin_ws = false
                admin_wss = false
            }
            """,
            "janus.transport.http.jcfg": """
            general: {
                json = "compact"
                base_path = "/janus"
                http = true
                port = \(httpPort)
                ip = "\(host)"
                https = false
            }
            admin: {
                admin_http = false
                admin_https = false
            }
            """,
            "janus.plugin.videoroom.jcfg": "general: {\n}\n",
        ]
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try await start()
    }

    /// Starts Janus on the configuration and waits (at most 20 s) until its WebSocket
    /// transport runs.
    public func start() async throws {
        let process = Process()
        let janus =
            (namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? []) + [Self.executable]
            + ["--configs-folder=\(folder.path)", "--config=\(folder.path)/janus.jcfg"]
        // A shell watches over Janus: it kills Janus when this test process is gone (a test
        // that crashed leaves no Janus behind), or when told to (SIGTERM, from `stop()`).
        let command = janus.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "\(command) & j=$!; trap 'kill -KILL $j 2>/dev/null; wait $j; exit 0' TERM; "
                + "while [ -d /proc/\(getpid()) ] && kill -0 $j 2>/dev/null; do sleep 0.5; done; "
                + "kill -KILL $j 2>/dev/null; wait $j",
        ]
        let logFile = folder.appendingPathComponent("janus.log")
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logFile)
        let startOffset = Int(handle.seekToEndOfFile())
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.readyLines.allSatisfy(log(from: startOffset).contains)
            || (namespace == nil && !Self.accepts(port: port))
        {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw JanusServerError(reason: "Janus did not listen on \(port): \(logTail())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills Janus (SIGKILL: a crash, nothing said to its clients) and waits for it: its
    /// watching shell does, told with SIGTERM (within half a second).
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Janus's log from byte `offset` on (what a start wrote).
    func log(from offset: Int) -> String {
        let data = (try? Data(contentsOf: folder.appendingPathComponent("janus.log"))) ?? Data()
        return String(decoding: data.dropFirst(offset), as: UTF8.self)
    }

    /// The end of Janus's log.
    public func logTail() -> String {
        let text = (try? String(contentsOf: folder.appendingPathComponent("janus.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    struct JanusServerError: Error, CustomStringConvertible {
        let reason: String
        public var description: String { reason }
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
