import Foundation
import SwiftRTCCore
import SwiftRTCSDP
import Synchronization

#if canImport(Glibc)
import Glibc
import SocketTestSupport
#endif

/// A lossy network between two PeerConnections on loopback, on the tests' side: each side is
/// given a candidate of the relay in place of the other's (``rewrite(_:from:)``), and the relay
/// passes the datagrams on, from its other socket, to the side's real candidate. `dropping`
/// sees every datagram on its way to the answerer (SRTP with its RTP header in the clear,
/// DTLS, STUN) and returns true to lose it.
final class UDPRelay: Sendable {
    enum Side: Int, Sendable { case offerer = 0, answerer = 1 }

    /// Socket `i` stands in for side `i`: the other side sends to it, and the relay sends from
    /// it to the other side (whose candidate for side `i` is this socket's address).
    private let sockets: [Int32]
    let ports: [UInt16]
    private let targets = Mutex<[sockaddr_in?]>([nil, nil])
    private let drop = Mutex<Callback<UnsafeRawBufferPointer, Bool>?>(nil)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    /// Datagrams passed on, and lost, toward the answerer.
    let relayed = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)

    init() throws {
        var sockets: [Int32] = [], ports: [UInt16] = []
        for _ in 0..<2 {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            guard let port = bindLoopback(fd) else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            sockets.append(fd)
            ports.append(port)
        }
        self.sockets = sockets
        self.ports = ports
        Thread.detachNewThread { [self] in run() }
    }

    /// What is lost on the way to the answerer from now on (nil: nothing).
    func dropping(_ drop: (@Sendable (UnsafeRawBufferPointer) -> Bool)?) {
        self.drop.withLock { $0 = drop.map(Callback.init) }
    }

    /// `candidate` of `side`, as the other side is to see it: the relay's socket for `side`
    /// in place of its address (nil for what the relay does not carry: TCP, the end marker).
    /// The relay sends what it passes on to `side` to the real address.
    func rewrite(_ candidate: IceCandidateInit, from side: Side) -> IceCandidateInit? {
        guard !candidate.isEndOfCandidates, var parsed = try? IceCandidate(sdpLine: candidate.candidate),
            !parsed.isTCP, parsed.address == "127.0.0.1"
        else { return nil }
        let real = sockaddr_in.loopback(port: parsed.port)
        targets.withLock { $0[side.rawValue] = real }
        parsed.port = ports[side.rawValue]
        return IceCandidateInit(
            candidate: parsed.sdpLine,
            sdpMid: candidate.sdpMid,
            sdpMLineIndex: candidate.sdpMLineIndex
        )
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .relaxed) { usleep(1000) }
        for fd in sockets { close(fd) }
    }

    /// One thread: a datagram that arrives on the socket standing in for side `i` came from
    /// the other side, and goes on to side `i` from the socket standing in for the other.
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var fds = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while running.load(ordering: .relaxed) {
            guard poll(&fds, 2, 20) > 0 else { continue }
            for (index, entry) in fds.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                let count = recv(entry.fd, &buffer, buffer.count, 0)
                guard count > 0, let target = targets.withLock({ $0[index] }) else { continue }
                let lost = buffer.withUnsafeBytes { bytes in
                    let datagram = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                    return index == Side.answerer.rawValue && (drop.withLock { $0 }?(datagram) ?? false)
                }
                if lost {
                    dropped.add(1, ordering: .relaxed)
                    continue
                }
                if index == Side.answerer.rawValue { relayed.add(1, ordering: .relaxed) }
                var address = target
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(sockets[1 - index], buffer, count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
        finished.store(true, ordering: .relaxed)
    }
}
