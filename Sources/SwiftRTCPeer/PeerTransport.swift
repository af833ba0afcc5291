import Glibc
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCRTP
import SwiftRTCSRTP
import Synchronization

/// The one BUNDLEd transport of a ``PeerConnection``: an ``IceAgent`` carrying DTLS and
/// SRTP/SRTCP with rtcp-mux, and the data plane on its transport thread (DESIGN.md, "Two
/// planes"): RFC 7983 demultiplexing, DTLS records to the ``DtlsTransport``, RTP and RTCP
/// unprotected in place in one reusable buffer, parsed as views, routed by SSRC, else MID
/// header extension, else payload type, to the ``RTPReceiver``; RTCP feedback to the senders.
final class PeerTransport: @unchecked Sendable {
    // @unchecked: `receiveBuffer` and `early` are touched only on the agent's transport
    // thread (libnice calls the receive path there, one datagram at a time), `feedbackBuffer`
    // only on the feedback ticker's thread; everything else is locked or atomic.

    let agent: IceAgent
    let dtls = Mutex<DtlsTransport?>(nil)
    let srtp = Mutex<SrtpSession?>(nil)
    let routes = Mutex(Routes())
    let receiveBuffer: UnsafeMutableRawBufferPointer
    /// SRTP/SRTCP that came before SRTP was keyed, unprotected once it is. (Behind a pointer:
    /// a stored `var` would cost a dynamic exclusivity check on every datagram.)
    let early: UnsafeMutablePointer<EarlyDatagrams>
    let feedbackBuffer: UnsafeMutableRawBufferPointer
    let counters = Mutex(Counters())
    /// Transport-wide congestion control: sequence numbers, feedback, the estimate.
    let congestion: CongestionController
    /// The connection's counts of limits hit (``RemoteInputLimits``).
    let limitHits: LimitHits
    /// The SSRC that congestion feedback (transport-cc, REMB) is sent from (0: none yet).
    let feedbackSSRC = Atomic<UInt32>(0)
    /// Whether SRTP is keyed; read by every feedback tick without the session's lock.
    let keyed = Atomic<Bool>(false)
    /// Set by ``close()``: early datagrams are no longer kept.
    let closed = Atomic<Bool>(false)
    /// Whether an SRTP or SRTCP packet from the peer has passed authentication (the DTLS
    /// transport is told once: the peer has the keys, its last flight needs no resend).
    let peerHasKeys = Atomic<Bool>(false)
    /// Whether a routed receiver takes video (the transport then gets every feedback tick).
    let receivesVideo = Atomic<Bool>(false)

    /// Where received RTP and RTCP go.
    struct Routes {
        var bySSRC: [UInt32: RTPReceiver] = [:]
        /// The SSRCs of `bySSRC` learned from packets (not named by the SDP), with the arrival
        /// of their last packet: when ``RemoteInputLimits/maxRemoteSSRCsPerTransport`` are
        /// routed, a new SSRC takes the place of the one silent longest (a peer that changes
        /// its SSRCs, say at each restart of its sender, is never locked out).
        var learned: [UInt32: Double] = [:]
        var byMid: [String: RTPReceiver] = [:]
        var byPayloadType: [UInt8: RTPReceiver] = [:]
        var senders: [UInt32: RTPSender] = [:]
        /// Every routed receiver once, for the feedback ticks.
        var receivers = UnretainedArray<RTPReceiver>()
        var midExtensionID: UInt8?
        /// The CNAME for compound feedback packets when the peer did not offer reduced-size
        /// RTCP (RFC 5506); nil: reduced-size feedback.
        var compoundFeedbackCNAME: [UInt8]?
        /// SSRCs of a known section with a payload type nobody decodes (RTX, probing
        /// padding): dropped at once from the second packet on. Bounded.
        var ignored: Set<UInt32> = []
        static let maximumIgnored = 64
    }

    /// Transport-level counters (W3C transport and candidate-pair stats).
    struct Counters: Sendable {
        var packetsSent: Int64 = 0
        var bytesSent: Int64 = 0
        var packetsReceived: Int64 = 0
        var bytesReceived: Int64 = 0
        var rtcpPacketsReceived: Int64 = 0
        var unroutable: Int64 = 0
        /// Authenticated RTP that does not parse, and RTCP packets (or the rest of a compound)
        /// that do not.
        var malformed: Int64 = 0
        /// SRTP/SRTCP that came before SRTP was keyed and found the early buffer full.
        var earlyDropped: Int64 = 0
        /// SRTCP packets over the budget (``RemoteInputLimits/maxRTCPPacketsPerSecond``).
        var rtcpOverBudget: Int64 = 0
        /// The current one-second RTCP budget window: its start and the packets in it.
        var rtcpWindowStart: Double = 0
        var rtcpInWindow = 0
        var lastRoundTripTime: Double?
        var totalRoundTripTime: Double = 0
        var roundTripMeasurements: Int64 = 0
    }

    init(configuration: IceAgent.Configuration, pool: TransportThreadPool, limitHits: LimitHits) throws(IceError) {
        agent = try IceAgent(configuration: configuration, pool: pool)
        self.limitHits = limitHits
        congestion = CongestionController(limitHits: limitHits)
        receiveBuffer = .allocate(byteCount: 2048, alignment: 16)
        feedbackBuffer = .allocate(byteCount: 1500, alignment: 16)
        early = .allocate(capacity: 1)
        early.initialize(to: EarlyDatagrams())
        let demultiplexer = agent.demultiplexer
        demultiplexer.setHandler({ [weak self] bytes in self?.receiveDTLS(bytes) }, for: .dtls)
        demultiplexer.setHandler({ [weak self] bytes in self?.receiveRTP(bytes) }, for: .rtp)
        demultiplexer.setHandler(
            { [weak self] bytes in self?.receiveRTCP(bytes, arrival: NTPTime.monotonicSeconds()) },
            for: .rtcp
        )
    }

    deinit {
        early.pointee.take().drain { _, _, _ in }
        early.deinitialize(count: 1)
        early.deallocate()
        receiveBuffer.deallocate()
        feedbackBuffer.deallocate()
    }

    /// Whether SRTP is keyed: the transport can carry media.
    var isKeyed: Bool { keyed.load(ordering: .relaxed) }
    var counterValues: Counters { counters.withLock { $0 } }
    var srtpCounters: SrtpSession.Counters? { srtp.withLock { $0?.counters } }
    var dtlsTransport: DtlsTransport? { dtls.withLock { $0 } }

    // MARK: Setup (control plane)

    /// Makes the DTLS transport (once; later calls return the first).
    func makeDtls(_ configuration: DtlsTransport.Configuration) throws(DtlsError) -> DtlsTransport {
        if let existing = dtls.withLock({ $0 }) { return existing }
        let transport = try DtlsTransport(configuration: configuration, sender: agent.component)
        dtls.withLock { $0 = transport }
        return transport
    }

    /// Keys SRTP from the DTLS handshake (RFC 5764 §4.2).
    func startSRTP(_ info: DtlsConnectionInfo) throws(PeerConnectionError) {
        let keys = info.keyingMaterial
        do {
            let session = try SrtpSession(profile: keys.profile, local: keys.local, remote: keys.remote)
            srtp.withLock { $0 = session }
            keyed.store(true, ordering: .relaxed)
            // From now on consent (RFC 7675) is kept by what authenticates, not by whatever
            // arrives on the pair: see `unprotect`.
            agent.requireAuthenticatedConsent()
        } catch {
            throw .transport("SRTP session: \(error)")
        }
    }

    /// Routes a receiver's stream: by its mid, payload type and (when the SDP said) SSRC; its
    /// RTX stream likewise by the RTX payload type and SSRC.
    func route(
        _ receiver: RTPReceiver,
        mid: String,
        payloadType: UInt8,
        ssrc: UInt32?,
        midExtensionID: UInt8?,
        rtxPayloadType: UInt8? = nil,
        rtxSSRC: UInt32? = nil
    ) {
        routes.withLock { routes in
            if !routes.receivers.objects.contains(where: { $0 === receiver }) {
                routes.receivers.append(receiver)
                if receiver.kind == .video { receivesVideo.store(true, ordering: .relaxed) }
            }
            routes.byMid[mid] = receiver
            routes.byPayloadType[payloadType] = receiver
            if let ssrc { routes.bySSRC[ssrc] = receiver }
            if let rtxPayloadType { routes.byPayloadType[rtxPayloadType] = receiver }
            if let rtxSSRC, rtxPayloadType != nil { routes.bySSRC[rtxSSRC] = receiver }
            if let midExtensionID { routes.midExtensionID = midExtensionID }
        }
    }

    /// Feedback in compound packets with `cname` (the peer's description has no
    /// `a=rtcp-rsize`), or reduced-size ones (nil).
    func sendCompoundFeedback(cname: String?) {
        // In bytes once: each compound packet's SDES takes them as they are.
        let bytes = cname.map { Array($0.utf8) }
        routes.withLock { $0.compoundFeedbackCNAME = bytes }
    }

    /// Lets RTCP feedback about `sender`'s SSRC reach it.
    func route(_ sender: RTPSender) {
        routes.withLock { $0.senders[sender.ssrc] = sender }
    }

    /// Closes DTLS and the agent.
    func close() async {
        closed.store(true, ordering: .relaxed)
        FeedbackTicker.shared.remove(self)
        dtls.withLock { $0 }?.close()
        for route in DatagramDemultiplexer.Route.allCases { agent.demultiplexer.setHandler(nil, for: route) }
        await agent.close()
        routes.withLock { $0 = Routes() }
        keyed.store(false, ordering: .relaxed)
        srtp.withLock { $0 = nil }
        dtls.withLock { $0 = nil }
    }

    // MARK: Feedback (the feedback ticker's thread)

    /// On a feedback tick once SRTP is keyed: each receiver releases the frames due for
    /// playout and says what feedback is due (NACKs for missing packets, PLI or FIR when its
    /// decoder needs a keyframe), sent as one RTCP packet per receiver (reduced-size, RFC
    /// 5506, when the peer offered it, else compound), on every tick with video and every `audioTick` with audio only; on a
    /// `congestionTick`, the congestion controller's feedback (transport-cc or REMB) when its
    /// ``FeedbackInterval`` says.
    func tickFeedback(now: Double, audioTick: Bool, congestionTick: Bool) {
        guard keyed.load(ordering: .relaxed) else { return }
        if audioTick || receivesVideo.load(ordering: .relaxed) {
            let (receivers, cname) = routes.withLock { ($0.receivers, $0.compoundFeedbackCNAME) }
            let roundTripTime = counters.withLock { $0.lastRoundTripTime }
            receivers.forEach { receiver in
                guard receiver.needsTick(now: now) else { return }
                let packets = receiver.feedback(now: now, roundTripTime: roundTripTime, compoundCNAME: cname)
                guard !packets.isEmpty, let length = try? RTCPPacket.writeCompound(packets, into: feedbackBuffer) else {
                    return
                }
                _ = sendRTCP(feedbackBuffer, length: length)
            }
        }
        let ssrc = feedbackSSRC.load(ordering: .relaxed)
        guard congestionTick, ssrc != 0 else { return }
        for packet in congestion.makeFeedback(senderSSRC: ssrc, now: now) {
            if let length = try? RTCPPacket.writeCompound([packet], into: feedbackBuffer) {
                _ = sendRTCP(feedbackBuffer, length: length)
            }
        }
    }

    // MARK: Send (any thread)

    /// Protects the RTP packet in `buffer[..<length]` in place and sends it; `offset`: where
    /// its transport-wide sequence number goes, as its writer reported (nil: found by parsing,
    /// for a resent packet).
    func sendRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, transportSequenceAt offset: Int? = nil) -> Bool {
        guard let protected = protectRTP(buffer, length: length, transportSequenceAt: offset) else { return false }
        return send(protected: buffer, length: protected)
    }

    /// Numbers the RTP packet in `buffer[..<length]` (transport-wide sequence number at
    /// `offset`, see ``sendRTP(_:length:transportSequenceAt:)``) and protects it in place;
    /// returns its protected length, nil before keying or after close.
    func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, transportSequenceAt offset: Int?) -> Int? {
        congestion.stamp(buffer, length: length, transportSequenceAt: offset)
        // The session has its own lock per direction: protect outside this one.
        guard let session = srtp.withLock({ $0 }), let protected = try? session.protectRTP(buffer, length: length)
        else { return nil }
        return protected
    }

    /// Sends protected packets (one `iovec` each) in order, in one system call where the pair
    /// is plain UDP (``IceComponent/send(batch:)``), and counts them; returns how many went
    /// out, from the first.
    func send(protectedBatch packets: UnsafeBufferPointer<iovec>) -> Int {
        let sent = agent.component.send(batch: packets)
        guard sent > 0 else { return 0 }
        var bytes = 0
        for packet in packets[..<sent] { bytes += packet.iov_len }
        counters.withLock {
            $0.packetsSent += Int64(sent)
            $0.bytesSent += Int64(bytes)
        }
        return sent
    }

    /// Protects the RTCP packet in `buffer[..<length]` in place and sends it.
    func sendRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        guard let session = srtp.withLock({ $0 }), let protected = try? session.protectRTCP(buffer, length: length)
        else { return false }
        return send(protected: buffer, length: protected)
    }

    /// Sends the SRTP or SRTCP packet in `buffer[..<length]` and counts it.
    func send(protected buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        guard agent.component.send(UnsafeRawBufferPointer(rebasing: buffer[..<length])) else { return false }
        counters.withLock {
            $0.packetsSent += 1
            $0.bytesSent += Int64(length)
        }
        return true
    }
}
