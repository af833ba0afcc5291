// usrsctp (SCTP in user space), used in AF_CONN mode: SCTP packets go in and out through
// DTLS (RFC 8261), never a kernel socket.
#define INET 1
#define INET6 1
#include <usrsctp.h>
