import Foundation
import SwiftRTCCore
import SwiftRTCSignaling

/// What the servers' per-address limits count as one client: an IPv4 address, an IPv6 /64
/// (one host usually has a whole /64 to pick addresses from; an IPv4-mapped IPv6 address
/// counts as its IPv4 address), or `local` for a Unix socket or an unknown peer. The one
/// definition for the signaling server and the WHIP endpoint, at their door
/// (``ServerDoor``) and behind it.
package enum ClientAddress {
    package static func key(forIP ip: String?) -> String {
        guard let ip, !ip.isEmpty else { return "local" }
        guard ip.contains(":") else { return ip }
        var address = in6_addr()
        guard inet_pton(AF_INET6, ip, &address) == 1 else { return ip }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(bytes.withUnsafeBytes { [offset = $0] in $0.u16(offset) }, radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
