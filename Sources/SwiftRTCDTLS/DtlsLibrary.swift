import CGnuTLS
import Logging
import SwiftRTCCore

/// The GnuTLS build that SwiftRTC's DTLS runs on.
public enum DtlsLibrary {
    /// GnuTLS's run-time version, e.g. `GnuTLS 3.7.9`.
    public static var version: String {
        "GnuTLS " + (gnutls_check_version(nil).map { String(cString: $0) } ?? "unknown")
    }

    /// Routes GnuTLS's own debug output (handshake messages and extensions, GnuTLS log level
    /// 4) to the `swiftrtc.gnutls` logger at trace level while ``SwiftRTCLogging/level`` is
    /// `verbose`, and turns it off otherwise. Installed once, by the first transport.
    static let logging: Void = {
        gnutls_global_set_log_function { level, message in
            guard let message else { return }
            var text = String(cString: message)
            while text.last?.isNewline == true { text.removeLast() }
            gnutlsLogger.trace("gnutls[\(level)]: \(text)")
        }
        SwiftRTCLogging.observeLevel { level in
            gnutls_global_set_log_level(level == .verbose ? 4 : 0)
        }
    }()
}

private let gnutlsLogger = SwiftRTCLogging.logger("gnutls")
