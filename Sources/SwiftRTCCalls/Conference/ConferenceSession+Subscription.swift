import SwiftRTCJanus
import SwiftRTCPeer
import SwiftRTCSDP

/// The subscription: one connection from Janus carrying every subscribed publisher's streams
/// (VideoRoom multistream). Each change (subscribe, unsubscribe, an offer Janus makes on its
/// own when a publisher leaves) is done whole, one at a time: Janus answers `subscribe` with a
/// new offer, which must be answered (`start`) before the next change.
extension ConferenceSession {
    func apply(_ change: SubscriptionChange) async {
        switch change {
        case .subscribe(let ids):
            do throws(ConferenceError) {
                try await requestSubscription(to: ids)
            } catch {
                subscribed.subtract(ids)
                for id in ids { emit(.subscriptionFailed(publisher: id, reason: error.description)) }
            }
        case .unsubscribe(let ids):
            guard let subscriberHandle else { return }
            do {
                let reply = try await subscriberHandle.message([
                    "request": "unsubscribe", "streams": feeds(ids, layer: false),
                ])
                try await answer(reply.jsep, streams: reply.data["streams"])
            } catch {
                logger.warning("unsubscribing from \(ids) failed: \(error)")
            }
        case .answer(let offer, let streams):
            do throws(ConferenceError) { try await answer(offer, streams: streams) } catch {
                logger.warning("answering Janus's subscription offer failed: \(error)")
            }
        }
    }

    /// The publishers to subscribe to (with `layer`, each with ``Options/substream`` and
    /// ``Options/temporal`` when set).
    func feeds(_ ids: [Int64], layer: Bool = true) -> JanusJSON {
        .array(
            ids.map { id in
                var feed: [String: JanusJSON] = ["feed": .number(Double(id))]
                if layer, let substream = options.substream.map(ConferenceLayer.clamped) {
                    feed["substream"] = .number(Double(substream))
                }
                if layer, let temporal = options.temporal.map(ConferenceLayer.clamped) {
                    feed["temporal"] = .number(Double(temporal))
                }
                return .object(feed)
            }
        )
    }

    /// The first subscription joins as a subscriber (Janus offers the streams); later ones
    /// `subscribe` on the same handle (Janus offers the grown subscription).
    func requestSubscription(to ids: [Int64]) async throws(ConferenceError) {
        let reply: JanusHandle.Reply
        do {
            if let subscriberHandle {
                reply = try await subscriberHandle.message(["request": "subscribe", "streams": feeds(ids)])
            } else {
                let handle = try await janus.attach(plugin: Self.videoroom)
                subscriberHandle = handle
                let events = handle.events
                tasks.append(
                    Task { [weak self] in
                        for await event in events { await self?.subscriberHandleEvent(event) }
                    }
                )
                var body: [String: JanusJSON] = [
                    "request": "join", "ptype": "subscriber", "room": .number(Double(room)), "streams": feeds(ids),
                ]
                if let privateID { body["private_id"] = .number(Double(privateID)) }
                reply = try await handle.message(.object(body))
            }
        } catch {
            throw .janus(error)
        }
        try await answer(reply.jsep, streams: reply.data["streams"])
    }

    /// Takes Janus's offer for the subscription (its `streams` say which publisher each `mid`
    /// carries) and answers it with `start`.
    func answer(_ offer: JanusJSEP?, streams list: JanusJSON?) async throws(ConferenceError) {
        await learnStreams(list)
        guard let offer, offer.type == "offer", let subscriberHandle else { return }
        let connection: PeerConnection
        if let subscriptionConnection {
            connection = subscriptionConnection
        } else {
            do { connection = try PeerConnection(configuration: options.connection) } catch {
                throw .connection("\(error)")
            }
            subscriptionConnection = connection
            follow(candidatesOf: connection, to: subscriberHandle)
            // Janus relays the publishers' data only once the subscription's association has
            // sent something and drained (usrsctp's SENDER_DRY event), which a channel of ours
            // brings about, as janus.js opens one: it carries nothing else.
            do { _ = try await connection.createDataChannel(label: Self.dataLabel) } catch {
                throw .connection("\(error)")
            }
            let tracks = await connection.remoteTracks()
            tasks.append(
                Task { [weak self] in
                    for await event in tracks { await self?.trackArrived(event) }
                }
            )
            let channels = connection.dataChannels
            tasks.append(
                Task { [weak self] in
                    for await channel in channels { await self?.dataChannelArrived(channel) }
                }
            )
        }
        do {
            try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer.sdp))
            // A stream Janus gave a `mid` that carried another publisher before comes on that
            // transceiver, with no new track event: announced here.
            for transceiver in await connection.transceivers {
                if let mid = transceiver.mid { announce(transceiver.receiver.track, mid: mid) }
            }
            try await connection.setLocalDescription(try await connection.createAnswer())
            let answer = try await gathered(connection)
            _ = try await subscriberHandle.message(
                ["request": "start", "room": .number(Double(room))],
                jsep: JanusJSEP(type: "answer", sdp: answer)
            )
        } catch {
            throw ConferenceError(error)
        }
    }

    /// Each subscription stream's publisher (`mid` to `feed_id`), from `attached` or `updated`.
    /// Janus reuses the `mid` of a stream that ended for the next one, so a stream that
    /// changes hands leaves what it delivered so far with its old publisher (``delivered``).
    func learnStreams(_ list: JanusJSON?) async {
        let listed = Self.subscriptionStreams(list)
        guard !listed.isEmpty else { return }
        let report = await subscriptionConnection?.stats()
        for stream in listed {
            let mid = stream.mid, publisher = stream.publisher
            if let display = stream.display, let publisher, displays[publisher] == nil,
                displays.count < Self.maxRememberedPublishers
            {
                displays[publisher] = display
            }
            let old = streams[mid]
            guard old?.publisher != publisher else { continue }
            let current = report.map { StreamCounters(mid: mid, in: $0) } ?? StreamCounters()
            if let old { addDelivered(current - old.baseline, to: old.publisher) }
            // Another publisher on a departed one's stream: that one's recording ends now.
            if let old, publisher != nil { await stopRecording(old.publisher) }
            streams[mid] = publisher.map { (publisher: $0, baseline: current) }
            announcedTracks[mid] = nil
            if streams.count > 2 * Self.maxPublishers + 1 { streams[mid] = nil }
        }
    }

    /// A subscription stream as Janus lists it (`attached`, `updated`).
    package struct SubscriptionStream: Sendable, Equatable {
        /// Its `mid` in the subscription (at most 32 bytes).
        package var mid: String
        /// The publisher it carries now; nil when it carries none (it ended).
        package var publisher: Int64?
        /// That publisher's name (at most 256 characters).
        package var display: String?
    }

    /// The streams of a subscription list, read defensively: at most `2 ×`
    /// ``maxPublishers`` `+ 1`, each with a `mid`, a positive publisher id or none.
    package static func subscriptionStreams(_ list: JanusJSON?) -> [SubscriptionStream] {
        (list?.array ?? []).prefix(2 * maxPublishers + 1).compactMap { stream in
            guard let mid = stream["mid"]?.string, mid.utf8.count <= 32 else { return nil }
            let feed = stream["feed_id"]?.integer.flatMap { $0 > 0 ? $0 : nil }
            return SubscriptionStream(
                mid: mid,
                publisher: stream["active"]?.bool == false ? nil : feed,
                display: stream["feed_display"]?.string.map { String($0.prefix(256)) }
            )
        }
    }

    /// Adds what a stream delivered to its publisher's total (for at most
    /// ``maxRememberedPublishers`` publishers; later ones are counted as dropped).
    func addDelivered(_ counters: StreamCounters, to publisher: Int64) {
        guard delivered[publisher] != nil || delivered.count < Self.maxRememberedPublishers else {
            publishersDropped += 1
            return
        }
        delivered[publisher, default: StreamCounters()] += counters
    }

    func trackArrived(_ event: TrackEvent) {
        guard let mid = event.transceiver.mid else { return }
        announce(event.track, mid: mid)
    }

    /// Tells of the track of the stream `mid` once for each publisher it carries.
    func announce(_ track: MediaStreamTrack, mid: String) {
        guard let publisher = streams[mid]?.publisher, announcedTracks[mid] != publisher else { return }
        announcedTracks[mid] = publisher
        emit(.remoteTrack(publisher: publisher, track: track))
        keepForRecording(track, of: publisher)
    }
}

/// What one subscription stream delivered: the counters of its inbound-rtp stats.
struct StreamCounters: Sendable {
    var audioFrames = 0
    var videoFrames = 0
    var packetsLost = 0

    init() {}

    /// The counters of the stream of `mid` in `report` (zero when it has none yet).
    init(mid: String, in report: StatsReport) {
        guard let inbound = report.all(.inboundRTP).first(where: { $0.string("mid") == mid }) else { return }
        let frames = Int(clamping: Int64(exactly: (inbound.number("framesDecoded") ?? 0).rounded()) ?? 0)
        if inbound.string("kind") == "audio" { audioFrames = frames } else { videoFrames = frames }
        packetsLost = Int(clamping: Int64(exactly: (inbound.number("packetsLost") ?? 0).rounded()) ?? 0)
    }

    static func - (left: StreamCounters, right: StreamCounters) -> StreamCounters {
        var result = StreamCounters()
        result.audioFrames = max(0, left.audioFrames &- right.audioFrames)
        result.videoFrames = max(0, left.videoFrames &- right.videoFrames)
        result.packetsLost = left.packetsLost &- right.packetsLost
        return result
    }

    static func += (total: inout StreamCounters, more: StreamCounters) {
        total.audioFrames &+= more.audioFrames
        total.videoFrames &+= more.videoFrames
        total.packetsLost &+= more.packetsLost
    }
}
