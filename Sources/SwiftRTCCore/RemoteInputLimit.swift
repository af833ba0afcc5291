import Synchronization

/// The limits a ``LimitHits`` counts (the stats key is `limitHits.<name>`).
public enum RemoteInputLimit: Int, Sendable, CaseIterable {
    /// A bitrate above ``RemoteInputLimits/maxBitrate`` was clamped.
    case bitrate
    /// A receiver report's round trip above ``RemoteInputLimits/maxRoundTripTime`` was ignored.
    case roundTripTime
    /// A packet of one SSRC more than ``RemoteInputLimits/maxRemoteSSRCsPerTransport``: the
    /// SSRC silent longest (of those learned from packets) was forgotten for it, or, when the
    /// SDP named them all, it was dropped.
    case remoteSSRCs
    /// A remote candidate beyond ``RemoteInputLimits/maxRemoteCandidates`` was dropped.
    case remoteCandidates
    /// NACKed packets beyond the responder's resend budget were not resent.
    case nackResendBudget
    /// A sequence or timestamp jump beyond what the receiver follows restarted it.
    case sequenceJump
    /// A video frame larger than the decoder's maximum resolution was dropped.
    case frameSize
    /// A keyframe request was not sent or not served because of its rate limit.
    case keyframeRequestRate
    /// A queue was full and dropped its oldest (or newest) entry.
    case queueFull
    /// An SRTCP packet over ``RemoteInputLimits/maxRTCPPacketsPerSecond`` was dropped.
    case rtcpRate
    /// A transport-cc reference time or abs-send-time jumped beyond what is followed.
    case feedbackTimeJump
    /// A depacketized video frame above ``RemoteInputLimits/maxEncodedVideoFrameBytes`` was dropped.
    case encodedFrameBytes
    /// An RTX packet whose original sequence number was far from the stream's (see
    /// ``RemoteInputLimits/maxRetransmissionLead``) was dropped.
    case rtxWindow
    /// A trickled candidate received before the description it belongs to, beyond
    /// ``RemoteInputLimits/maxQueuedRemoteCandidates`` kept for it, was dropped.
    case queuedCandidates

    /// The name in stats: the case's name.
    public var name: String { String(describing: self) }
}
