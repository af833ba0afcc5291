/// Which end of the DTLS handshake this endpoint is (RFC 5763 §5, RFC 8842).
///
/// The SDP `a=setup` attribute decides it: `active` is the DTLS client, `passive` the server;
/// an offer says `actpass` and the answer picks.
public enum DtlsRole: String, Sendable, Hashable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server

    /// The role of the answerer given the offer's `a=setup` value and the answer it writes.
    ///
    /// - Parameters:
    ///   - offered: the offer's setup value: `actpass`, `active` or `passive`.
    ///   - preferred: the role the answerer takes when the offer leaves it the choice
    ///     (JSEP §5.3.1 recommends `active`, i.e. client).
    /// - Returns: the answerer's role, or `nil` if the offered value is not one of the three.
    public static func answerer(offered: String, preferred: DtlsRole = .client) -> DtlsRole? {
        switch offered {
        case "actpass": preferred
        case "active": .server
        case "passive": .client
        default: nil
        }
    }

    /// The `a=setup` value that states this role in an answer.
    public var setupAttribute: String { self == .client ? "active" : "passive" }
}
