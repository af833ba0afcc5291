import Foundation
import SwiftRTCSignaling

extension URL {
    /// Where a server that listens on `host` and `port` is reached (an IPv6 host in
    /// brackets), for its `onListening` callback; nil if that is no URL.
    package init?(listeningOn host: String, port: Int, scheme: String, path: String) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        self.init(string: "\(scheme)://\(authority)\(path)")
    }
}
