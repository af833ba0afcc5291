import Foundation

// The flat JSON form: the envelope keys (`type`, `id`, `from`, `to`, `session`) and the body's
// fields side by side in one object.
extension SignalingMessage: Codable {
    private enum EnvelopeKeys: String, CodingKey {
        case type, id, from, to, session
    }

    /// Decodes the flat JSON form; an unknown `type` or a missing body field throws.
    public init(from decoder: any Decoder) throws {
        let envelope = try decoder.container(keyedBy: EnvelopeKeys.self)
        id = try envelope.decodeIfPresent(String.self, forKey: .id)
        from = try envelope.decodeIfPresent(String.self, forKey: .from)
        to = try envelope.decodeIfPresent([String].self, forKey: .to) ?? []
        session = try envelope.decodeIfPresent(String.self, forKey: .session)
        switch try envelope.decode(SignalingMessageType.self, forKey: .type) {
        case .hello: body = .hello(try .init(from: decoder))
        case .welcome: body = .welcome(try .init(from: decoder))
        case .call: body = .call(try .init(from: decoder))
        case .accept: body = .accept(try .init(from: decoder))
        case .reject: body = .reject(try .init(from: decoder))
        case .hangUp: body = .hangUp(try .init(from: decoder))
        case .offer: body = .offer(try .init(from: decoder))
        case .answer: body = .answer(try .init(from: decoder))
        case .candidate: body = .candidate(try .init(from: decoder))
        case .mediaSettings: body = .mediaSettings(try .init(from: decoder))
        case .customItems: body = .customItems(try .init(from: decoder))
        case .recording: body = .recording(try .init(from: decoder))
        case .callLogQuery: body = .callLogQuery(try .init(from: decoder))
        case .callLog: body = .callLog(try .init(from: decoder))
        case .error: body = .error(try .init(from: decoder))
        }
        try Self.checkNumbers(of: body, at: decoder.codingPath)
    }

    /// The numbers a message carries, checked where they enter: a value outside its range
    /// (``SignalingLimits``) fails the decoding with the field's path, so that no code after it
    /// sees a number it could overflow on (an index of 2^63, a record ending in the year 10^300).
    private static func checkNumbers(of body: SignalingBody, at path: [any CodingKey]) throws {
        func refuse(_ keys: [NumberKey], _ reason: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: path + keys, debugDescription: reason))
        }
        switch body {
        case .candidate(let candidate):
            if let index = candidate.sdpMLineIndex, !SignalingLimits.mediaSectionIndexRange.contains(index) {
                throw refuse(
                    [NumberKey("sdpMLineIndex")],
                    "\(index), expected \(SignalingLimits.mediaSectionIndexRange)"
                )
            }
        case .callLogQuery(let query):
            if let limit = query.limit, !(1...SignalingLimits.maxCallLogLimit).contains(limit) {
                throw refuse([NumberKey("limit")], "\(limit), expected 1...\(SignalingLimits.maxCallLogLimit)")
            }
            if let offset = query.offset, !(0...SignalingLimits.maxCallLogOffset).contains(offset) {
                throw refuse([NumberKey("offset")], "\(offset), expected 0...\(SignalingLimits.maxCallLogOffset)")
            }
        case .callLog(let log):
            for (index, record) in log.records.enumerated() {
                let times: [(String, Date?)] = [
                    ("started", record.started), ("answered", record.answered), ("ended", record.ended),
                ]
                for case let (name, time?) in times
                where !SignalingLimits.timeRange.contains(time.timeIntervalSince1970) {
                    throw refuse(
                        [NumberKey("records"), NumberKey(index: index), NumberKey(name)],
                        "\(time.timeIntervalSince1970), expected Unix seconds in \(SignalingLimits.timeRange)"
                    )
                }
            }
        case .hello, .welcome, .call, .accept, .reject, .hangUp, .offer, .answer, .mediaSettings, .customItems,
            .recording, .error:
            break
        }
    }

    /// A key of a refused number's path.
    private struct NumberKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ name: String) { stringValue = name }
        init(index: Int) {
            stringValue = "\(index)"
            intValue = index
        }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.init(index: intValue) }
    }

    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: EnvelopeKeys.self)
        try envelope.encode(type, forKey: .type)
        try envelope.encodeIfPresent(id, forKey: .id)
        try envelope.encodeIfPresent(from, forKey: .from)
        if !to.isEmpty { try envelope.encode(to, forKey: .to) }
        try envelope.encodeIfPresent(session, forKey: .session)
        switch body {
        case .hello(let fields): try fields.encode(to: encoder)
        case .welcome(let fields): try fields.encode(to: encoder)
        case .call(let fields): try fields.encode(to: encoder)
        case .accept(let fields): try fields.encode(to: encoder)
        case .reject(let fields): try fields.encode(to: encoder)
        case .hangUp(let fields): try fields.encode(to: encoder)
        case .offer(let fields): try fields.encode(to: encoder)
        case .answer(let fields): try fields.encode(to: encoder)
        case .candidate(let fields): try fields.encode(to: encoder)
        case .mediaSettings(let fields): try fields.encode(to: encoder)
        case .customItems(let fields): try fields.encode(to: encoder)
        case .recording(let fields): try fields.encode(to: encoder)
        case .callLogQuery(let fields): try fields.encode(to: encoder)
        case .callLog(let fields): try fields.encode(to: encoder)
        case .error(let fields): try fields.encode(to: encoder)
        }
    }
}

extension SignalingMessage {
    /// Parses one message from its JSON text and checks ``validate()``; never traps on input.
    /// - Throws: ``SignalingProtocolError`` naming what is wrong and where (the JSON path).
    public init(json data: Data) throws(SignalingProtocolError) {
        guard data.count <= SignalingLimits.maxMessageBytes else {
            throw .tooLarge(bytes: data.count, limit: SignalingLimits.maxMessageBytes)
        }
        do {
            self = try JSONDecoder().decode(SignalingMessage.self, from: data)
        } catch let error as DecodingError {
            let mapped = SignalingProtocolError(error)
            if case .unknownType = mapped, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let type = object["type"] as? String
            {
                throw .unknownType(type)
            }
            throw mapped
        } catch {
            throw .invalidJSON(reason: "\(error)")
        }
        try validate()
    }

    /// The message as compact JSON text (keys sorted, so equal messages give equal bytes).
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, number, bool, array or string dictionary: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Why `id` is refused as a user id (quoted in part: it can be long).
    static func notAUserID(_ id: String) -> String {
        id.isEmpty ? "empty user id" : "'\(id.prefix(64))' is not a user id (letters, digits, . _ - @; 1 to 64)"
    }

    /// Checks the limits of ``SignalingLimits`` and the fields each type requires
    /// (a session id on session messages, recipients on messages to other users).
    /// - Throws: ``SignalingProtocolError/invalidField(path:reason:)``.
    public func validate() throws(SignalingProtocolError) {
        try validateAddressing()
        try validateBody()
    }

    /// Checks the session id and the recipients the message's type requires, the number of
    /// recipients, and that `to` and `from` name valid user ids.
    private func validateAddressing() throws(SignalingProtocolError) {
        let needsSession: Bool, needsRecipients: Bool
        switch body {
        case .hello, .welcome, .callLogQuery, .callLog, .error:
            needsSession = false
            needsRecipients = false
        case .call, .accept, .reject, .hangUp, .offer, .answer, .candidate, .mediaSettings, .customItems, .recording:
            needsSession = true
            needsRecipients = true
        }
        if needsSession, (session ?? "").isEmpty {
            throw .invalidField(path: "session", reason: "a \(type.rawValue) message needs a session id")
        }
        if needsRecipients, to.isEmpty {
            throw .invalidField(path: "to", reason: "a \(type.rawValue) message needs at least one recipient")
        }
        if to.count >= SignalingLimits.maxParticipants {
            throw .invalidField(
                path: "to",
                reason: "\(to.count) recipients, at most \(SignalingLimits.maxParticipants - 1)"
            )
        }
        if let index = to.firstIndex(where: { !SignalingLimits.isValidUserID($0) }) {
            throw .invalidField(path: "to[\(index)]", reason: Self.notAUserID(to[index]))
        }
        if let from, !SignalingLimits.isValidUserID(from) {
            throw .invalidField(path: "from", reason: Self.notAUserID(from))
        }
    }

    /// Checks the fields of the message's body: a call's initiator, opponents and recipients,
    /// the size of each dictionary, a call log query's limit and offset.
    private func validateBody() throws(SignalingProtocolError) {
        switch body {
        case .call(let call):
            if !SignalingLimits.isValidUserID(call.initiator) {
                throw .invalidField(path: "initiator", reason: Self.notAUserID(call.initiator))
            }
            if let index = call.opponents.firstIndex(where: { !SignalingLimits.isValidUserID($0) }) {
                throw .invalidField(path: "opponents[\(index)]", reason: Self.notAUserID(call.opponents[index]))
            }
            if call.opponents.isEmpty || call.opponents.count >= SignalingLimits.maxParticipants {
                throw .invalidField(
                    path: "opponents",
                    reason: "\(call.opponents.count) opponents, expected 1...\(SignalingLimits.maxParticipants - 1)"
                )
            }
            if Set(call.opponents).count != call.opponents.count || call.opponents.contains(call.initiator) {
                throw .invalidField(
                    path: "opponents",
                    reason: "opponents must be distinct users other than the initiator"
                )
            }
            if let stranger = to.first(where: { !call.opponents.contains($0) }) {
                throw .invalidField(path: "to", reason: "recipient \(stranger) is not one of the opponents")
            }
            try Self.check(call.userInfo, path: "userInfo")
        case .accept(let accept): try Self.check(accept.userInfo, path: "userInfo")
        case .reject(let reject): try Self.check(reject.userInfo, path: "userInfo")
        case .hangUp(let hangUp): try Self.check(hangUp.userInfo, path: "userInfo")
        case .customItems(let items):
            try Self.check(items.updated, path: "updated")
            if items.deleted.count > SignalingLimits.maxDictionaryEntries {
                throw .invalidField(
                    path: "deleted",
                    reason: "\(items.deleted.count) keys, at most \(SignalingLimits.maxDictionaryEntries)"
                )
            }
        case .callLogQuery(let query):
            if let limit = query.limit, !(1...SignalingLimits.maxCallLogLimit).contains(limit) {
                throw .invalidField(path: "limit", reason: "\(limit), expected 1...\(SignalingLimits.maxCallLogLimit)")
            }
            if let offset = query.offset, !(0...SignalingLimits.maxCallLogOffset).contains(offset) {
                throw .invalidField(
                    path: "offset",
                    reason: "\(offset), expected 0...\(SignalingLimits.maxCallLogOffset)"
                )
            }
        case .hello, .welcome, .offer, .answer, .candidate, .mediaSettings, .recording, .callLog, .error:
            break
        }
    }

    private static func check(_ dictionary: [String: String], path: String) throws(SignalingProtocolError) {
        if dictionary.count > SignalingLimits.maxDictionaryEntries {
            throw .invalidField(
                path: path,
                reason: "\(dictionary.count) entries, at most \(SignalingLimits.maxDictionaryEntries)"
            )
        }
    }
}
