import Dispatch
import Synchronization

/// Which STUN server libnice gathers from. libnice takes one STUN server; given several
/// `stun:` servers, the agent asks each for a Binding (RFC 8489 section 5), all at once, and
/// uses the first in the configured order that answered, so a dead first server does not cost
/// the call its server-reflexive candidate. With one server nothing is asked. Control plane,
/// once per gathering; the blocking exchanges run on Dispatch's global queue, never on the
/// cooperative pool or a transport thread.
enum StunServerChoice {
    /// Sends each a Binding request this many times (500 ms, then 1 s): a server that has not
    /// answered after 1.5 s is passed over.
    static let tries = 2

    /// Whether the STUN server at `address`:`port` answers a Binding request with a success.
    static func answers(address: String, port: UInt16) -> Bool {
        guard let socket = UDPClient(address: address, port: port) else { return false }
        defer { socket.close() }
        return socket.exchange(StunMessage(type: StunMessage.bindingRequest), tries: tries)?.type
            == StunMessage.bindingSuccess
    }

    /// The index of the server to use of `servers` (resolved addresses, in the configured
    /// order): the first that answered, known as soon as every one before it has failed; nil
    /// when none answered.
    static func firstAnswering(_ servers: [(address: String, port: UInt16)]) async -> Int? {
        guard servers.count > 1 else { return servers.isEmpty ? nil : 0 }
        return await withCheckedContinuation { continuation in
            // Each server's outcome (nil: not known yet), and whether the choice was made.
            let state = Mutex<(outcomes: [Bool?], decided: Bool)>((Array(repeating: nil, count: servers.count), false))
            for (index, server) in servers.enumerated() {
                DispatchQueue.global().async {
                    let answered = answers(address: server.address, port: server.port)
                    let decision: Int?? = state.withLock { state in
                        state.outcomes[index] = answered
                        guard !state.decided else { return .none }
                        let first = state.outcomes.firstIndex { $0 != false }
                        if let first, state.outcomes[first] == nil { return .none }  // an earlier one is still out
                        state.decided = true
                        return .some(first)
                    }
                    if let decision { continuation.resume(returning: decision) }
                }
            }
        }
    }
}
