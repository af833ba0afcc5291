/// What Janus tells a plugin handle without being asked.
public enum JanusHandleEvent: Sendable, Equatable {
    /// A plugin event: VideoRoom's `publishers`, `leaving`, `unpublished`, `talking`,
    /// `configured`..., with an SDP when the plugin sends one (a subscription's offer).
    case plugin(data: JanusJSON, jsep: JanusJSEP?)
    /// The PeerConnection with Janus is up (ICE and DTLS done).
    case webRTCUp
    /// Janus started or stopped receiving a medium (`type`: audio or video; `mid`).
    case media(type: String, mid: String?, receiving: Bool)
    /// Janus saw loss: `uplink` true means what it receives from us, false what it sends us.
    case slowLink(mid: String?, uplink: Bool, lost: Int)
    /// The PeerConnection with Janus ended (the reason).
    case hangup(reason: String)
    /// A candidate of Janus's; nil: it has no more.
    case trickle(JanusCandidate?)
    /// The handle was detached: no more events.
    case detached
}
