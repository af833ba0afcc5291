import Foundation
import Logging
import SwiftRTCDataChannel
import SwiftRTCJanus
import SwiftRTCPeer
import SwiftRTCSDP

// Events: what the room's publishers do, told to the reader of `events`, and the end.
extension ConferenceSession {
    func emit(_ event: ConferenceSessionEvent) {
        if case .dropped = eventSink.yield(event) { eventsDropped += 1 }
    }

    /// Publishers that began publishing (from `joined` or a `publishers` event).
    func arrived(_ list: JanusJSON?) {
        guard let list = list?.array, !list.isEmpty else { return }
        var new: [ConferencePublisher] = []
        for entry in list {
            guard let publisher = Self.publisher(entry), publisher.id != id else { continue }
            guard publishers[publisher.id] != nil || publishers.count < Self.maxPublishers else {
                publishersDropped += 1
                continue
            }
            publishers[publisher.id] = publisher
            if let display = publisher.display, displays.count < Self.maxRememberedPublishers {
                displays[publisher.id] = display
            }
            new.append(publisher)
        }
        guard !new.isEmpty else { return }
        emit(.publishersReceived(new))
        if options.subscribesToAll { subscribe(to: new.map(\.id)) }
    }

    /// A publisher as Janus lists it: a positive id, a display name and streams cut to size.
    package static func publisher(_ entry: JanusJSON) -> ConferencePublisher? {
        guard let id = entry["id"]?.integer, id > 0 else { return nil }
        let kinds = (entry["streams"]?.array ?? []).prefix(16).compactMap { stream -> String? in
            guard stream["disabled"]?.bool != true else { return nil }
            return stream["type"]?.string.map { String($0.prefix(16)) }
        }
        return ConferencePublisher(
            id: id,
            display: entry["display"]?.string.map { String($0.prefix(256)) },
            streamKinds: kinds
        )
    }

    /// A publisher left or stopped publishing: Janus takes its streams out of the subscription
    /// (with a new offer, answered when it comes).
    func left(_ publisher: Int64) {
        guard publishers.removeValue(forKey: publisher) != nil else { return }
        subscribed.remove(publisher)
        emit(.publisherLeft(id: publisher))
    }

    func publisherHandleEvent(_ event: JanusHandleEvent) async {
        switch event {
        case .plugin(let data, _):
            arrived(data["publishers"])
            for key in ["leaving", "unpublished"] {
                guard let publisher = data[key]?.integer else { continue }
                left(publisher)
                finishRecording(publisher)
            }
        case .trickle(let candidate):
            await add(candidate, to: publishingConnection)
        case .slowLink(_, let uplink, let lost):
            emit(.slowLink(publisher: nil, uplink: uplink, lost: lost))
        case .hangup(let reason):
            publisherHangups += 1
            logger.warning("Janus hung up the publishing connection: \(reason)")
        case .webRTCUp, .media, .detached:
            break
        }
    }

    func subscriberHandleEvent(_ event: JanusHandleEvent) async {
        switch event {
        case .plugin(let data, let jsep):
            if let jsep, jsep.type == "offer", case .dropped = changes.yield(.answer(jsep, streams: data["streams"])) {
                logger.warning("Janus's subscription offer dropped: too many subscription changes waiting")
            }
            layerChanged(data)
        case .trickle(let candidate):
            await add(candidate, to: subscriptionConnection)
        case .slowLink(let mid, let uplink, let lost):
            emit(.slowLink(publisher: mid.flatMap { streams[$0]?.publisher }, uplink: uplink, lost: lost))
        case .hangup(let reason):
            logger.warning("Janus hung up the subscription connection: \(reason)")
        case .webRTCUp, .media, .detached:
            break
        }
    }

    /// Ends the session once: the event, the connections closed, the handles detached.
    func end(reason: String) async {
        guard !ended else { return }
        ended = true
        changes.finish()
        for task in tasks { task.cancel() }
        tasks = []
        await stopAllRecordings()
        // What the streams delivered, kept: a closed connection has no stats.
        if let report = await subscriptionConnection?.stats() {
            for (publisher, counters) in streamCounters(in: report) { addDelivered(counters, to: publisher) }
        }
        streams = [:]
        await publishingConnection?.close()
        await subscriptionConnection?.close()
        try? await subscriberHandle?.detach()
        try? await publisherHandle.detach()
        emit(.ended(reason: reason))
        eventSink.finish()
    }
}
