import Foundation
import SwiftRTCPeer
import SwiftRTCSignaling

extension CallSession {
    // MARK: Outgoing

    /// Calls every opponent: one connection and call request per opponent (with this side's
    /// offer), re-sent every dialing interval until answered; an opponent who does not answer
    /// within the answer timeout gets ``CallSessionEvent/didNotRespond(user:)``.
    public func startCall(userInfo: [String: String] = [:]) async throws(CallError) {
        guard !isIncoming, state == .new else { throw .invalidState(operation: "startCall", state: state) }
        startedAt = Date()
        setState(.pending)
        for user in opponents {
            let link: PeerLink
            let offer: String
            do throws(PeerConnectionError) {
                link = try await makeLink(user, isOfferer: true)
                offer = try await makeOffer(link.connection, iceRestart: false)
            } catch {
                logger.warning("cannot call: \(error)", metadata: ["user": "\(user)"])
                lossResults.append(.failed)
                await hangUp()
                throw .connection(error.description)
            }
            let request = SignalingMessage(
                id: UUID().uuidString,
                to: [user],
                session: id,
                body: .call(
                    .init(
                        sdp: offer,
                        conferenceType: conferenceType,
                        initiator: currentUser,
                        opponents: opponents,
                        userInfo: userInfo
                    )
                )
            )
            link.callRequest = request
            setUserState(user, .pending)
            await outbox(request)
            descriptionSent(link, sdp: offer)
            startDialing(link)
        }
        await announceLocalState(to: opponents)
    }

    /// What was set before the call began, muted media and custom items, goes out with it
    /// (later changes are sent as they are made).
    func announceLocalState(to users: [String]) async {
        let audio = localAudioTrack.isEnabled, video = localVideoTrack?.isEnabled
        if !audio || video == false {
            await message(to: users, .mediaSettings(.init(audioEnabled: audio, videoEnabled: video)))
        }
        if !items.isEmpty { await message(to: users, .customItems(.init(updated: items))) }
    }

    func startDialing(_ link: PeerLink) {
        let user = link.user, interval = configuration.dialingTimeInterval, timeout = configuration.answerTimeInterval
        let clock = clock
        link.dialing = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                await self?.redial(user)
            }
        }
        link.answerTimer = Task { [weak self] in
            do { try await clock.sleep(for: timeout) } catch { return }
            await self?.answerTimedOut(user)
        }
    }

    /// The call request again, with the candidates gathered since (it stands on its own for
    /// a callee who missed the first one and the candidates trickled after it).
    func redial(_ user: String) async {
        guard userStates[user] == .pending, let link = links[user], var request = link.callRequest else { return }
        if case .call(var call) = request.body, let sdp = await link.connection.localDescription?.sdp {
            guard userStates[user] == .pending, links[user] === link else { return }
            call.sdp = sdp
            request.body = .call(call)
            link.callRequest = request
        }
        logger.debug("dialing again", metadata: ["user": "\(user)"])
        await outbox(request)
        if case .call(let call) = request.body { descriptionSent(link, sdp: call.sdp) }
    }

    func answerTimedOut(_ user: String) async {
        guard userStates[user] == .pending, let link = links[user] else { return }
        setUserState(user, .noAnswer)
        emit(.didNotRespond(user: user))
        await message(to: [user], .hangUp(.init(result: .noAnswer)))
        await closeLink(link)
        await endIfDone()
    }

    // MARK: Incoming

    /// Accepts an incoming call: answers the initiator, tells the other opponents, and
    /// connects to every participant who has joined.
    public func acceptCall(userInfo: [String: String] = [:]) async throws(CallError) {
        guard isIncoming, state == .pending, !hasAccepted, let offer = initiatorOffer else {
            throw .invalidState(operation: "acceptCall", state: state)
        }
        hasAccepted = true
        answeredAt = Date()
        setState(.connecting)
        setUserState(initiator, .connecting)
        emit(.startedConnecting(user: initiator))
        let answer: String
        let link: PeerLink
        do throws(PeerConnectionError) {
            link = try await makeLink(initiator, isOfferer: false)
            answer = try await makeAnswer(link, offer: offer)
        } catch {
            logger.warning("cannot answer: \(error)", metadata: ["user": "\(initiator)"])
            lossResults.append(.failed)
            setUserState(initiator, .failed)
            await message(to: [initiator], .hangUp(.init(result: .failed)))
            await finish()
            throw .connection(error.description)
        }
        await message(to: [initiator], .accept(.init(sdp: answer, userInfo: userInfo)))
        descriptionSent(link, sdp: answer)
        let others = opponents.filter { $0 != currentUser && userStates[$0].map { !$0.isFinal } ?? false }
        await message(to: others, .accept(.init(userInfo: userInfo)))
        await announceLocalState(to: [initiator] + others)
        for user in joined.sorted() { await connectMesh(with: user) }
    }

    /// Rejects an incoming call; when this user is already in another call the reject says busy.
    public func rejectCall(userInfo: [String: String] = [:]) async throws(CallError) {
        guard isIncoming, state == .pending || state == .new, !hasAccepted else {
            throw .invalidState(operation: "rejectCall", state: state)
        }
        let busy = await isBusyElsewhere(self)
        localHangUp = true
        rejects.append((currentUser, busy))
        await message(to: liveUsers, .reject(.init(userInfo: userInfo, busy: busy)))
        for user in liveUsers { setUserState(user, .closed) }
        await finish()
    }

    /// Leaves the call (or, before anyone answered, cancels it): tells every participant,
    /// closes every connection, ends the session.
    public func hangUp(userInfo: [String: String] = [:]) async {
        guard state != .closed else { return }
        if isIncoming, !hasAccepted {
            try? await rejectCall(userInfo: userInfo)
            return
        }
        localHangUp = true
        let answered = answeredAt != nil
        let recipients = liveUsers
        await message(to: recipients, .hangUp(.init(userInfo: userInfo, result: answered ? nil : .canceled)))
        for user in recipients { setUserState(user, .closed) }
        await finish()
    }

    // MARK: Signaling in

    func receive(_ message: SignalingMessage) async {
        guard state != .closed, let sender = message.from, sender != currentUser, userStates[sender] != nil else {
            return
        }
        switch message.body {
        case .call(let call):
            // The first request makes the session (CallClient); repeats are the dialing.
            if initiatorOffer == nil { initiatorOffer = call.sdp }
        case .accept(let accept):
            await received(accept: accept, from: sender)
        case .reject(let reject):
            rejects.append((sender, reject.busy))
            setUserState(sender, .rejected)
            emit(.rejected(user: sender, userInfo: reject.userInfo, busy: reject.busy))
            if let link = links[sender] { await closeLink(link) }
            await endIfDone()
        case .hangUp(let hangUp):
            if hangUp.result == .canceled { remoteCanceled = true }
            if let result = hangUp.result, [.connectionLost, .failed, .timedOut].contains(result) {
                lossResults.append(result)
            }
            setUserState(sender, .hungUp)
            emit(.hungUp(user: sender, userInfo: hangUp.userInfo))
            if let link = links[sender] { await closeLink(link) }
            await endIfDone()
        case .offer(let description):
            await received(offer: description, from: sender)
        case .answer(let description):
            await received(answer: description, from: sender)
        case .candidate(let candidate):
            await received(candidate: candidate, from: sender)
        case .mediaSettings(let settings):
            var known = remoteMedia[sender] ?? RemoteMediaSettings()
            if let audio = settings.audioEnabled { known.audioEnabled = audio }
            if let video = settings.videoEnabled { known.videoEnabled = video }
            remoteMedia[sender] = known
            emit(
                .remoteMediaSettingsChanged(
                    user: sender,
                    audioEnabled: settings.audioEnabled,
                    videoEnabled: settings.videoEnabled
                )
            )
        case .customItems(let change):
            apply(change, by: sender)
        case .recording(let recording):
            remoteRecordings[sender] = recording.active ? recording.option : nil
            emit(.remoteRecordingChanged(user: sender, active: recording.active, option: recording.option))
        case .hello, .welcome, .callLogQuery, .callLog, .error:
            break
        }
    }

    func received(accept: SignalingBody.Accept, from sender: String) async {
        if sender == currentUser { return }
        if !isIncoming {
            // The initiator: the answer for our offer.
            guard let link = links[sender], userStates[sender] == .pending, let sdp = accept.sdp else { return }
            link.dialing?.cancel()
            link.answerTimer?.cancel()
            if answeredAt == nil { answeredAt = Date() }
            setState(.connecting)
            setUserState(sender, .connecting)
            emit(.accepted(user: sender, userInfo: accept.userInfo))
            emit(.startedConnecting(user: sender))
            do {
                try await link.connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: sdp))
                await remoteDescriptionSet(link, sdp: sdp)
            } catch {
                logger.warning("answer refused: \(error)", metadata: ["user": "\(sender)"])
                await fail(link)
            }
        } else {
            // Another opponent joined: connect (the lower user id offers) once both accepted.
            guard !joined.contains(sender) else { return }
            joined.insert(sender)
            emit(.accepted(user: sender, userInfo: accept.userInfo))
            if hasAccepted { await connectMesh(with: sender) }
        }
    }

    /// Between two opponents who both accepted, the one whose id sorts first offers.
    func connectMesh(with user: String) async {
        guard user != initiator, links[user] == nil, currentUser < user, userStates[user].map({ !$0.isFinal }) ?? false
        else { return }
        do throws(PeerConnectionError) {
            let link = try await makeLink(user, isOfferer: true)
            setUserState(user, .connecting)
            emit(.startedConnecting(user: user))
            let offer = try await makeOffer(link.connection, iceRestart: false)
            await message(to: [user], .offer(.init(sdp: offer)))
            descriptionSent(link, sdp: offer)
        } catch {
            logger.warning("mesh connection failed: \(error)", metadata: ["user": "\(user)"])
            if let link = links[user] { await fail(link) }
        }
    }

    func received(offer: SignalingBody.Description, from sender: String) async {
        do throws(PeerConnectionError) {
            if let link = links[sender] {
                // An ICE restart (or a repeated offer) on an existing connection.
                guard offer.iceRestart else { return }
                let answer = try await makeAnswer(link, offer: offer.sdp)
                await message(to: [sender], .answer(.init(sdp: answer, iceRestart: true)))
                descriptionSent(link, sdp: answer)
            } else {
                // A mesh connection from another opponent (we both accepted).
                guard isIncoming, hasAccepted, sender != initiator, userStates[sender].map({ !$0.isFinal }) ?? false
                else { return }
                joined.insert(sender)
                let link = try await makeLink(sender, isOfferer: false)
                setUserState(sender, .connecting)
                emit(.startedConnecting(user: sender))
                let answer = try await makeAnswer(link, offer: offer.sdp)
                await message(to: [sender], .answer(.init(sdp: answer)))
                descriptionSent(link, sdp: answer)
            }
        } catch {
            logger.warning("offer refused: \(error)", metadata: ["user": "\(sender)"])
            guard let link = links[sender] else { return }
            if link.everConnected {
                // A bad renegotiation does not end a call that works: back to the last good state.
                try? await link.connection.setRemoteDescription(SignalingDescription(type: .rollback, sdp: ""))
            } else {
                await fail(link)
            }
        }
    }

    func received(answer: SignalingBody.Description, from sender: String) async {
        guard let link = links[sender], await link.connection.signalingState == .haveLocalOffer else { return }
        do {
            try await link.connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: answer.sdp))
            await remoteDescriptionSet(link, sdp: answer.sdp)
        } catch {
            logger.warning("answer refused: \(error)", metadata: ["user": "\(sender)"])
            if link.everConnected {
                try? await link.connection.setLocalDescription(SignalingDescription(type: .rollback, sdp: ""))
            } else {
                await fail(link)
            }
        }
    }
}
