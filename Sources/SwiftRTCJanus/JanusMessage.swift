import Foundation

/// One message from Janus (the `janus` field says which kind), read defensively: a field of the
/// wrong type counts as missing, ids must be positive whole numbers, strings are cut to
/// ``maxString`` characters. What the client dispatches on.
struct JanusMessage: Sendable {
    /// `success`, `error`, `ack`, `event`, `webrtcup`, `media`, `slowlink`, `hangup`,
    /// `trickle`, `detached`, `timeout`, `server_info`...
    var kind: String
    var transaction: String?
    var session: Int64?
    /// The handle the message is about (`sender`).
    var sender: Int64?
    /// `data.id` of a `success` to create or attach.
    var createdID: Int64?
    var plugin: String?
    /// `plugindata.data`.
    var pluginData: JanusJSON?
    var jsep: JanusJSEP?
    var error: (code: Int, reason: String)?
    /// A `trickle`'s candidate; nil with ``trickleCompleted``.
    var candidate: JanusCandidate?
    var trickleCompleted = false
    /// `media`: the kind (`audio`, `video`), whether it flows, and its `mid`.
    var mediaType: String?
    var receiving: Bool?
    var mid: String?
    /// `slowlink`: which way and how many packets were lost (clamped to 0...1_000_000).
    var uplink: Bool?
    var lost: Int?
    /// `hangup`'s reason.
    var reason: String?

    /// The longest string field kept; longer ones are cut.
    static let maxString = 256

    /// The message in `text`; nil when it is not a JSON object with a `janus` string.
    init?(text: String) {
        guard let value = JanusJSON(json: Data(text.utf8)), let kind = value["janus"]?.string else { return nil }
        self.kind = String(kind.prefix(Self.maxString))
        transaction = value["transaction"]?.string.map { String($0.prefix(Self.maxString)) }
        session = Self.id(value["session_id"])
        sender = Self.id(value["sender"])
        createdID = Self.id(value["data"]?["id"])
        if let plugindata = value["plugindata"] {
            plugin = plugindata["plugin"]?.string.map { String($0.prefix(Self.maxString)) }
            pluginData = plugindata["data"]
        }
        jsep = value["jsep"].flatMap(JanusJSEP.init(json:))
        if let error = value["error"] {
            let code = error["code"]?.integer.map { Int(clamping: $0) } ?? 0
            self.error = (code, String((error["reason"]?.string ?? "").prefix(Self.maxString)))
        }
        if kind == "trickle" {
            if let candidate = value["candidate"] {
                if candidate["completed"]?.bool == true {
                    trickleCompleted = true
                } else {
                    self.candidate = JanusCandidate(json: candidate)
                }
            }
        }
        mediaType = value["type"]?.string.map { String($0.prefix(Self.maxString)) }
        receiving = value["receiving"]?.bool
        mid = value["mid"]?.string.map { String($0.prefix(Self.maxString)) }
        uplink = value["uplink"]?.bool
        lost = value["lost"]?.integer.map { Int(clamping: min(max($0, 0), 1_000_000)) }
        reason = value["reason"]?.string.map { String($0.prefix(Self.maxString)) }
    }

    /// A Janus id: a positive whole number.
    static func id(_ value: JanusJSON?) -> Int64? {
        guard let id = value?.integer, id > 0 else { return nil }
        return id
    }
}
