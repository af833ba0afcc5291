import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCRTP
import SwiftRTCSDP

extension PeerConnection {
    // MARK: Offer and answer

    /// Creates an offer (JSEP §5.2.1) for the transceivers, with the candidates gathered so
    /// far. Starts the ICE agent (controlling) if not started. After ``restartIce()`` it
    /// carries new ICE credentials.
    public func createOffer() async throws(PeerConnectionError) -> SignalingDescription {
        guard !isClosed else { throw .closed }
        guard signaling == .stable || signaling == .haveLocalOffer else {
            throw .invalidState(operation: "createOffer", state: signaling)
        }
        let transport = try await ensureTransport(role: .controlling)
        sessionVersion += 1
        let local = localParameters(transport)
        var offer = JSEP.createOffer(
            transceivers: transceiverList.map(\.jsep),
            local: local,
            reservedMids: dataMid.map { [$0] } ?? []
        )
        addDataSection(to: &offer, local: local)
        addBandwidthLines(to: &offer)
        return SignalingDescription(type: .offer, sdp: offer.sdp)
    }

    /// Creates an answer (JSEP §5.3.1) to the remote offer.
    public func createAnswer() async throws(PeerConnectionError) -> SignalingDescription {
        guard !isClosed else { throw .closed }
        guard signaling == .haveRemoteOffer || signaling == .haveLocalPranswer, let offer = pendingRemote, let transport
        else {
            throw .invalidState(operation: "createAnswer", state: signaling)
        }
        sessionVersion += 1
        do {
            let local = localParameters(transport)
            var answer = try JSEP.createAnswer(to: offer, transceivers: transceiverList.map(\.jsep), local: local)
            answer = JSEP.acceptingDataSection(dataSection, offer: offer, answer: answer, local: local).answer
            addBandwidthLines(to: &answer)
            return SignalingDescription(type: .answer, sdp: answer.sdp)
        } catch {
            throw .invalidDescription(error.description)
        }
    }

    /// Sets the local description (JSEP §5.5): an offer, pranswer, answer or rollback.
    public func setLocalDescription(_ description: SignalingDescription) async throws(PeerConnectionError) {
        guard !isClosed else { throw .closed }
        if description.type == .rollback { return try rollback(local: true) }
        guard let next = signaling.applying(description.type, local: true) else {
            throw .invalidState(operation: "setLocalDescription(\(description.type.rawValue))", state: signaling)
        }
        let parsed = try parse(description.sdp)
        switch description.type {
        case .offer:
            // Offers list one section per transceiver, in order, and the data section.
            let mediaSections = parsed.media.filter { $0.kind == .audio || $0.kind == .video }
            for (transceiver, section) in zip(transceiverList, mediaSections) where transceiver.mid == nil {
                transceiver.setMid(section.mid)
            }
            if let data = parsed.media.first(where: { $0.kind == .application && $0.isDataChannel }) {
                dataMid = data.mid
            }
            pendingLocal = parsed
        case .answer, .pranswer:
            guard let offer = pendingRemote else {
                throw .invalidState(operation: "setLocalDescription(answer)", state: signaling)
            }
            try await apply(offer: offer, answer: parsed, localIsOfferer: false)
            if description.type == .answer {
                currentLocal = parsed
                currentRemote = offer
                currentLocalIsOffer = false
                pendingLocal = nil
                pendingRemote = nil
                rollbackTransceivers = nil
            } else {
                pendingLocal = parsed
            }
        case .rollback:
            break
        }
        setSignaling(next)
    }

    /// Creates the description the state calls for (offer in stable, answer after a remote
    /// offer) and sets it (W3C implicit `setLocalDescription()`).
    public func setLocalDescription() async throws(PeerConnectionError) {
        let description = signaling == .haveRemoteOffer ? try await createAnswer() : try await createOffer()
        try await setLocalDescription(description)
    }

    /// Sets the remote description (JSEP §5.6). A remote offer starts the ICE agent
    /// (controlled) if needed, matches its sections to transceivers (adding `recvonly` ones
    /// for sections none takes) and announces remote tracks; an answer completes the
    /// negotiation and starts DTLS and media.
    public func setRemoteDescription(_ description: SignalingDescription) async throws(PeerConnectionError) {
        guard !isClosed else { throw .closed }
        if description.type == .rollback { return try rollback(local: false) }
        guard let next = signaling.applying(description.type, local: false) else {
            throw .invalidState(operation: "setRemoteDescription(\(description.type.rawValue))", state: signaling)
        }
        let parsed = try parse(description.sdp)
        switch description.type {
        case .offer:
            let transport = try await ensureTransport(role: .controlled)
            if rollbackTransceivers == nil { rollbackTransceivers = transceiverList.map { ($0, $0.mid) } }
            matchTransceivers(to: parsed)
            try await applyRemoteTransport(parsed, transport: transport)
            pendingRemote = parsed
        case .answer, .pranswer:
            guard let offer = pendingLocal, let transport else {
                throw .invalidState(operation: "setRemoteDescription(answer)", state: signaling)
            }
            try await applyRemoteTransport(parsed, transport: transport)
            try await apply(offer: offer, answer: parsed, localIsOfferer: true)
            if description.type == .answer {
                currentLocal = offer
                currentRemote = parsed
                currentLocalIsOffer = true
                pendingLocal = nil
                pendingRemote = nil
            } else {
                pendingRemote = parsed
            }
        case .rollback:
            break
        }
        announceTracks(parsed)
        setSignaling(next)
    }

    /// The local description: the pending one, else the current one, with the candidates
    /// gathered until now (all of them once ``gatheringComplete()`` returned: the
    /// non-trickle description WHIP sends).
    public var localDescription: SignalingDescription? {
        guard var description = pendingLocal ?? currentLocal else { return nil }
        let candidates = localCandidateList
        let complete = iceGatheringState == .complete
        for i in description.media.indices where !description.media[i].isRejected {
            description.media[i].candidates = candidates
            description.media[i].endOfCandidates = complete
        }
        let type: SignalingState.DescriptionType =
            pendingLocal == nil
            ? (currentLocalIsOffer ? .offer : .answer)
            : (signaling == .haveLocalPranswer ? .pranswer : .offer)
        return SignalingDescription(type: type, sdp: description.sdp)
    }

    /// The remote description: the pending one, else the current one.
    public var remoteDescription: SignalingDescription? {
        guard let description = pendingRemote ?? currentRemote else { return nil }
        let type: SignalingState.DescriptionType =
            pendingRemote != nil
            ? (signaling == .haveRemotePranswer ? .pranswer : .offer)
            : (currentLocalIsOffer ? .answer : .offer)
        return SignalingDescription(type: type, sdp: description.sdp)
    }

    /// Adds a remote candidate (trickle); an empty candidate means end of candidates. One
    /// whose `usernameFragment` is not the remote description's (another ICE generation) is
    /// refused with ``PeerConnectionError/invalidCandidate(_:)`` and not used (W3C).
    public func addIceCandidate(_ candidate: IceCandidateInit) async throws(PeerConnectionError) {
        guard !isClosed else { throw .closed }
        guard let transport else { throw .invalidState(operation: "addIceCandidate", state: signaling) }
        if let ufrag = candidate.usernameFragment, let remote = pendingRemote ?? currentRemote,
            let current = remote.media.first(where: { !$0.isRejected }).map(remote.resolved)?.iceUfrag,
            current != ufrag
        {
            throw .invalidCandidate("usernameFragment \(ufrag) is not the remote description's (\(current))")
        }
        do {
            if candidate.isEndOfCandidates {
                try transport.agent.remoteGatheringComplete()
            } else {
                let parsed = try IceCandidate(
                    sdpLine: candidate.candidate.hasPrefix("a=")
                        ? String(candidate.candidate.dropFirst(2)) : candidate.candidate
                )
                try await addRemote(parsed, to: transport)
            }
        } catch let error as SDPParseError {
            throw .invalidCandidate(error.description)
        } catch {
            throw .invalidCandidate("\(error)")
        }
    }

    /// Restarts ICE (RFC 8445 §9): new local credentials; the next ``createOffer()`` carries
    /// them. Media keeps flowing on the current pair meanwhile.
    public func restartIce() throws(PeerConnectionError) {
        guard !isClosed else { throw .closed }
        guard let transport else { return }
        do { _ = try transport.agent.restart() } catch { throw .transport(error.description) }
    }

    // MARK: Building blocks

    func setSignaling(_ state: SignalingState) {
        signaling = state
        signalingStates.yield(state)
    }

    func parse(_ sdp: String) throws(PeerConnectionError) -> SessionDescription {
        do { return try SessionDescription(parsing: sdp) } catch { throw .invalidDescription(error.description) }
    }

    /// JSEP rollback (§4.1.8.2): back to stable, dropping the pending description, and for a
    /// remote offer the transceivers it added and the mids it assigned.
    func rollback(local: Bool) throws(PeerConnectionError) {
        guard let next = signaling.applying(.rollback, local: local) else {
            throw .invalidState(operation: "rollback", state: signaling)
        }
        if signaling == .haveRemoteOffer || signaling == .haveRemotePranswer, let saved = rollbackTransceivers {
            for transceiver in transceiverList where !saved.contains(where: { $0.0 === transceiver }) {
                transceiver.receiver.stop()
                announced.remove(ObjectIdentifier(transceiver))
            }
            transceiverList = saved.map(\.0)
            for (transceiver, mid) in saved { transceiver.setMid(mid) }
            pendingRemote = nil
        } else {
            if currentLocal == nil {
                for transceiver in transceiverList { transceiver.setMid(nil) }
            }
            pendingLocal = nil
        }
        rollbackTransceivers = nil
        setSignaling(next)
    }

    /// Gives each audio/video section of a remote offer a transceiver: the one with its mid,
    /// else the first free one of its kind, else a new `recvonly` one.
    func matchTransceivers(to offer: SessionDescription) {
        for (index, section) in offer.media.enumerated() where section.kind == .audio || section.kind == .video {
            let mid = section.mid ?? String(index)
            if transceiverList.contains(where: { $0.mid == mid }) { continue }
            if let free = transceiverList.first(where: { $0.mid == nil && $0.kind == section.kind }) {
                free.setMid(mid)
            } else if !section.isRejected {
                transceiverList.append(
                    RTPTransceiver(kind: section.kind, direction: .recvonly, track: nil, streamId: cname, mid: mid)
                )
            }
        }
    }

    /// Announces the remote track of each section that sends to us, once.
    func announceTracks(_ remote: SessionDescription) {
        for (index, section) in remote.media.enumerated() where !section.isRejected {
            let resolved = remote.resolved(section)
            guard (resolved.direction ?? .sendrecv).sends else { continue }
            let mid = resolved.mid ?? String(index)
            guard let transceiver = transceiverList.first(where: { $0.mid == mid }),
                !announced.contains(ObjectIdentifier(transceiver))
            else { continue }
            announced.insert(ObjectIdentifier(transceiver))
            trackEvents.yield(
                TrackEvent(
                    track: transceiver.receiver.track,
                    transceiver: transceiver,
                    streamIds: resolved.msids.map(\.streamId)
                )
            )
        }
    }

    func localParameters(_ transport: PeerTransport) -> LocalParameters {
        let credentials = transport.agent.localCredentials
        let fingerprint = certificate.fingerprint
        let parts = fingerprint.sdpValue.split(separator: " ", maxSplits: 1)
        return LocalParameters(
            iceUfrag: credentials.usernameFragment,
            icePwd: credentials.password,
            fingerprints: [
                Fingerprint(hashFunction: String(parts.first ?? "sha-256"), value: String(parts.last ?? ""))
            ],
            answerSetup: .active,
            candidates: localCandidateList,
            endOfCandidates: iceGatheringState == .complete,
            sessionId: sessionId,
            sessionVersion: sessionVersion,
            cname: cname
        )
    }
}
