import Synchronization

/// Every bound SwiftRTC puts on what a peer, a request or a file controls, in one place.
///
/// Remote input is hostile until proven otherwise (DESIGN.md, "Errors and bad input"): a
/// number from the network or from a file is clamped to the range given here where it
/// enters (the parser or the first code that reads it), so the arithmetic after it cannot
/// trap; a table or queue a peer can grow stops at the size given here, and each time one
/// of these limits is hit a ``LimitHits`` counter says so in the stats.
public enum RemoteInputLimits {
    // MARK: Bitrates

    /// The highest bitrate a peer may state, in bits/s (SDP `b=AS`/`b=TIAS`, RTCP REMB):
    /// 1 Gbit/s. Larger values are read as this.
    public static let maxBitrate = 1_000_000_000

    // MARK: Round trips and times

    /// The longest round-trip time taken from a receiver report (RFC 3550 §6.4.1), in
    /// seconds; a longer one (a peer's made-up LSR/DLSR) is not used.
    public static let maxRoundTripTime = 10.0
    /// The longest step, in seconds, an RTP timestamp may take between two frames of a
    /// stream and still be followed as time (recorders, playout); a longer jump counts as
    /// no time.
    public static let maxTimestampJump = 60

    // MARK: Session descriptions

    /// The most `m=` sections a description may have (an offer with more is refused).
    public static let maxMediaSections = 64
    /// The most `a=candidate` lines a section may have (a description with more is refused).
    public static let maxCandidatesPerSection = 64
    /// The most remote candidates one connection takes (from descriptions and trickled,
    /// since the last ICE restart); more are dropped and counted.
    public static let maxRemoteCandidates = 128
    /// The most trickled candidates kept for one connection while the remote description
    /// they belong to has not arrived (a callee that has not answered yet, the candidates of
    /// an ICE restart ahead of its offer); they are applied after it, more are dropped and
    /// counted as `queuedCandidates`.
    public static let maxQueuedRemoteCandidates = 64
    /// The most lines a description may have (an offer with more is refused).
    public static let maxDescriptionLines = 10_000

    // MARK: Streams

    /// The most remote SSRCs one transport routes (RTP streams, RTX streams); a further SSRC
    /// takes the place of the learned one silent longest (counted), or is dropped when the SDP
    /// named them all.
    public static let maxRemoteSSRCsPerTransport = 32

    // MARK: RTCP

    /// The most SRTCP packets one transport takes from the peer per second (browsers send
    /// some 10 to 100: reports, transport-cc, NACK, PLI); more are dropped unread and counted.
    public static let maxRTCPPacketsPerSecond = 500
    /// The most statuses read from one transport-cc feedback packet (the sender's history
    /// holds 8192 packets; honest feedback reports a few hundred).
    public static let maxTransportFeedbackStatuses = 8192

    // MARK: RTP receive and resend

    /// The most missing packets the NACK generator of one stream keeps asking for; a
    /// sequence jump that leaves more holes than this starts it over (the holes are given
    /// up, counted as `sequenceJump`, and a keyframe is asked for).
    public static let maxNackMissingPackets = 500
    /// How many sequence numbers back a missing packet is still asked for (NACK), and a
    /// retransmission (RTX) still taken.
    public static let maxNackAge = 1000
    /// The most sequence numbers read from one generic NACK (RFC 4585 PID+BLP pairs): the
    /// pairs after them are ignored.
    public static let maxNackedSequenceNumbers = 1024
    /// The most packets one NACK from the peer makes a sender resend (its history holds 512);
    /// the rest are refused and counted as `nackResendBudget`.
    public static let maxResendsPerNack = 128
    /// The resend budget of a sender: retransmissions may use the stream's target bitrate,
    /// and at least this many bits/s (libwebrtc also caps them at the target bitrate); what
    /// a NACK asks for beyond it is refused and counted as `nackResendBudget`.
    public static let minResendBitrate = 500_000
    /// The seconds of budget a sender may spend at once (the token bucket's depth).
    public static let resendBudgetWindow = 1.0
    /// The least time between two resends of the same packet, in seconds, also before the
    /// round-trip time is known (then the RTT is the least time).
    public static let minResendInterval = 0.01
    /// How far ahead of the newest media packet an RTX original sequence number may be;
    /// an RTX packet further ahead, or more than ``maxNackAge`` behind, is dropped and
    /// counted as `rtxWindow`.
    public static let maxRetransmissionLead = 64
    /// The largest change of a stream's transit time (arrival time minus RTP time) between
    /// two packets taken as jitter, in seconds; a larger one is a timestamp jump: it stays
    /// out of the jitter estimates and the playout clock starts over from it (counted as
    /// `sequenceJump`).
    public static let maxTransitJump = 2.0
    /// The least time between two keyframes the encoder makes for the peer's PLI or FIR, in
    /// seconds (libwebrtc's minimum keyframe send interval); requests within it are counted
    /// as `keyframeRequestRate` and otherwise ignored.
    public static let minKeyframeRequestInterval = 0.3
    /// The default largest picture a receiver decodes, in pixels (width × height, either
    /// orientation): 3840×2160 (4K UHD). `PeerConnection.Configuration.maxDecodedPixels`
    /// sets it; a VP8 keyframe whose header states more is dropped before libvpx sees it
    /// (counted as `frameSize`), and so are the delta frames after it.
    public static let maxDecodedPixels = 3840 * 2160
    /// The largest VP8 frame a receiver assembles from packets, in bytes (2 MiB: a 4K
    /// keyframe stays well below it); a larger one is dropped (counted as `encodedFrameBytes`).
    public static let maxEncodedVideoFrameBytes = 2 << 20
    /// The frames that wait for a receiver's decoder: audio (2 s of 20 ms frames) and video
    /// (2 s at 30 fps). When full the oldest is dropped (counted as `queueFull`).
    public static let decoderQueueAudioFrames = 100
    public static let decoderQueueVideoFrames = 60
}
