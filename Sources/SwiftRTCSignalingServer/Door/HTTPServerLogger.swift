import Logging
import SwiftRTCCore

/// The logger a server gives Hummingbird. Hummingbird logs every request and connection at
/// debug, its start at info and its stop by cancellation as an error: quiet unless verbose
/// logging is on (failures to listen are thrown, request errors answered and logged by the
/// server itself).
enum HTTPServerLogger {
    /// `swiftrtc.<name>` when logging is verbose, else a logger that drops everything.
    static func make(_ name: String) -> Logger {
        SwiftRTCLogging.level == .verbose
            ? SwiftRTCLogging.logger(name)
            : Logger(label: "swiftrtc.\(name)") { _ in SwiftLogNoOpLogHandler() }
    }
}
