import Foundation
import SwiftRTCDataChannel
import SwiftRTCPeer

/// What happens in a conference room, in order (the SDKs' conference callbacks).
public enum ConferenceSessionEvent: Sendable {
    /// Publishers were in the room on joining, or have begun publishing since
    /// (`onPublishersReceived`).
    case publishersReceived([ConferencePublisher])
    /// A publisher stopped publishing or left the room (`onPublisherLeft`).
    case publisherLeft(id: Int64)
    /// A subscribed publisher's stream arrived: play or record its track.
    case remoteTrack(publisher: Int64, track: MediaStreamTrack)
    /// A subscribed publisher's data channel opened: its ``DataChannel/messages`` are what
    /// it sends with ``ConferenceSession/send(_:)`` (one channel per publisher, for the
    /// session's life).
    case remoteDataChannel(publisher: Int64, channel: DataChannel)
    /// Janus saw loss on a connection (`onSlowLink`): `uplink` true means on what it receives
    /// from us; the publisher whose stream it was, when it said which.
    case slowLink(publisher: Int64?, uplink: Bool, lost: Int)
    /// Janus forwards a subscribed publisher's simulcast video in another layer now
    /// (`onLayerChanged`): after ``ConferenceSession/selectLayer(of:substream:temporal:)``, or
    /// on its own when the chosen layer stops coming.
    case layerChanged(publisher: Int64, layer: ConferenceLayer)
    /// Subscribing to a publisher failed (it left meanwhile, or Janus refused): the reason.
    case subscriptionFailed(publisher: Int64, reason: String)
    /// A publisher's recording ended (it left, or the session did): its complete files.
    case recordingFinished(publisher: Int64, files: [URL])
    /// A publisher's recording could not be made or finished (why; files already written stay).
    case recordingFailed(publisher: Int64, reason: String)
    /// The session ended: ``ConferenceSession/leave()``, or Janus ended it (the reason).
    case ended(reason: String)
}
