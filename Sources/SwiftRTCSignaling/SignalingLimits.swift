import Foundation
import SwiftRTCCore

/// Limits every implementation of the protocol enforces on incoming messages.
public enum SignalingLimits {
    /// The largest message, in bytes of JSON.
    public static let maxMessageBytes = 64 * 1024
    /// The most users in one session (initiator and opponents: a mesh of 4).
    public static let maxParticipants = 4
    /// The most entries in a user info or custom items dictionary.
    public static let maxDictionaryEntries = 64
    /// The largest call-log `limit`.
    public static let maxCallLogLimit = 500
    /// The call-log `limit` when the query has none.
    public static let defaultCallLogLimit = 50
    /// The largest call-log `offset` (a deeper page is refused as malformed).
    public static let maxCallLogOffset = 100_000

    /// A call-log page's `limit` and `offset` within the ranges above (for a store, which
    /// may be called with any).
    package static func callLogPage(limit: Int, offset: Int) -> (limit: Int, offset: Int) {
        (min(max(limit, 1), maxCallLogLimit), min(max(offset, 0), maxCallLogOffset))
    }
    /// The range of a candidate's `sdpMLineIndex`: an index into a description's `m=`
    /// sections, of which the SDP parser takes at most `RemoteInputLimits.maxMediaSections` (64).
    public static let mediaSectionIndexRange = 0...(RemoteInputLimits.maxMediaSections - 1)
    /// Whether `id` can be a user id: letters, digits and `. _ - @`, 1 to 64 of them. Every
    /// user id a message names (recipients, initiator, opponents) is one, so that a call
    /// record stays small whatever a client sends.
    public static func isValidUserID(_ id: some StringProtocol) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "._-@".unicodeScalars.contains(scalar))
            }
    }

    /// The range of a call record's times (`started`, `answered`, `ended`), in Unix seconds:
    /// 1970 to the end of year 9999.
    public static let timeRange = 0.0...253_402_300_799.0
}
