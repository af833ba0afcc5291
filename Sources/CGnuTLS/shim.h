// GnuTLS: DTLS 1.2 sessions, X.509 certificates, keys and the crypto API.
#include <gnutls/gnutls.h>
#include <gnutls/dtls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>
#include <gnutls/abstract.h>
