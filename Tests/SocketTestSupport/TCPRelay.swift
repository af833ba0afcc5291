import Foundation
import Glibc
import Synchronization

/// A TCP relay on 127.0.0.1 (a free port) to a port of 127.0.0.1, whose connections a test
/// can cut or freeze: each accepted connection is piped, byte for byte, to a new connection to
/// the target. ``cut()`` resets every connection at once (no WebSocket close handshake, as a
/// network failure); while ``refusing`` is set, new connections are reset as they arrive;
/// while ``frozen`` is set, nothing is passed on either way and the connections stay open (a
/// peer that hangs). Plain blocking sockets, a thread per direction.
public final class TCPRelay: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let targetPort: UInt16
    private let listener: Int32
    private let state = Mutex<(pairs: [Int: (Int32, Int32)], next: Int, refusing: Bool, stopped: Bool)>(
        ([:], 0, false, false)
    )
    private let isFrozen = Atomic<Bool>(false)

    /// The relay could not listen.
    public struct RelayError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts relaying to `target` (a URL on 127.0.0.1, e.g. a signaling server's).
    public convenience init(to target: URL) throws {
        try self.init(toPort: UInt16(target.port ?? 80))
    }

    /// Starts relaying to 127.0.0.1:`targetPort`.
    public init(toPort targetPort: UInt16) throws {
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw RelayError(description: "relay: cannot listen (errno \(errno))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let relay = self
        Thread.detachNewThread { relay.acceptLoop() }
    }

    /// Whether new connections are reset at once (the server looks gone).
    public var refusing: Bool {
        get { state.withLock { $0.refusing } }
        set { state.withLock { $0.refusing = newValue } }
    }

    /// Whether bytes are held instead of passed on (connections stay open; the target hangs).
    public var frozen: Bool {
        get { isFrozen.load(ordering: .acquiring) }
        set { isFrozen.store(newValue, ordering: .releasing) }
    }

    /// Resets every relayed connection (both sides).
    public func cut() {
        let pairs = state.withLock { state in
            defer { state.pairs = [:] }
            return Array(state.pairs.values)
        }
        for (client, upstream) in pairs {
            Self.reset(client)
            Self.reset(upstream)
        }
    }

    /// Cuts every connection and stops accepting.
    public func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        cut()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if state.withLock({ $0.stopped }) {
                if client >= 0 { close(client) }
                close(listener)
                return
            }
            guard client >= 0 else { continue }
            if refusing {
                Self.reset(client)
                close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                Self.reset(client)
                close(client)
                close(upstream)
                continue
            }
            let id = state.withLock { state in
                state.next += 1
                state.pairs[state.next] = (client, upstream)
                return state.next
            }
            // Each direction pumps until its source ends; the second to end closes both sockets.
            let ended = Mutex(0)
            let finish: @Sendable () -> Void = {
                let both = ended.withLock { count in
                    count += 1
                    return count == 2
                }
                if both {
                    self.state.withLock { _ = $0.pairs.removeValue(forKey: id) }
                    close(client)
                    close(upstream)
                }
            }
            Thread.detachNewThread {
                self.pump(from: client, to: upstream)
                finish()
            }
            Thread.detachNewThread {
                self.pump(from: upstream, to: client)
                finish()
            }
        }
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            // Frozen: what came is held (never sent) until thawed.
            while isFrozen.load(ordering: .acquiring) { usleep(10_000) }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else {
                    shutdown(source, Int32(SHUT_RDWR))
                    return
                }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }

    /// Makes the socket's close send a reset, and wakes its readers.
    private static func reset(_ socket: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        shutdown(socket, Int32(SHUT_RDWR))
    }
}
