// usrsctp (SCTP in user space), used in AF_CONN mode: SCTP packets go in and out through
// DTLS (RFC 8261), never a kernel socket.
#define INET 1
#define INET6 1
#include <usrsctp.h>

// Message interleaving (I-DATA, RFC 8260): usrsctp 0.9.5 takes the socket option, its
// header does not name it (FreeBSD's netinet/sctp.h does).
#ifndef SCTP_INTERLEAVING_SUPPORTED
#define SCTP_INTERLEAVING_SUPPORTED 0x00000026
#endif
