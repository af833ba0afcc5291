import Foundation
import NIOHTTP1
import SwiftRTCCore

/// A WHIP session created by ``WHIPClient/publish(offer:)``: the SDP answer and the session
/// URL that ends it (RFC 9725 §4.2).
public struct WHIPSession: Sendable, Hashable {
    /// The absolute session URL: the `Location` header resolved against the endpoint URL.
    public var location: URL
    /// The endpoint's SDP answer.
    public var answer: String
    /// The `ETag` header, when the endpoint sent one (an ICE restart gives a new one): what a
    /// trickle `PATCH` names in `If-Match`.
    public var etag: String?
    /// The STUN and TURN servers the endpoint offered in `Link` headers (RFC 9725 §4.6).
    public var iceServers: [WHIPICEServer] = []

    /// A session at `location` with the endpoint's `answer`.
    public init(location: URL, answer: String, etag: String? = nil) {
        self.location = location
        self.answer = answer
        self.etag = etag
    }
}
