import Logging
import Synchronization

/// The logging entry point shared by every SwiftRTC module and by `callbot`.
///
/// Library code asks for its loggers here, so that one setting, ``level``, governs what the
/// whole stack prints, also for loggers made before the level changed:
///
/// ```swift
/// SwiftRTCLogging.level = .verbose
/// let logger = SwiftRTCLogging.logger("ice")   // label "swiftrtc.ice"
/// ```
///
/// Output goes to the handler the application bootstrapped with swift-log's
/// `LoggingSystem.bootstrap` (swift-log's default, standard output, when it did not): the
/// application chooses the handler and sets ``level``; no library call changes either. Ids
/// (sessions, users) go in each record's metadata, not in its message. The data plane never
/// logs per packet above trace level (DESIGN.md, "Control plane and data plane").
public enum SwiftRTCLogging {
    private struct State {
        var level: LogLevel = .basic
        /// Tests replace it (``setOutput(_:)``); otherwise the bootstrapped handler.
        var output: (@Sendable (String) -> any LogHandler)?
        var observers: [@Sendable (LogLevel) -> Void] = []
    }

    private static let state = Mutex(State())

    /// The level in force for the library and the bot. Defaults to ``LogLevel/basic``.
    public static var level: LogLevel {
        get { state.withLock { $0.level } }
        set {
            let observers = state.withLock { state -> [@Sendable (LogLevel) -> Void] in
                state.level = newValue
                return state.observers
            }
            for observer in observers { observer(newValue) }
        }
    }

    /// Replaces where log records go, for tests that capture them (applications bootstrap
    /// swift-log instead).
    static func setOutput(_ factory: @escaping @Sendable (String) -> any LogHandler) {
        state.withLock { $0.output = factory }
    }

    /// Calls `observer` now and whenever the level changes. Modules that wrap C libraries use
    /// it to switch those libraries' own debug output on for ``LogLevel/verbose``.
    public static func observeLevel(_ observer: @escaping @Sendable (LogLevel) -> Void) {
        let current = state.withLock { state -> LogLevel in
            state.observers.append(observer)
            return state.level
        }
        observer(current)
    }

    /// A logger labelled `swiftrtc.<subsystem>` that follows ``level``.
    public static func logger(_ subsystem: String) -> Logger {
        let label = "swiftrtc.\(subsystem)"
        let upstream = state.withLock { $0.output }?(label) ?? Logger(label: label).handler
        return Logger(label: label) { _ in SharedLevelLogHandler(upstream: upstream) }
    }
}

/// Forwards records to another handler, filtered by ``SwiftRTCLogging/level`` at the time of
/// each record rather than at the time the logger was made.
struct SharedLevelLogHandler: LogHandler {
    var upstream: any LogHandler

    var logLevel: Logger.Level {
        get { SwiftRTCLogging.level.loggerLevel ?? .critical }
        set {}  // The shared level decides; set it with SwiftRTCLogging.level.
    }

    var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard SwiftRTCLogging.level != .nothing else { return }
        upstream.log(event: event)
    }
}
