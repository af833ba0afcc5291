import ArgumentParser
import Foundation
import SwiftRTC
import SwiftRTCSignalingServer

/// `--tls-cert FILE --tls-key FILE` and `--insecure`: how `whip-server` and `serve` listen.
///
/// With the certificate and key they serve `https://` / `wss://`. Without them they serve plain
/// HTTP, which is fine on loopback only: a listening address that is not loopback
/// (127.0.0.0/8, ::1, localhost) is refused unless `--insecure` says that is meant.
struct TLSServerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve TLS (https://, wss://) with this certificate chain: PEM, the server's certificate first; needs --tls-key FILE.",
            valueName: "FILE"
        )
    )
    var tlsCert: String?

    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM, unencrypted).", valueName: "FILE"))
    var tlsKey: String?

    @Flag(
        help:
            "Listen without TLS on an address that is not loopback (tokens and SDP then cross the network in the clear)."
    )
    var insecure = false

    func validate() throws {
        if insecure && (tlsCert != nil || tlsKey != nil) {
            throw ValidationError("--insecure is for listening without TLS: drop it, or drop --tls-cert and --tls-key")
        }
        _ = try identity()
    }

    /// The certificate and key, read and checked; nil without `--tls-cert`.
    func identity() throws -> TLSIdentity? {
        switch (tlsCert, tlsKey) {
        case (nil, nil): return nil
        case (.some, nil): throw ValidationError("--tls-cert needs --tls-key FILE (the certificate's private key)")
        case (nil, .some): throw ValidationError("--tls-key needs --tls-cert FILE (the certificate chain)")
        case let (.some(certificate), .some(key)):
            do {
                return try TLSIdentity(certificateChainFile: certificate, privateKeyFile: key)
            } catch {
                throw ValidationError("\(error.file == certificate ? "--tls-cert" : "--tls-key") \(error)")
            }
        }
    }

    /// Refuses to listen on `host` without TLS when it is not a loopback address, unless
    /// `--insecure` was given.
    func check(host: String) throws {
        guard tlsCert == nil, !insecure, !Self.isLoopback(host) else { return }
        throw ValidationError(
            "--host \(host) is not a loopback address: give --tls-cert FILE --tls-key FILE to serve TLS, "
                + "or --insecure to listen without it (tokens and SDP then cross the network in the clear)"
        )
    }

    /// 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4,
            octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil })
        else {
            return false
        }
        return octets[0] == "127"
    }
}

/// `--ca-cert FILE`: a CA certificate `whip`, `call` and `answer` trust for `https://` and
/// `wss://` servers besides the system's (a self-signed deployment). Servers are always verified.
struct TLSClientOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust this CA certificate (PEM) for https:// and wss:// servers, besides the system's.",
            valueName: "FILE"
        )
    )
    var caCert: String?

    func validate() throws {
        _ = try trust()
    }

    /// The system's CA certificates, plus `--ca-cert`'s.
    func trust() throws -> TLSTrust {
        guard let caCert else { return .system }
        do {
            return try TLSTrust(caCertificateFile: caCert)
        } catch {
            throw ValidationError("--ca-cert \(error)")
        }
    }

    /// A hint for a TLS failure: how to trust a private CA.
    var hint: String {
        caCert == nil ? " (a self-signed or private CA: give its certificate with --ca-cert FILE)" : ""
    }
}
