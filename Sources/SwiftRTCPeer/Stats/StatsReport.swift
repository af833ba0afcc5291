import Foundation

/// A snapshot of a connection's statistics, as W3C `getStats()` reports them: stats objects
/// by id, each with a type (`candidate-pair`, `inbound-rtp`, ...) and the W3C member names
/// (`packetsSent`, `roundTripTime`, `framesPerSecond`, ...).
public struct StatsReport: Sendable {
    /// The W3C `RTCStatsType`s SwiftRTC reports.
    public enum StatsType: String, Sendable, Hashable, CaseIterable {
        case candidatePair = "candidate-pair"
        case localCandidate = "local-candidate"
        case remoteCandidate = "remote-candidate"
        case transport
        case inboundRTP = "inbound-rtp"
        case outboundRTP = "outbound-rtp"
        case remoteInboundRTP = "remote-inbound-rtp"
        case codec
        case mediaSource = "media-source"
        case dataChannel = "data-channel"
        case peerConnection = "peer-connection"
    }

    /// One member's value.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case int(Int64)
        case double(Double)
        case string(String)

        /// The value as a number (nil for strings).
        public var number: Double? {
            switch self {
            case .int(let v): Double(v)
            case .double(let v): v
            case .string: nil
            }
        }

        /// The value as a string.
        public var description: String {
            switch self {
            case .int(let v): String(v)
            case .double(let v): String(v)
            case .string(let v): v
            }
        }
    }

    /// One stats object.
    public struct Stats: Sendable {
        /// Unique within the report, stable across reports.
        public var id: String
        /// The W3C type.
        public var type: StatsType
        /// Members by W3C name.
        public var values: [String: Value]

        /// Creates a stats object.
        public init(id: String, type: StatsType, values: [String: Value] = [:]) {
            self.id = id
            self.type = type
            self.values = values
        }

        /// A member's value.
        public subscript(_ name: String) -> Value? {
            get { values[name] }
            set { values[name] = newValue }
        }

        /// A numeric member.
        public func number(_ name: String) -> Double? { values[name]?.number }
        /// A string member.
        public func string(_ name: String) -> String? { values[name]?.description }
    }

    /// When the snapshot was taken: milliseconds since 1970 (W3C `DOMHighResTimeStamp`).
    public var timestamp: Double
    /// Stats objects by id.
    public var stats: [String: Stats]

    /// Creates a report.
    public init(timestamp: Double, stats: [String: Stats] = [:]) {
        self.timestamp = timestamp
        self.stats = stats
    }

    /// The stats objects of one type, sorted by id.
    public func all(_ type: StatsType) -> [Stats] {
        stats.values.filter { $0.type == type }.sorted { $0.id < $1.id }
    }

    /// The first stats object of `type` with `kind` (for RTP streams), if any.
    public func first(_ type: StatsType, kind: String? = nil) -> Stats? {
        all(type).first { kind == nil || $0.string("kind") == kind }
    }

    mutating func add(_ stats: Stats) { self.stats[stats.id] = stats }
}
