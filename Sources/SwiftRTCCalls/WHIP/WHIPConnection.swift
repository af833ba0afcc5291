import Foundation
import SwiftRTCCore
import SwiftRTCPeer
import SwiftRTCSDP
import SwiftRTCSignaling

/// A peer connection published to a WHIP endpoint (RFC 9725), or watching a WHEP one: the
/// offer POSTed (with every candidate, or with those gathered so far and the rest trickled
/// with `PATCH`), the answer applied, ICE restarted over `PATCH` while the connection is
/// down, and the session ended with `DELETE`.
///
/// ```swift
/// let connection = try PeerConnection()
/// try await connection.addTrack(track)
/// let whip = try await WHIPConnection(connection, client: WHIPClient(endpoint: endpoint))
/// // ... media flows; later:
/// try await whip.end()
/// await connection.close()
/// ```
///
/// To watch a WHEP endpoint, give the connection receive-only transceivers
/// (`addTransceiver(.video, direction: .recvonly)`) instead of tracks.
public actor WHIPConnection {
    /// How the session is set up and kept.
    public struct Options: Sendable, Hashable {
        /// POST the offer at once with the candidates gathered so far and send the rest with
        /// `PATCH` (trickle ICE); false: gather every candidate first (an endpoint that takes no
        /// `PATCH` then still gets them all).
        public var trickle = false
        /// How long gathering may take before the offer (or an ICE restart) leaves without the rest.
        public var gatheringTimeout: Duration = .seconds(10)
        /// How long the connection may stay disconnected (or failed) before ICE is restarted over
        /// `PATCH`, and again each time this passes until it is connected; nil: never.
        public var iceRestartDelay: Duration? = .seconds(5)
        /// The most ICE restarts of one session: 16, the limit an endpoint of ours allows one
        /// session by default (`WHIPEndpoint.Configuration.defaultMaxICERestarts`).
        public var maxICERestarts = 16

        /// The defaults: every candidate in the offer, ICE restarted 5 s into an outage.
        public init() {}
    }

    /// What the session did after its offer.
    public struct Stats: Sendable, Hashable, CustomStringConvertible {
        /// Candidates sent with `PATCH` after the offer.
        public var trickledCandidates = 0
        /// Why trickling stopped early, when it did.
        public var trickleStopped: String?
        /// ICE restarts done.
        public var iceRestarts = 0
        /// ICE restarts that failed.
        public var failedICERestarts = 0

        /// The counters on one line.
        public var description: String {
            "trickled=\(trickledCandidates)\(trickleStopped.map { " (stopped: \($0))" } ?? "") ice_restarts=\(iceRestarts) failed_ice_restarts=\(failedICERestarts)"
        }
    }

    /// The connection published (or watching).
    public nonisolated let connection: PeerConnection
    /// The client that made the session and sends its `PATCH`es and `DELETE`.
    public nonisolated let client: WHIPClient
    /// The options it was made with.
    public nonisolated let options: Options
    /// The session: its URL, the endpoint's answer, its current entity tag.
    public private(set) var session: WHIPSession
    /// What it did after the offer.
    public private(set) var stats = Stats()

    private let eventSink = Broadcast<WHIPConnectionEvent>(replaysLatest: false)
    private var tasks: [Task<Void, Never>] = []
    private var ended = false

    /// Offers `connection`'s transceivers to `client`'s endpoint (`POST`), applies the answer,
    /// then trickles and restarts ICE as `options` say. A session whose answer cannot be
    /// applied is deleted before the error is thrown.
    public init(_ connection: PeerConnection, client: WHIPClient, options: Options = Options()) async throws {
        let offer = try await connection.createOffer()
        try await connection.setLocalDescription(offer)
        var sdp = offer.sdp
        if !options.trickle {
            _ = await connection.gatheringComplete(within: options.gatheringTimeout)
            sdp = await connection.localDescription?.sdp ?? sdp
        }
        let session = try await client.publish(offer: sdp)
        do {
            try await connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: session.answer))
        } catch {
            try? await client.end(session)
            throw error
        }
        self.connection = connection
        self.client = client
        self.options = options
        self.session = session
        await start(offer: sdp)
    }

    /// What it does on its own from now on (trickling ended, ICE restarts).
    public func events() -> AsyncStream<WHIPConnectionEvent> { eventSink.subscribe() }

    /// Restarts ICE now (RFC 9725 §4.3.2): new local credentials, every candidate gathered
    /// anew, a `PATCH` with `If-Match: *`, and the endpoint's new credentials and candidates
    /// applied. The connection's media goes on over the old path meanwhile.
    public func restartICE() async throws {
        guard !ended else { throw WHIPConnectionError.ended }
        guard stats.iceRestarts + stats.failedICERestarts < options.maxICERestarts else {
            throw WHIPConnectionError.tooManyICERestarts(options.maxICERestarts)
        }
        do {
            guard let current = await connection.remoteDescription,
                let previous = try? SessionDescription(parsing: current.sdp)
            else { throw WHIPConnectionError.notNegotiated }
            try await connection.restartIce()
            try await connection.setLocalDescription(try await connection.createOffer())
            var session = session
            let answer = try await client.restartICE(
                try await connection.gatheredFragment(within: options.gatheringTimeout),
                of: &session
            )
            self.session = session
            let restarted = JSEP.iceRestartOffer(
                previous: previous,
                iceUfrag: answer.usernameFragment ?? "",
                icePwd: answer.password ?? "",
                candidates: answer.candidates.compactMap { try? IceCandidate(sdpLine: $0) },
                endOfCandidates: answer.endOfCandidates
            )
            try await connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: restarted.sdp))
        } catch {
            // The offer the endpoint did not take is rolled back (JSEP §4.1.8.2): the connection
            // is stable again on the credentials both sides still hold, and the next restart
            // offers anew.
            if await connection.signalingState == .haveLocalOffer {
                try? await connection.setLocalDescription(SignalingDescription(type: .rollback, sdp: ""))
            }
            stats.failedICERestarts += 1
            eventSink.yield(.iceRestartFailed("\(error)"))
            throw error
        }
        stats.iceRestarts += 1
        eventSink.yield(.iceRestarted)
    }

    /// Ends the session with `DELETE` (the connection stays open: close it after). Once only;
    /// trickling and ICE restarts stop.
    public func end() async throws(WHIPError) {
        guard !ended else { return }
        ended = true
        for task in tasks { task.cancel() }
        tasks = []
        eventSink.finish()
        try await client.end(session)
    }

    // MARK: - Trickle and restarts

    private func start(offer: String) async {
        if options.trickle {
            let candidates = await connection.localCandidates()
            tasks.append(Task { await self.trickle(candidates, after: offer) })
        }
        if let delay = options.iceRestartDelay {
            let states = await connection.connectionStates()
            tasks.append(Task { await self.restartWhileDown(states, delay: delay) })
        }
    }

    /// Sends the candidates gathered after `offer` was POSTed, each in its own `PATCH` as it
    /// comes, then end-of-candidates; stops early when the session takes no trickle or a
    /// `PATCH` fails.
    private func trickle(_ candidates: AsyncStream<IceCandidateInit>, after offer: String) async {
        guard let parsed = try? SessionDescription(parsing: offer),
            let section = parsed.media.first.map(parsed.resolved)
        else { return }
        let offered = Set(section.candidates.map(\.sdpLine))
        for await candidate in candidates {
            // Candidates of the offer went with it; those of a later ICE generation go with its restart.
            guard candidate.usernameFragment == nil || candidate.usernameFragment == section.iceUfrag,
                !offered.contains(candidate.candidate)
            else { continue }
            let fragment = TrickleICEFragment(
                usernameFragment: section.iceUfrag,
                password: section.icePwd,
                mid: section.mid,
                candidates: candidate.isEndOfCandidates ? [] : [candidate.candidate],
                endOfCandidates: candidate.isEndOfCandidates
            )
            do {
                guard try await client.trickle(fragment, to: session) else {
                    return trickleEnded(stopped: "the session takes no trickle ICE")
                }
            } catch {
                return trickleEnded(stopped: "\(error)")
            }
            if candidate.isEndOfCandidates { return trickleEnded(stopped: nil) }
            stats.trickledCandidates += 1
        }
    }

    private func trickleEnded(stopped: String?) {
        stats.trickleStopped = stopped
        eventSink.yield(.trickled(candidates: stats.trickledCandidates, stopped: stopped))
    }

    /// Restarts ICE once the connection has been down `delay`, and every `delay` after that
    /// until it is connected again (or the restarts run out).
    private func restartWhileDown(_ states: AsyncStream<PeerConnectionState>, delay: Duration) async {
        var restarter: Task<Void, Never>?
        for await state in states {
            switch state {
            case .disconnected, .failed:
                guard restarter == nil else { continue }
                restarter = Task {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: delay) } catch { return }
                        do { try await self.restartICE() } catch WHIPConnectionError.tooManyICERestarts(_) {
                            return
                        } catch {}
                    }
                }
            case .connected:
                restarter?.cancel()
                restarter = nil
            case .closed:
                restarter?.cancel()
                return
            case .new, .connecting:
                continue
            }
        }
        restarter?.cancel()
    }
}

/// Why a ``WHIPConnection`` did not restart ICE.
public enum WHIPConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session was ended.
    case ended
    /// There is no answer yet to restart against.
    case notNegotiated
    /// ``WHIPConnection/Options/maxICERestarts`` were done.
    case tooManyICERestarts(Int)

    public var description: String {
        switch self {
        case .ended: return "the WHIP session has ended"
        case .notNegotiated: return "no answer to restart ICE against"
        case let .tooManyICERestarts(limit): return "ICE was restarted \(limit) times, the limit"
        }
    }
}
