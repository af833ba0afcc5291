import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCDataChannel
import SwiftRTCPeer
import SwiftRTCSignaling

/// One call: its id, initiator and opponents (1:1 or a mesh of up to 4 people, everyone
/// connected to everyone, one ``PeerConnection`` per pair), audio or video, the local tracks,
/// the per-user connections and their states, and the events of it all.
///
/// Made by ``CallClient/createSession(opponents:conferenceType:)`` (outgoing) or delivered by
/// ``CallClientEvent/incomingSession(_:userInfo:)``. Play a media source into
/// ``localAudioTrack`` / ``localVideoTrack``, then ``startCall(userInfo:)`` or
/// ``acceptCall(userInfo:)``; follow ``events()``; ``hangUp(userInfo:)`` to leave.
///
/// ```swift
/// let session = await client.createSession(opponents: ["bob"], conferenceType: .video)
/// session.localAudioTrack.play(ToneGenerator())
/// try await session.startCall(userInfo: ["topic": "hello"])
/// for await event in session.events() {
///     if case .connected(let user) = event { print("talking with \(user)") }
/// }
/// ```
public actor CallSession {
    /// The session's unique id (a UUID string chosen by the initiator).
    public nonisolated let id: String
    /// The user who started the call.
    public nonisolated let initiator: String
    /// Every invited user but the initiator.
    public nonisolated let opponents: [String]
    /// Audio only, or audio and video.
    public nonisolated let conferenceType: ConferenceType
    /// The user of this client.
    public nonisolated let currentUser: String
    /// The audio this user sends: play any audio source into it; disable it to send silence.
    public nonisolated let localAudioTrack: MediaStreamTrack
    /// The video this user sends in a video call: play any video source into it; disable it to
    /// send black frames. Nil in an audio call.
    public nonisolated let localVideoTrack: MediaStreamTrack?
    /// Whether the call came in (this user is an opponent).
    public nonisolated var isIncoming: Bool { initiator != currentUser }
    /// Everyone in the call but this user.
    public nonisolated var otherParticipants: [String] { ([initiator] + opponents).filter { $0 != currentUser } }

    let configuration: CallConfiguration
    let clock: CallClock
    /// Records carry the session id as `session` metadata.
    let logger: Logger
    let outbox: @Sendable (SignalingMessage) async -> Void
    let onEnded: @Sendable (CallSession, CallRecord) async -> Void
    let isBusyElsewhere: @Sendable (CallSession) async -> Bool
    let eventHub = Broadcast<CallSessionEvent>(replaysLatest: false, buffering: .unbounded)
    /// The chat messages received (``messages()``), each stream bounded.
    let chatHub = Broadcast<ChatMessage>(
        replaysLatest: false,
        buffering: .bufferingOldest(CallSession.maxUnreadChatMessages)
    )

    /// The session state.
    public private(set) var state: CallSessionState = .new
    var userStates: [String: CallConnectionState] = [:]
    var links: [String: PeerLink] = [:]
    var linkSerial = 0
    /// Callee: the initiator's offer, from the (first) call request.
    var initiatorOffer: String?
    /// Opponents known to have accepted (from accepts and joined notices).
    var joined: Set<String> = []
    var hasAccepted = false
    /// When the session was made (the call started ringing, or came in).
    public internal(set) var startedAt = Date()
    /// When the call was answered (this side accepted, or the first opponent did), while it
    /// goes on; nil before.
    public internal(set) var answeredAt: Date?
    var items: [String: String] = [:]
    /// What each other participant said of their media and their recording.
    var remoteMedia: [String: RemoteMediaSettings] = [:]
    var remoteRecordings: [String: RecordingOption] = [:]
    var speaking: Set<String> = []
    var localHangUp = false
    /// Why users left, for the call record.
    var lossResults: [CallEndResult] = []
    var remoteCanceled = false
    var rejects: [(user: String, busy: Bool)] = []
    var recorder: CallRecorder?
    /// Trickled candidates from each user that came before the description they belong to.
    var queuedCandidates: [String: QueuedCandidates] = [:]
    /// The files of this session's recordings that are complete: those of participants who
    /// left and of stopped recordings (a recording still running when the session ends is
    /// stopped then).
    public internal(set) var recordedFiles: [URL] = []
    /// The record, once the session is closed.
    public internal(set) var record: CallRecord?

    init(
        id: String,
        initiator: String,
        opponents: [String],
        conferenceType: ConferenceType,
        currentUser: String,
        configuration: CallConfiguration,
        clock: CallClock,
        outbox: @escaping @Sendable (SignalingMessage) async -> Void,
        onEnded: @escaping @Sendable (CallSession, CallRecord) async -> Void,
        isBusyElsewhere: @escaping @Sendable (CallSession) async -> Bool
    ) {
        self.id = id
        self.initiator = initiator
        self.opponents = opponents
        self.conferenceType = conferenceType
        self.currentUser = currentUser
        self.configuration = configuration
        self.clock = clock
        self.outbox = outbox
        self.onEnded = onEnded
        self.isBusyElsewhere = isBusyElsewhere
        var logger = SwiftRTCLogging.logger("calls")
        logger[metadataKey: "session"] = "\(id)"
        self.logger = logger
        localAudioTrack = MediaStreamTrack(kind: .audio)
        localVideoTrack = conferenceType == .video ? MediaStreamTrack(kind: .video) : nil
        for user in ([initiator] + opponents) where user != currentUser { userStates[user] = .new }
    }

    // MARK: Events and state

    /// The session's events from now on; the stream finishes after ``CallSessionEvent/ended(_:)``.
    public func events() -> AsyncStream<CallSessionEvent> { eventHub.subscribe() }

    /// The state of the connection with `user` (``CallConnectionState/unknown`` for a user
    /// not in the call).
    public func connectionState(for user: String) -> CallConnectionState { userStates[user] ?? .unknown }

    /// Every other participant's connection state.
    public var connectionStates: [String: CallConnectionState] { userStates }

    /// The custom items of the call (either side may change them).
    public var customItems: [String: String] { items }

    /// The users talking now (voice activity of what they send).
    public var talkingUsers: Set<String> { speaking }

    func emit(_ event: CallSessionEvent) { eventHub.yield(event) }

    func setState(_ next: CallSessionState) {
        guard state.canMove(to: next) else { return }
        state = next
        logger.info("call \(next.rawValue)")
        emit(.stateChanged(next))
    }

    func setUserState(_ user: String, _ next: CallConnectionState) {
        guard let current = userStates[user], current != next, !current.isFinal else { return }
        userStates[user] = next
        logger.info("participant \(next.rawValue)", metadata: ["user": "\(user)"])
        emit(.connectionStateChanged(user: user, state: next))
        if next == .connecting, let link = links[user] { startConnectTimer(link) }
    }

    func message(to users: [String], _ body: SignalingBody) async {
        guard !users.isEmpty else { return }
        await outbox(SignalingMessage(id: UUID().uuidString, to: users, session: id, body: body))
    }

    /// The link with `user` if it is still the one numbered `serial`.
    func link(_ user: String, _ serial: Int) -> PeerLink? {
        guard let link = links[user], link.serial == serial else { return nil }
        return link
    }

    /// Users still in the call (their state is not final).
    var liveUsers: [String] { userStates.filter { !$0.value.isFinal }.map(\.key).sorted() }

    /// Users this side is in the call with: they accepted (or are the initiator) and are not gone.
    var connectedParticipants: [String] { liveUsers.filter { links[$0] != nil } }
}

/// The connection with one other participant. Only touched on its session's actor.
final class PeerLink {
    let user: String
    /// Tells this link from an earlier one with the same user (tasks refer to links by it).
    let serial: Int
    let connection: PeerConnection
    /// Whether this side made the offer for the pair (and so drives ICE restarts).
    let isOfferer: Bool
    var tasks: [Task<Void, Never>] = []
    var dialing: Task<Void, Never>?
    var answerTimer: Task<Void, Never>?
    var disconnectTimer: Task<Void, Never>?
    /// Ends the pair's call as timed out if it does not connect in time.
    var connectTimer: Task<Void, Never>?
    var callRequest: SignalingMessage?
    let trickle = LinkTrickle()
    var everConnected = false
    var reconnecting = false
    var remoteAudio: MediaStreamTrack?
    var remoteVideo: MediaStreamTrack?
    var receivers: [RTPReceiver] = []
    /// The chat channel (``CallSession/chatLabel``), made with the connection.
    var chat: DataChannel?
    /// Whether the chat channel opened and what waited for it was sent.
    var chatOpen = false
    /// Messages sent before the chat channel opened, in order.
    var chatWaiting: [DataChannel.Message] = []

    init(user: String, serial: Int, connection: PeerConnection, isOfferer: Bool) {
        self.user = user
        self.serial = serial
        self.connection = connection
        self.isOfferer = isOfferer
    }

    func cancelTimers() {
        dialing?.cancel()
        dialing = nil
        answerTimer?.cancel()
        answerTimer = nil
        disconnectTimer?.cancel()
        disconnectTimer = nil
        connectTimer?.cancel()
        connectTimer = nil
    }

    /// Stops every timer and follower task (the connection is closed by the session).
    func cancelAll() {
        cancelTimers()
        for task in tasks { task.cancel() }
        tasks = []
    }
}
