import Foundation
import SwiftRTC
import SwiftRTCSignalingServer
import Synchronization

/// The sessions of a `whip-server` run: how many were answered, and the report of the last one
/// that ended, preferring one that connected (a stranger's offer that never connects does not
/// replace the report of a call that did).
final class SessionLog: Sendable {
    private struct State {
        var offers = 0
        var viewers = 0
        var count = 0
        var report: BotReport?
        var errors: [String] = []
    }
    private let state = Mutex(State())

    /// Numbers a new offer (from 1).
    func begin() -> Int {
        state.withLock {
            $0.offers += 1
            return $0.offers
        }
    }
    /// Numbers a new WHEP viewer's offer (from 1).
    func beginViewer() -> Int {
        state.withLock {
            $0.viewers += 1
            return $0.viewers
        }
    }
    /// Counts an answered offer: a session.
    func answered() { state.withLock { $0.count += 1 } }
    func ended(_ report: BotReport) {
        state.withLock { state in
            if report.connected || state.report?.connected != true { state.report = report }
        }
    }
    func recordError(_ message: String) { state.withLock { $0.errors.append(message) } }
    var count: Int { state.withLock { $0.count } }
    var report: BotReport? { state.withLock { $0.report } }
    var errors: [String] { state.withLock { $0.errors } }
}

/// One answered offer: its connection (through the monitor) and local media.
final class ServerSession: PeerSession {
    let number: Int
    let monitor: CallMonitor
    let media: CallMedia
    let sessions: SessionLog
    let recorder: MediaRecorder?
    /// The tasks that put what it receives on air for WHEP viewers.
    let relay: [Task<Void, Never>]

    init(
        number: Int,
        monitor: CallMonitor,
        media: CallMedia,
        sessions: SessionLog,
        recorder: MediaRecorder?,
        relay: [Task<Void, Never>]
    ) {
        self.number = number
        self.monitor = monitor
        self.media = media
        self.sessions = sessions
        self.recorder = recorder
        self.relay = relay
    }

    func end() async {
        for task in relay { task.cancel() }
        media.stop()
        if let recorder {
            do {
                for file in try await recorder.stop() { log("recorded \(file.path)") }
                if recorder.sizeLimitsReached > 0 {
                    log("session \(number): its recording stopped at --record-max-megabytes")
                }
            } catch {
                log("error: \(error)")
                monitor.recordError(error.description)
            }
        }
        let report = await monitor.finish()
        sessions.ended(report)
        log(
            "session \(number) ended: connected=\(report.connected), audio decoded \(report.audio.framesDecoded.map(String.init) ?? "null"), video decoded \(report.video.framesDecoded.map(String.init) ?? "null")"
        )
    }
}

extension BotReport.WhipEndpoint {
    init(_ stats: WHIPEndpoint.Stats) {
        self.init(
            sessionsCreated: stats.sessionsCreated,
            viewerSessionsCreated: stats.viewerSessionsCreated,
            endedByClient: stats.endedByClient,
            timedOut: stats.timedOut,
            failed: stats.failed,
            rejectedSessionLimit: stats.rejectedSessionLimit,
            rejectedAddressLimit: stats.rejectedAddressLimit,
            unauthorized: stats.unauthorized,
            badRequests: stats.badRequests,
            answererErrors: stats.answererErrors,
            trickles: stats.trickles,
            iceRestarts: stats.iceRestarts
        )
    }
}

/// One WHEP viewer: a connection that sends the broadcast (which goes on when it ends).
final class ViewerSession: PeerSession {
    let number: Int
    let monitor: CallMonitor

    init(number: Int, monitor: CallMonitor) {
        self.number = number
        self.monitor = monitor
    }

    func end() async {
        let report = await monitor.finish()
        log("viewer \(number) ended: connected=\(report.connected)")
    }
}

/// A `whip-server` session on a peer connection (its monitor's): the connection's state, and
/// its `PATCH`es (trickled candidates, ICE restarts), for the endpoint.
protocol PeerSession: WHIPEndpointSession {
    var monitor: CallMonitor { get }
}

extension PeerSession {
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        await monitor.connection.whipConnectionStates()
    }

    func addCandidates(_ fragment: TrickleICEFragment) async throws {
        try await monitor.connection.addCandidates(fragment)
    }

    func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment {
        try await monitor.connection.restartICE(answering: fragment, gatheringTimeout: WhipServer.gatheringTimeout)
    }
}

extension PeerConnection {
    /// The connection's state as a WHIP endpoint follows it: connected, failed, or not yet
    /// (the endpoint ends a session that does not connect in time or fails).
    func whipConnectionStates() -> AsyncStream<WHIPSessionConnectionState> {
        let states = connectionStates()
        let (stream, continuation) = AsyncStream.makeStream(
            of: WHIPSessionConnectionState.self,
            bufferingPolicy: .bufferingNewest(8)
        )
        let follower = Task {
            for await state in states {
                switch state {
                case .connected: continuation.yield(.connected)
                case .failed: continuation.yield(.failed)
                case .closed: continuation.finish()
                case .new, .connecting, .disconnected: continuation.yield(.connecting)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        return stream
    }
}
