/// The direction of a media section or header extension (RFC 8866 §6.7, RFC 8285 §8).
public enum MediaDirection: String, Sendable, Hashable, Codable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// Whether this side sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether this side receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The direction with the given send and receive capabilities.
    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// The same direction seen from the other side (sendonly becomes recvonly).
    public var reversed: MediaDirection { MediaDirection(sends: receives, receives: sends) }

    /// The answerer's direction (RFC 3264 §6.1, JSEP §5.3.1): what it may do given what was
    /// offered (`self`) and what it wants (`local`).
    public func answer(local: MediaDirection) -> MediaDirection {
        MediaDirection(sends: receives && local.sends, receives: sends && local.receives)
    }
}
