import Foundation
import SwiftRTCCore

/// How a call ended, as in the mobile call SDKs' direct-call logs.
public enum CallEndResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// Answered, connected and then hung up by a participant.
    case completed
    /// The initiator hung up before anyone answered.
    case canceled
    /// Every opponent rejected the call.
    case declined
    /// Every opponent rejected because it was in another call.
    case busy
    /// Nobody answered before the answer timeout.
    case noAnswer = "no_answer"
    /// Answered, but the media connection was never established in time.
    case timedOut = "timed_out"
    /// Connected, then the connection dropped and did not come back within the disconnect timeout.
    case connectionLost = "connection_lost"
    /// The media connection failed (ICE or DTLS), or a participant's stack failed.
    case failed
}
