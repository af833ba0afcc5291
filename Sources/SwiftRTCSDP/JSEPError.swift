/// Why JSEP could not answer an offer or make sense of an answer.
public enum JSEPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An accepted section has no `a=ice-ufrag`/`a=ice-pwd` (at media or session level).
    case missingICECredentials(mid: String)
    /// An accepted section has no `a=fingerprint`: DTLS cannot be verified.
    case missingFingerprint(mid: String)
    /// The DTLS roles do not fit (`holdconn`, or an answer that keeps `actpass`).
    case invalidSetup(mid: String, setup: String)
    /// An answer's sections do not line up with the offer's.
    case sectionMismatch(String)
    /// An answer names a payload type the offer did not offer for that codec.
    case codecMismatch(mid: String, payloadType: UInt8)
    /// An answer uses a header extension id the offer did not offer for that URI.
    case extensionMismatch(mid: String, id: UInt16)

    /// A sentence for logs and the CLI.
    public var description: String {
        switch self {
        case .missingICECredentials(let mid): "m-section \(mid) has no a=ice-ufrag/a=ice-pwd"
        case .missingFingerprint(let mid): "m-section \(mid) has no a=fingerprint (DTLS is mandatory)"
        case .invalidSetup(let mid, let setup): "m-section \(mid) has unusable a=setup:\(setup)"
        case .sectionMismatch(let what): "answer does not match offer: \(what)"
        case .codecMismatch(let mid, let pt):
            "m-section \(mid): payload type \(pt) in the answer was not offered for that codec"
        case .extensionMismatch(let mid, let id):
            "m-section \(mid): extmap id \(id) in the answer was not offered for that URI"
        }
    }
}
