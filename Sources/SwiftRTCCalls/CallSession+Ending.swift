import Foundation
import SwiftRTCPeer
import SwiftRTCSignaling

// Ending: a pair's connection failed or closed, the session ended once nobody is left, the record reported.
extension CallSession {
    /// Ends the pair's connection as failed: `result` for the record (by default
    /// connection lost if it had connected, else failed).
    func fail(_ link: PeerLink, result: CallEndResult? = nil) async {
        setUserState(link.user, .failed)
        emit(.connectionFailed(user: link.user))
        lossResults.append(result ?? (link.everConnected ? .connectionLost : .failed))
        await message(to: [link.user], .hangUp(.init(result: result == .timedOut ? .timedOut : .failed)))
        await closeLink(link)
        await endIfDone()
    }

    func closeLink(_ link: PeerLink) async {
        guard links[link.user] === link else { return }
        links[link.user] = nil
        recordedFiles += await recorder?.remove(user: link.user) ?? []
        link.cancelAll()
        await link.connection.close()
        // As the SDKs: a connection that was up is disconnected, then closed (a dropped one
        // said so when it dropped).
        if link.everConnected && !link.reconnecting { emit(.disconnected(user: link.user)) }
        emit(.connectionClosed(user: link.user))
        if speaking.remove(link.user) != nil { emit(.talking(users: speaking)) }
    }

    /// Ends the session when nobody is left to talk with: for the initiator, when every
    /// opponent is gone; for an opponent, when its request was withdrawn (before accepting) or
    /// its last connection closed (after).
    func endIfDone() async {
        guard state != .closed else { return }
        if isIncoming {
            if hasAccepted ? links.isEmpty : (userStates[initiator]?.isFinal ?? true) { await finish() }
        } else if liveUsers.isEmpty {
            await finish()
        }
    }

    var endResult: CallEndResult {
        if let loss = lossResults.first { return loss }
        if answeredAt != nil { return .completed }
        if isIncoming {
            if localHangUp { return rejects.first?.busy == true ? .busy : .declined }
            return remoteCanceled ? .canceled : .noAnswer
        }
        if localHangUp { return .canceled }
        if !rejects.isEmpty, rejects.count == opponents.count { return rejects.allSatisfy(\.busy) ? .busy : .declined }
        return .noAnswer
    }

    /// Closes everything and reports the record.
    func finish() async {
        guard state != .closed else { return }
        for link in Array(links.values) { await closeLink(link) }
        _ = await stopRecording()
        let ended = Date()
        let record = CallRecord(
            callId: id,
            caller: initiator,
            callees: opponents,
            conferenceType: conferenceType,
            started: startedAt,
            answered: answeredAt,
            ended: ended,
            result: endResult,
            customItems: items
        )
        self.record = record
        setState(.closed)
        localAudioTrack.stop()
        localVideoTrack?.stop()
        emit(.ended(record))
        eventHub.finish()
        chatHub.finish()
        await onEnded(self, record)
    }
}
