import Foundation
import SwiftRTCCalls
import SwiftRTCJanus

/// What a Janus server, or anything that answers in its place, sends a `JanusSession`: each line
/// of the input is one WebSocket text message, given to a session with no connection (id 1)
/// that has handle 2 attached, as the session's link gives it what arrives.
///
/// Checks: every line that is JSON encodes again and reads back as the same value (requests
/// carry plugin bodies and ids from replies); the conference session's reading of a plugin
/// event's publishers and subscription streams keeps to its limits; the handle's events are
/// read to the end once the session closes, never more than its buffer holds; nothing traps.
public func fuzzJanus(_ bytes: UnsafeRawBufferPointer) {
    let session = JanusSession.offline(id: 1)
    let events = session.attachOffline(handle: 2)
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
        let data = Data(line)
        if let value = JanusJSON(json: data) {
            guard JanusJSON(json: value.jsonData) == value else { fatalError("JanusJSON does not read back: \(value)") }
            checkConferenceReading(value["plugindata"]?["data"] ?? value)
        }
        session.receive(String(decoding: data, as: UTF8.self))
    }
    session.closeOffline()
    let count = runBlocking {
        var count = 0
        for await _ in events { count += 1 }
        return count
    }
    guard count <= JanusSession.maxBufferedEvents else { fatalError("more events than the buffer holds: \(count)") }
}

/// VideoRoom's lists as `ConferenceSession` reads them: positive ids, names and stream lists
/// cut to their limits; a simulcast layer change within 0...2.
func checkConferenceReading(_ data: JanusJSON) {
    if let (mid, layer) = ConferenceSession.layerChange(data) {
        let valid = [layer.substream, layer.temporal].allSatisfy { $0.map { (0...2).contains($0) } ?? true }
        guard mid.utf8.count <= 32, valid else { fatalError("a layer change read beyond its limits: \(mid) \(layer)") }
    }
    for entry in data["publishers"]?.array ?? [] {
        guard let publisher = ConferenceSession.publisher(entry) else { continue }
        guard publisher.id > 0, (publisher.display?.count ?? 0) <= 256, publisher.streamKinds.count <= 16 else {
            fatalError("a publisher read beyond its limits: \(publisher)")
        }
    }
    let streams = ConferenceSession.subscriptionStreams(data["streams"])
    guard streams.count <= 2 * ConferenceSession.maxPublishers + 1,
        streams.allSatisfy({ $0.mid.utf8.count <= 32 && ($0.publisher ?? 1) > 0 && ($0.display?.count ?? 0) <= 256 })
    else { fatalError("subscription streams read beyond their limits: \(streams.prefix(4))") }
}
