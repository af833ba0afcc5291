/// The state of a call session, as the mobile call SDKs report it.
public enum CallSessionState: String, Sendable, Hashable, CaseIterable {
    case new, pending, connecting, connected, closed

    /// Whether the session can still move to `next`: states only go forward, and `closed` ends.
    public func canMove(to next: CallSessionState) -> Bool {
        guard let from = Self.allCases.firstIndex(of: self), let to = Self.allCases.firstIndex(of: next) else {
            return false
        }
        return to > from
    }
}
