import CNice
import Dispatch

#if canImport(Glibc)
import Glibc
import SwiftRTCSDP
#endif

// Gathering local candidates and taking the peer's (trickle ICE, RFC 8838).
extension IceAgent {
    /// Resolves the ICE servers with the system resolver, hands them to libnice and starts
    /// gathering. Candidates then arrive on ``gathering`` (host at once, server-reflexive and
    /// relayed as the servers answer), followed by ``IceGatheringEvent/complete``.
    ///
    /// A server that does not resolve, or a TURN server that gives no allocation, is reported
    /// on ``errors``; gathering goes on with the others.
    public func startGathering() async throws(IceError) {
        try core.ensureOpen()
        let properties = GObjectProperties(core.agent)
        var stunServers: [(server: IceServer, address: String)] = []
        var relays: [IceAgentCore.RelayServer] = []
        for server in configuration.servers {
            let address: String
            switch await SystemResolver.resolve(server.host) {
            case .failure(let error):
                core.events.errors.yield(.serverUnresolvable(server: server, reason: error.reason))
                continue
            case .success(let addresses):
                address = addresses[0]
            }
            switch server.scheme {
            case .turn, .turns:
                let type =
                    server.scheme == .turns
                    ? NICE_RELAY_TYPE_TURN_TLS
                    : server.transport == .tcp ? NICE_RELAY_TYPE_TURN_TCP : NICE_RELAY_TYPE_TURN_UDP
                guard
                    nice_agent_set_relay_info(
                        core.agent,
                        core.streamID,
                        IceAgentCore.componentID,
                        address,
                        UInt32(server.port),
                        server.username ?? "",
                        server.credential ?? "",
                        type
                    ) != 0
                else {
                    throw .libnice(call: "nice_agent_set_relay_info(\(server))")
                }
                relays.append(.init(server: server, address: address))
            case .stun:
                stunServers.append((server, address))
            case .stuns:
                IceAgentCore.logger.warning("ICE server \(server) not used: libnice speaks STUN over UDP only")
            }
        }
        await useFirstAnswering(stunServers, properties: properties)
        core.state.withLock { $0.relayServers = relays }
        guard nice_agent_gather_candidates(core.agent, core.streamID) != 0 else {
            throw .libnice(call: "nice_agent_gather_candidates")
        }
        core.sizeReceiveBuffers()
    }

    /// Points libnice at one STUN server, the first of `stunServers` that answers a Binding
    /// request (libnice gathers from one; StunServerChoice), or the first when none answers.
    func useFirstAnswering(_ stunServers: [(server: IceServer, address: String)], properties: GObjectProperties) async {
        guard !stunServers.isEmpty else { return }
        let answering = await StunServerChoice.firstAnswering(
            stunServers.map { ($0.address, $0.server.port) }
        )
        if answering == nil && stunServers.count > 1 {
            IceAgentCore.logger.warning("no STUN server answered a Binding request; using \(stunServers[0].server)")
        }
        let (server, address) = stunServers[answering ?? 0]
        properties.set("stun-server", address)
        properties.set("stun-server-port", UInt32(server.port))
        core.state.withLock { $0.stunServer = server }
        for other in stunServers.map(\.server) where other != server {
            IceAgentCore.logger.info("STUN server \(other) not used: libnice takes one (using \(server))")
        }
    }

    /// The local candidates gathered so far (to send again after ``restart()``).
    public var localCandidates: [IceCandidate] {
        guard let list = nice_agent_get_local_candidates(core.agent, core.streamID, IceAgentCore.componentID) else {
            return []
        }
        defer { g_slist_free_full(list) { nice_candidate_free($0?.assumingMemoryBound(to: NiceCandidate.self)) } }
        var candidates: [IceCandidate] = []
        var node: UnsafeMutablePointer<GSList>? = list
        while let current = node {
            if let data = current.pointee.data {
                candidates.append(IceCandidate(nice: data.assumingMemoryBound(to: NiceCandidate.self)))
            }
            node = current.pointee.next
        }
        return candidates
    }

    /// Adds one of the peer's candidates (trickled, or from its SDP).
    ///
    /// An mDNS name (`<uuid>.local`) is resolved with the system resolver when it has an mDNS
    /// module; otherwise, or if resolution fails, this throws
    /// ``IceError/mdnsCandidateUnresolvable(candidate:reason:)`` saying why.
    ///
    /// - Returns: `false` for candidates this agent does not use: component 2 (WebRTC
    ///   always muxes RTCP) and TCP candidates (the agent runs ICE over UDP).
    @discardableResult
    public func addRemoteCandidate(_ candidate: IceCandidate) async throws(IceError) -> Bool {
        try core.ensureOpen()
        guard UInt32(candidate.component) == IceAgentCore.componentID, candidate.transportProtocol == .udp else {
            return false
        }
        var resolved = candidate
        if candidate.isMDNS {
            if let reason = SystemResolver.mdnsUnavailableReason() {
                throw .mdnsCandidateUnresolvable(candidate: candidate, reason: reason)
            }
            switch await SystemResolver.resolve(candidate.address) {
            case .success(let addresses): resolved.address = addresses[0]
            case .failure(let error): throw .mdnsCandidateUnresolvable(candidate: candidate, reason: error.reason)
            }
        }
        guard resolved.makeNiceCandidate(streamID: core.streamID).map({ nice_candidate_free($0) }) != nil else {
            throw .remoteCandidateRejected(candidate: candidate, reason: "'\(candidate.address)' is not an IP address")
        }
        let core = self.core, adding = resolved
        let added = await core.onThread {
            guard let nice = adding.makeNiceCandidate(streamID: core.streamID) else { return false }
            defer { nice_candidate_free(nice) }
            let list = g_slist_append(nil, nice)
            defer { g_slist_free(list) }
            return nice_agent_set_remote_candidates(core.agent, core.streamID, IceAgentCore.componentID, list) >= 0
        }
        guard added else { throw .remoteCandidateRejected(candidate: candidate, reason: "libnice refused it") }
        return true
    }

    /// The peer sent end-of-candidates: once its checks are done, the agent may fail.
    public func remoteGatheringComplete() throws(IceError) {
        try core.ensureOpen()
        guard nice_agent_peer_candidate_gathering_done(core.agent, core.streamID) != 0 else {
            throw .libnice(call: "nice_agent_peer_candidate_gathering_done")
        }
    }
}

extension IceAgentCore {
    /// Gathering is done: check that every TURN server gave a relayed candidate, then say so.
    func gatheringFinished() {
        // Connectivity checks from now on retransmit as STUN says (``checkRetransmissions``).
        GObjectProperties(agent).set("stun-max-retransmissions", Self.checkRetransmissions)
        sizeReceiveBuffers()
        for relay in failedRelayServers() { reportFailedAllocation(relay) }
        events.gathering.yield(.complete)
    }

    /// A new local candidate: remember relayed addresses, pass it on.
    func gathered(_ candidate: IceCandidate) {
        if candidate.type == .relay {
            state.withLock { $0.relayedAddresses.append(candidate.address) }
        }
        events.gathering.yield(.candidate(candidate))
    }

    /// The TURN servers that gave no relayed candidate. libnice does not say which server a
    /// relayed candidate came from (`nice_candidate_relay_address` crashes on the candidates
    /// it hands out in 0.1.21), so: all allocated if there are as many relayed candidates as
    /// servers; otherwise the servers whose address no relayed candidate has (a relay
    /// usually allocates on its own address).
    func failedRelayServers() -> [RelayServer] {
        let (servers, relayed) = state.withLock { ($0.relayServers, $0.relayedAddresses) }
        guard relayed.count < servers.count else { return [] }
        return servers.filter { !relayed.contains($0.address) }
    }

    /// libnice does not say why; for TURN over UDP, ask the server (``TurnProbe``).
    private func reportFailedAllocation(_ relay: RelayServer) {
        let errors = events.errors
        guard relay.server.scheme == .turn, relay.server.transport == .udp else {
            errors.yield(
                .turnAllocationFailed(
                    server: relay.server,
                    stunErrorCode: nil,
                    reason: "libnice gave no relayed candidate over \(relay.server.transport.rawValue)"
                )
            )
            return
        }
        DispatchQueue.global().async {
            let outcome = TurnProbe.run(
                address: relay.address,
                port: relay.server.port,
                username: relay.server.username ?? "",
                credential: relay.server.credential ?? ""
            )
            IceAgentCore.logger.warning(
                "TURN server \(relay.server) gave no allocation: \(outcome.code.map { "STUN error \($0) " } ?? "")\(outcome.reason)"
            )
            errors.yield(
                .turnAllocationFailed(server: relay.server, stunErrorCode: outcome.code, reason: outcome.reason)
            )
        }
    }

    /// Asks for ``IceAgent/Configuration/receiveBufferSize`` on every socket of the component.
    func sizeReceiveBuffers() {
        guard let sockets = nice_agent_get_sockets(agent, streamID, Self.componentID) else { return }
        defer { g_ptr_array_unref(sockets) }
        var size = Int32(clamping: configuration.receiveBufferSize)
        for index in 0..<Int(sockets.pointee.len) {
            guard let socket = sockets.pointee.pdata[index] else { continue }
            let descriptor = g_socket_get_fd(socket.assumingMemoryBound(to: GSocket.self))
            // SO_RCVBUFFORCE passes net.core.rmem_max with CAP_NET_ADMIN; else the capped SO_RCVBUF.
            if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
    }
}
