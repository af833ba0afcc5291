#define _GNU_SOURCE
#include "CSendmmsg.h"

#include <string.h>

int swiftrtc_sendmmsg(
    int fd, const struct iovec *datagrams, unsigned int count, const struct sockaddr *address,
    socklen_t address_length) {
    struct mmsghdr messages[SWIFTRTC_SENDMMSG_LIMIT];
    if (count > SWIFTRTC_SENDMMSG_LIMIT) count = SWIFTRTC_SENDMMSG_LIMIT;
    memset(messages, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        // sendmmsg reads the name and vectors; the casts only drop const.
        messages[i].msg_hdr.msg_name = (void *)address;
        messages[i].msg_hdr.msg_namelen = address_length;
        messages[i].msg_hdr.msg_iov = (struct iovec *)&datagrams[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    return sendmmsg(fd, messages, count, MSG_DONTWAIT);
}
