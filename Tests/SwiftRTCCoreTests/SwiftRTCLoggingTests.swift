import Logging
import Synchronization
import Testing

@testable import SwiftRTCCore

/// Collects what reaches the output, to check what the shared level lets through.
final class CapturedLog: Sendable {
    let lines = Mutex<[String]>([])
}

struct CaptureHandler: LogHandler {
    let sink: CapturedLog
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        sink.lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}

// One test owns the process-wide level, so that parallel tests cannot interleave with it.
@Test func sharedLevelGovernsExistingLoggers() {
    let sink = CapturedLog()
    SwiftRTCLogging.setOutput { _ in CaptureHandler(sink: sink) }
    let seen = Mutex<[LogLevel]>([])
    SwiftRTCLogging.observeLevel { level in seen.withLock { $0.append(level) } }

    SwiftRTCLogging.level = .basic
    let logger = SwiftRTCLogging.logger("test")
    #expect(logger.label == "swiftrtc.test")
    logger.info("milestone")
    logger.debug("detail")

    SwiftRTCLogging.level = .verbose
    logger.trace("internals")

    SwiftRTCLogging.level = .nothing
    logger.error("silenced")
    logger.critical("silenced too")

    SwiftRTCLogging.level = .basic
    #expect(sink.lines.withLock { $0 } == ["info milestone", "trace internals"])
    // The observer saw the level in force when it registered, then every change.
    #expect(seen.withLock { $0 }.suffix(4) == [.basic, .verbose, .nothing, .basic])
}

@Test func levelsMapToSwiftLog() {
    #expect(LogLevel.nothing.loggerLevel == nil)
    #expect(LogLevel.basic.loggerLevel == .info)
    #expect(LogLevel.verbose.loggerLevel == .trace)
    #expect(LogLevel(rawValue: "verbose") == .verbose)
    #expect(LogLevel(rawValue: "loud") == nil)
}
