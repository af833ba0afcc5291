import CGnuTLS
import SwiftRTCSDP

/// A certificate fingerprint as SDP's `a=fingerprint` carries it (RFC 8122 §5):
/// a hash function name and the hash of the DER certificate as colon-separated hex bytes.
/// This is the checked form of SwiftRTCSDP's ``Fingerprint`` (which keeps what was written):
/// a hash function WebRTC allows and a digest of its length.
///
/// ```
/// a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3B:...
/// ```
public struct DtlsFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions of RFC 8122's registry that a WebRTC peer may use (MD2 and MD5 are
    /// refused: RFC 8122 §5 forbids them for new fingerprints).
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        case sha1 = "sha-1"
        case sha224 = "sha-224"
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        /// The digest size in bytes.
        public var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        /// Rank used to pick the strongest offered function (RFC 8122 §5).
        var strength: Int { digestLength }

        var gnutlsDigest: gnutls_digest_algorithm_t {
            switch self {
            case .sha1: GNUTLS_DIG_SHA1
            case .sha224: GNUTLS_DIG_SHA224
            case .sha256: GNUTLS_DIG_SHA256
            case .sha384: GNUTLS_DIG_SHA384
            case .sha512: GNUTLS_DIG_SHA512
            }
        }
    }

    /// The hash function.
    public let algorithm: Algorithm
    /// The digest of the DER-encoded certificate.
    public let digest: [UInt8]

    /// A fingerprint from its parts; the digest must have the algorithm's length.
    public init(algorithm: Algorithm, digest: [UInt8]) throws(DtlsError) {
        guard digest.count == algorithm.digestLength else {
            throw .invalidFingerprint(
                value: algorithm.rawValue + " " + Self.hex(digest),
                expected: "\(algorithm.digestLength) bytes for \(algorithm.rawValue), found \(digest.count)"
            )
        }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses an `a=fingerprint` value such as `sha-256 AB:CD:...`.
    ///
    /// The hash name is matched without regard to case (some stacks write `SHA-256`), hex
    /// digits may be upper or lower case, and surrounding white space is ignored.
    public init(sdpValue: String) throws(DtlsError) {
        let fields = sdpValue.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard fields.count == 2 else {
            throw .invalidFingerprint(value: sdpValue, expected: "<hash-func> SP <hex bytes separated by ':'>")
        }
        guard let algorithm = Algorithm(rawValue: fields[0].lowercased()) else {
            throw .invalidFingerprint(
                value: sdpValue,
                expected: "a hash function of " + Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
                    + ", not \"\(fields[0])\""
            )
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(algorithm.digestLength)
        for (index, pair) in fields[1].split(separator: ":", omittingEmptySubsequences: false).enumerated() {
            let utf8 = Array(pair.utf8)
            guard utf8.count == 2, let high = Self.nibble(utf8[0]), let low = Self.nibble(utf8[1]) else {
                throw .invalidFingerprint(
                    value: sdpValue,
                    expected: "two hex digits at byte \(index + 1), found \"\(pair)\""
                )
            }
            digest.append(high << 4 | low)
        }
        guard digest.count == algorithm.digestLength else {
            throw .invalidFingerprint(
                value: sdpValue,
                expected: "\(algorithm.digestLength) bytes for \(algorithm.rawValue), found \(digest.count)"
            )
        }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// The fingerprint of a DER-encoded certificate with the given hash function.
    public init(algorithm: Algorithm, certificateDER: [UInt8]) {
        var digest = [UInt8](repeating: 0, count: algorithm.digestLength)
        let status = certificateDER.withUnsafeBytes { der in
            digest.withUnsafeMutableBytes { out in
                gnutls_hash_fast(algorithm.gnutlsDigest, der.baseAddress, der.count, out.baseAddress)
            }
        }
        // gnutls_hash_fast fails only for an unknown algorithm or out of memory; the five
        // SHA functions are always present in GnuTLS.
        precondition(status == 0, "gnutls_hash_fast(\(algorithm.rawValue)) failed: \(status)")
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Checks a fingerprint read from SDP.
    public init(_ fingerprint: Fingerprint) throws(DtlsError) {
        try self.init(sdpValue: fingerprint.hashFunction + " " + fingerprint.value)
    }

    /// The fingerprint for SDP's `a=fingerprint:` (upper-case hex, as browsers write it).
    public var sdpFingerprint: Fingerprint { Fingerprint(hashFunction: algorithm.rawValue, bytes: digest) }

    /// The value for `a=fingerprint:`, e.g. `sha-256 AB:CD:...` (upper-case hex, RFC 8122).
    public var sdpValue: String { algorithm.rawValue + " " + Self.hex(digest) }

    /// Same as ``sdpValue``.
    public var description: String { sdpValue }

    /// Whether a DER-encoded certificate hashes to this fingerprint.
    public func matches(certificateDER: [UInt8]) -> Bool {
        DtlsFingerprint(algorithm: algorithm, certificateDER: certificateDER) == self
    }

    /// The fingerprints a peer certificate has to match among those the SDP gave: those with
    /// the strongest hash function present (RFC 8122 §5: "the set of fingerprints that use
    /// its most preferred hash function").
    static func strongest(of fingerprints: [DtlsFingerprint]) -> [DtlsFingerprint] {
        guard let best = fingerprints.map(\.algorithm.strength).max() else { return [] }
        return fingerprints.filter { $0.algorithm.strength == best }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Colon-separated upper-case hex, SDP's formatting.
    private static func hex(_ bytes: [UInt8]) -> String { Fingerprint(hashFunction: "", bytes: bytes).value }
}
