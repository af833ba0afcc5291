import Foundation
import NIOCore
import NIOSSL

/// A certificate, key or CA file that cannot be used, and why.
public struct TLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// What is wrong with it.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }

    /// The largest PEM file read (a chain of a few certificates is a few KiB).
    package static let maxFileBytes = 1 << 20

    package static func read(_ file: String) throws(TLSSetupError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw TLSSetupError(file: file, reason: "cannot read it (no such file, or no permission)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else {
            throw TLSSetupError(file: file, reason: "over \(maxFileBytes) bytes, not a PEM file")
        }
        return Array(data)
    }
}

/// Sentences for the ways a TLS client connection fails.
package enum TLSFailure {
    /// Why the TLS connection to `host` failed, in words; nil when `error` is not a TLS error.
    package static func describe(_ error: any Error, host: String) -> String? {
        let text = String(describing: error)
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "TLS: the server's certificate is not for \(host) (none of its names or addresses is \(host))"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return
                "TLS: the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED: not issued by a trusted CA, "
                + "expired or not yet valid); a self-signed or private CA must be trusted explicitly"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG") {
            return "TLS: the server does not speak TLS (a plain http:// or ws:// server?)"
        }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case let .handshakeFailed(reason): return "TLS handshake with \(host) failed: \(reason)"
            case .uncleanShutdown: return "TLS: the server closed the connection during the TLS exchange"
            default: return "TLS: \(ssl)"
            }
        }
        if error is NIOSSLExtraError || error is BoringSSLError { return "TLS: \(text)" }
        return nil
    }
}
