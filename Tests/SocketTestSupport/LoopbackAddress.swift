#if canImport(Glibc)
import Glibc
#endif

/// The tests' one way to a loopback socket address: relays, fake peers and free-port probes
/// all bind or send to 127.0.0.1.
extension sockaddr_in {
    /// 127.0.0.1:`port` (0: the kernel picks a free port when it is bound).
    public static func loopback(port: UInt16 = 0) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// Binds `descriptor` to 127.0.0.1:`port` and returns the port it got (the kernel's choice
/// for 0); nil if it could not bind.
public func bindLoopback(_ descriptor: Int32, port: UInt16 = 0) -> UInt16? {
    var address = sockaddr_in.loopback(port: port)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    return bound ? UInt16(bigEndian: address.sin_port) : nil
}
