import CGnuTLS
import SwiftRTCSRTP

extension SrtpProfile {
    /// The profiles the GnuTLS in use can negotiate in DTLS's `use_srtp` extension, in the
    /// order offered: AEAD first when the library knows them (GnuTLS 3.7.9, Debian 12's, knows
    /// only the two AES-CM profiles).
    public static let dtlsSupported: [SrtpProfile] = {
        let preference: [SrtpProfile] = [.aeadAes128Gcm, .aeadAes256Gcm, .aes128CmHmacSha1_80, .aes128CmHmacSha1_32]
        return preference.filter { profile in
            var id = gnutls_srtp_profile_t(0)
            return gnutls_srtp_get_profile_id(profile.name, &id) == 0 && id.rawValue == UInt32(profile.rawValue)
        }
    }()
}
