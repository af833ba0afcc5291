/// `a=setup` (RFC 4145 §4, RFC 8842 §5): which side opens the DTLS association.
public enum DTLSSetup: String, Sendable, Hashable, Codable, CaseIterable {
    case active, passive, actpass, holdconn

    /// The role an answerer takes to an offer with this setup (RFC 8842 §5.3): `actpass` leaves
    /// the choice to the answerer (`preferred`), `active` gets `passive` and vice versa.
    /// `holdconn` has no answer.
    public func answer(preferred: DTLSSetup = .active) -> DTLSSetup? {
        switch self {
        case .actpass: preferred == .passive ? .passive : .active
        case .active: .passive
        case .passive: .active
        case .holdconn: nil
        }
    }
}
