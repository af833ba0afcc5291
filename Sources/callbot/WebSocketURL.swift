import Foundation

/// A `ws://` or `wss://` URL with a host, as `--server` and `--janus` take.
enum WebSocketURL {
    /// `text` as such a URL, or nil.
    static func parse(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }
}
