import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCICE
import SwiftRTCPeer

/// How a ``CallClient`` makes calls: ICE servers, codecs and caps, the call timers, stats.
///
/// The timer intervals keep the SDKs' minimums: a smaller value is raised to the minimum
/// (dialing 3 s, answer timeout 10 s, disconnect timeout 10 s).
public struct CallConfiguration: Sendable {
    /// STUN and TURN servers (`stun:`, `turn:`, `turns:` URLs with credentials).
    public var iceServers: [IceServer]
    /// Which candidates ICE may use: all, or relayed (TURN) only.
    public var iceTransportPolicy: PeerConnection.Configuration.IceTransportPolicy
    /// Where to gather host candidates (IP literals or interface names); empty is every
    /// interface but loopback, `["127.0.0.1"]` for loopback calls.
    public var gatherAddresses: [String]
    /// The picture size video is sent at (nil: the source's own; see
    /// ``PeerConnection/Configuration/videoSendSize``).
    public var videoSendSize: VideoSize?
    /// The most frames per second video is sent at (1 to 60; default 30).
    public var maxVideoFrameRate: Int
    /// The most bits per second to send audio with (also written as `b=AS`/`b=TIAS`), or nil
    /// for no cap beyond the bandwidth estimate.
    public var audioBandwidthCap: Int?
    /// The most bits per second to send video with (also written as `b=AS`/`b=TIAS`), or nil
    /// for no cap beyond the bandwidth estimate.
    public var videoBandwidthCap: Int?
    /// How often the call request is re-sent while unanswered (default 5 s, at least 3 s).
    public var dialingTimeInterval: Duration {
        didSet { dialingTimeInterval = max(dialingTimeInterval, Self.minimumDialingTimeInterval) }
    }
    /// How long to wait for an answer before "did not respond" (default 45 s, at least 10 s).
    public var answerTimeInterval: Duration {
        didSet { answerTimeInterval = max(answerTimeInterval, Self.minimumAnswerTimeInterval) }
    }
    /// How long a connection may take to come up once it starts connecting (past it the
    /// pair's call ends `timed_out`), and how long a dropped one may try to come back (past it,
    /// `connection_lost`); default 30 s, at least 10 s.
    public var disconnectTimeInterval: Duration {
        didSet { disconnectTimeInterval = max(disconnectTimeInterval, Self.minimumDisconnectTimeInterval) }
    }
    /// How often stats reports are made per user, or nil for none.
    public var statsInterval: Duration?
    /// The most sessions this client is in at once (incoming and outgoing, ringing or talking,
    /// not ended), or nil for no limit (the default: the application decides, with
    /// ``CallClient/activeSession()``). An incoming call beyond it is rejected as busy at once,
    /// as the call SDKs' busy handling does: its caller gets
    /// ``CallSessionEvent/rejected(user:userInfo:busy:)`` with `busy` true instead of ringing
    /// until the answer timeout, and this client reports only
    /// ``CallClientEvent/sessionEnded(_:_:)`` for it, with the result ``CallEndResult/busy``
    /// (never ``CallClientEvent/incomingSession(_:userInfo:)``). A bot that takes one call at a
    /// time sets 1. Values below 1 count as 1.
    public var maxConcurrentCalls: Int?

    /// The smallest dialing interval.
    public static let minimumDialingTimeInterval = Duration.seconds(3)
    /// The smallest answer timeout.
    public static let minimumAnswerTimeInterval = Duration.seconds(10)
    /// The smallest disconnect timeout.
    public static let minimumDisconnectTimeInterval = Duration.seconds(10)

    /// A configuration; intervals below their minimums are raised to them.
    public init(
        iceServers: [IceServer] = [],
        iceTransportPolicy: PeerConnection.Configuration.IceTransportPolicy = .all,
        gatherAddresses: [String] = [],
        videoSendSize: VideoSize? = nil,
        maxVideoFrameRate: Int = 30,
        audioBandwidthCap: Int? = nil,
        videoBandwidthCap: Int? = nil,
        dialingTimeInterval: Duration = .seconds(5),
        answerTimeInterval: Duration = .seconds(45),
        disconnectTimeInterval: Duration = .seconds(30),
        statsInterval: Duration? = nil,
        maxConcurrentCalls: Int? = nil
    ) {
        self.iceServers = iceServers
        self.iceTransportPolicy = iceTransportPolicy
        self.gatherAddresses = gatherAddresses
        self.videoSendSize = videoSendSize
        self.maxVideoFrameRate = maxVideoFrameRate
        self.audioBandwidthCap = audioBandwidthCap
        self.videoBandwidthCap = videoBandwidthCap
        self.dialingTimeInterval = max(dialingTimeInterval, Self.minimumDialingTimeInterval)
        self.answerTimeInterval = max(answerTimeInterval, Self.minimumAnswerTimeInterval)
        self.disconnectTimeInterval = max(disconnectTimeInterval, Self.minimumDisconnectTimeInterval)
        self.statsInterval = statsInterval
        self.maxConcurrentCalls = maxConcurrentCalls
    }

    var peerConfiguration: PeerConnection.Configuration {
        var configuration = PeerConnection.Configuration(
            iceServers: iceServers,
            iceTransportPolicy: iceTransportPolicy,
            gatherAddresses: gatherAddresses,
            maxAudioBitrateKbps: audioBandwidthCap.map { max(1, $0 / 1000) },
            maxVideoBitrateKbps: videoBandwidthCap.map { max(1, $0 / 1000) }
        )
        configuration.videoSendSize = videoSendSize
        configuration.maxVideoFrameRate = maxVideoFrameRate
        return configuration
    }
}
