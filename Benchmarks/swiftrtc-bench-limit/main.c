// The limits swiftrtc-bench compares SwiftRTC with, measured without SwiftRTC: a small C loop
// that, per packet, builds an RTP packet (12-byte header, PAYLOAD-byte payload), protects it
// with libsrtp, sends it with sendto() over loopback, takes it with recvfrom() on the other
// socket and unprotects it. Mode `udp` does the same without SRTP, with datagrams of the size
// an AES-CM-80 packet has.
//
//     swiftrtc-bench-limit udp|cm80|gcm SECONDS [PAYLOAD [THREADS [stock|nettle]]]
//     swiftrtc-bench-limit calls SECONDS PAYLOAD CALLS [stock|nettle]
//     swiftrtc-bench-limit datachannel SECONDS MESSAGE_BYTES
//
// THREADS 1 (the default) does it all on one thread, one packet at a time. THREADS 2 uses
// the machine as SwiftRTC does: a sender thread (build, protect, sendto) and a receiver
// thread (recvfrom, unprotect), the sender at most WINDOW packets ahead of what the receiver
// has taken, so that nothing is lost: the most packets per second this design can carry. (A
// datagram lost all the same is counted as sent and not received, after a 200 ms wait.)
// CRYPTO `stock` (the default) is libsrtp's own crypto as Debian builds it (plain
// srtp_init(): NSS); `nettle` installs SwiftRTC's nettle-backed kernels (CSRTPNettle), the
// crypto SwiftRTC runs on. The process is separate from swiftrtc-bench, so that the stock
// figures never run on SwiftRTC's replacement.
//
// Mode `calls` is the limit of swiftrtc-bench's connections-N: CALLS audio calls, each two
// connected UDP sockets on loopback (a socket per connection, as ICE gives each), every
// connection sending a PAYLOAD-byte packet every 20 ms, AES-CM-80 protected with its own
// libsrtp session. A sender thread wakes every 20 ms and protects and sends one packet on every
// socket; a receiver thread waits in epoll for all sockets and takes and unprotects every
// datagram ready.
//
// Prints one line: packets_sent packets_received seconds cpu_user_s cpu_sys_s max_rss_kb
// (max_rss_kb is VmHWM of this process: ru_maxrss would report the spawning parent's), and in
// mode `calls` a seventh field: the sender's late ticks (more than 20 ms behind its clock).
//
// Mode `datachannel` (datachannel.c) is the limit of swiftrtc-bench's datachannel rows: one
// reliable ordered SCTP stream (usrsctp, AF_CONN) over GnuTLS DTLS between two endpoints that
// exchange their datagrams through UDP sockets on loopback; it counts messages, not packets.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <srtp2/srtp.h>
#include "CSRTPNettle.h"
#include "limit.h"

// The two-thread loop: how far the sender may run ahead of the receiver, well within the
// socket buffers (4 MiB when SO_RCVBUFFORCE is allowed, else net.core.rmem_max, 208 KiB by
// default: a datagram takes some 2.3 KiB of it), so that the kernel does not drop.
enum { WINDOW = 64 };

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int bound_socket(struct sockaddr_in *address) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { perror("socket"); exit(2); }
    int size = 4 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    // A datagram lost after all never hangs a loop: the wait for it ends after 200 ms.
    struct timeval timeout = {.tv_sec = 0, .tv_usec = 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)address, sizeof *address) != 0) { perror("bind"); exit(2); }
    socklen_t length = sizeof *address;
    getsockname(fd, (struct sockaddr *)address, &length);
    return fd;
}

long peak_resident_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) return 0;
    char line[256];
    long kb = 0;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmHWM:", 6) == 0) { kb = atol(line + 6); break; }
    }
    fclose(status);
    return kb;
}

static srtp_t make_session(int gcm, int outbound) {
    static unsigned char key[46];
    for (int i = 0; i < (int)sizeof key; i++) key[i] = (unsigned char)(i * 7 + 1);
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    if (gcm) {
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
    } else {
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtp);
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtcp);
    }
    policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = key;
    policy.window_size = 1024;
    srtp_t session;
    srtp_err_status_t status = srtp_create(&session, &policy);
    if (status != srtp_err_status_ok) { fprintf(stderr, "srtp_create: %d\n", status); exit(2); }
    return session;
}

// What both loops share: the sessions, the sockets, the counts.
struct loop {
    int srtp, payload;
    srtp_t sender, receiver;
    int from, to;
    struct sockaddr_in to_address;
    double end;
    atomic_long sent, taken, delivered;
    atomic_int stop;
};

// Builds the next RTP packet (RFC 3550 header: V=2, PT 111, sequence, timestamp 0, an SSRC)
// in `packet` and protects it; its length on the wire, or -1.
static int next_packet(struct loop *loop, unsigned char *packet, unsigned short sequence) {
    packet[0] = 0x80; packet[1] = 111;
    packet[2] = (unsigned char)(sequence >> 8); packet[3] = (unsigned char)sequence;
    memset(packet + 4, 0, 4);
    packet[8] = 0x0F; packet[9] = 0xFE; packet[10] = 0; packet[11] = 1;
    memset(packet + 12, 0xAB, (size_t)loop->payload);
    int length = 12 + loop->payload;
    if (!loop->srtp) return length + 10;  // the size of an AES-CM-80 packet
    return srtp_protect(loop->sender, packet, &length) == srtp_err_status_ok ? length : -1;
}

// Takes one datagram and unprotects it; whether it was delivered (-2: none came within the
// receive timeout, -1: the socket failed).
static int take_packet(struct loop *loop, unsigned char *received) {
    ssize_t got = recvfrom(loop->to, received, 1500, 0, NULL, NULL);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -2;
    if (got <= 0) return -1;
    int plain = (int)got;
    return !loop->srtp || srtp_unprotect(loop->receiver, received, &plain) == srtp_err_status_ok;
}

static int send_packet(struct loop *loop, const unsigned char *packet, int length) {
    return sendto(loop->from, packet, (size_t)length, 0, (struct sockaddr *)&loop->to_address,
                  sizeof loop->to_address) == length;
}

// One thread, one packet at a time.
static int run_one_thread(struct loop *loop) {
    unsigned char packet[1500], received[1500];
    unsigned short sequence = 1;
    for (long sent = 0;; sent++) {
        if ((sent & 255) == 0 && now_seconds() >= loop->end) break;
        int length = next_packet(loop, packet, sequence++);
        if (length < 0) { fprintf(stderr, "protect failed\n"); return 1; }
        if (!send_packet(loop, packet, length)) { perror("sendto"); return 1; }
        atomic_fetch_add(&loop->sent, 1);
        int got = take_packet(loop, received);
        if (got == -2) continue;  // lost: counted as sent, never delivered
        if (got < 0) { perror("recvfrom"); return 1; }
        atomic_fetch_add(&loop->delivered, got);
    }
    return 0;
}

// The receiver thread of the two-thread loop: takes datagrams until the sender says stop
// and everything it sent has been taken.
static void *receive_loop(void *argument) {
    struct loop *loop = argument;
    unsigned char received[1500];
    while (!atomic_load(&loop->stop) || atomic_load(&loop->taken) < atomic_load(&loop->sent)) {
        int got = take_packet(loop, received);
        if (got == -2) {
            // Nothing for 200 ms: what is in flight was lost. It no longer holds the sender.
            atomic_store(&loop->taken, atomic_load(&loop->sent));
            continue;
        }
        if (got < 0) break;
        atomic_fetch_add(&loop->taken, 1);
        atomic_fetch_add(&loop->delivered, got);
    }
    return NULL;
}

// A sender thread (this one) and a receiver thread, the sender at most WINDOW ahead.
static int run_two_threads(struct loop *loop) {
    pthread_t receiver;
    if (pthread_create(&receiver, NULL, receive_loop, loop) != 0) { perror("pthread_create"); return 1; }
    unsigned char packet[1500];
    unsigned short sequence = 1;
    for (long sent = 0;; sent++) {
        if ((sent & 255) == 0 && now_seconds() >= loop->end) break;
        while (sent - atomic_load(&loop->taken) >= WINDOW) sched_yield();
        int length = next_packet(loop, packet, sequence++);
        if (length < 0) { fprintf(stderr, "protect failed\n"); return 1; }
        if (!send_packet(loop, packet, length)) { perror("sendto"); return 1; }
        atomic_fetch_add(&loop->sent, 1);
    }
    atomic_store(&loop->stop, 1);
    pthread_join(receiver, NULL);
    return 0;
}

// Mode `calls`: the sockets and sessions of every connection, and the counts.
struct calls {
    int connections, payload;
    int *sockets;
    srtp_t *senders, *receivers;
    unsigned short *sequences;
    double end;  // when the sender is to stop; then when it stopped
    long late;
    atomic_long sent, delivered;
    atomic_int stop;
};

// Two sockets bound on loopback and connected to each other: one call.
static void connected_pair(int *first, int *second) {
    struct sockaddr_in a, b;
    *first = bound_socket(&a);
    *second = bound_socket(&b);
    if (connect(*first, (struct sockaddr *)&b, sizeof b) != 0 || connect(*second, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("connect");
        exit(2);
    }
}

// The receiver thread: every datagram ready on any socket, unprotected with that socket's
// inbound session, until the sender stops and nothing more comes for 200 ms.
static void *receive_calls(void *argument) {
    struct calls *calls = argument;
    int poller = epoll_create1(0);
    for (int index = 0; index < calls->connections; index++) {
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)index};
        if (epoll_ctl(poller, EPOLL_CTL_ADD, calls->sockets[index], &event) != 0) { perror("epoll_ctl"); exit(2); }
    }
    struct epoll_event ready[256];
    unsigned char received[1500];
    for (;;) {
        int count = epoll_wait(poller, ready, 256, 200);
        if (count == 0 && atomic_load(&calls->stop)) break;
        for (int item = 0; item < count; item++) {
            int index = (int)ready[item].data.u32;
            for (;;) {
                ssize_t got = recv(calls->sockets[index], received, sizeof received, MSG_DONTWAIT);
                if (got <= 0) break;
                int plain = (int)got;
                if (srtp_unprotect(calls->receivers[index], received, &plain) == srtp_err_status_ok)
                    atomic_fetch_add(&calls->delivered, 1);
            }
        }
    }
    close(poller);
    return NULL;
}

// The sender (this thread): every 20 ms a protected packet on every socket.
static int run_calls(struct calls *calls, double start) {
    pthread_t receiver;
    if (pthread_create(&receiver, NULL, receive_calls, calls) != 0) { perror("pthread_create"); return 1; }
    unsigned char packet[1500];
    for (long tick = 0;; tick++) {
        double due = start + (double)tick * 0.02;
        if (due >= calls->end) break;
        double now = now_seconds();
        if (now < due) {
            struct timespec wait = {.tv_sec = (time_t)(due - now), .tv_nsec = (long)((due - now - (double)(time_t)(due - now)) * 1e9)};
            nanosleep(&wait, NULL);
        } else if (now > due + 0.02) {
            calls->late++;
        }
        for (int index = 0; index < calls->connections; index++) {
            unsigned short sequence = calls->sequences[index]++;
            packet[0] = 0x80; packet[1] = 111;
            packet[2] = (unsigned char)(sequence >> 8); packet[3] = (unsigned char)sequence;
            unsigned int timestamp = (unsigned int)tick * 960;
            packet[4] = (unsigned char)(timestamp >> 24); packet[5] = (unsigned char)(timestamp >> 16);
            packet[6] = (unsigned char)(timestamp >> 8); packet[7] = (unsigned char)timestamp;
            packet[8] = 0x0F; packet[9] = 0xFE; packet[10] = (unsigned char)(index >> 8); packet[11] = (unsigned char)index;
            memset(packet + 12, 0xAB, (size_t)calls->payload);
            int length = 12 + calls->payload;
            if (srtp_protect(calls->senders[index], packet, &length) != srtp_err_status_ok) {
                fprintf(stderr, "protect failed\n");
                return 1;
            }
            if (send(calls->sockets[index], packet, (size_t)length, 0) != length) { perror("send"); return 1; }
            atomic_fetch_add(&calls->sent, 1);
        }
    }
    calls->end = now_seconds();
    atomic_store(&calls->stop, 1);
    pthread_join(receiver, NULL);
    return 0;
}

static int calls_main(double seconds, int payload, int count, int nettle) {
    if (count < 1 || count > 5000) { fprintf(stderr, "CALLS is 1 to 5000\n"); return 2; }
    if (srtp_init() != srtp_err_status_ok) { fprintf(stderr, "srtp_init failed\n"); return 2; }
    if (nettle && swiftrtc_srtp_install_nettle() != 0) { fprintf(stderr, "nettle kernels refused\n"); return 2; }
    static struct calls calls;
    calls.connections = 2 * count;
    calls.payload = payload;
    calls.sockets = calloc((size_t)calls.connections, sizeof(int));
    calls.senders = calloc((size_t)calls.connections, sizeof(srtp_t));
    calls.receivers = calloc((size_t)calls.connections, sizeof(srtp_t));
    calls.sequences = calloc((size_t)calls.connections, sizeof(unsigned short));
    for (int call = 0; call < count; call++) connected_pair(&calls.sockets[2 * call], &calls.sockets[2 * call + 1]);
    for (int index = 0; index < calls.connections; index++) {
        calls.senders[index] = make_session(0, 1);
        calls.receivers[index] = make_session(0, 0);
    }
    struct rusage before;
    getrusage(RUSAGE_SELF, &before);
    double start = now_seconds();
    calls.end = start + seconds;
    int status = run_calls(&calls, start);
    if (status != 0) return status;
    double elapsed = calls.end - start;  // the sender's time: the receiver's last wait is not a call's
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%ld %ld %.6f %.6f %.6f %ld %ld\n", atomic_load(&calls.sent), atomic_load(&calls.delivered), elapsed,
           (double)(usage.ru_utime.tv_sec - before.ru_utime.tv_sec) + (double)(usage.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6,
           (double)(usage.ru_stime.tv_sec - before.ru_stime.tv_sec) + (double)(usage.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6,
           peak_resident_kb(), calls.late);
    for (int index = 0; index < calls.connections; index++) {
        srtp_dealloc(calls.senders[index]);
        srtp_dealloc(calls.receivers[index]);
        close(calls.sockets[index]);
    }
    srtp_shutdown();
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "calls") == 0) {
        const char *crypto = argc > 5 ? argv[5] : "stock";
        return calls_main(atof(argv[2]), atoi(argv[3]), atoi(argv[4]), strcmp(crypto, "nettle") == 0);
    }
    if (argc >= 4 && strcmp(argv[1], "datachannel") == 0) return datachannel_main(atof(argv[2]), atoi(argv[3]));
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s udp|cm80|gcm SECONDS [PAYLOAD [THREADS [stock|nettle]]]\n       %s calls SECONDS PAYLOAD CALLS [stock|nettle]\n"
                "       %s datachannel SECONDS MESSAGE_BYTES\n",
                argv[0], argv[0], argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    double seconds = atof(argv[2]);
    int payload = argc > 3 ? atoi(argv[3]) : 1200;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    const char *crypto = argc > 5 ? argv[5] : "stock";
    int srtp = strcmp(mode, "udp") != 0, gcm = strcmp(mode, "gcm") == 0;
    if (srtp && !gcm && strcmp(mode, "cm80") != 0) { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    if (payload < 1 || payload > 1400 || seconds <= 0) { fprintf(stderr, "bad PAYLOAD or SECONDS\n"); return 2; }
    if (threads != 1 && threads != 2) { fprintf(stderr, "THREADS is 1 or 2\n"); return 2; }
    int nettle = strcmp(crypto, "nettle") == 0;
    if (!nettle && strcmp(crypto, "stock") != 0) { fprintf(stderr, "CRYPTO is stock or nettle\n"); return 2; }

    static struct loop loop;
    loop.srtp = srtp;
    loop.payload = payload;
    if (srtp) {
        if (srtp_init() != srtp_err_status_ok) { fprintf(stderr, "srtp_init failed\n"); return 2; }
        if (nettle && swiftrtc_srtp_install_nettle() != 0) { fprintf(stderr, "nettle kernels refused\n"); return 2; }
        loop.sender = make_session(gcm, 1);
        loop.receiver = make_session(gcm, 0);
    }
    struct sockaddr_in from_address;
    loop.from = bound_socket(&from_address);
    loop.to = bound_socket(&loop.to_address);

    double start = now_seconds();
    loop.end = start + seconds;
    int status = threads == 1 ? run_one_thread(&loop) : run_two_threads(&loop);
    if (status != 0) return status;
    long sent = atomic_load(&loop.sent), delivered = atomic_load(&loop.delivered);
    srtp_t sender = loop.sender, receiver = loop.receiver;
    double elapsed = now_seconds() - start;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%ld %ld %.6f %.6f %.6f %ld\n", sent, delivered, elapsed,
           (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6,
           (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6, peak_resident_kb());
    if (srtp) {
        srtp_dealloc(sender);
        srtp_dealloc(receiver);
        srtp_shutdown();
    }
    return 0;
}
