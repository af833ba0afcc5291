#if canImport(Glibc)
import Glibc
#endif

/// A port that a child process (a TURN server, PostgreSQL, an interop peer's HTTP server,
/// `openssl s_server`) can listen on: free right now for TCP and UDP on 127.0.0.1 and for TCP
/// on ::1, and below the kernel's ephemeral range (`ip_local_port_range`). No `connect` and no
/// bind to port 0 anywhere on the machine takes a port from below that range, so between this
/// check and the child's bind only another explicit choice could take it, and each is random.
/// (A port from a bind to 0 can be taken in that gap by any busy test: Interop/interop_common.py's
/// `free_port` chooses the same way, for the same reason.)
public func unusedLoopbackPort() -> UInt16? {
    let ephemeralLow = ephemeralPortRangeStart()
    let low = max(1024, ephemeralLow - 12_000)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
        let port = UInt16(Int.random(in: low..<ephemeralLow, using: &generator))
        if isFree(port, type: SOCK_STREAM, v6: false) && isFree(port, type: SOCK_DGRAM, v6: false)
            && isFree(port, type: SOCK_STREAM, v6: true)
        {
            return port
        }
    }
    return nil
}

/// The first port of `/proc/sys/net/ipv4/ip_local_port_range` (32768 if it cannot be read).
private func ephemeralPortRangeStart() -> Int {
    guard let file = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r") else { return 32768 }
    defer { fclose(file) }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = fread(&bytes, 1, bytes.count, file)
    let first = bytes.prefix(count).split(whereSeparator: { $0 == 9 || $0 == 32 || $0 == 10 }).first ?? []
    guard let low = Int(String(decoding: first, as: UTF8.self)), low > 1024, low <= 65535 else { return 32768 }
    return low
}

private func isFree(_ port: UInt16, type: __socket_type, v6: Bool) -> Bool {
    let descriptor = socket(v6 ? AF_INET6 : AF_INET, Int32(type.rawValue), 0)
    // No IPv6 on this machine: nothing can hold ::1 either.
    guard descriptor >= 0 else { return v6 }
    defer { close(descriptor) }
    if !v6 { return bindLoopback(descriptor, port: port) != nil }
    var only: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = port.bigEndian
    address.sin6_addr = in6addr_loopback
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
    }
    return bound == 0 || errno == EADDRNOTAVAIL
}
