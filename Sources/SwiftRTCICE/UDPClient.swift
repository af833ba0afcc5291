#if canImport(Glibc)
import Glibc
#endif

/// A connected UDP socket with request/response retransmission (RFC 8489 section 6.2.1:
/// RTO 500 ms, doubled, three tries unless told fewer), for the agent's own STUN exchanges
/// (``TurnProbe``, ``StunServerChoice``). Control plane only; blocking.
struct UDPClient {
    let descriptor: Int32

    init?(address: String, port: UInt16) {
        var storage = sockaddr_storage()
        var length: socklen_t
        if address.contains(":") {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 else { return nil }
            withUnsafeBytes(of: v6) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            guard inet_pton(AF_INET, address, &v4.sin_addr) == 1 else { return nil }
            withUnsafeBytes(of: v4) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let descriptor = Glibc.socket(Int32(storage.ss_family), Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        let connected = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    func close() { Glibc.close(descriptor) }

    /// Sends `request` and returns the response with its transaction ID, or `nil` after
    /// `tries` sends went unanswered.
    func exchange(_ request: StunMessage, tries: Int = 3) -> StunMessage? {
        var timeout: Int32 = 500
        for _ in 0..<tries {
            _ = request.bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            var buffer = [UInt8](repeating: 0, count: 1500)
            var waitFor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while poll(&waitFor, 1, timeout) > 0 {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                if let response = StunMessage(received: Array(buffer[0..<count])),
                    response.transactionID == request.transactionID
                {
                    return response
                }
            }
            timeout *= 2
        }
        return nil
    }
}
