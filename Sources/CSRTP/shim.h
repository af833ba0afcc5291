// libsrtp2: SRTP/SRTCP protect and unprotect, and the cipher/auth replacement API.
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>
#include <srtp2/auth.h>
#include <srtp2/crypto_types.h>
