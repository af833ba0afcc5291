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

/// What gathering produces, in order: candidates as they are found (trickle), then
/// ``complete`` once (again after each gathering).
public enum IceGatheringEvent: Sendable, Hashable {
    /// A local candidate to send to the peer.
    case candidate(IceCandidate)
    /// No more candidates will come from this gathering (send end-of-candidates).
    case complete
}

/// The candidate pair that carries the datagrams.
public struct IceCandidatePair: Sendable, Hashable, CustomStringConvertible {
    /// This side's candidate.
    public var local: IceCandidate
    /// The peer's candidate.
    public var remote: IceCandidate
    /// The round-trip time of the pair, when known.
    ///
    /// libnice 0.1.21 measures check round trips internally but does not expose them, and it
    /// consumes the STUN responses, so the agent cannot time them either: this is `nil` from
    /// ``IceAgent`` and is filled in by layers that measure it (RTCP, DTLS).
    public var roundTripTime: Duration?

    /// Creates a pair.
    public init(local: IceCandidate, remote: IceCandidate, roundTripTime: Duration? = nil) {
        self.local = local
        self.remote = remote
        self.roundTripTime = roundTripTime
    }

    /// `host->relay/udp`: the candidate types and the protocol, as the CN line of statsString shows them.
    public var typesDescription: String {
        "\(local.type.rawValue)->\(remote.type.rawValue)/\(local.transport.lowercased())"
    }

    public var description: String {
        "\(typesDescription) \(local.address):\(local.port) -> \(remote.address):\(remote.port)"
    }
}
