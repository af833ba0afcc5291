// The limits swiftrtc-bench compares SwiftRTC with, measured without SwiftRTC: a small C loop
// that, per packet, builds an RTP packet (12-byte header, PAYLOAD-byte payload), protects it
// with stock libsrtp (plain srtp_init(): Debian's libsrtp2 crypto, NSS, never the nettle
// replacements SwiftRTC installs), sends it with sendto() over loopback, takes it with
// recvfrom() on the other socket and unprotects it. Mode `udp` does the same without SRTP,
// with datagrams of the size an AES-CM-80 packet has.
//
//     swiftrtc-bench-limit udp|cm80|gcm SECONDS [PAYLOAD]
//
// Prints one line: packets_sent packets_received seconds cpu_user_s cpu_sys_s max_rss_kb
// (max_rss_kb is VmHWM of this process: ru_maxrss would report the spawning parent's).
// It runs as its own process so that SwiftRTC's crypto replacement cannot reach it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <srtp2/srtp.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bound_socket(struct sockaddr_in *address) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { perror("socket"); exit(2); }
    int size = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)address, sizeof *address) != 0) { perror("bind"); exit(2); }
    socklen_t length = sizeof *address;
    getsockname(fd, (struct sockaddr *)address, &length);
    return fd;
}

static long peak_resident_kb(void) {
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

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s udp|cm80|gcm SECONDS [PAYLOAD]\n", argv[0]); return 2; }
    const char *mode = argv[1];
    double seconds = atof(argv[2]);
    int payload = argc > 3 ? atoi(argv[3]) : 1200;
    int srtp = strcmp(mode, "udp") != 0, gcm = strcmp(mode, "gcm") == 0;
    if (srtp && !gcm && strcmp(mode, "cm80") != 0) { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    if (payload < 1 || payload > 1400 || seconds <= 0) { fprintf(stderr, "bad PAYLOAD or SECONDS\n"); return 2; }

    srtp_t sender = NULL, receiver = NULL;
    if (srtp) {
        if (srtp_init() != srtp_err_status_ok) { fprintf(stderr, "srtp_init failed\n"); return 2; }
        sender = make_session(gcm, 1);
        receiver = make_session(gcm, 0);
    }
    struct sockaddr_in from_address, to_address;
    int from = bound_socket(&from_address), to = bound_socket(&to_address);

    unsigned char packet[1500], received[1500];
    memset(packet, 0xAB, sizeof packet);
    long sent = 0, delivered = 0;
    unsigned short sequence = 1;
    double start = now_seconds(), end = start + seconds;
    for (;;) {
        if ((sent & 255) == 0 && now_seconds() >= end) break;
        // RTP header (RFC 3550): V=2, PT 111, sequence, timestamp, SSRC.
        packet[0] = 0x80; packet[1] = 111;
        packet[2] = (unsigned char)(sequence >> 8); packet[3] = (unsigned char)sequence;
        memset(packet + 4, 0, 4);
        packet[8] = 0x0F; packet[9] = 0xFE; packet[10] = 0; packet[11] = 1;
        memset(packet + 12, 0xAB, (size_t)payload);
        int length = 12 + payload;
        if (srtp) {
            if (srtp_protect(sender, packet, &length) != srtp_err_status_ok) { fprintf(stderr, "protect failed\n"); return 1; }
        } else {
            length += 10;  // the size of an AES-CM-80 packet
        }
        sequence++;
        if (sendto(from, packet, (size_t)length, 0, (struct sockaddr *)&to_address, sizeof to_address) != length) { perror("sendto"); return 1; }
        sent++;
        ssize_t got = recvfrom(to, received, sizeof received, 0, NULL, NULL);
        if (got <= 0) { perror("recvfrom"); return 1; }
        int plain = (int)got;
        if (srtp && srtp_unprotect(receiver, received, &plain) != srtp_err_status_ok) continue;
        delivered++;
    }
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
