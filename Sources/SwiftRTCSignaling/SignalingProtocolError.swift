/// Why an incoming signaling message was refused. Each case says where: the JSON path of the
/// field (`opponents`, `to[1]`, `userInfo.name`...) and what was expected.
public enum SignalingProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a JSON object at all.
    case invalidJSON(reason: String)
    /// `type` is missing or not one of ``SignalingMessageType`` (the unknown value, when known).
    case unknownType(String?)
    /// A required field is missing.
    case missingField(path: String)
    /// A field has the wrong JSON type or an invalid value.
    case invalidField(path: String, reason: String)
    /// The message is larger than ``SignalingLimits/maxMessageBytes``.
    case tooLarge(bytes: Int, limit: Int)

    /// The error reply code that reports this error to the sender.
    public var code: SignalingErrorCode {
        if case .tooLarge = self { return .tooLarge }
        return .malformed
    }

    /// The error in one line.
    public var description: String {
        switch self {
        case .invalidJSON(let reason): "not a JSON message: \(reason)"
        case .unknownType(let type): type.map { "unknown message type '\($0)'" } ?? "missing message type"
        case .missingField(let path): "missing field '\(path)'"
        case let .invalidField(path, reason): "field '\(path)': \(reason)"
        case let .tooLarge(bytes, limit): "message of \(bytes) bytes, at most \(limit)"
        }
    }

    init(_ error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            var text = ""
            for component in codingPath + (key.map { [$0] } ?? []) {
                if let index = component.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? component.stringValue : ".\(component.stringValue)"
                }
            }
            return text.isEmpty ? "(message)" : text
        }
        switch error {
        case let .keyNotFound(key, context):
            self =
                key.stringValue == "type" && context.codingPath.isEmpty
                ? .unknownType(nil) : .missingField(path: path(context.codingPath, key))
        case let .typeMismatch(type, context):
            self =
                context.codingPath.isEmpty
                ? .invalidJSON(reason: "expected an object")
                : .invalidField(path: path(context.codingPath), reason: "expected \(type)")
        case let .valueNotFound(type, context):
            self = .invalidField(path: path(context.codingPath), reason: "null, expected \(type)")
        case let .dataCorrupted(context):
            if context.codingPath.count == 1, context.codingPath[0].stringValue == "type" {
                self = .unknownType(nil)
            } else if context.codingPath.isEmpty {
                self = .invalidJSON(reason: context.debugDescription)
            } else {
                self = .invalidField(path: path(context.codingPath), reason: context.debugDescription)
            }
        @unknown default:
            self = .invalidJSON(reason: "\(error)")
        }
    }
}
