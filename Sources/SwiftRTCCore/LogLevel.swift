import Logging

/// How much SwiftRTC logs, with the three settings the mobile call SDKs offer.
///
/// The library and `callbot` share one level, set with ``SwiftRTCLogging/level``.
public enum LogLevel: String, Sendable, CaseIterable, Codable {
    /// No log output at all.
    case nothing
    /// Call and connection milestones, warnings and errors (swift-log `.info` and above).
    case basic
    /// Everything, including the media stack's internals: negotiation details, ICE checks,
    /// DTLS handshakes and the C libraries' own debug output (swift-log `.trace` and above).
    case verbose

    /// The swift-log level this setting lets through; `nil` for ``nothing``.
    public var loggerLevel: Logger.Level? {
        switch self {
        case .nothing: nil
        case .basic: .info
        case .verbose: .trace
        }
    }
}
