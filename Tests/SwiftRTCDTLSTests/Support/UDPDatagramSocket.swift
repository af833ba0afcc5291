import Foundation
import Glibc
import SocketTestSupport
import SwiftRTCCore
import SwiftRTCDTLS
import Synchronization

/// A UDP socket on 127.0.0.1 as a ``DatagramSender``, with a reader thread that hands what
/// arrives to a DTLS transport: the stand-in for an ICE component in the interop tests.
final class UDPDatagramSocket: DatagramSender {
    private struct State {
        var transport: DtlsTransport?
        var connected = false
        var stopped = false
    }
    private let fd: Int32
    private let state = Mutex(State())
    /// The local port.
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Sends to 127.0.0.1:`port` from now on.
    func connect(toPort port: UInt16) {
        var address = sockaddr_in.loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        state.withLock { $0.connected = result == 0 }
    }

    /// Starts the reader thread: each datagram goes to `transport`. Until connected, the
    /// first datagram's source becomes the peer (as an ICE pair would be selected).
    func run(delivering transport: DtlsTransport) {
        state.withLock { $0.transport = transport }
        let thread = Thread { [self] in readLoop() }
        thread.start()
    }

    func stop() {
        state.withLock {
            $0.stopped = true
            $0.transport = nil
        }
    }

    func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard state.withLock({ $0.connected }) else { return false }
        return Glibc.send(fd, datagram.baseAddress, datagram.count, 0) == datagram.count
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &source) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            let (transport, stopped, connected) = state.withLock { ($0.transport, $0.stopped, $0.connected) }
            if stopped { return }
            guard count > 0, let transport else { continue }
            if !connected { connect(toPort: UInt16(bigEndian: source.sin_port)) }
            buffer.withUnsafeBytes { transport.receive(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
    }
}
