/// A ``StatsReport`` as JSON, in the shape of W3C `getStats()` results: each stats object
/// flat (`id`, `type`, then its fields), under `stats` by id, beside the report's `timestamp`.
///
/// ```json
/// {"timestamp": 1234.5, "stats": {"OT-1234": {"id": "OT-1234", "type": "outbound-rtp", "packetsSent": 512, ...}}}
/// ```
extension StatsReport: Codable {
    private enum Keys: String, CodingKey { case timestamp, stats }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            timestamp: try container.decode(Double.self, forKey: .timestamp),
            stats: try container.decode([String: Stats].self, forKey: .stats)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(stats, forKey: .stats)
    }
}

extension StatsReport.StatsType: Codable {}

extension StatsReport.Value: Codable {
    /// A JSON number that is a whole number is an integer; others are doubles.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let integer = try? value.decode(Int64.self) {
            self = .int(integer)
        } else if let number = try? value.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try value.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value.isFinite ? value : 0)
        case .string(let value): try container.encode(value)
        }
    }
}

extension StatsReport.Stats: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var values: [String: StatsReport.Value] = [:]
        for key in container.allKeys where key.stringValue != "id" && key.stringValue != "type" {
            values[key.stringValue] = try container.decode(StatsReport.Value.self, forKey: key)
        }
        self.init(
            id: try container.decode(String.self, forKey: Key(stringValue: "id")),
            type: try container.decode(StatsReport.StatsType.self, forKey: Key(stringValue: "type")),
            values: values
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key(stringValue: "id"))
        try container.encode(type, forKey: Key(stringValue: "type"))
        for (name, value) in values where name != "id" && name != "type" {
            try container.encode(value, forKey: Key(stringValue: name))
        }
    }
}
