import Foundation
import SwiftRTCSignaling
import Synchronization

/// The signaling server's hub and message handling without sockets, for the fuzzer
/// (`Fuzz/FuzzTargets/ServerSignaling.swift`): connections opened from a few addresses, whole
/// text messages handed in as the WebSocket reader hands them (parsed, a `hello`
/// authenticated, anything else to the hub with its session state and in-memory call log),
/// sweeps and closes; what the server wrote to each connection comes back at the end.
package final class SignalingServerHarness: Sendable {
    /// The users and their tokens.
    package static let tokens = [
        "alice": "alice-fuzz-token-0000", "bob": "bob-fuzz-token-00000", "carol": "carol-fuzz-token-0000",
    ]

    private let hub: SignalingHub
    private let reader: SignalingConnection
    private struct Open: Sendable {
        let id: Int
        let address: String
        let written: AsyncStream<SignalingHub.Outbound>
    }
    private let open = Mutex<[Int: Open]>([:])
    private let finished = Mutex<[AsyncStream<SignalingHub.Outbound>]>([])

    package init() {
        let configuration = SignalingServer.Configuration()
        // The literal tokens are valid.
        let credentials =
            (try? SignalingCredentials.tokens(
                Dictionary(uniqueKeysWithValues: Self.tokens.map { ($1, $0) })
            ))!
        hub = SignalingHub(configuration: configuration, credentials: credentials, storage: .inMemory())
        reader = SignalingConnection(hub: hub, configuration: configuration)
    }

    /// Connection `slot`'s whole text message `data` (the connection opens on first use, from
    /// one of three addresses).
    package func receive(_ data: Data, slot: Int) async {
        guard let connection = await connection(slot) else { return }
        await reader.handle(data, connection: connection.id, address: connection.address)
    }

    /// Connection `slot` closes (the next message on it opens a new one).
    package func close(slot: Int) async {
        guard let connection = open.withLock({ $0.removeValue(forKey: slot) }) else { return }
        await hub.closed(connection.id)
        finished.withLock { $0.append(connection.written) }
    }

    /// The hub's timers run (hello timeouts, ring timeouts, away users, forgotten sessions).
    package func sweep() async { await hub.sweep() }

    /// Closes every connection; returns every text message the server wrote, in each
    /// connection's order.
    package func finish() async -> [String] {
        for slot in open.withLock({ Array($0.keys) }) { await close(slot: slot) }
        var texts: [String] = []
        for stream in finished.withLock({ $0 }) {
            for await item in stream { if case let .text(text) = item { texts.append(text) } }
        }
        return texts
    }

    private func connection(_ slot: Int) async -> Open? {
        if let connection = open.withLock({ $0[slot] }) { return connection }
        let (written, outbound) = AsyncStream.makeStream(of: SignalingHub.Outbound.self)
        let (_, closer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let address = "192.0.2.\(slot % 3)"
        let queue = SendQueue(maxMessages: 512, maxBytes: SignalingServer.Configuration.defaultSendQueueBytes)
        guard case let .opened(id) = await hub.open(outbound: outbound, queue: queue, closer: closer, address: address)
        else { return nil }
        let connection = Open(id: id, address: address, written: written)
        open.withLock { $0[slot] = connection }
        return connection
    }
}
