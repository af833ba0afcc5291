import Foundation

/// Says so, on standard error, when a secret is about to cross the network in the clear: a
/// token sent over `ws://` or `http://` to a host that is not loopback (the servers refuse to
/// listen so without `--insecure`; a client can still be pointed at one).
enum CleartextWarning {
    /// The warning for sending `what` to `url`, or nil when it is encrypted or stays on this
    /// machine's loopback.
    static func message(for url: URL, sending what: String) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "http", let host = url.host,
            !TLSServerOptions.isLoopback(host)
        else { return nil }
        let secure = scheme == "ws" ? "wss" : "https"
        return
            "warning: sending \(what) to \(host) in the clear (\(scheme)://): anyone on the way can read it; use \(secure)://"
    }

    /// Logs the warning for each of `urls` that needs one.
    static func check(_ urls: [URL], sending what: String) {
        for url in urls {
            if let message = message(for: url, sending: what) { log(message) }
        }
    }
}
