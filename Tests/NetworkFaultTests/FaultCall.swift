import Foundation
import TestScheduling
import Testing

/// One WHIP call across a `FaultNetwork`: a WHIP endpoint in namespace `a` (port 8080 on
/// 10.99.N.1) and a WHIP client dialling it from namespace `b`, each sending a tone and a
/// moving pattern and writing its bot report. Returns both reports once both ends are done.
struct FaultCall {
    /// A program of the call and how it is started.
    enum Peer: Sendable {
        case callbot, chromium

        var name: String { self == .callbot ? "callbot" : "chromium" }
    }

    static let port = 8080

    let network: FaultNetwork
    let folder: URL

    /// The bearer token of the calls (an endpoint beyond loopback requires one).
    static let token = "fault-whip-token-0123456789"

    /// The endpoint's command in namespace `a`; it prints `READY <url>` when it listens.
    private func serverArguments(_ peer: Peer, report: URL) -> (String, [String]) {
        switch peer {
        case .callbot:
            return (
                FaultPaths.callbot.path,
                [
                    // The namespaces' private link: plain HTTP on purpose (--insecure).
                    "whip-server", "--host", network.addressA, "--port", "\(Self.port)", "--insecure", "--audio",
                    "tone", "--video", "pattern", "--token", Self.token,
                    "--duration", "120", "--stats-interval", "2", "--report", report.path,
                ]
            )
        case .chromium:
            return (
                ProjectPython.path,
                [
                    FaultPaths.scripts.appendingPathComponent("browser_peer.py").path, "whip-server", "--host",
                    network.addressA,
                    "--port", "\(Self.port)", "--once", "--duration", "120", "--report", report.path,
                ] + allowedAddresses
            )
        }
    }

    /// The client's command in namespace `b`, for `seconds` of call.
    private func clientArguments(_ peer: Peer, url: String, seconds: Int, report: URL) -> (String, [String]) {
        switch peer {
        case .callbot:
            return (
                FaultPaths.callbot.path,
                [
                    "whip", url, "--duration", "\(seconds)", "--stats-interval", "2", "--report", report.path,
                    "--token",
                    Self.token,
                ]
            )
        case .chromium:
            return (
                ProjectPython.path,
                [
                    FaultPaths.scripts.appendingPathComponent("browser_peer.py").path, "whip-client", url,
                    "--duration", "\(seconds)", "--report", report.path, "--token", Self.token,
                ] + allowedAddresses
            )
        }
    }

    /// The Interop peers keep only candidates on these addresses (loopback by default).
    private var allowedAddresses: [String] {
        ["--allow-address", network.addressA, "--allow-address", network.addressB]
    }

    /// Runs the call for `seconds`; `beforeEnd` runs `window` before the client's end (to take
    /// counters over the last seconds of the call) and its result is returned.
    func run<T: Sendable>(
        server: Peer,
        client: Peer,
        seconds: Int,
        window: Duration = .seconds(3),
        beforeEnd: @Sendable () async throws -> T
    ) async throws -> (server: CallReport, client: CallReport, sample: T) {
        let serverReport = folder.appendingPathComponent("\(server.name)-server.json")
        let clientReport = folder.appendingPathComponent("\(client.name)-client.json")
        let (serverTool, serverFlags) = serverArguments(server, report: serverReport)
        let endpoint = try network.spawn(
            in: network.a,
            name: "\(server.name)-whip-server",
            serverTool,
            serverFlags,
            folder: folder
        )
        let url: String
        do {
            url = try await endpoint.waitForLine(prefix: "READY ", timeout: .seconds(90))
        } catch {
            if !endpoint.process.isRunning, endpoint.process.terminationStatus == 2 {
                throw FaultFailure("\(server.name) whip-server says a dependency is missing:\n\(endpoint.stderrTail())")
            }
            throw error
        }
        let (clientTool, clientFlags) = clientArguments(client, url: url, seconds: seconds, report: clientReport)
        let caller = try network.spawn(
            in: network.b,
            name: "\(client.name)-whip",
            clientTool,
            clientFlags,
            folder: folder
        )
        // The Chromium client counts its seconds from connecting, callbot from the offer.
        let startup: Duration = client == .chromium ? .seconds(4) : .seconds(1)
        try await Task.sleep(for: .seconds(seconds) + startup - window)
        let sample = try await beforeEnd()
        let clientStatus = try await caller.wait(timeout: .seconds(90))
        if clientStatus == 2 {
            throw FaultFailure("\(client.name) whip-client says a dependency is missing:\n\(caller.stderrTail())")
        }
        // The client's DELETE ended the session; SIGTERM ends the endpoint, which writes its report.
        endpoint.terminate()
        let serverStatus = try await endpoint.wait(timeout: .seconds(30))
        #expect(
            clientStatus == 0,
            "\(client.name) whip exited \(clientStatus); stderr (\(caller.stderrURL.path)):\n\(caller.stderrTail())"
        )
        #expect(
            serverStatus == 0,
            "\(server.name) whip-server exited \(serverStatus); stderr (\(endpoint.stderrURL.path)):\n\(endpoint.stderrTail())"
        )
        var reports = (
            server: try CallReport(who: "\(server.name) whip-server", url: serverReport),
            client: try CallReport(who: "\(client.name) whip-client", url: clientReport)
        )
        if server == .callbot { reports.server.receiveStats = Self.lastReceiveStats(endpoint.stdout) }
        if client == .callbot { reports.client.receiveStats = Self.lastReceiveStats(caller.stdout) }
        return (reports.server, reports.client, sample)
    }

    /// The last `VR`, `AR` and `Packets lost:` lines of callbot's statsString output.
    static func lastReceiveStats(_ output: String) -> String? {
        let lines = output.split(separator: "\n")
        let found = ["VR ", "AR ", "Packets lost:"].compactMap { prefix in lines.last { $0.hasPrefix(prefix) } }
        return found.isEmpty ? nil : found.joined(separator: " / ")
    }
}
