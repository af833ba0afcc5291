// What the limit loops share (main.c), and the data channel loop (datachannel.c).
#ifndef SWIFTRTC_BENCH_LIMIT_H
#define SWIFTRTC_BENCH_LIMIT_H

#include <netinet/in.h>

// CLOCK_MONOTONIC in seconds.
double now_seconds(void);
// A UDP socket bound on 127.0.0.1 (4 MiB buffers where allowed, receives time out after 200 ms).
int bound_socket(struct sockaddr_in *address);
// VmHWM of this process, in KB.
long peak_resident_kb(void);

// Mode `datachannel`: one reliable ordered SCTP stream (usrsctp, AF_CONN) over GnuTLS DTLS
// between two endpoints of this process, for SECONDS, messages of MESSAGE_BYTES.
int datachannel_main(double seconds, int message_bytes);

#endif
