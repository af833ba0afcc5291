import Foundation

/// One call as a direct-call log keeps it: what the signaling server stores and answers
/// call-log queries with, and what a `CallSession` reports when it ends.
///
/// On the wire (inside `callLog`), times are Unix seconds:
/// `{"callId","caller","callees","conferenceType","started","answered"?,"ended","duration","result","customItems"}`.
public struct CallRecord: Sendable, Hashable, Codable {
    /// The call session's id.
    public var callId: String
    /// The initiator.
    public var caller: String
    /// The opponents.
    public var callees: [String]
    /// Audio or video.
    public var conferenceType: ConferenceType
    /// When the call request was first sent.
    public var started: Date
    /// When the first opponent accepted, if anyone did.
    public var answered: Date?
    /// When the call ended.
    public var ended: Date
    /// How it ended.
    public var result: CallEndResult
    /// The custom items as they were at the end of the call.
    public var customItems: [String: String]

    /// Talk time: from the answer to the end (zero when nobody answered).
    public var duration: TimeInterval { answered.map { max(0, ended.timeIntervalSince($0)) } ?? 0 }

    /// A record.
    public init(
        callId: String,
        caller: String,
        callees: [String],
        conferenceType: ConferenceType,
        started: Date,
        answered: Date? = nil,
        ended: Date,
        result: CallEndResult,
        customItems: [String: String] = [:]
    ) {
        self.callId = callId
        self.caller = caller
        self.callees = callees
        self.conferenceType = conferenceType
        self.started = started
        self.answered = answered
        self.ended = ended
        self.result = result
        self.customItems = customItems
    }

    private enum CodingKeys: String, CodingKey {
        case callId, caller, callees, conferenceType, started, answered, ended, duration, result, customItems
    }

    /// Decodes the wire form (Unix-second times; `duration` is derived and ignored).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        callId = try container.decode(String.self, forKey: .callId)
        caller = try container.decode(String.self, forKey: .caller)
        callees = try container.decode([String].self, forKey: .callees)
        conferenceType = try container.decode(ConferenceType.self, forKey: .conferenceType)
        started = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .started))
        answered = try container.decodeIfPresent(Double.self, forKey: .answered).map(Date.init(timeIntervalSince1970:))
        ended = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .ended))
        result = try container.decode(CallEndResult.self, forKey: .result)
        customItems = try container.decodeIfPresent([String: String].self, forKey: .customItems) ?? [:]
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(callId, forKey: .callId)
        try container.encode(caller, forKey: .caller)
        try container.encode(callees, forKey: .callees)
        try container.encode(conferenceType, forKey: .conferenceType)
        try container.encode(started.timeIntervalSince1970, forKey: .started)
        try container.encodeIfPresent(answered?.timeIntervalSince1970, forKey: .answered)
        try container.encode(ended.timeIntervalSince1970, forKey: .ended)
        try container.encode(duration, forKey: .duration)
        try container.encode(result, forKey: .result)
        try container.encode(customItems, forKey: .customItems)
    }
}
