import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Names to addresses for ICE: the system resolver (`getaddrinfo`, which follows
/// /etc/nsswitch.conf) for ICE servers and mDNS candidates, `getifaddrs` for interface names.
/// libnice itself only takes IP literals.
enum SystemResolver {
    /// Whether `text` is an IPv4 or IPv6 literal.
    static func isIPLiteral(_ text: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, text, &storage) == 1 || inet_pton(AF_INET6, text, &storage) == 1
    }

    /// The addresses of `host`, IPv4 first, resolved on a background thread (getaddrinfo
    /// blocks). IP literals return at once.
    static func resolve(_ host: String) async -> Result<[String], ResolveError> {
        if isIPLiteral(host) { return .success([host]) }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: resolveBlocking(host)) }
        }
    }

    /// Why a name did not resolve, in getaddrinfo's words.
    struct ResolveError: Error, Equatable {
        var reason: String
    }

    static func resolveBlocking(_ host: String) -> Result<[String], ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else { return .failure(ResolveError(reason: String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        var v4: [String] = []
        var v6: [String] = []
        var node = list
        while let entry = node {
            if let address = entry.pointee.ai_addr, let text = numericHost(address) {
                if entry.pointee.ai_family == AF_INET { v4.append(text) } else { v6.append(text) }
            }
            node = entry.pointee.ai_next
        }
        let all = unique(v4 + v6)
        return all.isEmpty ? .failure(ResolveError(reason: "no addresses")) : .success(all)
    }

    /// Why mDNS (`.local`) names cannot be resolved on this host, or `nil` if they can be
    /// tried: RFC 6762 keeps `.local` off unicast DNS, so without an mDNS module in the
    /// `hosts:` line of /etc/nsswitch.conf (nss-mdns's `mdns*`, systemd's `resolve`) the
    /// system resolver cannot answer and only would wait for a DNS timeout.
    static func mdnsUnavailableReason(nsswitch path: String = "/etc/nsswitch.conf") -> String? {
        guard let text = readFile(path) else { return "\(path) is missing, so no mDNS resolver is configured" }
        for line in text.split(separator: "\n") where line.hasPrefix("hosts:") {
            let sources = line.dropFirst("hosts:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            if sources.contains(where: { $0.hasPrefix("mdns") || $0 == "resolve" }) { return nil }
            return
                "no mDNS resolver in the system resolver configuration (\(path) hosts: \(sources.joined(separator: " "))); install libnss-mdns or systemd-resolved"
        }
        return "\(path) has no hosts: line, so no mDNS resolver is configured"
    }

    /// The IP addresses of the local interface `name` (e.g. `lo`, `eth0`), or `nil` if there is
    /// no interface of that name.
    static func interfaceAddresses(_ name: String) -> [String]? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var found = false
        var addresses: [String] = []
        var node = list
        while let entry = node {
            if String(cString: entry.pointee.ifa_name) == name {
                found = true
                if let address = entry.pointee.ifa_addr, let text = numericHost(address) { addresses.append(text) }
            }
            node = entry.pointee.ifa_next
        }
        return found ? unique(addresses) : nil
    }

    private static func numericHost(_ address: UnsafePointer<sockaddr>) -> String? {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6 else { return nil }
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        let text = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // Link-local IPv6 comes back with a zone ("fe80::1%eth0"); libnice takes the bare address.
        return text.split(separator: "%").first.map(String.init)
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > 1 << 20 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
