import Dispatch
import RandomTestSupport
import SwiftRTCCore
import SwiftRTCDTLS
import Synchronization

/// Two in-memory datagram endpoints joined like a network: a datagram sent on one is
/// delivered to the transport attached to the other later, on a "network" queue (never
/// reentrantly inside `send`). A deterministic loss pattern can drop datagrams.
final class MemoryDatagramLink: Sendable {
    final class Endpoint: DatagramSender {
        private struct State {
            weak var owner: DtlsTransport?
            var sent = 0
            var dropped = 0
            var delivered: [[UInt8]] = []
        }
        private let state = Mutex(State())
        private let network: DispatchQueue
        private let drops: @Sendable (Int, [UInt8]) -> Bool
        /// Set once when the link is built, before any send.
        nonisolated(unsafe) weak var peer: Endpoint?

        init(network: DispatchQueue, drops: @escaping @Sendable (Int, [UInt8]) -> Bool) {
            self.network = network
            self.drops = drops
        }

        /// The transport that sends through this endpoint and receives what the other sends.
        func attach(_ transport: DtlsTransport) {
            state.withLock { $0.owner = transport }
        }

        func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
            let bytes = [UInt8](datagram)
            let index = state.withLock { state in
                state.sent += 1
                return state.sent
            }
            guard let peer else { return false }
            if drops(index, bytes) {
                state.withLock { $0.dropped += 1 }
                return true
            }
            network.async { peer.deliver(bytes) }
            return true
        }

        private func deliver(_ bytes: [UInt8]) {
            let transport = state.withLock { state -> DtlsTransport? in
                state.delivered.append(bytes)
                return state.owner
            }
            bytes.withUnsafeBytes { transport?.receive($0) }
        }

        /// Datagrams this endpoint sent, and how many of them the link dropped.
        var counts: (sent: Int, dropped: Int) { state.withLock { ($0.sent, $0.dropped) } }
        /// Datagrams delivered *to* this endpoint's transport so far.
        var delivered: [[UInt8]] { state.withLock { $0.delivered } }
    }

    let a: Endpoint
    let b: Endpoint

    /// A link that drops what the two functions pick, given each datagram's number (from 1,
    /// per direction) and bytes: `dropFromA` for what `a` sends, `dropFromB` for `b`.
    init(
        dropFromA: @escaping @Sendable (Int, [UInt8]) -> Bool,
        dropFromB: @escaping @Sendable (Int, [UInt8]) -> Bool
    ) {
        let network = DispatchQueue(label: "test.network")
        a = Endpoint(network: network, drops: dropFromA)
        b = Endpoint(network: network, drops: dropFromB)
        a.peer = b
        b.peer = a
    }

    /// - Parameter lossPercent: share of datagrams dropped in each direction, chosen by a
    ///   fixed pseudo-random sequence (the same on every run).
    convenience init(lossPercent: Int = 0, seed: UInt64 = 0x5EED) {
        let drops: @Sendable (Int, [UInt8]) -> Bool = { index, _ in
            guard lossPercent > 0 else { return false }
            // SplitMix64 of (seed, index): deterministic and well spread.
            let z = SplitMix64.mix(seed &+ UInt64(index) &* SplitMix64.increment)
            return Int(z % 100) < lossPercent
        }
        self.init(dropFromA: drops, dropFromB: drops)
    }

    /// Makes a client on endpoint `a` and a server on `b`, each expecting the other's
    /// certificate, wired to the link (not started).
    func makePair(
        client: DtlsTransport.Configuration,
        server: DtlsTransport.Configuration
    ) throws -> (client: DtlsTransport, server: DtlsTransport) {
        let clientTransport = try DtlsTransport(configuration: client, sender: a)
        let serverTransport = try DtlsTransport(configuration: server, sender: b)
        a.attach(clientTransport)
        b.attach(serverTransport)
        return (clientTransport, serverTransport)
    }
}
