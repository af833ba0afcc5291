import Foundation
import SwiftRTC
import SwiftRTCSignalingServer

extension WhipServer {
    /// Answers one offer: a new PeerConnection, its media, the complete answer. What it
    /// receives goes on air for WHEP viewers (`broadcast`).
    static func answer(
        _ offer: String,
        settings: SessionSettings,
        sessions: SessionLog,
        broadcast: Broadcast
    ) async throws -> (answer: String, session: any WHIPEndpointSession) {
        let started = ContinuousClock.now
        let number = sessions.begin()
        let connection = try PeerConnection(configuration: settings.configuration)
        let monitor = await CallMonitor(
            connection: connection,
            role: "whip-server",
            started: started,
            statsInterval: settings.statsInterval,
            label: number == 1 ? "" : "[\(number)]",
            statsJSON: settings.statsJSON
        )
        let local = settings.makeMedia()
        if settings.echoData { monitor.echoDataChannels() }
        do {
            let answer = try await negotiate(offer, on: connection) {
                try await Whip.addMedia(local.send, to: connection)
            }
            await monitor.startMedia(echo: local.echo)
            // The sources start once connected (echo tracks are fed as media arrives).
            Task {
                if await monitor.waitConnected(timeout: .seconds(30)) { local.send.start() }
            }
            var recorder: MediaRecorder?
            if let recording = settings.recording {
                recorder = await startRecording(
                    recording,
                    settings: settings,
                    connection: connection,
                    session: number,
                    monitor: monitor
                )
            }
            let relay = await broadcast.putOnAir(session: number, receivedBy: connection)
            let session = ServerSession(
                number: number,
                monitor: monitor,
                media: local.send,
                sessions: sessions,
                recorder: recorder,
                relay: relay
            )
            sessions.answered()
            log("session \(number): answered")
            return (answer, session)
        } catch {
            log("session \(number): \(error)")
            local.send.stop()
            let report = await monitor.finish()
            // An offer refused as the client's fault is no session of this run.
            if !(error is WHIPOfferRejected) { sessions.ended(report) }
            throw error
        }
    }

    /// Starts recording what the peer of session `number` sends (its negotiated transceivers
    /// that receive) into a new file of the `--record` folder; nil when that fails, an error
    /// of the session.
    static func startRecording(
        _ recording: SessionSettings.Recording,
        settings: SessionSettings,
        connection: PeerConnection,
        session number: Int,
        monitor: CallMonitor
    ) async -> MediaRecorder? {
        // What the peer sends: negotiated transceivers that receive (a track added for
        // a kind the offer did not carry makes one that never gets media).
        let receiving = await connection.transceivers.filter {
            $0.mid != nil && ($0.currentDirection?.receives ?? $0.direction.receives)
        }
        do {
            let file = try recording.folder.createFile(
                base: SessionSettings.Recording.base("whip", at: Date()),
                extension: "webm"
            )
            return try MediaRecorder(
                tracks: receiving.map(\.receiver.track),
                reservedFile: file,
                trimming: settings.trimming,
                rollover: settings.rollover,
                maxBytes: settings.recordMaxBytes
            )
        } catch {
            log("error: session \(number): \(error)")
            monitor.recordError("\(error)")
            return nil
        }
    }

    /// Answers a WHEP viewer's offer: a new PeerConnection that sends the broadcast's tracks.
    /// A viewer's session is counted (`viewers` of the report) but its report is not the run's.
    static func answer(
        viewer offer: String,
        settings: SessionSettings,
        sessions: SessionLog,
        broadcast: Broadcast
    ) async throws -> (answer: String, session: any WHIPEndpointSession) {
        let number = sessions.beginViewer()
        let connection = try PeerConnection(configuration: settings.configuration)
        let monitor = await CallMonitor(
            connection: connection,
            role: "whep-server",
            started: .now,
            statsInterval: settings.statsInterval,
            label: "[viewer \(number)]",
            statsJSON: settings.statsJSON
        )
        do {
            let answer = try await negotiate(offer, on: connection) {
                try await connection.addTrack(broadcast.audio)
                try await connection.addTrack(broadcast.video)
            }
            await monitor.startMedia(echo: nil)
            log("viewer \(number): answered")
            return (answer, ViewerSession(number: number, monitor: monitor))
        } catch {
            log("viewer \(number): \(error)")
            _ = await monitor.finish()
            throw error
        }
    }

    /// The offer/answer of one session: applies `offer`, adds the local tracks (`addMedia`),
    /// answers and gathers every candidate; the complete answer. An offer that is not SDP, or
    /// that nothing of can be taken, is a ``WHIPOfferRejected``.
    static func negotiate(
        _ offer: String,
        on connection: PeerConnection,
        addMedia: () async throws -> Void
    ) async throws -> String {
        do {
            try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
        } catch {
            if case .invalidDescription = error { throw WHIPOfferRejected(error.description) }
            throw error
        }
        try await addMedia()
        let created = try await connection.createAnswer()
        if let unusable = Self.unusableOffer(offer, answer: created.sdp) {
            throw WHIPOfferRejected(unusable, kind: .unusable)
        }
        try await connection.setLocalDescription(created)
        guard await connection.gatheringComplete(within: gatheringTimeout) else {
            throw CallbotError("ICE gathering did not complete within \(gatheringTimeout)")
        }
        guard let answer = await connection.localDescription else { throw CallbotError("no local description") }
        return answer.sdp
    }

    /// Why `offer` cannot make a call, when it cannot: no audio, video or data section of it
    /// is accepted in `answer` (only codecs we do not have...).
    static func unusableOffer(_ offer: String, answer: String) -> String? {
        guard let offerDescription = try? SessionDescription(parsing: offer),
            let answerDescription = try? SessionDescription(parsing: answer),
            let negotiation = try? Negotiation(offer: offerDescription, answer: answerDescription)
        else { return nil }
        if negotiation.media.contains(where: { $0.accepted && [.audio, .video, .application].contains($0.kind) }) {
            return nil
        }
        return offerDescription.media.isEmpty
            ? "the offer has no media section"
            : "no audio, video or data section of the offer can be taken (Opus and VP8 are supported)"
    }
}
