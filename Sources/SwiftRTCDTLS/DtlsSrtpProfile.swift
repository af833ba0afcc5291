import CGnuTLS

/// An SRTP protection profile negotiated by DTLS's `use_srtp` extension, by its IANA id
/// (RFC 5764 §4.1.2, RFC 7714 §14.2).
///
/// DTLS sits beside SRTP in the layers, so it names the profile by id; the integrator maps
/// it to the SRTP module's profile type.
public enum DtlsSrtpProfile: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `SRTP_AES128_CM_HMAC_SHA1_80` (0x0001): what every browser call uses with GnuTLS 3.7.
    case aes128CmHmacSha1_80 = 0x0001
    /// `SRTP_AES128_CM_HMAC_SHA1_32` (0x0002).
    case aes128CmHmacSha1_32 = 0x0002
    /// `SRTP_AEAD_AES_128_GCM` (0x0007, RFC 7714); needs a GnuTLS that knows it.
    case aeadAes128Gcm = 0x0007
    /// `SRTP_AEAD_AES_256_GCM` (0x0008, RFC 7714); needs a GnuTLS that knows it.
    case aeadAes256Gcm = 0x0008

    /// The IANA name, also GnuTLS's name for the profile.
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

    /// SRTP master key length in bytes.
    public var masterKeyLength: Int {
        self == .aeadAes256Gcm ? 32 : 16
    }

    /// SRTP master salt length in bytes (RFC 3711: 112 bits; RFC 7714: 96 bits).
    public var masterSaltLength: Int {
        switch self {
        case .aes128CmHmacSha1_80, .aes128CmHmacSha1_32: 14
        case .aeadAes128Gcm, .aeadAes256Gcm: 12
        }
    }

    /// The profiles the GnuTLS in use can negotiate, in the order offered: AEAD first when the
    /// library knows them (GnuTLS 3.7.9, Debian 12's, knows only the two AES-CM profiles).
    public static let supported: [DtlsSrtpProfile] = {
        let preference: [DtlsSrtpProfile] = [.aeadAes128Gcm, .aeadAes256Gcm, .aes128CmHmacSha1_80, .aes128CmHmacSha1_32]
        return preference.filter { profile in
            var id = gnutls_srtp_profile_t(0)
            return gnutls_srtp_get_profile_id(profile.name, &id) == 0 && id.rawValue == UInt32(profile.rawValue)
        }
    }()
}
