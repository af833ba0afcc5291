import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import SwiftRTCCore
import Synchronization

/// One session a ``WHIPEndpoint`` created for a POSTed offer: whatever carries the call
/// (a peer connection, a recorder...). The endpoint ends it on `DELETE` of its session URL,
/// when it has not connected within ``WHIPEndpoint/Configuration/connectTimeout``, and when
/// its connection failed.
public protocol WHIPEndpointSession: Sendable {
    /// Ends the call and frees what it holds. Called once: by `DELETE`, by the endpoint when
    /// the session did not connect in time or failed, or by ``WHIPEndpoint/endAllSessions()``.
    func end() async

    /// The session's connection state: the current one, then each change. The endpoint
    /// follows it from the moment the session is created; the stream may end when the session
    /// can tell no more (the endpoint then keeps only the connect timeout, if not connected).
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState>
}
