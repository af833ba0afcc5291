import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
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

    /// Takes candidates the client trickled after its offer (RFC 9725 §4.3.1: a `PATCH` of
    /// the session URL whose `If-Match` is the session's entity tag). Throw
    /// ``WHIPOfferRejected`` for a fragment that cannot be used (another ICE username
    /// fragment...): the client gets `400` or `422`. The default: `405`, no trickle.
    func addCandidates(_ fragment: TrickleICEFragment) async throws

    /// Restarts ICE with the client's new credentials and candidates (RFC 9725 §4.3.2: a
    /// `PATCH` with `If-Match: *`); returns this side's new credentials and all its candidates.
    /// The default: `405`, no restart.
    func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment
}

/// What a ``WHIPEndpointSession`` that cannot take a `PATCH` throws: the client gets `405`.
public struct WHIPPatchUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error for a session that neither trickles nor restarts ICE.
    public init() {}
    public var description: String { "this session takes no trickle ICE or ICE restart (PATCH)" }
}

extension WHIPEndpointSession {
    /// No trickle ICE: throws ``WHIPPatchUnsupported``.
    public func addCandidates(_ fragment: TrickleICEFragment) async throws { throw WHIPPatchUnsupported() }

    /// No ICE restart: throws ``WHIPPatchUnsupported``.
    public func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment {
        throw WHIPPatchUnsupported()
    }
}
