import Foundation

/// A JSON value: what a Janus plugin's request body and its replies (`plugindata.data`) hold,
/// whose fields each plugin defines (VideoRoom's `request`, `room`, `publishers`...).
///
/// ```swift
/// let body: JanusJSON = ["request": "join", "ptype": "publisher", "room": 1234, "display": "bot"]
/// let room = reply["room"]?.integer
/// ```
public enum JanusJSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON numbers are doubles; ``integer`` reads a whole one).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JanusJSON])
    /// An object, its members by name.
    case object([String: JanusJSON])

    /// 2^53: the whole numbers a JSON number (a double) holds exactly.
    static let exactIntegers = 9_007_199_254_740_992.0

    /// The deepest nesting read from the server; deeper values are refused as malformed.
    static let maxDepth = 32

    /// The member `key` of an object; nil for anything else or a missing member.
    public subscript(key: String) -> JanusJSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }

    /// The boolean, if this is one.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The elements, if this is an array.
    public var array: [JanusJSON]? { if case .array(let value) = self { value } else { nil } }

    /// The number as an integer when it is a whole number within ±2^53 (what JSON numbers
    /// carry exactly; Janus's ids stay within it); nil for anything else.
    public var integer: Int64? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) <= Self.exactIntegers else {
            return nil
        }
        return Int64(value)
    }

    /// The value from JSON text; nil when it is not JSON or nests deeper than ``maxDepth``.
    package init?(json data: Data) {
        guard let value = try? JSONDecoder().decode(JanusJSON.self, from: data) else { return nil }
        self = value
    }

    /// The value as JSON text (keys sorted).
    package var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every case encodes (a non-finite number as 0, see `encode(to:)`): this cannot fail.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}

extension JanusJSON: Codable {
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maxDepth else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "nested deeper than \(Self.maxDepth)")
            )
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JanusJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JanusJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        // Whole numbers as integers (ids must go back digit for digit); never a non-finite
        // number, which JSON has no text for.
        case .number(let value):
            if !value.isFinite {
                try container.encode(0)
            } else if value.rounded() == value, abs(value) <= Self.exactIntegers {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JanusJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JanusJSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JanusJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JanusJSON: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { String(decoding: jsonData, as: UTF8.self) }
}
