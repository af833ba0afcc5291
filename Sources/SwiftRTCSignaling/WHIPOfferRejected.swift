/// An answerer can throw this to reject an offer it cannot take as the client's fault:
/// the endpoint answers `400 Bad Request` (``Kind/malformed``) or `422 Unprocessable Content`
/// (``Kind/unusable``) with `reason` (other errors answer `500`).
public struct WHIPOfferRejected: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the offer, which decides the status code.
    public enum Kind: Sendable, Hashable {
        /// The offer does not parse or breaks the SDP/JSEP rules: `400 Bad Request`.
        case malformed
        /// The offer parses but there is nothing to take in it (no media section this side
        /// can accept, no usable codec): `422 Unprocessable Content`.
        case unusable
    }

    /// Why, in words; sent to the client in the response body.
    public var reason: String
    /// What is wrong: the status code the client gets.
    public var kind: Kind
    /// Rejects the offer for `reason` (`400` unless `kind` is ``Kind/unusable``).
    public init(_ reason: String, kind: Kind = .malformed) {
        self.reason = reason
        self.kind = kind
    }
    public var description: String { "offer rejected: \(reason)" }
}
