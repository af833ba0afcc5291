// sendmmsg(2) for Swift: glibc declares it and struct mmsghdr only with _GNU_SOURCE, which
// Swift's Glibc module is built without.
#ifndef CSENDMMSG_H
#define CSENDMMSG_H

#include <sys/socket.h>
#include <sys/uio.h>

/// The most datagrams one call sends (its message headers are on the stack).
#define SWIFTRTC_SENDMMSG_LIMIT 64

/// Sends `count` datagrams (one `iovec` each, at most SWIFTRTC_SENDMMSG_LIMIT: more are not
/// looked at) to `address` on the UDP socket `fd` with one sendmmsg, without blocking.
/// Returns how many were sent, from the first, or -1 with errno set.
int swiftrtc_sendmmsg(
    int fd, const struct iovec *datagrams, unsigned int count, const struct sockaddr *address,
    socklen_t address_length);

#endif
