import Foundation
import SwiftRTC
import SwiftRTCSignalingServer

/// The demo's signaling: a SwiftRTC signaling server embedded in the process on a free
/// loopback port, with a random token per user and the call log in memory; the bots log in
/// to it over WebSocket like any client.
struct DemoSignaling: Sendable, CustomStringConvertible {
    let server: SignalingServer
    let running: Task<Void, any Error>
    let url: URL
    let tokens: [String: String]

    static func start(users: [String]) async throws -> DemoSignaling {
        var tokens: [String: String] = [:]
        for user in users { tokens[user] = UUID().uuidString }
        let credentials = try SignalingCredentials.tokens(
            Dictionary(uniqueKeysWithValues: tokens.map { ($0.value, $0.key) })
        )
        let server = SignalingServer(configuration: .init(host: "127.0.0.1", port: 0), credentials: credentials)
        let (listening, continuation) = AsyncStream.makeStream(of: URL.self)
        let running = Task { try await server.run { url in continuation.yield(url) } }
        var iterator = listening.makeAsyncIterator()
        guard let url = await iterator.next() else { throw CallbotError("the signaling server did not start") }
        return DemoSignaling(server: server, running: running, url: url, tokens: tokens)
    }

    var description: String { "server \(url.absoluteString)" }

    /// `user` logged in over WebSocket.
    func channel(for user: String) async throws -> any SignalingChannel {
        try await WebSocketSignalingChannel.connect(to: url, token: tokens[user] ?? "")
    }

    func stop() async {
        await server.shutdown()
        _ = await running.result
    }
}
