import Hummingbird
import HummingbirdCore
import SwiftRTCSignaling

extension SignalingServer.Configuration {
    /// `wss` with ``tls``, else `ws`: the scheme of the URL ``SignalingServer/run(onListening:)``
    /// reports.
    var webSocketScheme: String { tls == nil ? "ws" : "wss" }

    /// `base`, behind TLS when ``tls`` is set.
    func serverBuilder(_ base: HTTPServerBuilder) throws -> HTTPServerBuilder {
        try tls.map { try $0.serverBuilder(base) } ?? base
    }
}
