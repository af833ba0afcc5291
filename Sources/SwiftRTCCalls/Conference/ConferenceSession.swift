import Foundation
import Logging
import SwiftRTCDataChannel
import SwiftRTCJanus
import SwiftRTCPeer
import SwiftRTCSDP

/// A bot in a conference room of Janus's VideoRoom plugin, shaped like the call SDKs'
/// conference API (`joinDialog`, `onPublishersReceived`, `onPublisherLeft`, `leave`): it joins
/// as a publisher or a listener, hears of the room's publishers as they come and go, and
/// receives every publisher it subscribes to on one subscription connection (Janus
/// multistream: one stream per publisher's audio and video).
///
/// A publisher sends ``localAudioTrack`` and ``localVideoTrack`` on a connection of its own; a
/// listener joins the room only to hear of its publishers and never publishes.
///
/// ```swift
/// let janus = try await JanusSession.connect(.init(url: URL(string: "ws://127.0.0.1:8188")!))
/// let room = try await ConferenceSession.join(janus, room: 1234, display: "recorder", role: .listener)
/// for await event in room.events {
///     if case .remoteTrack(let publisher, let track) = event { record(track, as: publisher) }
/// }
/// ```
public actor ConferenceSession {
    /// How to join.
    public struct Options: Sendable {
        /// The name the room shows for this bot.
        public var display: String?
        /// Publisher or listener.
        public var role: ConferenceRole = .publisher
        /// Whether a publisher sends audio.
        public var audio = true
        /// Whether a publisher sends video.
        public var video = true
        /// Whether a publisher sends its video as simulcast, in the three encodings of
        /// ``RTPEncodingParameters/threeLayers`` (full, half and quarter size), each in three
        /// temporal layers: Janus forwards each subscriber the layer it chose
        /// (``selectLayer(of:substream:temporal:)``).
        public var simulcast = false
        /// The simulcast layer to receive of each publisher that sends several (Janus's
        /// `substream`: 0 the smallest, 2 the largest); nil leaves Janus's default, the largest.
        public var substream: Int?
        /// The temporal layer to receive of each publisher whose video has several (Janus's
        /// `temporal`: 0 a quarter of the frames, 1 half, 2 all); nil leaves Janus's default, all.
        public var temporal: Int?
        /// Whether a publisher opens a data channel to the room (``ConferenceSession/send(_:)``;
        /// off by default: a bot that only sends media has no SCTP association to run). Every
        /// bot receives the data of the publishers it subscribes to, whatever this says.
        public var data = false
        /// Subscribes to every publisher as it arrives (as a participant does); without it,
        /// ``subscribe(to:)`` chooses.
        public var subscribesToAll = true
        /// Creates the room when it does not exist.
        public var createsRoom = false
        /// Records each subscribed publisher's audio and video into a WebM file of its own in
        /// this folder (`<display>-<id>.webm`), from its arrival until it leaves or the session
        /// ends (``ConferenceSessionEvent/recordingFinished(publisher:files:)``).
        public var recording: RecordingFolder?
        /// The connections' configuration (ICE servers, addresses to gather...).
        public var connection = PeerConnection.Configuration()
        /// How long ICE gathering may take before an offer or answer leaves without the rest.
        public var gatheringTimeout: Duration = .seconds(10)
        /// Where the session's steps and failures are logged.
        public var logger = Logger(label: "swiftrtc.conference")

        /// The defaults: a publisher of audio and video that subscribes to everyone.
        public init() {}
    }

    /// Publishers tracked in one room, at most (Janus's own default is 3; rooms of hundreds
    /// are rare): a larger list is cut, and the cut counted in ``publishersDropped``.
    public static let maxPublishers = 256
    /// Events kept for a reader that is behind; older ones are dropped and counted
    /// (``eventsDropped``).
    public static let maxBufferedEvents = 1024
    /// Publishers remembered for the report (what their streams delivered, their names),
    /// gone ones included, at most.
    static let maxRememberedPublishers = 4 * maxPublishers
    /// Subscription changes waiting for their turn (each waits for Janus), at most.
    static let maxQueuedChanges = 256
    /// How long a leaving publisher may take to send what its tracks still held (a frame's
    /// encoding and pacing, normally some tens of milliseconds).
    public static let sendDrain = Duration.seconds(1)
    static let videoroom = "janus.plugin.videoroom"

    /// The room's number.
    public nonisolated let room: Int64
    /// Publisher or listener.
    public nonisolated let role: ConferenceRole
    /// Janus's id of this bot in the room.
    public nonisolated let id: Int64
    /// What happens in the room, in order; ends after ``ConferenceSessionEvent/ended(reason:)``.
    public nonisolated let events: AsyncStream<ConferenceSessionEvent>
    /// The audio a publisher sends: play any audio source into it. Nil for a listener or
    /// without ``Options/audio``.
    public nonisolated let localAudioTrack: MediaStreamTrack?
    /// The video a publisher sends. Nil for a listener or without ``Options/video``.
    public nonisolated let localVideoTrack: MediaStreamTrack?
    /// The Janus session the room runs on.
    public nonisolated let janus: JanusSession

    let options: Options
    let privateID: Int64?
    let publisherHandle: JanusHandle
    let eventSink: AsyncStream<ConferenceSessionEvent>.Continuation
    /// Subscription changes, done one at a time (each waits for Janus).
    let changes: AsyncStream<SubscriptionChange>.Continuation
    let changeStream: AsyncStream<SubscriptionChange>
    var logger: Logger { options.logger }

    /// The publishers in the room now, by id (not this bot).
    public internal(set) var publishers: [Int64: ConferencePublisher] = [:]
    /// Janus's hang-ups of the publishing connection so far (``unpublish()`` waits for one).
    var publisherHangups = 0
    /// The connection that sends this bot's media (a publisher, once published).
    public internal(set) var publishingConnection: PeerConnection?
    /// The publishing connection's data channel (with ``Options/data``, once published).
    var publishingChannel: DataChannel?
    /// Each subscribed publisher's channel of the subscription, by publisher.
    var remoteChannels: [Int64: DataChannel] = [:]
    /// Messages of a publisher's channels that Janus replaced.
    var dataMessagesReceived: [Int64: Int] = [:]
    /// Channels Janus opened that carry no publisher's id, or past the limit.
    public internal(set) var dataChannelsRefused = 0
    /// The connection that receives the subscribed publishers (once the first subscription).
    public internal(set) var subscriptionConnection: PeerConnection?
    var subscriberHandle: JanusHandle?
    /// The subscription's streams: each `mid` of the subscription connection, its publisher
    /// and the stream's counters when it became theirs.
    var streams: [String: (publisher: Int64, baseline: StreamCounters)] = [:]
    /// The publisher each stream's track was announced for (``ConferenceSessionEvent/remoteTrack(publisher:track:)``).
    var announcedTracks: [String: Int64] = [:]
    /// What streams that ended (or changed hands) delivered, per publisher.
    var delivered: [Int64: StreamCounters] = [:]
    /// The display names of every publisher subscribed to, gone or not.
    var displays: [Int64: String] = [:]
    /// Publishers subscribed to (asked for, and not since left).
    var subscribed: Set<Int64> = []
    /// The simulcast layer each publisher's video comes in, as Janus last said.
    var layers: [Int64: ConferenceLayer] = [:]
    var tasks: [Task<Void, Never>] = []
    var ended = false
    /// Tracks of publishers whose recording waits for their other kind.
    var arrivedTracks: [Int64: [MediaStreamTrack]] = [:]
    /// The recording of each publisher being recorded.
    var recorders: [Int64: MediaRecorder] = [:]
    /// Publishers cut from lists longer than ``maxPublishers``.
    public internal(set) var publishersDropped = 0
    /// Events dropped because the reader was behind.
    public internal(set) var eventsDropped = 0

    enum SubscriptionChange: Sendable {
        case subscribe([Int64])
        case unsubscribe([Int64])
        /// An offer Janus sent on its own (a subscribed publisher left): answer it.
        case answer(JanusJSEP, streams: JanusJSON?)
    }

    init(
        janus: JanusSession,
        room: Int64,
        id: Int64,
        privateID: Int64?,
        handle: JanusHandle,
        options: Options
    ) {
        self.janus = janus
        self.room = room
        self.id = id
        self.privateID = privateID
        self.role = options.role
        self.options = options
        self.publisherHandle = handle
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maxBufferedEvents))
        (changeStream, changes) = AsyncStream.makeStream(
            of: SubscriptionChange.self,
            bufferingPolicy: .bufferingOldest(Self.maxQueuedChanges)
        )
        if options.role == .publisher {
            localAudioTrack = options.audio ? MediaStreamTrack(kind: .audio) : nil
            localVideoTrack = options.video ? MediaStreamTrack(kind: .video) : nil
        } else {
            localAudioTrack = nil
            localVideoTrack = nil
        }
    }

    /// Joins `room` on `janus`: as a publisher it publishes ``localAudioTrack`` (and
    /// ``localVideoTrack``) before it returns; with ``Options/subscribesToAll`` it subscribes to
    /// the room's publishers (each announced by ``events``).
    public static func join(
        _ janus: JanusSession,
        room: Int64,
        options: Options = Options()
    ) async throws(ConferenceError) -> ConferenceSession {
        let handle: JanusHandle
        do { handle = try await janus.attach(plugin: videoroom) } catch { throw .janus(error) }
        do {
            if options.createsRoom { try await create(room: room, on: handle) }
            var body: [String: JanusJSON] = ["request": "join", "ptype": "publisher", "room": .number(Double(room))]
            if let display = options.display { body["display"] = .string(display) }
            let joined = try await handle.message(.object(body)).data
            guard joined["videoroom"]?.string == "joined", let id = joined["id"]?.integer else {
                throw ConferenceError.unexpectedReply("join answered \(joined)")
            }
            let session = ConferenceSession(
                janus: janus,
                room: room,
                id: id,
                privateID: joined["private_id"]?.integer,
                handle: handle,
                options: options
            )
            await session.start(joined: joined)
            do { try await session.publish() } catch {
                await session.leave()
                throw error
            }
            return session
        } catch {
            try? await handle.detach()
            throw ConferenceError(error)
        }
    }

    /// VideoRoom's error for a room that exists already.
    static let roomExists = 427

    /// Creates `room` unless it exists (a VP8 and Opus room for up to ``maxPublishers``); a
    /// room another bot created meanwhile is as good.
    static func create(room: Int64, on handle: JanusHandle) async throws(JanusError) {
        let exists = try await handle.request(["request": "exists", "room": .number(Double(room))])
        guard exists["exists"]?.bool != true else { return }
        do {
            _ = try await handle.request([
                "request": "create", "room": .number(Double(room)), "publishers": .number(Double(maxPublishers)),
                "audiocodec": "opus", "videocodec": "vp8", "permanent": false,
            ])
        } catch .plugin(code: roomExists, _) {
            return
        }
    }

    /// After the join: follows the publisher handle and the session, takes the room's
    /// publishers, and publishes.
    func start(joined: JanusJSON) async {
        let changeStream = changeStream
        tasks.append(
            Task { [weak self] in
                for await change in changeStream {
                    guard let self else { return }
                    await self.apply(change)
                }
            }
        )
        let handleEvents = publisherHandle.events
        tasks.append(
            Task { [weak self] in
                for await event in handleEvents {
                    guard let self else { return }
                    await self.publisherHandleEvent(event)
                }
                await self?.end(reason: "the room's handle was detached")
            }
        )
        let sessionEvents = janus.events
        tasks.append(
            Task { [weak self] in
                for await event in sessionEvents {
                    guard case .closed(let reason) = event else { continue }
                    await self?.end(reason: "the Janus session closed: \(reason)")
                    return
                }
            }
        )
        arrived(joined["publishers"])
    }

    /// Subscribes to `publishers` (ids from ``ConferenceSessionEvent/publishersReceived(_:)``):
    /// their streams arrive as ``ConferenceSessionEvent/remoteTrack(publisher:track:)``, or a
    /// ``ConferenceSessionEvent/subscriptionFailed(publisher:reason:)`` says why not.
    public func subscribe(to publishers: [Int64]) {
        let new = publishers.filter { $0 != id && !subscribed.contains($0) }
        guard !new.isEmpty, !ended else { return }
        subscribed.formUnion(new)
        if case .dropped = changes.yield(.subscribe(new)) {
            subscribed.subtract(new)
            for publisher in new {
                emit(.subscriptionFailed(publisher: publisher, reason: "too many subscription changes waiting"))
            }
        }
    }

    /// Stops receiving `publishers`.
    public func unsubscribe(from publishers: [Int64]) {
        let old = publishers.filter { subscribed.contains($0) }
        guard !old.isEmpty, !ended else { return }
        subscribed.subtract(old)
        if case .dropped = changes.yield(.unsubscribe(old)) {
            logger.warning("unsubscribing from \(old) dropped: too many subscription changes waiting")
        }
    }

    /// Leaves the room: tells Janus, closes the connections and detaches the handles (the
    /// Janus session stays open for the caller). ``events`` ends. A publisher first stops its
    /// tracks and sends what they still held (at most ``sendDrain``), so that the room's
    /// recordings of it end with its last moments in both kinds; while recording, it lets the
    /// recordings take what was received (about a second more).
    public func leave() async {
        guard !ended else { return }
        if let publishingConnection {
            localAudioTrack?.stop()
            localVideoTrack?.stop()
            if !(await publishingConnection.sendersDrained(within: Self.sendDrain)) {
                logger.warning("leaving before the last video frames were sent (more than \(Self.sendDrain))")
            }
        }
        _ = try? await publisherHandle.request(["request": "leave"])
        // Recording: Janus stops relaying (`pause`), and what the receivers still hold (up to
        // their playout delay) plays out into the files before they end.
        if !recorders.isEmpty, let subscriberHandle {
            _ = try? await subscriberHandle.message(["request": "pause"])
            try? await Task.sleep(for: Self.recordingDrain)
        }
        await end(reason: "left")
    }

    /// What each publisher subscribed to delivered so far, gone ones included (after the
    /// session ended: in all).
    public func publisherStats() async -> [ConferencePublisherStats] {
        var totals = delivered
        if let report = await subscriptionConnection?.stats() {
            for (publisher, counters) in streamCounters(in: report) {
                totals[publisher, default: StreamCounters()] += counters
            }
        }
        let messages = dataMessages()
        for publisher in messages.keys where totals[publisher] == nil { totals[publisher] = StreamCounters() }
        return totals.map { publisher, counters in
            ConferencePublisherStats(
                id: publisher,
                display: displays[publisher] ?? publishers[publisher]?.display,
                audioFramesDecoded: counters.audioFrames,
                videoFramesDecoded: counters.videoFrames,
                packetsLost: counters.packetsLost,
                dataMessagesReceived: messages[publisher] ?? 0,
                layer: layers[publisher]
            )
        }
        .sorted { $0.id < $1.id }
    }

    /// What each current stream delivered since it became its publisher's, by publisher.
    func streamCounters(in report: StatsReport) -> [(publisher: Int64, counters: StreamCounters)] {
        streams.map { mid, stream in (stream.publisher, StreamCounters(mid: mid, in: report) - stream.baseline) }
    }

    /// Both connections' statsString, each under a heading.
    public func statsString() async -> String {
        var parts: [String] = []
        if let publishingConnection { parts.append("publishing\n" + (await publishingConnection.statsString())) }
        if let subscriptionConnection { parts.append("subscription\n" + (await subscriptionConnection.statsString())) }
        return parts.joined(separator: "\n")
    }
}
