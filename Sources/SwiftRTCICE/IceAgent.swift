// IceAgent: full ICE (RFC 8445) over libnice, non-reliable UDP mode, one component (rtcp-mux).
//
// Threading
// ---------
// Control plane and data plane are separate (DESIGN.md, "Two planes"):
//
// - Each agent is bound, round-robin, to one thread of a `TransportThreadPool` (one thread
//   per core but one by default, shared by every agent of the process). That thread runs a
//   GLib main loop on its own GMainContext; libnice attaches the agent's sockets, check
//   timers and TURN refreshes there, and the agent's consent timer runs there too.
// - Receiving: libnice reads a datagram on that thread and calls the agent's receive
//   function (`nice_agent_attach_recv`) there, which hands it synchronously to the agent's
//   `DatagramDemultiplexer` (RFC 7983) and on to the DTLS / RTP / RTCP handler, still on that
//   thread, with libnice's buffer: no actor hop, no Task, no allocation per packet.
// - Sending: `IceComponent.send` (the agent's `DatagramSender`) calls `sendto` on the
//   selected pair's socket when the pair is plain UDP (`DirectRoute`), else `nice_agent_send`;
//   both are safe from any thread.
// - Control: the methods of `IceAgent` are synchronous or `async` and safe from any thread
//   (libnice locks the agent). libnice emits its signals on the transport thread or on the
//   thread of the call that caused them; the agent turns them into `AsyncStream` events
//   (`states`, `gathering`, `errors`), never blocking the transport thread.
// - Closing (`close()`), on the transport thread: disconnects the signals, stops the timer,
//   ends the event streams, releases TURN allocations (`nice_agent_close_async`, which still
//   needs the sockets attached), then detaches the receive function and removes the stream,
//   which closes the sockets. The GObject reference goes when the last Swift reference to
//   the agent or its component goes.

import CNice
import Logging
import SwiftRTCCore
import Synchronization

/// An ICE agent for one WebRTC transport (a BUNDLE group): gathers local candidates, checks
/// pairs with the peer's, keeps consent, and carries datagrams on the selected pair.
///
/// ```swift
/// let agent = try IceAgent(configuration: .init(role: .controlling, localAddresses: ["127.0.0.1"]))
/// agent.demultiplexer.setHandler({ bytes in /* DTLS record, on the transport thread */ }, for: .dtls)
/// try await agent.startGathering()
/// for await event in agent.gathering { /* trickle each candidate to the peer */ }
/// try agent.setRemoteCredentials(peerCredentials)
/// try await agent.addRemoteCandidate(peerCandidate)
/// for await state in agent.states where state == .connected { break }
/// _ = agent.component.send(datagram)
/// await agent.close()
/// ```
public final class IceAgent: Sendable {
    /// The configuration the agent was made with.
    public let configuration: Configuration
    /// State changes, starting with ``IceConnectionState/new``, ending with
    /// ``IceConnectionState/closed``. Consecutive duplicates are not repeated.
    public let states: AsyncStream<IceConnectionState>
    /// Local candidates as they are gathered (trickle), then ``IceGatheringEvent/complete``.
    public let gathering: AsyncStream<IceGatheringEvent>
    /// Problems that do not stop the agent but must not pass silently: a TURN server that
    /// refused the allocation (with its STUN error code), an ICE server that did not resolve.
    public let errors: AsyncStream<IceError>
    /// Where received datagrams go (RFC 7983): set the DTLS, RTP and RTCP handlers here.
    public var demultiplexer: DatagramDemultiplexer { core.demultiplexer }
    /// The component that carries datagrams; DTLS and SRTP send through it.
    public let component: IceComponent

    let core: IceAgentCore

    /// Creates an agent on a thread of `pool`. Gathering starts with ``startGathering()``.
    public init(configuration: Configuration, pool: TransportThreadPool = .shared) throws(IceError) {
        self.configuration = configuration
        // States and errors keep the newest 64 if nobody reads them (a flapping connection
        // must not grow memory); candidates are few and must all arrive.
        let (states, stateContinuation) = AsyncStream.makeStream(
            of: IceConnectionState.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let (gathering, gatheringContinuation) = AsyncStream.makeStream(of: IceGatheringEvent.self)
        let (errors, errorContinuation) = AsyncStream.makeStream(
            of: IceError.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        self.states = states
        self.gathering = gathering
        self.errors = errors
        core = try IceAgentCore(
            configuration: configuration,
            thread: pool.nextThread(),
            events: .init(
                states: stateContinuation,
                gathering: gatheringContinuation,
                errors: errorContinuation
            )
        )
        component = IceComponent(core: core)
    }

    deinit {
        core.beginClose()
    }

    /// The current state.
    public var state: IceConnectionState { core.currentState }

    /// This side's credentials, for `a=ice-ufrag` / `a=ice-pwd`. New after each ``restart()``.
    public var localCredentials: Credentials { core.localCredentials() }

    /// Sets the peer's credentials (from its SDP). Checks start once credentials and
    /// candidates are known.
    public func setRemoteCredentials(_ credentials: Credentials) throws(IceError) {
        try core.ensureOpen()
        guard
            nice_agent_set_remote_credentials(
                core.agent,
                core.streamID,
                credentials.usernameFragment,
                credentials.password
            ) != 0
        else {
            throw .libnice(call: "nice_agent_set_remote_credentials")
        }
    }

    /// The pair that carries datagrams, once one is selected.
    public var selectedPair: IceCandidatePair? { core.selectedPair }

    /// The STUN server the agent gathers its server-reflexive candidate from, once gathering
    /// started: of several `stun:` servers, the first in the configured order that answered a
    /// Binding request (libnice takes one); nil without one.
    public var stunServer: IceServer? { core.state.withLock { $0.stunServer } }

    /// Datagrams received on the component so far (all kinds, before demultiplexing).
    public var receivedDatagrams: UInt64 { core.receivedDatagrams.load(ordering: .relaxed) }

    /// From now on only datagrams proved authentic (``consentProved()``) keep consent
    /// (RFC 7675): a datagram that merely arrives on the pair, forged or garbage, no longer
    /// holds the connection up. The peer connection sets it once SRTP is keyed and proves each
    /// SRTP or SRTCP packet that authenticates. Until then (and for a user of the agent alone)
    /// every datagram received keeps consent. Cannot be undone.
    public func requireAuthenticatedConsent() {
        core.requiresAuthenticatedConsent.store(true, ordering: .relaxed)
    }

    /// A datagram from the peer proved authentic (it passed SRTP authentication, say): consent
    /// holds. Data plane: one atomic increment, any thread.
    @inline(__always)
    public func consentProved() {
        core.consentProofs.add(1, ordering: .relaxed)
    }

    /// ICE restart (RFC 8445 section 9): new local credentials, checks start again with the
    /// peer's new credentials and candidates, and datagrams keep flowing on the current pair
    /// meanwhile. The agent, its stream and its local candidates stay; send the new
    /// credentials and ``localCandidates`` to the peer.
    @discardableResult
    public func restart() throws(IceError) -> Credentials {
        try core.ensureOpen()
        guard nice_agent_restart_stream(core.agent, core.streamID) != 0 else {
            throw .libnice(call: "nice_agent_restart_stream")
        }
        core.restarted()
        return core.localCredentials()
    }

    /// Closes the agent and frees everything it holds (sockets, sources, TURN allocations).
    /// Returns when libnice has released its resources. Idempotent.
    public func close() async {
        await core.close()
    }
}
