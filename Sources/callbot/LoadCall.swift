import Foundation
import SwiftRTC

/// What every call of a `callbot load` run shares.
struct LoadCallSettings: Sendable {
    /// Audio and VP8 video (else audio only).
    var video: Bool
    /// How long a connected call is held before the caller hangs up.
    var duration: Duration
    /// From the call request to every member's media connected, at most.
    var setupTimeout: Duration
    /// From opening the WebSocket to the server's welcome, at most.
    var loginTimeout: Duration
    var trust: TLSTrust
    /// Where each call counts its logins and its state, for the progress lines.
    var progress = LoadProgress()

    /// The picture the video calls send: small, so that video costs what a thumbnail does.
    static let videoWidth = 160, videoHeight = 120, videoFramesPerSecond = 15
    /// How long the hang-ups may take to end every session.
    static let hangUpTimeout = Duration.seconds(5)
    /// How long the last packets of a call may take to land once its members stop sending,
    /// before their counters are read (a jitter buffer holds a frame at most 250 ms).
    static let inFlightGrace = Duration.milliseconds(400)
}

/// What one call of a load run measured.
struct LoadCallResult: Sendable {
    var loginMs: [Double] = []
    var connected = false
    var decodedAudio = false
    var failure: String?
    var setupMs: Double?
    var packetsSent = 0
    var packetsReceived = 0
    var packetsLost = 0
    var audioFramesDecoded = 0
    var videoFramesDecoded = 0
}

/// One call of `callbot load`, through the public call API bot authors use: its bots log in
/// (``WebSocketSignalingChannel``), the first calls the others (``CallClient``,
/// ``CallSession``), everyone sends a tone (and a small test pattern with video) and counts
/// the audio it decodes; once every member's media is up the call is held, then the stats are
/// taken and everyone hangs up.
struct LoadCall: Sendable {
    /// Each member's login and servers (its own first, then the others to fail over to); the
    /// first member is the caller.
    var members: [(login: LoadLogin, servers: [URL])]
    var settings: LoadCallSettings

    func run() async -> LoadCallResult {
        var result = LoadCallResult()
        BotMetrics.callStarted()
        defer {
            BotMetrics.callEnded(connected: result.connected)
            settings.progress.ended(result)
        }
        // Log in, every member at once.
        let logins = await logInAll()
        var channels: [WebSocketSignalingChannel] = []
        for login in logins {
            switch login {
            case let .success((channel, ms)):
                channels.append(channel)
                result.loginMs.append(ms)
                settings.progress.loggedIn.add(1, ordering: .relaxed)
            case let .failure(error):
                if result.failure == nil { result.failure = Self.reason("login failed", error) }
            }
        }
        guard result.failure == nil, channels.count == members.count else {
            for channel in channels { await channel.close() }
            return result
        }
        let clients = makeClients(channels)
        let users = clients.map(\.userID)
        let state = LoadCallState(members: clients.count)
        for (index, user) in users.enumerated() { state.setOthers(index, Set(users).subtracting([user])) }
        // The callees answer the caller's call (listening before it is made).
        var followers = await answerCall(of: users[0], on: clients, state: state)

        // The caller calls.
        let setupStarted = ContinuousClock.now
        if let follower = await placeCall(to: users.dropFirst(), from: clients[0], state: state) {
            followers.append(follower)
        }

        let snapshot = await hold(state: state, setupStarted: setupStarted, result: &result)
        await readCounters(snapshot, state: state, into: &result)

        // The caller hangs up, then the others (a mesh's callees stay connected to each other).
        for member in snapshot.members {
            await member.session?.hangUp(userInfo: ["reason": "duration"])
        }
        _ = await state.wait(until: .now + LoadCallSettings.hangUpTimeout) { $0.allEnded }
        for follower in followers { follower.cancel() }
        for client in clients { await client.disconnect() }
        return result
    }

    /// Logs every member in at once; each login's channel and how long it took (ms), in the
    /// members' order.
    private func logInAll() async -> [Result<(WebSocketSignalingChannel, Double), SignalingChannelError>] {
        await withTaskGroup(
            of: (Int, Result<(WebSocketSignalingChannel, Double), SignalingChannelError>).self
        ) { group in
            for (index, member) in members.enumerated() {
                group.addTask { [settings] in
                    let started = ContinuousClock.now
                    let login = await Self.logIn(to: member.servers, token: member.login.token, settings: settings)
                    return (index, login.map { ($0, Self.milliseconds(ContinuousClock.now - started)) })
                }
            }
            var logins = [Result<(WebSocketSignalingChannel, Double), SignalingChannelError>?](
                repeating: nil,
                count: members.count
            )
            for await (index, login) in group { logins[index] = login }
            return logins.compactMap { $0 }
        }
    }

    /// A call client for each member on its logged-in channel.
    private func makeClients(_ channels: [WebSocketSignalingChannel]) -> [CallClient] {
        zip(channels, members).map { channel, member in
            CallClient(
                channel: channel,
                configuration: CallConfiguration(
                    gatherAddresses: PeerConnection.Configuration.gatherAddresses(
                        toReach: member.servers.first?.host ?? ""
                    ),
                    maxVideoFrameRate: LoadCallSettings.videoFramesPerSecond,
                    answerTimeInterval: settings.setupTimeout
                )
            )
        }
    }

    /// Has every callee (each client but the first) answer the first call `caller` makes, and
    /// follow it; the tasks that do.
    private func answerCall(
        of caller: String,
        on clients: [CallClient],
        state: LoadCallState
    ) async -> [Task<Void, Never>] {
        var followers: [Task<Void, Never>] = []
        for index in clients.indices.dropFirst() {
            let client = clients[index], video = settings.video
            let events = await client.events()
            followers.append(
                Task {
                    for await event in events {
                        guard case .incomingSession(let session, _) = event, session.initiator == caller else {
                            continue
                        }
                        let sessionEvents = await session.events()
                        let following = Task { await state.follow(session, events: sessionEvents, member: index) }
                        Self.play(into: session, video: video)
                        do { try await session.acceptCall() } catch { state.fail(Self.reason("cannot accept", error)) }
                        await following.value
                        return
                    }
                }
            )
        }
        return followers
    }

    /// The caller (`client`) calls `callees`; the task that follows its session, if it made one.
    private func placeCall(
        to callees: ArraySlice<String>,
        from client: CallClient,
        state: LoadCallState
    ) async -> Task<Void, Never>? {
        var follower: Task<Void, Never>?
        do {
            let session = try await client.createSession(
                opponents: Array(callees),
                conferenceType: settings.video ? .video : .audio
            )
            let events = await session.events()
            follower = Task { await state.follow(session, events: events, member: 0) }
            Self.play(into: session, video: settings.video)
            try await session.startCall()
        } catch {
            state.fail(Self.reason("cannot call", error))
        }
        return follower
    }

    /// Waits for every member's media, then holds the call for its duration; notes in
    /// `result` whether it connected, how fast, and what failed. The state's last snapshot.
    private func hold(
        state: LoadCallState,
        setupStarted: ContinuousClock.Instant,
        result: inout LoadCallResult
    ) async -> LoadCallState.Snapshot {
        let setupDeadline = setupStarted + settings.setupTimeout
        _ = await state.wait(until: setupDeadline) { $0.allConnected || $0.failure != nil }
        var snapshot = state.snapshot
        // A connection that came after the deadline (the wake-up ran late) counts as a timeout.
        if snapshot.allConnected, snapshot.failure == nil, let last = snapshot.members.compactMap(\.connectedAt).max(),
            last <= setupDeadline
        {
            result.connected = true
            settings.progress.callsUp.add(1, ordering: .relaxed)
            result.setupMs = Self.milliseconds(last - setupStarted)
            _ = await state.wait(until: last + settings.duration) { $0.failure != nil }
            snapshot = state.snapshot
            result.failure = snapshot.failure
        } else {
            let (up, of) = snapshot.connections
            result.failure = snapshot.failure ?? "setup timeout (\(up) of \(of) connections up)"
        }
        return snapshot
    }

    /// The counters, before anyone leaves and once nothing is in flight: every member stops
    /// sending, the last packets land, then each member's stats are read into `result`, with
    /// the audio frames each member decoded from every other.
    private func readCounters(
        _ snapshot: LoadCallState.Snapshot,
        state: LoadCallState,
        into result: inout LoadCallResult
    ) async {
        // (Read while media flowed, a member read later counted packets that one read earlier
        // had not yet counted as sent: more received than sent.)
        state.tearDown()
        for member in snapshot.members {
            member.session?.localAudioTrack.stop()
            member.session?.localVideoTrack?.stop()
        }
        try? await Task.sleep(for: LoadCallSettings.inFlightGrace)
        for member in snapshot.members {
            guard let session = member.session else { continue }
            for user in member.others {
                guard let stats = await session.stats(for: user) else { continue }
                BotMetrics.Connection().update(stats)
                func count(_ type: StatsReport.StatsType, _ kind: String, _ name: String) -> Int {
                    stats.first(type, kind: kind)?.number(name).map { Int(max(0, min($0, 1e15))) } ?? 0
                }
                for kind in settings.video ? ["audio", "video"] : ["audio"] {
                    result.packetsSent += count(.outboundRTP, kind, "packetsSent")
                    result.packetsReceived += count(.inboundRTP, kind, "packetsReceived")
                    result.packetsLost += count(.inboundRTP, kind, "packetsLost")
                }
                if settings.video { result.videoFramesDecoded += count(.inboundRTP, "video", "framesDecoded") }
            }
        }
        var decodedFromEveryone = true
        for member in snapshot.members {
            for user in member.others {
                let frames = member.decoded[user]?.count.load(ordering: .relaxed) ?? 0
                result.audioFramesDecoded += frames
                if frames == 0 { decodedFromEveryone = false }
            }
        }
        result.decodedAudio = result.connected && decodedFromEveryone
        if result.connected, result.failure == nil, !decodedFromEveryone { result.failure = "no audio decoded" }
    }

    /// Logs in; a refusal the server says is for now (`try again later`: its password checks
    /// or its connections are all taken) is retried every 250 to 500 ms until the login timeout.
    private static func logIn(
        to servers: [URL],
        token: String,
        settings: LoadCallSettings
    ) async -> Result<WebSocketSignalingChannel, SignalingChannelError> {
        let deadline = ContinuousClock.now + settings.loginTimeout
        while true {
            let left = deadline - ContinuousClock.now
            do throws(SignalingChannelError) {
                return .success(
                    try await WebSocketSignalingChannel.connect(
                        to: servers,
                        token: token,
                        timeout: max(left, .milliseconds(100)),
                        trust: settings.trust
                    )
                )
            } catch {
                let pause = Duration.milliseconds(Int.random(in: 250...500))
                guard "\(error)".contains("try again later"), ContinuousClock.now + pause < deadline, !Task.isCancelled
                else { return .failure(error) }
                try? await Task.sleep(for: pause)
            }
        }
    }

    /// A tone (440 Hz, 20 ms Opus frames, encoded once for all bots) and with video a small
    /// moving test pattern.
    private static func play(into session: CallSession, video: Bool) {
        session.localAudioTrack.play(EncodedTone())
        if video, let track = session.localVideoTrack {
            track.play(
                TestPatternSource(
                    width: LoadCallSettings.videoWidth,
                    height: LoadCallSettings.videoHeight,
                    framesPerSecond: LoadCallSettings.videoFramesPerSecond
                )
            )
        }
    }

    /// A failure reason to count: what failed and the error, on one short line.
    static func reason(_ what: String, _ error: any Error) -> String {
        let text = "\(what): \(error)".split(whereSeparator: \.isNewline).first.map(String.init) ?? what
        return text.count > 200 ? String(text.prefix(197)) + "..." : text
    }

    static func milliseconds(_ duration: Duration) -> Double {
        duration.seconds * 1000
    }
}
