import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCDataChannel
import SwiftRTCICE
import SwiftRTCSDP

/// A WebRTC peer connection, shaped like the W3C `RTCPeerConnection`: transceivers and
/// tracks, JSEP offer/answer with the signaling state machine and rollback, trickle or
/// non-trickle ICE, one BUNDLEd ICE+DTLS-SRTP transport, RTP senders and receivers, RTCP,
/// data channels over SCTP on the same DTLS (``createDataChannel(label:options:)``,
/// ``dataChannels``), and stats.
///
/// ```swift
/// let pc = try PeerConnection(configuration: .init(gatherAddresses: ["127.0.0.1"]))
/// let tone = MediaStreamTrack(kind: .audio)
/// tone.play(ToneGenerator())
/// await pc.addTrack(tone)
/// let offer = try await pc.createOffer()
/// try await pc.setLocalDescription(offer)
/// // ... send offer, get answer ...
/// try await pc.setRemoteDescription(answer)
/// for await state in await pc.connectionStates() where state == .connected { break }
/// ```
public actor PeerConnection {
    /// How a connection is made.
    public struct Configuration: Sendable {
        /// Which candidates ICE may use (W3C `RTCIceTransportPolicy`).
        public enum IceTransportPolicy: String, Sendable, Hashable {
            /// Host, server-reflexive and relayed candidates.
            case all
            /// Only relayed (TURN) candidates.
            case relay
        }

        /// How media sections share transports (W3C `RTCBundlePolicy`): SwiftRTC always
        /// BUNDLEs everything on one transport.
        public enum BundlePolicy: String, Sendable, Hashable {
            case maxBundle = "max-bundle"
        }

        /// STUN and TURN servers (`stun:`, `turn:`, `turns:` with credentials).
        public var iceServers: [IceServer]
        /// all, or relay-only.
        public var iceTransportPolicy: IceTransportPolicy
        /// Always max-bundle.
        public var bundlePolicy: BundlePolicy
        /// The DTLS certificate; one is generated per connection if nil.
        public var certificate: DtlsCertificate?
        /// Where to gather host candidates: IP literals or interface names. Empty means
        /// every interface except loopback; give `127.0.0.1` for loopback, or
        /// ``gatherAddresses(toReach:)``.
        public var gatherAddresses: [String]

        /// Where to gather host candidates to reach a server at `host` (a WHIP endpoint, a
        /// signaling server's peers): loopback for a loopback host (libnice gathers there
        /// only when asked), every interface otherwise.
        public static func gatherAddresses(toReach host: String) -> [String] {
            let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
            return loopback ? ["127.0.0.1"] : []
        }
        /// ICE check pacing (Ta); decides connect time.
        public var checkPacing: Duration
        /// The transport threads the connection's ICE agent runs on.
        public var transportThreads: TransportThreadPool
        /// The most audio may use, in kbit/s (nil: no cap): the Opus bitrate is capped, and
        /// local descriptions ask the peer for no more (`b=AS`, `b=TIAS`).
        public var maxAudioBitrateKbps: Int?
        /// The most video may use, in kbit/s (nil: no cap): the encoder's target never goes
        /// above it whatever the bandwidth estimate, and local descriptions ask the peer for
        /// no more (`b=AS`, `b=TIAS`).
        public var maxVideoBitrateKbps: Int?
        /// The largest remote video picture decoded, in pixels (width × height, either
        /// orientation); a keyframe stating more is dropped before the decoder sees it and
        /// counted (`limitHits.frameSize`). Default ``RemoteInputLimits/maxDecodedPixels``
        /// (3840×2160).
        public var maxDecodedPixels = RemoteInputLimits.maxDecodedPixels
        /// The picture size video is sent at: every frame is scaled to it (nil: each frame's
        /// own size; a source whose size changes, a screen share after the camera, makes the
        /// encoder start over at the new size with a keyframe). Each side is held to 16...4096
        /// pixels, the sizes the VP8 encoder takes.
        public var videoSendSize: VideoSize? {
            didSet {
                guard let size = videoSendSize else { return }
                videoSendSize = VideoSize(
                    width: min(max(size.width, 16), 4096),
                    height: min(max(size.height, 16), 4096)
                )
            }
        }
        /// The most frames per second video is sent at (1 to 60; default 30); the bandwidth
        /// estimate may lower it further.
        public var maxVideoFrameRate = 30 { didSet { maxVideoFrameRate = min(max(maxVideoFrameRate, 1), 60) } }

        /// Creates a configuration.
        public init(
            iceServers: [IceServer] = [],
            iceTransportPolicy: IceTransportPolicy = .all,
            bundlePolicy: BundlePolicy = .maxBundle,
            certificate: DtlsCertificate? = nil,
            gatherAddresses: [String] = [],
            checkPacing: Duration = .milliseconds(5),
            transportThreads: TransportThreadPool = .shared,
            maxAudioBitrateKbps: Int? = nil,
            maxVideoBitrateKbps: Int? = nil
        ) {
            self.iceServers = iceServers
            self.iceTransportPolicy = iceTransportPolicy
            self.bundlePolicy = bundlePolicy
            self.certificate = certificate
            self.gatherAddresses = gatherAddresses
            self.checkPacing = checkPacing
            self.transportThreads = transportThreads
            self.maxAudioBitrateKbps = maxAudioBitrateKbps
            self.maxVideoBitrateKbps = maxVideoBitrateKbps
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The certificate whose fingerprint goes in local descriptions.
    public let certificate: DtlsCertificate
    let logger = SwiftRTCLogging.logger("peer")
    let cname = UUID().uuidString.lowercased()
    let sessionId = UInt64.random(in: 1..<(1 << 62))
    var sessionVersion: UInt64 = 1

    // Signaling
    var signaling: SignalingState = .stable
    var pendingLocal: SessionDescription?
    var currentLocal: SessionDescription?
    var pendingRemote: SessionDescription?
    var currentRemote: SessionDescription?
    /// Whether the current local description was an offer.
    var currentLocalIsOffer = false
    /// Transceivers before a remote offer was applied, for rollback.
    var rollbackTransceivers: [(RTPTransceiver, String?)]?
    var transceiverList: [RTPTransceiver] = []
    /// Transceivers whose remote track was announced.
    var announced: Set<ObjectIdentifier> = []
    var isClosed = false
    /// How often this connection hit each of ``RemoteInputLimits`` (transport stats,
    /// `limitHits.<name>`); shared with the transport's data plane.
    /// Public so that what holds remote input for the connection before it reaches it (a
    /// call session's queued trickled candidates) counts its hits here too.
    public nonisolated let limitHits = LimitHits()

    // Transport
    var transport: PeerTransport?
    var localCandidateList: [SwiftRTCSDP.IceCandidate] = []
    /// Remote candidates given to the agent (transport address), since the last remote ICE
    /// credentials: libnice re-checks a candidate added twice and can stay in checking.
    var remoteCandidateKeys: Set<String> = []
    var dtlsStarted = false
    var iceState: IceConnectionState = .new
    var dtlsState: DtlsState = .new
    /// What the DTLS handshake negotiated, by IANA name, once connected (for the transport
    /// stats; the keys stay with the SRTP session).
    var dtlsNegotiated: (role: DtlsRole, cipherSuite: String, srtpProfile: String)?
    var startedAt: ContinuousClock.Instant?
    /// Time from the transport's start to ICE connected, and to DTLS connected.
    public internal(set) var iceConnectedAfter: Duration?
    public internal(set) var dtlsConnectedAfter: Duration?
    var tasks: [Task<Void, Never>] = []

    // Data channels
    /// The data channels and their SCTP association (made once DTLS is up).
    nonisolated let dataTransport = DataChannelTransport()
    /// A channel was asked for: offers carry a data section.
    var dataWanted = false
    /// The data section's mid, once a description had one.
    var dataMid: String?
    /// What the negotiated data section said: the ports and the peer's message limit.
    var dataNegotiated: DataChannelTransport.Parameters?
    var statsRates = StatsRates()
    var lastStatsForString: StatsReport?

    // Events
    let signalingStates = Broadcast<SignalingState>(replaysLatest: true, initial: .stable)
    let connectionStateEvents = Broadcast<PeerConnectionState>(replaysLatest: true, initial: .new)
    let iceConnectionStateEvents = Broadcast<IceConnectionState>(replaysLatest: true, initial: .new)
    let gatheringStateEvents = Broadcast<IceGatheringState>(replaysLatest: true, initial: .new)
    let candidateEvents = Broadcast<IceCandidateInit>(replaysLatest: false, buffering: .unbounded)
    let trackEvents = Broadcast<TrackEvent>(replaysLatest: false, buffering: .unbounded)

    /// Creates a connection; the ICE agent starts (and gathers) with the first offer or
    /// remote offer.
    public init(configuration: Configuration = Configuration()) throws(DtlsError) {
        self.configuration = configuration
        if let given = configuration.certificate {
            certificate = given
        } else {
            certificate = try DtlsCertificate.generate()
        }
    }

    // MARK: State

    /// The JSEP signaling state.
    public var signalingState: SignalingState { signaling }
    /// The connection state (ICE and DTLS together).
    public var connectionState: PeerConnectionState { connectionStateEvents.latest ?? .new }
    /// The ICE connection state.
    public var iceConnectionState: IceConnectionState { iceConnectionStateEvents.latest ?? .new }
    /// The ICE gathering state.
    public var iceGatheringState: IceGatheringState { gatheringStateEvents.latest ?? .new }

    /// Signaling states: the current one, then each change.
    public func signalingStateChanges() -> AsyncStream<SignalingState> { signalingStates.subscribe() }
    /// Connection states: the current one, then each change.
    public func connectionStates() -> AsyncStream<PeerConnectionState> { connectionStateEvents.subscribe() }
    /// ICE connection states: the current one, then each change.
    public func iceConnectionStates() -> AsyncStream<IceConnectionState> { iceConnectionStateEvents.subscribe() }
    /// ICE gathering states: the current one, then each change.
    public func iceGatheringStates() -> AsyncStream<IceGatheringState> { gatheringStateEvents.subscribe() }
    /// Local candidates (trickle): those gathered so far, then each new one as it is
    /// gathered; each gathering ends with an end-of-candidates marker (empty `candidate`).
    /// Each carries the local username fragment of its ICE generation.
    public func localCandidates() -> AsyncStream<IceCandidateInit> {
        var past = localCandidateList.map { trickled($0.sdpLine) }
        if iceGatheringState == .complete { past.append(trickled("")) }
        return candidateEvents.subscribe(replaying: past)
    }
    /// Remote tracks as the remote descriptions announce them.
    public func remoteTracks() -> AsyncStream<TrackEvent> { trackEvents.subscribe() }

    /// The transceivers, in the order of their media sections.
    public var transceivers: [RTPTransceiver] { transceiverList }

    // MARK: Tracks

    /// Adds a local track: reuses an unused transceiver of its kind or adds a `sendrecv` one.
    @discardableResult
    public func addTrack(_ track: MediaStreamTrack, streamId: String? = nil) throws(PeerConnectionError) -> RTPSender {
        guard !isClosed else { throw .closed }
        if let free = transceiverList.first(where: {
            $0.kind == track.kind && $0.sender.track == nil && !$0.direction.sends
        }) {
            free.sender.replaceTrack(track)
            free.direction = free.direction.receives ? .sendrecv : .sendonly
            return free.sender
        }
        let transceiver = RTPTransceiver(
            kind: track.kind,
            direction: .sendrecv,
            track: track,
            streamId: streamId ?? cname
        )
        transceiverList.append(transceiver)
        return transceiver.sender
    }

    /// Adds a transceiver of `kind` (audio or video) with `direction`, and optionally a track.
    ///
    /// `sendEncodings` sends video as simulcast (RFC 8853; ``RTPEncodingParameters/threeLayers``
    /// for the usual three): the offer lists each encoding's rid, and once the answer accepts
    /// them each goes out on its own SSRC, scaled and with its share of the bitrate; an answer
    /// without simulcast gets the first (highest resolution) encoding alone.
    @discardableResult
    public func addTransceiver(
        _ kind: MediaKind,
        direction: MediaDirection = .sendrecv,
        track: MediaStreamTrack? = nil,
        sendEncodings: [RTPEncodingParameters] = []
    ) throws(PeerConnectionError) -> RTPTransceiver {
        guard !isClosed else { throw .closed }
        guard kind == .audio || kind == .video else { throw .unsupportedKind(kind.rawValue) }
        if !sendEncodings.isEmpty {
            guard kind == .video else { throw .invalidEncodings("simulcast is for video") }
            if let problem = RTPEncodingParameters.problem(with: sendEncodings) { throw .invalidEncodings(problem) }
        }
        let transceiver = RTPTransceiver(
            kind: kind,
            direction: direction,
            track: track,
            streamId: cname,
            sendEncodings: sendEncodings
        )
        transceiverList.append(transceiver)
        return transceiver
    }

    /// Waits until every sender has sent the video frames its track still held, at most
    /// `timeout`: stop the local tracks first (their frames end), then call this before
    /// leaving, so that the last moments captured reach the peer (and its recording) in both
    /// kinds. Returns whether all were sent in time.
    public func sendersDrained(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        var all = true
        for sender in transceiverList.flatMap(\.sender.simulcastSenders) {
            all = await sender.drained(by: deadline) && all
        }
        return all
    }

    // MARK: Close

    /// Closes the connection: stops senders, receivers and tracks, closes DTLS and the ICE
    /// agent, ends every event sequence. Idempotent.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for task in tasks { task.cancel() }
        tasks = []
        for transceiver in transceiverList {
            transceiver.sender.stop()
            transceiver.receiver.stop()
        }
        dataTransport.close()
        await transport?.close()
        transport = nil
        signaling = .closed
        signalingStates.yield(.closed)
        iceConnectionStateEvents.yield(.closed)
        connectionStateEvents.yield(.closed)
        signalingStates.finish()
        connectionStateEvents.finish()
        iceConnectionStateEvents.finish()
        gatheringStateEvents.finish()
        candidateEvents.finish()
        trackEvents.finish()
    }
}
