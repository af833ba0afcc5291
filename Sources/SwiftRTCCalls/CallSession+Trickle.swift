import Foundation
import SwiftRTCCore
import SwiftRTCPeer
import SwiftRTCSDP
import SwiftRTCSignaling

// Trickle ICE over the session's signaling (SignalingProtocol.md, "Trickle ICE"): each side
// sends its offer or answer as soon as it is set, with the candidates known then (the host
// ones), and each candidate gathered later as a `candidate` message to that user, ending
// with the end-of-candidates marker; the other side applies them as they come, keeping those
// that arrive before the description they belong to until it is set.

/// A link's trickle state, both ways. Only touched on its session's actor.
final class LinkTrickle {
    /// Opened once this side's first description for the link has been sent: candidates are
    /// trickled only after it, so the peer always has the description they belong to first.
    let gate = AsyncStream<Void>.makeStream()
    var gateOpen = false
    /// The candidate lines the peer has from us (in a description sent, or trickled); the
    /// empty line is the end-of-candidates marker.
    var sent: Set<String> = []
    /// The ICE username fragment of the remote description set now, and of earlier ones
    /// (their candidates, late, are ignored).
    var remoteUfrag: String?
    var pastRemoteUfrags: Set<String> = []
    /// Queued candidates are being applied: candidates arriving meanwhile queue behind them.
    var flushing = false
}

/// Trickled candidates from one user held until the description they belong to is set.
struct QueuedCandidates {
    var candidates: [IceCandidateInit] = []
    /// Dropped over ``RemoteInputLimits/maxQueuedRemoteCandidates`` before the link's
    /// connection existed (counted on it when it does).
    var dropped: Int64 = 0
}

extension CallSession {
    // MARK: Local candidates out

    /// Follows the link's local candidates: once its first description is out, each one the
    /// peer does not have yet goes to it as a `candidate` message, the end-of-candidates
    /// marker last.
    func startTrickle(_ link: PeerLink) async {
        let candidates = await link.connection.localCandidates()
        let gate = link.trickle.gate.stream, user = link.user, serial = link.serial
        link.tasks.append(
            Task { [weak self] in
                for await _ in gate {}
                for await candidate in candidates { await self?.trickle(candidate, to: user, serial) }
            }
        )
    }

    /// This side's description `sdp` went to the link's peer: the candidates it holds need not
    /// be trickled; those gathered after it now are.
    func descriptionSent(_ link: PeerLink, sdp: String) {
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("a=candidate:") {
                link.trickle.sent.insert(String(line.dropFirst(2)))
            } else if line == "a=end-of-candidates" {
                link.trickle.sent.insert("")
            }
        }
        guard !link.trickle.gateOpen else { return }
        link.trickle.gateOpen = true
        link.trickle.gate.continuation.finish()
    }

    func trickle(_ candidate: IceCandidateInit, to user: String, _ serial: Int) async {
        guard let link = link(user, serial), link.trickle.sent.insert(candidate.candidate).inserted else { return }
        await message(to: [user], .candidate(candidate))
    }

    // MARK: Remote candidates in

    /// A trickled candidate from `sender`: applied if it belongs to the remote description
    /// set now; ignored if it belongs to an earlier one (before an ICE restart); otherwise
    /// kept until its description is set (bounded: ``RemoteInputLimits/maxQueuedRemoteCandidates``).
    func received(candidate: IceCandidateInit, from sender: String) async {
        if let link = links[sender], let current = link.trickle.remoteUfrag, !link.trickle.flushing {
            guard let ufrag = candidate.usernameFragment, ufrag != current else {
                await apply(candidate, to: link)
                return
            }
            if link.trickle.pastRemoteUfrags.contains(ufrag) {
                logger.debug("candidate of an earlier ICE generation ignored", metadata: ["user": "\(sender)"])
                return
            }
        }
        var queue = queuedCandidates[sender] ?? QueuedCandidates()
        if queue.candidates.count < RemoteInputLimits.maxQueuedRemoteCandidates {
            queue.candidates.append(candidate)
        } else if let link = links[sender] {
            link.connection.limitHits.hit(.queuedCandidates)
        } else {
            queue.dropped += 1
        }
        queuedCandidates[sender] = queue
    }

    /// The remote description `sdp` was set on the link: its generation is the current one,
    /// and the queued candidates that belong to it are applied (in the order they came).
    func remoteDescriptionSet(_ link: PeerLink, sdp: String) async {
        guard let ufrag = Self.iceUfrag(in: sdp) else { return }
        if let current = link.trickle.remoteUfrag, current != ufrag { link.trickle.pastRemoteUfrags.insert(current) }
        link.trickle.remoteUfrag = ufrag
        guard !link.trickle.flushing else { return }
        link.trickle.flushing = true
        defer { link.trickle.flushing = false }
        var later: [IceCandidateInit] = []
        while let queue = queuedCandidates.removeValue(forKey: link.user),
            !queue.candidates.isEmpty || queue.dropped > 0
        {
            if queue.dropped > 0 { link.connection.limitHits.hit(.queuedCandidates, count: queue.dropped) }
            for candidate in queue.candidates {
                guard links[link.user] === link, let current = link.trickle.remoteUfrag else { return }
                switch candidate.usernameFragment {
                case nil, current?: await apply(candidate, to: link)
                case let other? where link.trickle.pastRemoteUfrags.contains(other): continue
                default: later.append(candidate)  // a later generation: its description is still to come
                }
            }
        }
        if !later.isEmpty { queuedCandidates[link.user] = QueuedCandidates(candidates: later) }
    }

    func apply(_ candidate: IceCandidateInit, to link: PeerLink) async {
        do { try await link.connection.addIceCandidate(candidate) } catch {
            logger.debug("remote candidate not used: \(error)", metadata: ["user": "\(link.user)"])
        }
    }

    /// The `a=ice-ufrag` of a description (the first: one BUNDLEd transport).
    static func iceUfrag(in sdp: String) -> String? {
        for line in sdp.split(whereSeparator: \.isNewline) where line.hasPrefix("a=ice-ufrag:") {
            return String(line.dropFirst("a=ice-ufrag:".count))
        }
        return nil
    }
}
