import Foundation
import SwiftRTCCore
import SwiftRTCSDP

/// The body of a ``SignalingMessage``: one case per message type, each with its fields.
public enum SignalingBody: Sendable, Hashable {
    /// Client → server, first message on a connection: authenticate with a token.
    case hello(Hello)
    /// Server → client: authenticated as `user`.
    case welcome(Welcome)
    /// Initiator → each opponent: a call request with the initiator's SDP offer for that pair.
    /// Re-sent unchanged every dialing interval until the opponent answers or the answer
    /// timeout ends it.
    case call(Call)
    /// Opponent → initiator (with the SDP answer) and → the other opponents (without SDP, as a
    /// "joined" notice that starts the mesh connections between opponents).
    case accept(Accept)
    /// Opponent → initiator and the other opponents: declines the call (or is busy).
    case reject(Reject)
    /// Any participant → all others: leaves the session; `result` says why from the sender's view.
    case hangUp(HangUp)
    /// Participant → participant in a session: an SDP offer (mesh connection between two
    /// opponents, or an ICE restart of an existing connection).
    case offer(Description)
    /// The SDP answer to an ``offer(_:)``.
    case answer(Description)
    /// A trickled ICE candidate for the connection between sender and recipient.
    case candidate(IceCandidateInit)
    /// The sender's local audio/video was enabled or disabled (mute notices).
    case mediaSettings(MediaSettings)
    /// Custom items of the call updated or deleted by the sender.
    case customItems(CustomItems)
    /// The sender started or stopped recording the call.
    case recording(Recording)
    /// Client → server: the authenticated user's call log.
    case callLogQuery(CallLogQuery)
    /// Server → client: the answer to a ``callLogQuery(_:)``.
    case callLog(CallLog)
    /// Server → client: a message was refused.
    case error(ErrorReply)

    /// The message's `type` on the wire.
    public var type: SignalingMessageType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .call: .call
        case .accept: .accept
        case .reject: .reject
        case .hangUp: .hangUp
        case .offer: .offer
        case .answer: .answer
        case .candidate: .candidate
        case .mediaSettings: .mediaSettings
        case .customItems: .customItems
        case .recording: .recording
        case .callLogQuery: .callLogQuery
        case .callLog: .callLog
        case .error: .error
        }
    }
}

// MARK: - Bodies

extension SignalingBody {
    /// `hello`: `{"token": "…"}`.
    public struct Hello: Sendable, Hashable, Codable {
        /// The bearer token that names the user (server's tokens / users file).
        public var token: String
        /// A hello with a token.
        public init(token: String) { self.token = token }
    }

    /// `welcome`: `{"user": "alice"}`.
    public struct Welcome: Sendable, Hashable, Codable {
        /// The authenticated user id of this connection.
        public var user: String
        /// A welcome for a user.
        public init(user: String) { self.user = user }
    }

    /// `call`: `{"sdp", "conferenceType", "initiator", "opponents", "userInfo"}`.
    public struct Call: Sendable, Hashable, Codable {
        /// The initiator's SDP offer for the connection to the recipient.
        public var sdp: String
        /// Audio only or audio and video.
        public var conferenceType: ConferenceType
        /// The user who started the call (the server checks it is the sender).
        public var initiator: String
        /// Every invited user except the initiator (the whole mesh, not only the recipient);
        /// only these users may accept or otherwise take part in the session.
        public var opponents: [String]
        /// The initiator's user info of `startCall(userInfo:)`.
        public var userInfo: [String: String]
        /// A call request.
        public init(
            sdp: String,
            conferenceType: ConferenceType,
            initiator: String,
            opponents: [String],
            userInfo: [String: String] = [:]
        ) {
            self.sdp = sdp
            self.conferenceType = conferenceType
            self.initiator = initiator
            self.opponents = opponents
            self.userInfo = userInfo
        }
        private enum CodingKeys: String, CodingKey { case sdp, conferenceType, initiator, opponents, userInfo }
        /// Decodes; an absent `userInfo` is empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sdp = try container.decode(String.self, forKey: .sdp)
            conferenceType = try container.decode(ConferenceType.self, forKey: .conferenceType)
            initiator = try container.decode(String.self, forKey: .initiator)
            opponents = try container.decode([String].self, forKey: .opponents)
            userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
        }
    }

    /// `accept`: `{"sdp"?, "userInfo"}`.
    public struct Accept: Sendable, Hashable, Codable {
        /// The SDP answer, in the accept sent to the initiator; absent in the joined notices to
        /// the other opponents.
        public var sdp: String?
        /// The user info of `acceptCall(userInfo:)`.
        public var userInfo: [String: String]
        /// An accept.
        public init(sdp: String? = nil, userInfo: [String: String] = [:]) {
            self.sdp = sdp
            self.userInfo = userInfo
        }
        private enum CodingKeys: String, CodingKey { case sdp, userInfo }
        /// Decodes; an absent `userInfo` is empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sdp = try container.decodeIfPresent(String.self, forKey: .sdp)
            userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
        }
    }

    /// `reject`: `{"userInfo", "busy"}`.
    public struct Reject: Sendable, Hashable, Codable {
        /// The user info of `rejectCall(userInfo:)`.
        public var userInfo: [String: String]
        /// True when the callee rejected because it is already in another call.
        public var busy: Bool
        /// A reject.
        public init(userInfo: [String: String] = [:], busy: Bool = false) {
            self.userInfo = userInfo
            self.busy = busy
        }
        private enum CodingKeys: String, CodingKey { case userInfo, busy }
        /// Decodes; an absent `userInfo` is empty, an absent `busy` false.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
            busy = try container.decodeIfPresent(Bool.self, forKey: .busy) ?? false
        }
    }

    /// `hangUp`: `{"userInfo", "result"?}`.
    public struct HangUp: Sendable, Hashable, Codable {
        /// The user info of `hangUp(userInfo:)`.
        public var userInfo: [String: String]
        /// Why the sender left, when it is not a plain hang up: `canceled` (the initiator gave up
        /// before anyone answered), `no_answer` (answer timeout for the recipient),
        /// `connection_lost` (disconnect timeout), `failed`, `timed_out`.
        public var result: CallEndResult?
        /// A hang up.
        public init(userInfo: [String: String] = [:], result: CallEndResult? = nil) {
            self.userInfo = userInfo
            self.result = result
        }
        private enum CodingKeys: String, CodingKey { case userInfo, result }
        /// Decodes; an absent `userInfo` is empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
            result = try container.decodeIfPresent(CallEndResult.self, forKey: .result)
        }
    }

    /// `offer` / `answer`: `{"sdp", "iceRestart"}`.
    public struct Description: Sendable, Hashable, Codable {
        /// The SDP.
        public var sdp: String
        /// True for the offer (and its answer) of an ICE restart of an existing connection.
        public var iceRestart: Bool
        /// A description.
        public init(sdp: String, iceRestart: Bool = false) {
            self.sdp = sdp
            self.iceRestart = iceRestart
        }
        private enum CodingKeys: String, CodingKey { case sdp, iceRestart }
        /// Decodes; an absent `iceRestart` is false.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sdp = try container.decode(String.self, forKey: .sdp)
            iceRestart = try container.decodeIfPresent(Bool.self, forKey: .iceRestart) ?? false
        }
    }

    /// `mediaSettings`: `{"audioEnabled"?, "videoEnabled"?}`; an absent field did not change.
    public struct MediaSettings: Sendable, Hashable, Codable {
        /// Whether the sender's local audio is sent (false: muted, silence is sent).
        public var audioEnabled: Bool?
        /// Whether the sender's local video is sent (false: black frames are sent).
        public var videoEnabled: Bool?
        /// A media settings notice.
        public init(audioEnabled: Bool? = nil, videoEnabled: Bool? = nil) {
            self.audioEnabled = audioEnabled
            self.videoEnabled = videoEnabled
        }
    }

    /// `customItems`: `{"updated": {...}, "deleted": [...]}`.
    public struct CustomItems: Sendable, Hashable, Codable {
        /// Items set (added or replaced).
        public var updated: [String: String]
        /// Keys removed.
        public var deleted: [String]
        /// A custom items change.
        public init(updated: [String: String] = [:], deleted: [String] = []) {
            self.updated = updated
            self.deleted = deleted
        }
        private enum CodingKeys: String, CodingKey { case updated, deleted }
        /// Decodes; absent `updated`/`deleted` are empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            updated = try container.decodeIfPresent([String: String].self, forKey: .updated) ?? [:]
            deleted = try container.decodeIfPresent([String].self, forKey: .deleted) ?? []
        }
    }

    /// `recording`: `{"active", "option"}`.
    public struct Recording: Sendable, Hashable, Codable {
        /// True when the sender started recording, false when it stopped.
        public var active: Bool
        /// What is recorded.
        public var option: RecordingOption
        /// A recording status.
        public init(active: Bool, option: RecordingOption) {
            self.active = active
            self.option = option
        }
    }

    /// `callLogQuery`: `{"role"?, "result"?, "limit"?, "offset"?}`.
    public struct CallLogQuery: Sendable, Hashable, Codable {
        /// Calls the user made (`caller`), received (`callee`), or both (absent).
        public var role: CallRole?
        /// Only calls that ended this way.
        public var result: CallEndResult?
        /// At most this many records, newest first (server default 50, at most 500).
        public var limit: Int?
        /// Skip this many of the newest matching records first (paging: the next page's
        /// offset is this one's plus its limit), at most ``SignalingLimits/maxCallLogOffset``.
        public var offset: Int?
        /// A query.
        public init(role: CallRole? = nil, result: CallEndResult? = nil, limit: Int? = nil, offset: Int? = nil) {
            self.role = role
            self.result = result
            self.limit = limit
            self.offset = offset
        }
    }

    /// `callLog`: `{"replyTo"?, "records": [...]}`.
    public struct CallLog: Sendable, Hashable, Codable {
        /// The `id` of the query answered.
        public var replyTo: String?
        /// The matching calls, newest first.
        public var records: [CallRecord]
        /// A call log answer.
        public init(replyTo: String? = nil, records: [CallRecord]) {
            self.replyTo = replyTo
            self.records = records
        }
    }

    /// `error`: `{"code", "reason", "replyTo"?}`.
    public struct ErrorReply: Sendable, Hashable, Codable, Error, CustomStringConvertible {
        /// What went wrong.
        public var code: SignalingErrorCode
        /// Human-readable detail (for a malformed message: where it is wrong).
        public var reason: String
        /// The `id` of the refused message, when it had one.
        public var replyTo: String?
        /// An error reply.
        public init(code: SignalingErrorCode, reason: String, replyTo: String? = nil) {
            self.code = code
            self.reason = reason
            self.replyTo = replyTo
        }
        /// `"<code> <name>: <reason>"`.
        public var description: String { "\(code.rawValue) \(code): \(reason)" }
    }
}

// MARK: - Shared value types
