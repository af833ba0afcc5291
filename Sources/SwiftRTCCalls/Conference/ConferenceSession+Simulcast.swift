import SwiftRTCJanus
import SwiftRTCPeer

/// Simulcast on the receiving side: which layer of each publisher's video Janus forwards
/// (`configure` with `substream` and `temporal`), and Janus's word when the layer changes.
extension ConferenceSession {
    /// Asks Janus to forward `publisher`'s video in another simulcast layer (each value within
    /// 0...2; nil keeps that part). The change shows as
    /// ``ConferenceSessionEvent/layerChanged(publisher:layer:)`` once Janus switches, at the
    /// layer's next keyframe (which it asks the publisher for). Nothing when the publisher's
    /// video is not subscribed to.
    public func selectLayer(of publisher: Int64, substream: Int?, temporal: Int? = nil) async throws(ConferenceError) {
        guard let subscriberHandle, let mid = await videoMid(of: publisher) else { return }
        var stream: [String: JanusJSON] = ["mid": .string(mid)]
        if let substream { stream["substream"] = .number(Double(ConferenceLayer.clamped(substream))) }
        if let temporal { stream["temporal"] = .number(Double(ConferenceLayer.clamped(temporal))) }
        do {
            _ = try await subscriberHandle.message(["request": "configure", "streams": [.object(stream)]])
        } catch {
            throw ConferenceError(error)
        }
    }

    /// The layer each subscribed publisher's video comes in, as Janus last said (publishers
    /// that send one encoding are not listed).
    public var receivedLayers: [Int64: ConferenceLayer] { layers }

    /// The subscription's video stream of `publisher`.
    func videoMid(of publisher: Int64) async -> String? {
        guard let connection = subscriptionConnection else { return nil }
        let mids = Set(streams.filter { $0.value.publisher == publisher }.keys)
        return await connection.transceivers.first { $0.kind == .video && $0.mid.map(mids.contains) == true }?.mid
    }

    /// A subscriber event that says a stream's `substream` or `temporal` layer changed: kept
    /// and told as ``ConferenceSessionEvent/layerChanged(publisher:layer:)``.
    func layerChanged(_ data: JanusJSON) {
        guard let (mid, change) = Self.layerChange(data), let publisher = streams[mid]?.publisher else { return }
        var current = layers[publisher] ?? ConferenceLayer(substream: nil)
        if let substream = change.substream { current.substream = substream }
        if let temporal = change.temporal { current.temporal = temporal }
        guard layers[publisher] != nil || layers.count < Self.maxRememberedPublishers else {
            publishersDropped += 1
            return
        }
        layers[publisher] = current
        emit(.layerChanged(publisher: publisher, layer: current))
    }

    /// The stream and layer a VideoRoom event tells of (`mid` with `substream` and/or
    /// `temporal`), read defensively: a `mid` of at most 32 bytes, values within
    /// 0...``ConferenceLayer/highest`` (others, which Janus never sends, are left out).
    package static func layerChange(_ data: JanusJSON) -> (mid: String, layer: ConferenceLayer)? {
        guard let mid = data["mid"]?.string, mid.utf8.count <= 32 else { return nil }
        func layer(_ key: String) -> Int? {
            data[key]?.integer.flatMap { (0...Int64(ConferenceLayer.highest)).contains($0) ? Int($0) : nil }
        }
        let layer = ConferenceLayer(substream: layer("substream"), temporal: layer("temporal"))
        guard layer.substream != nil || layer.temporal != nil else { return nil }
        return (mid, layer)
    }
}
