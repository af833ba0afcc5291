import SwiftRTCSDP

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
