// Nettle-backed replacements for libsrtp's AES-ICM-128, AES-GCM-128/256 cipher types and its
// HMAC-SHA1 auth type.
//
// Debian's libsrtp2 runs on NSS: AES-CM at about 4 µs per 1200-byte packet, with a dozen
// allocations per packet (NSS creates a context per IV); GCM allocates per packet too. libsrtp's public
// replacement API (srtp_replace_cipher_type / srtp_replace_auth_type) swaps in another
// implementation of a type after running libsrtp's own known-answer and round-trip self-tests
// on it. These callbacks use nettle (AES-NI, SHA-NI) and give byte-identical output.
//
// Replacement is process-global and applies to ciphers allocated afterwards: sessions created
// before a switch keep the implementation they were created with. Call these after srtp_init,
// and never concurrently with each other or with srtp_create.
#ifndef CSRTP_NETTLE_H
#define CSRTP_NETTLE_H

/// Initialises libsrtp once per process (srtp_init under pthread_once): every user of libsrtp
/// in the process must initialise it through here, since srtp_init is not thread-safe and two
/// concurrent first calls corrupt its crypto kernel. Returns 0 (srtp_err_status_ok) or the
/// libsrtp error; a kernel that someone else initialised before (srtp_init then reports
/// bad_param) counts as initialised.
int swiftrtc_srtp_init(void);

/// Installs the nettle-backed AES-ICM-128, AES-GCM-128, AES-GCM-256 and HMAC-SHA1 types into
/// libsrtp's crypto kernel, all or none.
/// Returns 0 (srtp_err_status_ok) or the libsrtp error of the self-test that refused them.
int swiftrtc_srtp_install_nettle(void);

/// Re-installs libsrtp's own (stock) types for the same four.
/// Returns 0 (srtp_err_status_ok) or a libsrtp error.
int swiftrtc_srtp_install_stock(void);

/// The nettle-backed cipher type (a `const srtp_cipher_type_t *`), e.g. to self-test it.
const void *swiftrtc_srtp_nettle_aes_icm_128(void);

/// The nettle-backed AES-GCM-128 cipher type (a `const srtp_cipher_type_t *`).
const void *swiftrtc_srtp_nettle_aes_gcm_128(void);

/// The nettle-backed AES-GCM-256 cipher type (a `const srtp_cipher_type_t *`).
const void *swiftrtc_srtp_nettle_aes_gcm_256(void);

/// The nettle-backed auth type (a `const srtp_auth_type_t *`), e.g. to self-test it.
const void *swiftrtc_srtp_nettle_hmac_sha1(void);

#endif
