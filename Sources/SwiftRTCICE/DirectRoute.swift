import CNice
import CSendmmsg
import Glibc
import Synchronization

/// The selected pair's path when it is plain UDP from one of our sockets: datagrams go to the
/// kernel with one `sendto` on that socket, instead of through `nice_agent_send` (the agent's
/// lock, its stream and component look-ups, then GIO's `g_socket_send_message`, which builds
/// a `GSocketAddress` and checks its types on the way: a tenth of the CPU of 1000 audio calls,
/// issue 22's profile).
///
/// The route follows libnice's selected pair (`new-selected-pair-full`), which is what
/// `nice_agent_send` sends on: a host, server-reflexive or peer-reflexive local candidate
/// sends from its base's socket. A relayed local candidate (TURN wraps each datagram) or a
/// TCP one has no route, and sending stays with libnice. Nothing else changes: libnice still
/// reads the socket, answers checks and sends its keepalives.
///
/// The route holds a reference to libnice's `GSocket`, and `send` holds the lock while it
/// uses the socket's descriptor; libnice closes its sockets only when the stream is removed,
/// after ``clear()``: a datagram never goes to a descriptor that was closed and reused.
final class DirectRoute: Sendable {
    /// Used only under the lock: the socket pointer never leaves it.
    private struct Route: @unchecked Sendable {
        /// One reference to libnice's socket, released when the route is replaced or cleared.
        var socket: UnsafeMutablePointer<GSocket>
        var descriptor: Int32
        var address: sockaddr_storage
        var addressLength: socklen_t
    }

    private let route = Mutex<Route?>(nil)
    /// The most datagrams one `sendmmsg` takes; a longer batch goes in several.
    static let batchLimit = Int(SWIFTRTC_SENDMMSG_LIMIT)

    deinit { clear() }

    /// Whether datagrams go straight to the socket now.
    var isActive: Bool { route.withLock { $0 != nil } }

    /// Follows a new selected pair: the socket of `local`'s base and `remote`'s address, or no
    /// route when the pair is not plain UDP from our socket.
    func select(
        agent: OpaquePointer,
        streamID: UInt32,
        componentID: UInt32,
        local: UnsafePointer<NiceCandidate>,
        remote: UnsafePointer<NiceCandidate>
    ) {
        var next: Route?
        if local.pointee.type != NICE_CANDIDATE_TYPE_RELAYED,
            local.pointee.transport == NICE_CANDIDATE_TRANSPORT_UDP,
            let socket = nice_agent_get_selected_socket(agent, streamID, componentID)
        {
            var address = sockaddr_storage()
            withUnsafeMutableBytes(of: &address) { bytes in
                var remoteAddress = remote.pointee.addr
                nice_address_copy_to_sockaddr(&remoteAddress, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self))
            }
            let length: socklen_t? =
                switch Int32(address.ss_family) {
                case AF_INET: socklen_t(MemoryLayout<sockaddr_in>.size)
                case AF_INET6: socklen_t(MemoryLayout<sockaddr_in6>.size)
                default: nil
                }
            let descriptor = g_socket_get_fd(socket)
            if let length, descriptor >= 0 {
                next = Route(socket: socket, descriptor: descriptor, address: address, addressLength: length)
            } else {
                g_object_unref(socket)
            }
        }
        replace(with: next)
    }

    /// No route from now on (before libnice closes its sockets).
    func clear() { replace(with: nil) }

    private func replace(with next: consuming Route?) {
        let previous = route.withLock { route in
            defer { route = next }
            return route
        }
        if let previous { g_object_unref(previous.socket) }
    }

    /// Sends one datagram on the route: nil without one (send through libnice), else whether
    /// the socket took it (false when its buffer is full: nothing is queued).
    func send(_ base: UnsafeRawPointer, count: Int) -> Bool? {
        withRoute { descriptor, address, addressLength in
            sendto(descriptor, base, count, Int32(MSG_DONTWAIT), address, addressLength) == count
        }
    }

    /// Sends the datagrams in order with `sendmmsg`, up to ``batchLimit`` per call: nil
    /// without a route, else how many went out, from the first (the socket's buffer may fill).
    func send(batch datagrams: UnsafeBufferPointer<iovec>) -> Int? {
        guard let first = datagrams.baseAddress else { return isActive ? 0 : nil }
        if datagrams.count == 1, let base = first.pointee.iov_base {
            // One datagram (audio): sendto, which the kernel takes for less than sendmmsg.
            return send(base, count: first.pointee.iov_len).map { $0 ? 1 : 0 }
        }
        return withRoute { descriptor, address, addressLength in
            var sent = 0
            while sent < datagrams.count {
                let count = min(datagrams.count - sent, Self.batchLimit)
                let result = swiftrtc_sendmmsg(descriptor, first + sent, UInt32(count), address, addressLength)
                guard result > 0 else { break }
                sent += Int(result)
                if Int(result) < count { break }
            }
            return sent
        }
    }

    /// Runs `body` with the route's descriptor and remote address under the lock (so the
    /// descriptor cannot be closed meanwhile); nil without a route.
    private func withRoute<Value: Sendable>(
        _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Value
    ) -> Value? {
        route.withLock { route -> Value? in
            guard let current = route else { return nil }
            return withUnsafePointer(to: current.address) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    body(current.descriptor, address, current.addressLength)
                }
            }
        }
    }
}
