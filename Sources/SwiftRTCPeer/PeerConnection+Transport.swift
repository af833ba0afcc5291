import Foundation
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCRTP
import SwiftRTCSDP

extension PeerConnection {
    /// Waits until candidate gathering is complete (for non-trickle signaling such as WHIP:
    /// then ``localDescription`` holds every candidate).
    public func gatheringComplete() async {
        guard iceGatheringState != .complete, transport != nil else { return }
        for await state in gatheringStateEvents.subscribe() where state == .complete { return }
    }

    /// Waits until candidate gathering is complete, at most `timeout`: whether it completed
    /// (if not, ``localDescription`` holds the candidates gathered so far).
    public func gatheringComplete(within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.gatheringComplete()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// The ICE agent, DTLS and SRTP under the connection: made once, with the role of the
    /// first description (offerer controls).
    func ensureTransport(role: IceAgent.Role) async throws(PeerConnectionError) -> PeerTransport {
        if let transport { return transport }
        let ice = IceAgent.Configuration(
            role: role,
            servers: configuration.iceServers,
            transportPolicy: configuration.iceTransportPolicy == .relay ? .relay : .all,
            localAddresses: configuration.gatherAddresses,
            checkPacing: configuration.checkPacing
        )
        let made: PeerTransport
        do {
            made = try PeerTransport(configuration: ice, pool: configuration.transportThreads, limitHits: limitHits)
        } catch {
            throw .transport(error.description)
        }
        transport = made
        startedAt = .now
        // Rates in the first stats cover the time from here.
        let now = Date().timeIntervalSince1970
        statsRates.start = now
        lastStatsForString = StatsReport(timestamp: now * 1000)
        gatheringStateEvents.yield(.gathering)
        let agent = made.agent
        tasks.append(
            Task { [weak self] in
                for await event in agent.gathering { await self?.gathered(event) }
            }
        )
        tasks.append(
            Task { [weak self] in
                for await state in agent.states { await self?.iceChanged(state) }
            }
        )
        tasks.append(
            Task { [weak self] in
                for await error in agent.errors { await self?.report(error) }
            }
        )
        do { try await agent.startGathering() } catch { throw .transport(error.description) }
        // Host candidates are known at once: the first description carries them.
        for candidate in agent.localCandidates { remember(candidate) }
        tasks.append(Task { [weak self] in await self?.runRTCP() })
        FeedbackTicker.shared.add(made)
        return made
    }

    func report(_ error: IceError) { logger.warning("ICE: \(error)") }

    func gathered(_ event: IceGatheringEvent) {
        switch event {
        case .candidate(let candidate):
            remember(candidate)
        case .complete:
            candidateEvents.yield(trickled(""))
            gatheringStateEvents.yield(.complete)
        }
    }

    /// Adds a local candidate to those local descriptions carry and trickles it (once).
    func remember(_ candidate: IceCandidate) {
        guard !localCandidateList.contains(candidate) else { return }
        localCandidateList.append(candidate)
        candidateEvents.yield(trickled(candidate.sdpLine))
    }

    /// A local candidate line (empty: end of candidates) as it is trickled: in the first
    /// section, with the ICE generation (local username fragment) of now.
    func trickled(_ line: String) -> IceCandidateInit {
        IceCandidateInit(
            candidate: line,
            sdpMid: transceiverList.first?.mid ?? "0",
            sdpMLineIndex: 0,
            usernameFragment: transport?.agent.localCredentials.usernameFragment
        )
    }

    func iceChanged(_ state: IceConnectionState) {
        guard !isClosed else { return }
        iceState = state
        iceConnectionStateEvents.yield(state)
        if state == .connected || state == .completed {
            if iceConnectedAfter == nil, let startedAt { iceConnectedAfter = .now - startedAt }
            transport?.dtlsTransport?.start()
        }
        updateConnectionState()
    }

    /// A DTLS state other than connected, which counts once SRTP is keyed (``dtlsConnected(_:)``).
    func dtlsChanged(_ state: DtlsState) {
        guard !isClosed else { return }
        dtlsState = state
        if case .failed(let error) = state { logger.warning("DTLS failed: \(error)") }
        updateConnectionState()
    }

    /// W3C: derived from the ICE and DTLS transport states.
    func updateConnectionState() {
        let next: PeerConnectionState
        switch (iceState, dtlsState) {
        case (.closed, _): next = .closed
        case (.failed, _), (_, .failed): next = .failed
        case (.disconnected, _): next = .disconnected
        case (.connected, .connected), (.completed, .connected): next = .connected
        case (.new, .new): next = .new
        default: next = .connecting
        }
        if next != connectionState { connectionStateEvents.yield(next) }
    }

    /// ICE credentials and candidates from a remote description (an ICE restart when the
    /// credentials change).
    func applyRemoteTransport(_ remote: SessionDescription, transport: PeerTransport) async throws(PeerConnectionError)
    {
        guard let section = remote.media.first(where: { !$0.isRejected }).map(remote.resolved),
            let ufrag = section.iceUfrag, let pwd = section.icePwd
        else {
            throw .invalidDescription("no ICE credentials (a=ice-ufrag, a=ice-pwd) in the remote description")
        }
        let previous = (currentRemote ?? pendingRemote).flatMap {
            $0.media.first(where: { !$0.isRejected }).map(remote.resolved)
        }
        do {
            if let previous, previous.iceUfrag != nil, previous.iceUfrag != ufrag, signaling == .stable {
                _ = try transport.agent.restart()  // the peer restarts ICE: so do we
            }
            if previous?.iceUfrag != ufrag { remoteCandidateKeys = [] }
            try transport.agent.setRemoteCredentials(IceAgent.Credentials(usernameFragment: ufrag, password: pwd))
            for candidate in section.candidates {
                _ = try? await addRemote(candidate, to: transport)
            }
            if section.endOfCandidates { try transport.agent.remoteGatheringComplete() }
        } catch {
            throw .transport(error.description)
        }
    }

    /// Gives a remote candidate to the agent, once per transport address.
    func addRemote(_ candidate: IceCandidate, to transport: PeerTransport) async throws(IceError) {
        let key = "\(candidate.component) \(candidate.transport.lowercased()) \(candidate.address) \(candidate.port)"
        guard !remoteCandidateKeys.contains(key) else { return }
        guard remoteCandidateKeys.count < RemoteInputLimits.maxRemoteCandidates else {
            limitHits.hit(.remoteCandidates)
            return
        }
        remoteCandidateKeys.insert(key)
        _ = try await transport.agent.addRemoteCandidate(candidate)
    }

    /// Makes the DTLS transport with the negotiated role and the remote fingerprints; the
    /// client's handshake starts once ICE connects.
    func startDtls(
        negotiation: Negotiation,
        remote: SessionDescription,
        localIsOfferer: Bool
    ) throws(PeerConnectionError) {
        guard !dtlsStarted, let transport,
            let media = negotiation.media.first(where: { $0.accepted })
        else { return }
        let offererIsClient = media.offererIsDTLSClient
        let role: DtlsRole = (localIsOfferer == offererIsClient) ? .client : .server
        guard let section = remote.media.first(where: { !$0.isRejected }).map(remote.resolved) else { return }
        // A fingerprint of a hash function we do not know is not ours to judge (RFC 8122 §5);
        // a malformed one of a function we know fails the negotiation, not silently dropped.
        var fingerprints: [DtlsFingerprint] = []
        for fingerprint in section.fingerprints
        where DtlsFingerprint.Algorithm(rawValue: fingerprint.hashFunction.lowercased()) != nil {
            do {
                fingerprints.append(try DtlsFingerprint(sdpValue: "\(fingerprint.hashFunction) \(fingerprint.value)"))
            } catch {
                throw .invalidDescription("a=fingerprint: \(error)")
            }
        }
        let dtls: DtlsTransport
        do {
            dtls = try transport.makeDtls(
                DtlsTransport.Configuration(role: role, certificate: certificate, remoteFingerprints: fingerprints)
            )
        } catch {
            dtlsState = .failed(error)
            updateConnectionState()
            throw .transport(error.description)
        }
        dtlsStarted = true
        // SCTP packets of data channels (held until the association starts). A record that
        // decrypted is authentic, so it keeps consent (RFC 7675) as SRTP that authenticates does:
        // a data-only connection has nothing else.
        dtls.onApplicationData { [dataTransport, agent = transport.agent] packet in
            agent.consentProved()
            dataTransport.receive(packet)
        }
        // One task applies the states in the order DTLS reached them: with two (the states and
        // `connected()`), `connecting` could be applied after `connected` on a busy pool, and the
        // connection stayed `connecting` with SRTP keyed.
        tasks.append(
            Task { [weak self] in
                for await state in dtls.stateUpdates {
                    if state == .connected {
                        // It fails only if DTLS has closed or failed since; that state comes next.
                        if let info = try? await dtls.connected() { await self?.dtlsConnected(info) }
                    } else {
                        await self?.dtlsChanged(state)
                    }
                }
            }
        )
        if role == .server || iceState == .connected || iceState == .completed { dtls.start() }
    }

    func dtlsConnected(_ info: DtlsConnectionInfo) {
        guard let transport else { return }
        do throws(PeerConnectionError) {
            try transport.startSRTP(info)
            dtlsNegotiated = (info.role, info.cipherSuite, info.keyingMaterial.profile.name)
            if dtlsConnectedAfter == nil, let startedAt { dtlsConnectedAfter = .now - startedAt }
            dtlsState = .connected
            startDataChannels(role: info.role)
        } catch {
            logger.error("SRTP keying failed: \(error)")
            dtlsState = .failed(.closed)
        }
        updateConnectionState()
    }
}
