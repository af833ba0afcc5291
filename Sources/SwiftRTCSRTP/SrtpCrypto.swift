#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which implementation of its ciphers (AES-CM-128, AES-GCM-128/256) and of HMAC-SHA1 libsrtp
/// runs for a session.
///
/// Debian's libsrtp2 is built on NSS, where an AES-CM-128 + HMAC-SHA1-80 protect costs about
/// 4-6 µs per 1200-byte packet and a dozen heap allocations (NSS makes a context per packet;
/// its GCM allocates per packet too). `.nettle` replaces those primitives through libsrtp's
/// public `srtp_replace_cipher_type` / `srtp_replace_auth_type` with nettle-backed ones
/// (AES-NI, SHA-NI, PCLMUL): about four times faster for AES-CM, no allocation, byte-identical
/// output. libsrtp self-tests a replacement against its own vectors before it takes it.
public enum SrtpCrypto: String, Sendable, CaseIterable {
    /// nettle-backed AES-ICM-128, AES-GCM-128/256 and HMAC-SHA1 (the default).
    case nettle
    /// libsrtp's own implementations (NSS on Debian).
    case stock

    /// The implementation new sessions use unless told otherwise: `.nettle`, or `.stock` when
    /// the environment variable `SWIFTRTC_SRTP_CRYPTO` is `stock` (read once per process).
    public static let `default`: SrtpCrypto = {
        guard let value = getenv("SWIFTRTC_SRTP_CRYPTO") else { return .nettle }
        return SrtpCrypto(rawValue: String(cString: value)) ?? .nettle
    }()
}
