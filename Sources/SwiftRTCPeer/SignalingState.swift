/// The JSEP signaling state of a `PeerConnection` (RFC 8829 §3.2, W3C `RTCSignalingState`).
public enum SignalingState: String, Sendable, Hashable, CaseIterable {
    case stable
    case haveLocalOffer = "have-local-offer"
    case haveRemoteOffer = "have-remote-offer"
    case haveLocalPranswer = "have-local-pranswer"
    case haveRemotePranswer = "have-remote-pranswer"
    case closed

    /// The kind of a session description, as JSEP names them.
    public enum DescriptionType: String, Sendable, Hashable {
        case offer, pranswer, answer, rollback
    }

    /// Where a description moves the state to, or `nil` if JSEP does not allow it here.
    ///
    /// - Parameters:
    ///   - type: the description's type.
    ///   - local: `true` for `setLocalDescription`, `false` for `setRemoteDescription`.
    public func applying(_ type: DescriptionType, local: Bool) -> SignalingState? {
        switch (self, type, local) {
        case (.stable, .offer, true), (.haveLocalOffer, .offer, true): .haveLocalOffer
        case (.stable, .offer, false), (.haveRemoteOffer, .offer, false): .haveRemoteOffer
        case (.haveRemoteOffer, .pranswer, true), (.haveLocalPranswer, .pranswer, true): .haveLocalPranswer
        case (.haveLocalOffer, .pranswer, false), (.haveRemotePranswer, .pranswer, false): .haveRemotePranswer
        case (.haveRemoteOffer, .answer, true), (.haveLocalPranswer, .answer, true): .stable
        case (.haveLocalOffer, .answer, false), (.haveRemotePranswer, .answer, false): .stable
        case (.haveLocalOffer, .rollback, _), (.haveRemoteOffer, .rollback, _),
            (.haveLocalPranswer, .rollback, _), (.haveRemotePranswer, .rollback, _):
            .stable
        default: nil
        }
    }
}
