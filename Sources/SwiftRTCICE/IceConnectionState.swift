import SwiftRTCSDP

/// The state of an ICE transport, as WebRTC names them (`RTCIceTransportState`).
public enum IceConnectionState: String, Sendable, Hashable, CaseIterable {
    /// Gathering or waiting for remote candidates; no checks yet.
    case new
    /// Connectivity checks are running and no pair works yet.
    case checking
    /// A pair works; checks may still run for better ones.
    case connected
    /// Checks are done and a pair is selected.
    case completed
    /// Nothing came from the peer for ``IceAgent/ConsentTiming/disconnectedAfter``: the peer
    /// may be gone. Returns to connected or completed when traffic resumes.
    case disconnected
    /// All checks failed, or consent expired (RFC 7675). Only an ICE restart recovers.
    case failed
    /// The agent was closed. Always the last state.
    case closed
}
