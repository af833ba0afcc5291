import CGnuTLS
import Dispatch
import Logging
import SwiftRTCCore
import SwiftRTCSRTP
import Synchronization

/// DTLS 1.2 over an ICE component, as WebRTC uses it to key SRTP (RFC 5764, RFC 8827).
///
/// Outgoing records go out through a ``DatagramSender``; incoming DTLS records (first byte
/// 20...63, RFC 7983) are handed in with ``receive(_:)`` by the demultiplexer on its transport
/// thread. The handshake is control plane: it runs on a private serial queue with GnuTLS in
/// non-blocking mode, retransmission driven by a timer from `gnutls_dtls_get_timeout`.
///
/// ```swift
/// let transport = try DtlsTransport(configuration: .init(
///     role: .client, certificate: try .generate(), remoteFingerprints: [remote]), sender: component)
/// transport.start()
/// let info = try await transport.connected()   // keys in info.keyingMaterial
/// ```
///
/// The peer's certificate must match one of the remote fingerprints or the handshake fails
/// with ``DtlsError/fingerprintMismatch(expected:actual:)``. ``close()`` sends `close_notify`.
///
/// DTLS 1.3: GnuTLS 3.7.9 has none, and in DTLS it does not read the `supported_versions`
/// extension. A 1.3 ClientHello carries `legacy_version` DTLS 1.2, so a peer offering 1.3 and
/// 1.2 gets a DTLS 1.2 ServerHello and the handshake continues in 1.2; a peer that offers 1.3
/// only gets the same ServerHello and has to abort (we then fail with its alert, or at the
/// handshake timeout if it sends none). As a client we offer only 1.2, which a 1.3 server
/// accepts.
public final class DtlsTransport: @unchecked Sendable {
    // @unchecked: every mutable field below is touched only on `queue` (the GnuTLS
    // callbacks run inside GnuTLS calls made on it); `configuration`, `sender`, `queue`,
    // `stateStream` and `stateContinuation` are immutable and Sendable. Once connected,
    // senders and receivers of application data also call GnuTLS on `session` (set once, in
    // `init`) from their threads, always under `sessionLock`; its push function then reads
    // `flightCapture`, nil by then, and its pull function `pullSource`, which only they set,
    // under the lock.

    /// How to run one DTLS association.
    public struct Configuration: Sendable {
        /// Client (sends the ClientHello, `a=setup:active`) or server.
        public var role: DtlsRole
        /// The certificate this endpoint presents; its fingerprint goes in the local SDP.
        public var certificate: DtlsCertificate
        /// The remote SDP's `a=fingerprint` values; the peer certificate must match one of
        /// those with the strongest hash function among them (RFC 8122 §5).
        public var remoteFingerprints: [DtlsFingerprint]
        /// SRTP profiles to offer (client) or accept (server), in preference order.
        public var srtpProfiles: [SrtpProfile] = SrtpProfile.dtlsSupported
        /// Largest datagram DTLS sends, in bytes (path MTU minus IP/UDP and TURN overhead).
        public var mtu: Int = 1200
        /// First retransmission timeout; GnuTLS doubles it after each loss of a flight.
        public var initialRetransmissionTimeout: Duration = .milliseconds(200)
        /// The handshake fails with ``DtlsError/handshakeTimedOut(milliseconds:)`` after this.
        public var handshakeTimeout: Duration = .seconds(30)

        /// A configuration with the default profiles, MTU and timers.
        public init(role: DtlsRole, certificate: DtlsCertificate, remoteFingerprints: [DtlsFingerprint]) {
            self.role = role
            self.certificate = certificate
            self.remoteFingerprints = remoteFingerprints
        }
    }

    /// The configuration the transport was made with.
    public let configuration: Configuration
    /// Where outgoing DTLS datagrams go.
    let sender: any DatagramSender
    /// Serialises the GnuTLS session, timers and state.
    let queue: DispatchQueue
    /// Once connected, application data is encrypted and sent on the sender's thread, and
    /// decrypted on the thread that received it (the transport thread) and handed on there:
    /// no copy and no hop to `queue` per packet, as the C loop of `swiftrtc-bench-limit
    /// datachannel` does. The session then has users besides the queue; this lock makes them
    /// one at a time. It guards whether they may use the session (``SessionAccess/open``:
    /// from `connected` until the transport closes or fails) and the application data
    /// handler, and is held around every GnuTLS call made on the connected session: senders'
    /// `gnutls_record_send`, receivers' and the queue's `gnutls_record_recv`, `gnutls_bye`
    /// and the MTU query. Nothing runs under it but GnuTLS and its push and pull functions: a
    /// record handed to the application is handed on after the lock is released (the
    /// application may send in turn, as SCTP answers data with a SACK).
    let sessionLock = Mutex(SessionAccess())

    struct SessionAccess {
        /// Whether threads other than the queue's may use the session (connected, not closed).
        var open = false
        /// Takes each application data record; nil: they are dropped. (A `Callback`: a
        /// function handed out of a lock bare is re-wrapped in a thunk each time, an
        /// allocation per record.)
        var applicationData: Callback<UnsafeRawBufferPointer, Void>?
    }

    /// Where GnuTLS's pull function reads: ``inbox`` (the queue's reads), or the one datagram a
    /// receiver on its own thread offers (nil once taken); set by that receiver under
    /// ``sessionLock``.
    enum PullSource {
        case inbox
        case offered(UnsafeRawBufferPointer?)
    }
    var pullSource = PullSource.inbox
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    let logger = SwiftRTCLogging.logger("dtls")

    /// State changes, from `connecting` on, ending after a final state. One consumer.
    public let stateUpdates: AsyncStream<DtlsState>
    private let stateContinuation: AsyncStream<DtlsState>.Continuation

    // MARK: Queue-confined state
    var session: gnutls_session_t?
    /// The fingerprints the peer certificate must match (strongest hash function only).
    let acceptedFingerprints: [DtlsFingerprint]
    /// Datagrams received and not yet read by GnuTLS's pull function.
    var inbox: [[UInt8]] = []
    /// Datagrams accepted before ``start()``; more are dropped.
    static let inboxLimit = 32
    /// Datagrams dropped: not whole DTLS records, the inbox full, or the transport closed.
    private let droppedCount = Atomic<Int>(0)
    private let droppedApplicationDataCount = Atomic<Int>(0)
    /// DTLS datagrams dropped unread (not whole records, more than the inbox holds, after the
    /// transport closed or failed); for the transport stats.
    public var droppedDatagrams: Int { droppedCount.load(ordering: .relaxed) }
    /// Set by the certificate check when it rejects the peer, reported instead of GnuTLS's code.
    var verificationFailure: DtlsError?
    var remoteFingerprint: DtlsFingerprint?
    var currentState: DtlsState = .new
    var info: DtlsConnectionInfo?
    var waiters: [CheckedContinuation<Result<DtlsConnectionInfo, DtlsError>, Never>] = []
    var startedAt: ContinuousClock.Instant?
    /// The largest application data record read (SCTP packets of data channels; a larger
    /// record is dropped by GnuTLS's check).
    static let recordCapacity = 2048
    /// Receives application data after the handshake, on the queue.
    var recordBuffer = [UInt8](repeating: 0, count: recordCapacity)
    /// What the current `gnutls_handshake` call sent, while one runs (nil otherwise).
    var flightCapture: [[UInt8]]?
    /// While connecting: the last flight this end sent and when it last went out
    /// (DtlsTransport+FlightResends.swift).
    var handshakeFlight: [[UInt8]] = []
    var handshakeFlightSentAt = DispatchTime.now()
    var handshakeFlightResendCount = 0
    /// The datagrams of the handshake's last flight, if this end sent it, until the peer
    /// confirms it has the keys (DtlsTransport+FlightResends.swift).
    var lastFlight: [[UInt8]] = []
    var lastFlightResendCount = 0
    /// The deadline of the timer set last (``setTimer(at:)``), nil when none is set.
    var timerDeadline: UInt64?

    /// Makes a transport and its GnuTLS session; nothing is sent before ``start()``.
    ///
    /// - Throws: ``DtlsError/noRemoteFingerprint`` without a usable remote fingerprint, or
    ///   the GnuTLS error if the session cannot be set up.
    public init(configuration: Configuration, sender: any DatagramSender) throws(DtlsError) {
        DtlsLibrary.logging
        self.configuration = configuration
        self.sender = sender
        self.acceptedFingerprints = DtlsFingerprint.strongest(of: configuration.remoteFingerprints)
        guard !acceptedFingerprints.isEmpty else { throw .noRemoteFingerprint }
        // A serial queue on the shared, width-limited global queue: by default a serial queue
        // targets the overcommit root queue, which starts a thread for each queue with work
        // (hundreds, with many handshakes at once, kept idle for a while after).
        queue = DispatchQueue(label: "swiftrtc.dtls", target: .global())
        (stateUpdates, stateContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(8))
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        try makeSession()
    }

    deinit {
        DtlsTimers.shared.cancel(ObjectIdentifier(self))
        gnutls_deinit(session)
        stateContinuation.finish()
        for waiter in waiters { waiter.resume(returning: .failure(.closed)) }
    }

    /// The current state.
    public var state: DtlsState { onQueue { currentState } }

    /// Starts the handshake: a client sends its ClientHello, a server processes one if it
    /// arrived already. Calling it again does nothing.
    public func start() {
        queue.async { [self] in
            guard case .new = currentState else { return }
            startedAt = .now
            transition(to: .connecting)
            pump()
        }
    }

    /// Hands in one DTLS datagram from the network. Safe from any thread. Connected, a
    /// datagram of application data records only is decrypted on the caller's thread and its
    /// records handed to the application data handler before this returns; any other is
    /// copied and processed on the transport's queue. Datagrams that are not whole DTLS
    /// records are dropped here (RFC 6347 §4.1.2.7).
    public func receive(_ datagram: UnsafeRawBufferPointer) {
        switch DtlsRecordFraming.classify(datagram) {
        case .malformed:
            droppedCount.wrappingAdd(1, ordering: .relaxed)
            return
        case .applicationData:
            if receiveApplicationData(datagram) { return }
        case .other:
            break
        }
        let bytes = [UInt8](datagram)
        queue.async { [self] in
            guard !currentState.isFinal, inbox.count < Self.inboxLimit else {
                droppedCount.wrappingAdd(1, ordering: .relaxed)
                return
            }
            inbox.append(bytes)
            if case .new = currentState { return }
            pump()
        }
    }

    /// Waits for the handshake to complete and returns what it negotiated.
    ///
    /// - Throws: the failure, or ``DtlsError/closed`` if the transport closed first.
    public func connected() async throws(DtlsError) -> DtlsConnectionInfo {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<DtlsConnectionInfo, DtlsError>, Never>) in
            queue.async { [self] in
                if let outcome { continuation.resume(returning: outcome) } else { waiters.append(continuation) }
            }
        }
        return try result.get()
    }

    /// Hands each application data record the peer sends from now on to `handler` (SCTP
    /// packets, RFC 8261): once connected on the thread that hands in the datagram (the
    /// transport thread), before that on the transport's queue; one record at a time. Before a
    /// handler is set they are dropped (DTLS-SRTP media sends none).
    public func onApplicationData(_ handler: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        sessionLock.withLock { $0.applicationData = Callback(handler) }
    }

    /// Decrypts a datagram of application data records on this thread and hands each record
    /// to the handler; false (nothing done) when the session is not open to other threads or
    /// there is no handler, and the datagram goes to the queue.
    private func receiveApplicationData(_ datagram: UnsafeRawBufferPointer) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: Self.recordCapacity, alignment: 16) { record in
            var first = true
            while true {
                // GnuTLS pulls the datagram on the first call and keeps the records after the
                // first for the next calls (gnutls_record_check_pending).
                let read = sessionLock.withLock {
                    access -> (Int, more: Bool, handler: Callback<UnsafeRawBufferPointer, Void>)? in
                    guard access.open, let handler = access.applicationData, let session else { return nil }
                    pullSource = .offered(first ? datagram : nil)
                    defer { pullSource = .inbox }
                    let result = gnutls_record_recv(session, record.baseAddress, record.count)
                    return (result, result > 0 && gnutls_record_check_pending(session) > 0, handler)
                }
                guard let (result, more, handler) = read else { return !first }
                first = false
                if result > 0 {
                    handler(UnsafeRawBufferPointer(rebasing: record[..<result]))
                } else if result < 0, gnutls_error_is_fatal(Int32(truncatingIfNeeded: result)) != 0 {
                    // Records that fail authentication are dropped by GnuTLS (AGAIN); a fatal
                    // error ends the association, on the queue that owns its state.
                    let code = Int32(truncatingIfNeeded: result)
                    queue.async { [self] in transition(to: .failed(.gnutls("gnutls_record_recv", code))) }
                }
                guard more else { return true }
            }
        }
    }

    /// Sends `data` as one application data record, once connected, after whatever was asked
    /// to be sent before it. Data longer than ``maxApplicationDataSize``, or sent before the
    /// handshake or after the close, is dropped and counted (``droppedApplicationData``).
    ///
    /// Connected, the record is encrypted and sent before this returns, on the caller's thread
    /// (under ``sessionLock``); before, the bytes are copied and judged on the queue, after
    /// what it has to do first.
    public func sendApplicationData(_ data: UnsafeRawBufferPointer) {
        let sent = sessionLock.withLock { access -> Bool? in
            guard access.open, let session else { return nil }
            return gnutls_record_send(session, data.baseAddress, data.count) == data.count
        }
        switch sent {
        case true?: return
        case false?: droppedApplicationDataCount.add(1, ordering: .relaxed)
        case nil:
            let bytes = [UInt8](data)
            queue.async { [self] in
                guard case .connected = currentState, let session,
                    sessionLock.withLock({ _ in
                        bytes.withUnsafeBytes { gnutls_record_send(session, $0.baseAddress, $0.count) }
                    }) == bytes.count
                else {
                    droppedApplicationDataCount.add(1, ordering: .relaxed)
                    return
                }
            }
        }
    }

    /// The most application data one record (one datagram of ``Configuration/mtu``) carries
    /// with the negotiated cipher suite; known once connected (before: what 1200 bytes leave
    /// with the largest overhead of our suites).
    public var maxApplicationDataSize: Int {
        onQueue {
            guard case .connected = currentState, let session else { return configuration.mtu - 64 }
            return Int(sessionLock.withLock { _ in gnutls_dtls_get_data_mtu(session) })
        }
    }

    /// Application data dropped: too long for a record, or sent when not connected.
    public var droppedApplicationData: Int { droppedApplicationDataCount.load(ordering: .relaxed) }

    /// Closes the association: sends `close_notify` if connected, stops timers, and moves to
    /// ``DtlsState/closed``. The datagram sender is used before this returns, never after.
    public func close() {
        onQueue {
            guard !currentState.isFinal else { return }
            if case .connected = currentState {
                // Non-blocking: sends the close_notify alert and does not wait for the peer's;
                // no application data after it.
                sessionLock.withLock { access in
                    access.open = false
                    _ = gnutls_bye(session, GNUTLS_SHUT_WR)
                }
            }
            transition(to: .closed)
        }
    }

    // MARK: State

    /// What ``connected()`` returns once the handshake is over; `nil` before.
    private var outcome: Result<DtlsConnectionInfo, DtlsError>? {
        switch currentState {
        case .new, .connecting: nil
        case .connected: info.map { .success($0) } ?? .failure(.closed)
        case .failed(let error): .failure(error)
        case .closed: .failure(.closed)
        }
    }

    /// Moves to a new state, tells the stream, and resolves ``connected()`` waiters.
    func transition(to newState: DtlsState) {
        guard !currentState.isFinal, currentState != newState else { return }
        currentState = newState
        // Senders may use the session while connected, not after.
        sessionLock.withLock { $0.open = newState == .connected }
        stateContinuation.yield(newState)
        switch newState {
        case .connected:
            if let outcome { resumeWaiters(with: outcome) }
        case .failed(let error):
            logger.warning("DTLS \(configuration.role.rawValue) failed: \(error)")
            finish(with: error)
        case .closed:
            finish(with: .closed)
        case .new, .connecting:
            break
        }
    }

    private func finish(with error: DtlsError) {
        cancelTimer()
        inbox.removeAll()
        stateContinuation.finish()
        resumeWaiters(with: .failure(error))
    }

    private func resumeWaiters(with result: Result<DtlsConnectionInfo, DtlsError>) {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume(returning: result) }
    }

    /// Runs `body` on the queue, inline when already on it.
    func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) { return body() }
        return queue.sync(execute: body)
    }
}
