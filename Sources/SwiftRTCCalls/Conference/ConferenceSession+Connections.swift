import Foundation
import Logging
import SwiftRTCDataChannel
import SwiftRTCJanus
import SwiftRTCPeer
import SwiftRTCSDP

// The connections to Janus: candidates trickled, the local description once gathered.
extension ConferenceSession {
    /// Trickles `connection`'s candidates to `handle` as they are gathered, then says it has
    /// no more.
    func follow(candidatesOf connection: PeerConnection, to handle: JanusHandle) {
        tasks.append(
            Task {
                let candidates = await connection.localCandidates()
                for await candidate in candidates {
                    try? await handle.trickle(
                        JanusCandidate(
                            candidate: candidate.candidate,
                            sdpMid: candidate.sdpMid,
                            sdpMLineIndex: candidate.sdpMLineIndex
                        )
                    )
                }
            }
        )
        tasks.append(
            Task {
                await connection.gatheringComplete()
                try? await handle.trickleCompleted()
            }
        )
    }

    /// The local description once gathering completed (or after ``Options/gatheringTimeout``,
    /// the rest then trickled).
    func gathered(_ connection: PeerConnection) async throws(ConferenceError) -> String {
        _ = await connection.gatheringComplete(within: options.gatheringTimeout)
        guard let description = await connection.localDescription else { throw .connection("no local description") }
        return description.sdp
    }

    func add(_ candidate: JanusCandidate?, to connection: PeerConnection?) async {
        guard let candidate, let connection else { return }
        do {
            try await connection.addIceCandidate(
                IceCandidateInit(
                    candidate: candidate.candidate,
                    sdpMid: candidate.sdpMid,
                    sdpMLineIndex: candidate.sdpMLineIndex
                )
            )
        } catch {
            logger.debug("a candidate from Janus was refused: \(error)")
        }
    }
}
