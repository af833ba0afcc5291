import Foundation
import SwiftRTCICE
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSignaling

extension CallSession {
    // MARK: Making connections

    /// A connection with `user`: local tracks and the chat channel added, its states, tracks,
    /// chat and stats followed.
    func makeLink(_ user: String, isOfferer: Bool) async throws(PeerConnectionError) -> PeerLink {
        let connection: PeerConnection
        do { connection = try PeerConnection(configuration: configuration.peerConfiguration) } catch {
            throw .transport(error.description)
        }
        _ = try await connection.addTrack(localAudioTrack)
        if let localVideoTrack { _ = try await connection.addTrack(localVideoTrack) }
        let chat = try await Self.makeChatChannel(on: connection)
        linkSerial += 1
        let serial = linkSerial
        let link = PeerLink(user: user, serial: serial, connection: connection, isOfferer: isOfferer)
        followChat(chat, of: link)
        links[user] = link
        if userStates[user] == .connecting { startConnectTimer(link) }
        let states = await connection.connectionStates()
        let iceStates = await connection.iceConnectionStates()
        let tracks = await connection.remoteTracks()
        await startTrickle(link)
        link.tasks.append(
            Task { [weak self] in
                for await state in states { await self?.connectionChanged(user, serial, to: state) }
            }
        )
        link.tasks.append(
            Task { [weak self] in
                for await state in iceStates where state == .checking { await self?.iceChecking(user, serial) }
            }
        )
        link.tasks.append(
            Task { [weak self] in
                for await event in tracks { await self?.remoteTrackArrived(user, serial, event: event) }
            }
        )
        if let interval = configuration.statsInterval {
            let clock = clock
            link.tasks.append(
                Task { [weak self] in
                    while !Task.isCancelled {
                        do { try await clock.sleep(for: interval) } catch { return }
                        guard await connection.connectionState == .connected else { continue }
                        let report = await connection.stats()
                        let text = await connection.statsString()
                        await self?.emit(.stats(user: user, report: report, statsString: text))
                    }
                }
            )
        }
        return link
    }

    /// An offer, at once: with the candidates gathered so far (the host ones); the others
    /// trickle once it is sent (``descriptionSent(_:sdp:)``).
    func makeOffer(_ connection: PeerConnection, iceRestart: Bool) async throws(PeerConnectionError) -> String {
        if iceRestart { try await connection.restartIce() }
        let offer = try await connection.createOffer()
        try await connection.setLocalDescription(offer)
        return await Self.descriptionWithHostCandidates(connection) ?? offer.sdp
    }

    /// The longest a description waits for its first candidate.
    static let hostCandidatesWait = Duration.seconds(2)

    /// The local description once it holds a candidate (the host ones come within
    /// milliseconds, but later on a loaded machine) or gathering is complete, waiting at most
    /// ``hostCandidatesWait``. A description without a candidate leaves the peer nothing to
    /// check until the trickled ones come, and a peer that takes candidates from descriptions
    /// only (half trickle, RFC 8838 section 4) nothing at all.
    static func descriptionWithHostCandidates(_ connection: PeerConnection) async -> String? {
        // The first candidate (or the end-of-candidates marker): the local description holds
        // it by the time the stream gives it.
        let candidates = await connection.localCandidates()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in candidates { return }
            }
            group.addTask { try? await Task.sleep(for: hostCandidatesWait) }
            await group.next()
            group.cancelAll()
        }
        return await connection.localDescription?.sdp
    }

    /// The answer to `offer` on the link, at once (as ``makeOffer(_:iceRestart:)``); the
    /// candidates `offer`'s sender trickled before it are applied.
    func makeAnswer(_ link: PeerLink, offer: String) async throws(PeerConnectionError) -> String {
        let connection = link.connection
        try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
        await remoteDescriptionSet(link, sdp: offer)
        let answer = try await connection.createAnswer()
        try await connection.setLocalDescription(answer)
        return await Self.descriptionWithHostCandidates(connection) ?? answer.sdp
    }

    // MARK: Connection states

    func iceChecking(_ user: String, _ serial: Int) {
        guard let link = link(user, serial), !link.everConnected else { return }
        setUserState(user, .checking)
    }

    func connectionChanged(_ user: String, _ serial: Int, to state: PeerConnectionState) async {
        guard let link = link(user, serial) else { return }
        switch state {
        case .connected:
            link.disconnectTimer?.cancel()
            link.disconnectTimer = nil
            link.connectTimer?.cancel()
            link.connectTimer = nil
            setUserState(user, .connected)
            if link.reconnecting {
                link.reconnecting = false
                emit(.reconnectionStateChanged(user: user, state: .reconnected))
            } else if !link.everConnected {
                emit(.connected(user: user))
            }
            link.everConnected = true
            setState(.connected)
        case .disconnected, .failed:
            if link.everConnected {
                await connectionDropped(user, link: link)
            } else if state == .failed {
                await fail(link)
            }
        case .new, .connecting, .closed:
            break
        }
    }

    // MARK: Connect timeout

    /// A connection that has not come up one disconnect interval after it started connecting
    /// ends the pair's call as ``CallEndResult/timedOut`` (a slow or silent peer never leaves
    /// a call stuck in `connecting`). The interval is real time, whatever the session's clock:
    /// what it bounds is the network's ICE and DTLS, which no clock of ours speeds up.
    func startConnectTimer(_ link: PeerLink) {
        guard link.connectTimer == nil, !link.everConnected else { return }
        let timeout = configuration.disconnectTimeInterval, user = link.user, serial = link.serial
        link.connectTimer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.connectTimedOut(user, serial)
        }
    }

    func connectTimedOut(_ user: String, _ serial: Int) async {
        guard let link = link(user, serial), !link.everConnected else { return }
        logger.info("not connected within the disconnect interval", metadata: ["user": "\(user)"])
        await fail(link, result: .timedOut)
    }

    // MARK: Reconnection

    /// The connection dropped during the call: ICE restart (by the pair's offerer) every
    /// dialing interval until it is back or the disconnect timeout closes it.
    func connectionDropped(_ user: String, link: PeerLink) async {
        guard !link.reconnecting else { return }
        link.reconnecting = true
        setUserState(user, .disconnected)
        emit(.disconnected(user: user))
        emit(.reconnectionStateChanged(user: user, state: .reconnecting))
        let clock = clock, timeout = configuration.disconnectTimeInterval, interval = configuration.dialingTimeInterval
        let serial = link.serial
        link.disconnectTimer = Task { [weak self] in
            do { try await clock.sleep(for: timeout) } catch { return }
            await self?.disconnectTimedOut(user, serial)
        }
        guard link.isOfferer else { return }
        link.tasks.append(
            Task { [weak self] in
                while await self?.restartIce(user, serial) == true {
                    do { try await clock.sleep(for: interval) } catch { return }
                }
            }
        )
    }

    /// One ICE restart offer while the link is reconnecting; false once it no longer is.
    func restartIce(_ user: String, _ serial: Int) async -> Bool {
        guard let link = link(user, serial), link.reconnecting else { return false }
        let connection = link.connection
        // A restart offer still waiting for its answer is rolled back and made anew.
        if await connection.signalingState == .haveLocalOffer {
            try? await connection.setLocalDescription(SignalingDescription(type: .rollback, sdp: ""))
        }
        do throws(PeerConnectionError) {
            let offer = try await makeOffer(connection, iceRestart: true)
            logger.info("ICE restart", metadata: ["user": "\(user)"])
            await message(to: [user], .offer(.init(sdp: offer, iceRestart: true)))
        } catch {
            logger.warning("ICE restart failed: \(error)", metadata: ["user": "\(user)"])
        }
        return true
    }

    func disconnectTimedOut(_ user: String, _ serial: Int) async {
        guard let link = link(user, serial), link.reconnecting else { return }
        setUserState(user, .disconnectTimeout)
        emit(.reconnectionStateChanged(user: user, state: .failed))
        // As the SDKs: the connection failed, then it is closed.
        emit(.connectionFailed(user: user))
        lossResults.append(.connectionLost)
        await message(to: [user], .hangUp(.init(result: .connectionLost)))
        await closeLink(link)
        await endIfDone()
    }

    // MARK: Remote media

    func remoteTrackArrived(_ user: String, _ serial: Int, event: TrackEvent) {
        guard let link = link(user, serial) else { return }
        link.receivers.append(event.transceiver.receiver)
        recorder?.add(user: user, receiver: event.transceiver.receiver)
        switch event.track.kind {
        case .audio:
            link.remoteAudio = event.track
            emit(.receivedRemoteAudioTrack(user: user, track: event.track))
            let frames = event.track.frames()
            link.tasks.append(
                Task { [weak self] in
                    var detector = VoiceActivityDetector()
                    var talking = false
                    for await frame in frames {
                        guard case .audio(let audio) = frame else { continue }
                        let speech = detector.isSpeech(audio)
                        if speech != talking {
                            talking = speech
                            await self?.talkingChanged(user, speech)
                        }
                    }
                    if talking { await self?.talkingChanged(user, false) }
                }
            )
        case .video:
            link.remoteVideo = event.track
            emit(.receivedRemoteVideoTrack(user: user, track: event.track))
        default:
            break
        }
    }

    func talkingChanged(_ user: String, _ talking: Bool) {
        let changed = talking ? speaking.insert(user).inserted : speaking.remove(user) != nil
        if changed { emit(.talking(users: speaking)) }
    }

    /// The audio track `user` sends (decoded; its ``MediaStreamTrack/setAudioSink(_:)`` gives PCM).
    public func remoteAudioTrack(for user: String) -> MediaStreamTrack? { links[user]?.remoteAudio }

    /// The video track `user` sends (decoded frames).
    public func remoteVideoTrack(for user: String) -> MediaStreamTrack? { links[user]?.remoteVideo }

    /// Turns `user`'s received audio on or off here (off: no frames and no PCM are delivered).
    public func setRemoteAudioEnabled(_ enabled: Bool, for user: String) {
        links[user]?.remoteAudio?.isEnabled = enabled
    }

    /// Turns `user`'s received video on or off here.
    public func setRemoteVideoEnabled(_ enabled: Bool, for user: String) {
        links[user]?.remoteVideo?.isEnabled = enabled
    }

    // MARK: Local media

    /// Enables or disables the local audio (disabled: silence is sent) and tells the others.
    public func setLocalAudioEnabled(_ enabled: Bool) async {
        localAudioTrack.isEnabled = enabled
        await message(to: connectedParticipants, .mediaSettings(.init(audioEnabled: enabled)))
    }

    /// Enables or disables the local video (disabled: black frames are sent) and tells the others.
    public func setLocalVideoEnabled(_ enabled: Bool) async {
        guard let localVideoTrack else { return }
        localVideoTrack.isEnabled = enabled
        await message(to: connectedParticipants, .mediaSettings(.init(videoEnabled: enabled)))
    }

    /// The peer connection with `user` (for what the session does not wrap: its transceivers,
    /// ICE and DTLS connect times...), or nil if there is none.
    public func peerConnection(for user: String) -> PeerConnection? { links[user]?.connection }

    // MARK: Stats

    /// The stats of the connection with `user` now, or nil if there is none.
    public func stats(for user: String) async -> StatsReport? {
        guard let connection = links[user]?.connection else { return nil }
        return await connection.stats()
    }

    /// The statsString (DESIGN.md) of the connection with `user` since the previous one.
    public func statsString(for user: String) async -> String? {
        guard let connection = links[user]?.connection else { return nil }
        return await connection.statsString()
    }

    // MARK: Custom items

    /// Sets custom items of the call and tells the others.
    public func updateCustomItems(_ updated: [String: String]) async {
        apply(.init(updated: updated), by: currentUser)
        await message(to: connectedParticipants, .customItems(.init(updated: updated)))
    }

    /// Removes custom items of the call and tells the others.
    public func deleteCustomItems(_ keys: [String]) async {
        apply(.init(deleted: keys), by: currentUser)
        await message(to: connectedParticipants, .customItems(.init(deleted: keys)))
    }

    /// Removes every custom item of the call and tells the others.
    public func deleteAllCustomItems() async {
        await deleteCustomItems(items.keys.sorted())
    }

    // MARK: What the others said

    /// Whether `user` sends audio and video, as they last said (both on until they say
    /// otherwise; ``CallSessionEvent/remoteMediaSettingsChanged(user:audioEnabled:videoEnabled:)``
    /// tells each change).
    public func remoteMediaSettings(for user: String) -> RemoteMediaSettings {
        remoteMedia[user] ?? RemoteMediaSettings()
    }

    /// How `user` is recording the call, or nil when they are not (as they last said).
    public func remoteRecording(for user: String) -> RecordingOption? { remoteRecordings[user] }

    func apply(_ change: SignalingBody.CustomItems, by user: String) {
        items.merge(change.updated) { _, new in new }
        for key in change.deleted { items[key] = nil }
        emit(.customItemsChanged(by: user, updated: change.updated, deleted: change.deleted, items: items))
    }
}
