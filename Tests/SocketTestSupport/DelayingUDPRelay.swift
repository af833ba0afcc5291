import Foundation
import Synchronization

/// A slow server in front of a UDP one on loopback: each datagram to it is passed on `delay`
/// later (from a socket of its own per client), its answers back at once.
public final class DelayingUDPRelay: Sendable {
    /// The relay's UDP port on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let running = Atomic<Bool>(true)
    private let done = Mutex<Bool>(false)
    private let answered = Mutex<ContinuousClock.Instant?>(nil)

    /// When the server's first answer came through.
    public var firstAnswer: ContinuousClock.Instant? { answered.withLock { $0 } }

    /// A relay to the UDP server on 127.0.0.1:`serverPort` that holds each datagram to it `delay`.
    public init(to serverPort: UInt16, delay: Duration) throws {
        listener = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard let bound = bindLoopback(listener) else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = bound
        let listener = listener
        Thread.detachNewThread { [self] in
            var upstream: [UInt16: (socket: Int32, client: sockaddr_in)] = [:]
            var due: [(at: ContinuousClock.Instant, socket: Int32, bytes: [UInt8])] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let server = sockaddr_in.loopback(port: serverPort)
            while running.load(ordering: .relaxed) {
                let now = ContinuousClock.now
                while let next = due.first, next.at <= now {
                    due.removeFirst()
                    send(next.bytes, from: next.socket, to: server)
                }
                var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                fds += upstream.values.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
                guard poll(&fds, nfds_t(fds.count), 5) > 0 else { continue }
                for entry in fds where entry.revents & Int16(POLLIN) != 0 {
                    var from = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count = withUnsafeMutablePointer(to: &from) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(entry.fd, &buffer, buffer.count, 0, $0, &length)
                        }
                    }
                    guard count > 0 else { continue }
                    let bytes = Array(buffer[..<count])
                    if entry.fd == listener {
                        let key = UInt16(bigEndian: from.sin_port)
                        if upstream[key] == nil {
                            let made = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                            _ = bindLoopback(made)
                            upstream[key] = (made, from)
                        }
                        if let socket = upstream[key]?.socket { due.append((.now + delay, socket, bytes)) }
                    } else if let client = upstream.values.first(where: { $0.socket == entry.fd })?.client {
                        answered.withLock { $0 = $0 ?? .now }
                        send(bytes, from: listener, to: client)
                    }
                }
            }
            for (socket, _) in upstream.values { close(socket) }
            close(listener)
            done.withLock { $0 = true }
        }
    }

    private func send(_ bytes: [UInt8], from socket: Int32, to address: sockaddr_in) {
        var address = address
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(socket, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// Stops the relay and closes its sockets (waits for its thread, at most 1 s).
    public func stop() {
        running.store(false, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(1)
        while !done.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(5_000) }
    }
}
