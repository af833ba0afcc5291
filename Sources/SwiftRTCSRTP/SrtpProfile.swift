/// The DTLS-SRTP protection profiles (RFC 5764 §4.1.2, RFC 7714 §14.2) with the key and salt
/// sizes their keying material is split into, by IANA id. DTLS negotiates them (`use_srtp`),
/// SRTP sessions run them.
public enum SrtpProfile: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `SRTP_AES128_CM_HMAC_SHA1_80` (0x0001): what every browser call uses with GnuTLS 3.7.
    case aes128CmHmacSha1_80 = 0x0001
    /// `SRTP_AES128_CM_HMAC_SHA1_32` (0x0002).
    case aes128CmHmacSha1_32 = 0x0002
    /// `SRTP_AEAD_AES_128_GCM` (0x0007, RFC 7714).
    case aeadAes128Gcm = 0x0007
    /// `SRTP_AEAD_AES_256_GCM` (0x0008, RFC 7714).
    case aeadAes256Gcm = 0x0008

    /// The name GnuTLS and the IANA registry use, e.g. `SRTP_AES128_CM_HMAC_SHA1_80`.
    public var name: String {
        switch self {
        case .aes128CmHmacSha1_80: "SRTP_AES128_CM_HMAC_SHA1_80"
        case .aes128CmHmacSha1_32: "SRTP_AES128_CM_HMAC_SHA1_32"
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        case .aeadAes256Gcm: "SRTP_AEAD_AES_256_GCM"
        }
    }

    /// Same as ``name``.
    public var description: String { name }

    /// Master key length in bytes.
    public var keyLength: Int { self == .aeadAes256Gcm ? 32 : 16 }
    /// Master salt length in bytes (14 for AES-CM, 12 for AEAD).
    public var saltLength: Int { isAEAD ? 12 : 14 }
    /// Whether the profile is an AEAD (GCM) one.
    public var isAEAD: Bool { self == .aeadAes128Gcm || self == .aeadAes256Gcm }
    /// Bytes the SRTP authentication tag adds to each RTP packet.
    public var rtpTagLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: 10
        case .aes128CmHmacSha1_32: 4
        case .aeadAes128Gcm, .aeadAes256Gcm: 16
        }
    }
    /// Bytes SRTCP adds to each RTCP packet: the E flag and 31-bit SRTCP index, then the tag.
    /// AES-CM profiles use an 80-bit SRTCP tag even for `_32` (RFC 5764 §4.1.2).
    public var rtcpTrailerLength: Int { 4 + (isAEAD ? 16 : 10) }
    /// Length of the DTLS exporter output needed: two keys and two salts (RFC 5764 §4.2).
    public var keyingMaterialLength: Int { 2 * (keyLength + saltLength) }
}
