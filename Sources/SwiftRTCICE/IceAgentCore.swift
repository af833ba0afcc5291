import CNice
import Logging
import SwiftRTCCore
import Synchronization

/// The agent's state and the libnice objects behind it. It retains itself from creation until
/// libnice has finished closing, so that libnice's callbacks, which get it unretained, always
/// find it alive.
final class IceAgentCore: @unchecked Sendable {
    static let componentID: UInt32 = 1
    static let logger = SwiftRTCLogging.logger("ice")

    /// How many times a STUN request is sent before it fails: libnice's
    /// `stun-max-retransmissions` counts sends, as RFC 8489's Rc does. It is shared by
    /// requests to STUN and TURN servers and connectivity checks, and libnice reads it as each
    /// transaction starts.
    ///
    /// libnice sends at 0, 0.5, 1.5, 3.5 s... (500 ms, doubling) and waits half the last gap
    /// after the last send:
    /// - while gathering and while closing, libnice's own 3 (sends at 0, 0.5 and 1.5 s, given
    ///   up at 2 s): an unreachable STUN or TURN server holds up neither gathering (which a
    ///   WHIP offer waits for) nor the release of TURN allocations (which `close()` waits for);
    /// - in between, 7, RFC 8489's schedule (section 6.2.1: 7 sends, given up at 39.5 s). With
    ///   3, at 20% loss each way a check failed about one time in 20 (0.36^3), and took the
    ///   only pair with it (the loss-20% fault test, 2026-11-27); with 7, one time in 1300.
    static let serverRetransmissions: UInt32 = 3
    static let checkRetransmissions: UInt32 = 7

    struct Events {
        var states: AsyncStream<IceConnectionState>.Continuation
        var gathering: AsyncStream<IceGatheringEvent>.Continuation
        var errors: AsyncStream<IceError>.Continuation
    }

    struct RelayServer {
        var server: IceServer
        var address: String
    }

    struct State {
        var consent: ConsentMonitor
        var reported: IceConnectionState = .new
        var selectedPair: IceCandidatePair?
        var relayServers: [RelayServer] = []
        /// The STUN server libnice gathers from (``StunServerChoice``).
        var stunServer: IceServer?
        /// The addresses of the local relayed candidates.
        var relayedAddresses: [String] = []
        var signalHandlers: [UInt] = []
        var timer: SourceHandle?
        var closing = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var retainedSelf: Unmanaged<IceAgentCore>?
    }

    /// The `NiceAgent`; this object owns one reference, released in `deinit`.
    let agent: OpaquePointer
    let streamID: UInt32
    let thread: TransportThread
    let configuration: IceAgent.Configuration
    let events: Events
    let demultiplexer = DatagramDemultiplexer()
    /// The selected pair's socket and address when it is plain UDP (sending skips libnice).
    let directRoute = DirectRoute()
    let receivedDatagrams = Atomic<UInt64>(0)
    /// Datagrams that keep consent (RFC 7675): every one received, until
    /// ``requiresAuthenticatedConsent`` is set; then only those the agent's user proved
    /// authentic (``IceAgent/consentProved()``).
    let consentProofs = Atomic<UInt64>(0)
    /// Whether only authenticated datagrams keep consent (set once, by the agent's user).
    let requiresAuthenticatedConsent = Atomic<Bool>(false)
    /// The address of the socket source last made recursive (see `receive`); transport thread.
    let recursiveSource = Atomic<UInt>(0)
    let isClosed = Atomic<Bool>(false)
    let state: Mutex<State>

    init(configuration: IceAgent.Configuration, thread: TransportThread, events: Events) throws(IceError) {
        // Not NICE_AGENT_OPTION_CONSENT_FRESHNESS: libnice 0.1.21 declares consent lost (and
        // refuses to send) after 10 s without a consent response (later releases: RFC 7675's
        // 30 s), so at 10-20% loss two lost exchanges in a row ended calls whose media still
        // flowed both ways. ConsentMonitor keeps consent from the peer's datagrams instead
        // (once the peer connection requires it, only authenticated ones); libnice still
        // answers the peer's consent checks.
        let options = NICE_AGENT_OPTION_ICE_TRICKLE.rawValue
        guard let agent = nice_agent_new_full(thread.context, NICE_COMPATIBILITY_RFC5245, NiceAgentOption(options))
        else {
            throw .libnice(call: "nice_agent_new_full")
        }
        self.agent = agent
        self.thread = thread
        self.configuration = configuration
        self.events = events
        state = Mutex(State(consent: ConsentMonitor(timing: configuration.consent, now: .now)))

        Self.setProperties(of: agent, configuration)
        do {
            try Self.addLocalAddresses(configuration.localAddresses, to: agent)
        } catch {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw error
        }

        streamID = nice_agent_add_stream(agent, 1)
        guard streamID != 0 else {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw .libnice(call: "nice_agent_add_stream")
        }

        events.states.yield(.new)
        let unretained = Unmanaged.passRetained(self)
        state.withLock { $0.retainedSelf = unretained }
        connectSignals(userData: unretained.toOpaque())
        nice_agent_attach_recv(
            agent,
            streamID,
            Self.componentID,
            thread.context,
            IceAgentCore.receive,
            unretained.toOpaque()
        )
        startConsentTimer(userData: unretained.toOpaque())
    }

    /// The agent's properties from the configuration: no UPnP or ICE-TCP, the role, check
    /// pacing, STUN retransmissions, relay only when asked, and the controlled side's patience.
    static func setProperties(of agent: OpaquePointer, _ configuration: IceAgent.Configuration) {
        let properties = GObjectProperties(agent)
        properties.set("upnp", false)
        properties.set("ice-tcp", false)
        properties.set("controlling-mode", configuration.role == .controlling)
        properties.set("stun-pacing-timer", UInt32(clamping: max(5, configuration.checkPacing.milliseconds)))
        properties.set("stun-max-retransmissions", Self.serverRetransmissions)
        properties.set("force-relay", configuration.transportPolicy == .relay)
        if configuration.role == .controlled {
            // libnice fails a component whose checks have all ended without a nominated pair
            // once its check timer has idled for "idle-timeout" (5 s by default). A controlled
            // agent's check that succeeded ends so, and then waits for the controlling peer to
            // nominate, which it can only do once the answer has reached it: an answer that
            // takes longer than 5 s (a slow signaling path, a loaded machine) failed the call.
            // The controlled agent waits for the nomination as long as silence may last.
            properties.set("idle-timeout", UInt32(clamping: configuration.consent.failedAfter.milliseconds))
        }
    }

    /// Restricts gathering to `localAddresses` (IP literals, or interface names standing for
    /// their addresses); none: every interface.
    static func addLocalAddresses(_ localAddresses: [String], to agent: OpaquePointer) throws(IceError) {
        for text in localAddresses {
            let addresses: [String]
            if SystemResolver.isIPLiteral(text) {
                addresses = [text]
            } else if let found = SystemResolver.interfaceAddresses(text), !found.isEmpty {
                addresses = found
            } else {
                throw .invalidLocalAddress(text)
            }
            for address in addresses {
                var niceAddress = NiceAddress()
                nice_address_init(&niceAddress)
                if nice_address_set_from_string(&niceAddress, address) != 0 {
                    _ = nice_agent_add_local_address(agent, &niceAddress)
                }
            }
        }
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(agent))
    }

    /// Runs `body` on the agent's transport thread and returns what it returned. libnice calls
    /// that attach sources (remote candidates) take the thread's `GMainContext` lock, which
    /// the loop holds while it checks its sources: made from the cooperative pool they block a
    /// pool thread meanwhile (and libdispatch then starts more threads).
    func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            thread.invoke { continuation.resume(returning: body()) }
        }
    }

    func ensureOpen() throws(IceError) {
        if isClosed.load(ordering: .relaxed) { throw .closed }
    }

    var currentState: IceConnectionState { state.withLock { $0.reported } }
    var selectedPair: IceCandidatePair? { state.withLock { $0.selectedPair } }

    func localCredentials() -> IceAgent.Credentials {
        var ufrag: UnsafeMutablePointer<gchar>?
        var password: UnsafeMutablePointer<gchar>?
        guard nice_agent_get_local_credentials(agent, streamID, &ufrag, &password) != 0, let ufrag, let password else {
            return IceAgent.Credentials(usernameFragment: "", password: "")
        }
        defer {
            g_free(ufrag)
            g_free(password)
        }
        return IceAgent.Credentials(usernameFragment: String(cString: ufrag), password: String(cString: password))
    }

    // MARK: State

    /// Recomputes the reported state and emits it if it changed. Call without holding `state`.
    func updateState(_ change: (inout ConsentMonitor, ContinuousClock.Instant) -> Void = { _, _ in }) {
        state.withLock { state in
            let now = ContinuousClock.now
            change(&state.consent, now)
            let next = state.consent.state(now: now)
            guard next != state.reported, !state.closed else { return }
            if next == .failed || next == .disconnected {
                // Worth a line in any log: what libnice said and how long the peer was silent.
                Self.logger.warning(
                    "ICE \(state.reported) -> \(next): \(state.consent.why(now: now))",
                    metadata: ["stream": "\(streamID)"]
                )
            } else {
                Self.logger.debug("ICE state \(state.reported) -> \(next)", metadata: ["stream": "\(streamID)"])
            }
            state.reported = next
            events.states.yield(next)
        }
    }

    func restarted() {
        updateState { consent, now in consent.restarted(now: now) }
    }

    // MARK: Consent timer

    private func startConsentTimer(userData: UnsafeMutableRawPointer) {
        let interval = max(10, (configuration.consent.disconnectedAfter / 5).milliseconds)
        let source = g_timeout_source_new(UInt32(min(interval, 500)))!
        g_source_set_callback(
            source,
            { userData in
                let core = Unmanaged<IceAgentCore>.fromOpaque(userData!).takeUnretainedValue()
                let count = core.consentProofs.load(ordering: .relaxed)
                core.updateState { consent, now in consent.observe(receivedCount: count, now: now) }
                return 1  // G_SOURCE_CONTINUE
            },
            userData,
            nil
        )
        g_source_attach(source, thread.context)
        state.withLock { $0.timer = SourceHandle(pointer: source) }
    }

    // MARK: Receive (data plane)

    /// libnice's receive function, on the transport thread: count, demultiplex, hand over.
    static let receive: NiceAgentRecvFunc = { _, _, _, length, buffer, userData in
        let core = Unmanaged<IceAgentCore>.fromOpaque(userData!).takeUnretainedValue()
        core.receivedDatagrams.add(1, ordering: .relaxed)
        if !core.requiresAuthenticatedConsent.load(ordering: .relaxed) { core.consentProofs.add(1, ordering: .relaxed) }
        // GLib blocks a source while it dispatches it: it takes the source's descriptor out of
        // the context's poll list and puts it back after, each a walk of that list, which
        // holds every socket of the thread's agents (at 1000 calls, 8% of all CPU). libnice's
        // socket source, the one dispatching now, never runs the loop again inside its
        // callback, so it may recurse: GLib then leaves its descriptor where it is.
        if let source = g_main_current_source() {
            let address = UInt(bitPattern: source)
            if core.recursiveSource.load(ordering: .relaxed) != address {
                g_source_set_can_recurse(source, 1)
                core.recursiveSource.store(address, ordering: .relaxed)
            }
        }
        core.demultiplexer.deliver(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    // MARK: Close

    /// Starts closing without waiting (from `deinit` of the agent).
    func beginClose() {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        guard first else { return }
        isClosed.store(true, ordering: .relaxed)
        directRoute.clear()
        thread.invoke { [self] in teardown() }
    }

    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.closed { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { beginClose() }
        }
    }

    /// On the transport thread: nothing of libnice calls back into this object after it.
    private func teardown() {
        let (handlers, timer, userData) = state.withLock { state in
            defer {
                state.signalHandlers = []
                state.timer = nil
            }
            return (state.signalHandlers, state.timer, state.retainedSelf!.toOpaque())
        }
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(agent), gulong(handler)) }
        if let timer {
            g_source_destroy(timer.pointer)
            g_source_unref(timer.pointer)
        }
        updateState { consent, _ in consent.close() }
        events.states.finish()
        events.gathering.finish()
        events.errors.finish()
        // Frees TURN allocations (it needs the sockets attached to read the answers), then
        // calls back on this thread; a server that no longer answers is given up at 2 s.
        GObjectProperties(agent).set("stun-max-retransmissions", Self.serverRetransmissions)
        nice_agent_close_async(
            agent,
            { _, _, userData in
                Unmanaged<IceAgentCore>.fromOpaque(userData!).takeUnretainedValue().closeFinished()
            },
            userData
        )
    }

    private func closeFinished() {
        nice_agent_attach_recv(agent, streamID, Self.componentID, thread.context, nil, nil)
        // Again: a pair selected while closing began (the signals are disconnected now).
        directRoute.clear()
        nice_agent_remove_stream(agent, streamID)
        let (waiters, retained) = state.withLock { state in
            state.closed = true
            defer {
                state.closeWaiters = []
                state.retainedSelf = nil
            }
            return (state.closeWaiters, state.retainedSelf)
        }
        for waiter in waiters { waiter.resume() }
        retained?.release()
    }
}
