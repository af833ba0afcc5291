// Mode `datachannel`: the limit of swiftrtc-bench's datachannel rows. One reliable ordered SCTP
// stream between two endpoints of this process, usrsctp in AF_CONN mode over GnuTLS DTLS 1.2,
// the DTLS datagrams through two connected UDP sockets on 127.0.0.1 (as SwiftRTC's go through
// ICE), with SwiftRTC's settings (SctpAssociation, DtlsTransport):
//
// - DTLS: ECDSA P-256 self-signed certificates, the same GnuTLS priority string (so
//   TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 and P-256), DTLS-SRTP offered, the server asks
//   for the client's certificate, datagrams of at most 1200 bytes; one SCTP packet is one
//   application data record of at most gnutls_dtls_get_data_mtu() bytes (1163 with AES-GCM).
// - SCTP: usrsctp_init(0, ...) (no UDP encapsulation), ECN off, PR-SCTP on; a one-to-one
//   socket per endpoint with the callback API (a receive callback; a send callback once half
//   of the send buffer is free), non-blocking, linger 0, 1 MiB send and receive buffers,
//   SCTP_NODELAY, SCTP_RECVRCVINFO, partial delivery past half the receive buffer, fragment
//   interleave level 2, no I-DATA (SwiftRTC offers none: usrsctp's stalled under load) and
//   streams served round robin, retransmission timeouts of 1 s to start and at least, 10 s at most (INIT
//   too), stream resets enabled, 65535 streams each way, association and stream reset events,
//   both ends connect (port 5000), path MTU discovery off with the path MTU at the record size
//   less usrsctp's 12-byte common header.
//
// Threads: this one is the application: it sends MESSAGE_BYTES messages (PPID 53, binary) on
// stream 0 for SECONDS, and when usrsctp refuses one (send buffer full) waits for the send
// callback; usrsctp's output callback encrypts each packet into a record and sends it, on
// whatever thread usrsctp calls it from. Each endpoint has a receiver thread: recv() a
// datagram, decrypt it (gnutls_record_recv) and hand the packet to usrsctp_conninput(), which
// delivers the data (counted) or SACKs. A GnuTLS session is used by one thread at a time (a
// mutex per endpoint, as SwiftRTC's DtlsTransport serialises its session on a queue), never
// held while usrsctp runs.
//
// Prints: messages_sent messages_received seconds cpu_user_s cpu_sys_s max_rss_kb, then a
// second line: the DTLS cipher suite, the record's data size, the largest SCTP packet and the
// largest datagram sent, the records GnuTLS refused, the application's waits for room and
// those of them that ended by their 100 ms timeout instead of the send callback. `seconds`
// runs from the first send to the last message's delivery; the CPU is the process's over that
// time (the handshake before it excluded).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/dtls.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#define INET 1
#define INET6 1
#include <usrsctp.h>
#include "limit.h"

// DtlsTransport.priorities.
static const char *const PRIORITIES =
    "NONE:+VERS-DTLS1.2:+CTYPE-X509:+COMP-NULL:+SIGN-ALL:+CURVE-SECP256R1:+CURVE-X25519:+CURVE-SECP384R1:"
    "+ECDHE-ECDSA:+ECDHE-RSA:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CBC:+AES-256-CBC:+AEAD:"
    "+SHA1:+SHA256:%SERVER_PRECEDENCE";
enum { MTU = 1200, PORT = 5000, SCTP_BUFFER = 1 << 20, STREAMS = 65535, PPID_BINARY = 53 };

struct endpoint {
    const char *name;
    int fd;
    gnutls_session_t session;
    // The session's one user at a time.
    pthread_mutex_t lock;
    // The datagram GnuTLS's pull function hands over next (receiver thread, under `lock`).
    const unsigned char *datagram;
    size_t datagram_length;
    // While the handshake runs (one thread): the pull function reads the socket itself.
    int handshaking;
    struct socket *sctp;
    pthread_t receiver;
    // The send callback's count, and the application waiting for it.
    pthread_mutex_t room_lock;
    pthread_cond_t room;
    long room_signals;
    atomic_int up;
    atomic_long bytes, messages, records_refused, largest_packet, largest_datagram;
    atomic_llong last_delivery_ns;
};

static void fail(const char *what, int code) {
    fprintf(stderr, "%s: %s\n", what, code < 0 ? gnutls_strerror(code) : strerror(code));
    exit(2);
}

static void raise_to(atomic_long *value, long candidate) {
    long seen = atomic_load_explicit(value, memory_order_relaxed);
    while (candidate > seen &&
           !atomic_compare_exchange_weak_explicit(value, &seen, candidate, memory_order_relaxed, memory_order_relaxed)) {
    }
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// MARK: DTLS

// A self-signed ECDSA P-256 certificate (SHA-256), as DtlsCertificate.generate() makes.
static gnutls_certificate_credentials_t make_credentials(void) {
    gnutls_x509_privkey_t key;
    gnutls_x509_crt_t certificate;
    int code;
    if ((code = gnutls_x509_privkey_init(&key)) < 0) fail("gnutls_x509_privkey_init", code);
    code = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
    if (code < 0) fail("gnutls_x509_privkey_generate", code);
    if ((code = gnutls_x509_crt_init(&certificate)) < 0) fail("gnutls_x509_crt_init", code);
    unsigned char serial[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    time_t now = time(NULL);
    const char *name = "swiftrtc-bench-limit";
    if (gnutls_x509_crt_set_version(certificate, 3) < 0 || gnutls_x509_crt_set_serial(certificate, serial, sizeof serial) < 0 ||
        gnutls_x509_crt_set_activation_time(certificate, now - 3600) < 0 ||
        gnutls_x509_crt_set_expiration_time(certificate, now + 30 * 86400) < 0 ||
        gnutls_x509_crt_set_dn_by_oid(certificate, GNUTLS_OID_X520_COMMON_NAME, 0, name, (unsigned)strlen(name)) < 0 ||
        gnutls_x509_crt_set_key(certificate, key) < 0)
        fail("certificate fields", EINVAL);
    if ((code = gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0)) < 0) fail("gnutls_x509_crt_sign2", code);
    gnutls_certificate_credentials_t credentials;
    if ((code = gnutls_certificate_allocate_credentials(&credentials)) < 0) fail("gnutls_certificate_allocate_credentials", code);
    if ((code = gnutls_certificate_set_x509_key(credentials, &certificate, 1, key)) < 0) fail("gnutls_certificate_set_x509_key", code);
    return credentials;
}

// One call is one datagram.
static ssize_t push(gnutls_transport_ptr_t context, const void *data, size_t size) {
    struct endpoint *endpoint = context;
    ssize_t sent = send(endpoint->fd, data, size, 0);
    if (sent < 0) {
        gnutls_transport_set_errno(endpoint->session, errno);
        return -1;
    }
    raise_to(&endpoint->largest_datagram, (long)sent);
    return sent;
}

static ssize_t pull(gnutls_transport_ptr_t context, void *buffer, size_t capacity) {
    struct endpoint *endpoint = context;
    if (endpoint->datagram) {
        size_t count = endpoint->datagram_length < capacity ? endpoint->datagram_length : capacity;
        memcpy(buffer, endpoint->datagram, count);
        endpoint->datagram = NULL;
        return (ssize_t)count;
    }
    if (endpoint->handshaking) {
        ssize_t got = recv(endpoint->fd, buffer, capacity, MSG_DONTWAIT);
        if (got >= 0) return got;
    }
    gnutls_transport_set_errno(endpoint->session, EAGAIN);
    return -1;
}

// Non-blocking: says whether a datagram is ready, never waits.
static int pull_timeout(gnutls_transport_ptr_t context, unsigned int milliseconds) {
    (void)milliseconds;
    struct endpoint *endpoint = context;
    if (endpoint->datagram) return 1;
    if (!endpoint->handshaking) return 0;
    struct pollfd ready = {.fd = endpoint->fd, .events = POLLIN};
    return poll(&ready, 1, 0);
}

static void make_session(struct endpoint *endpoint, int client, gnutls_certificate_credentials_t credentials) {
    unsigned flags = (client ? GNUTLS_CLIENT : GNUTLS_SERVER) | GNUTLS_DATAGRAM | GNUTLS_NONBLOCK | GNUTLS_NO_TICKETS;
    int code;
    if ((code = gnutls_init(&endpoint->session, flags)) < 0) fail("gnutls_init", code);
    if ((code = gnutls_priority_set_direct(endpoint->session, PRIORITIES, NULL)) < 0) fail("gnutls_priority_set_direct", code);
    if ((code = gnutls_credentials_set(endpoint->session, GNUTLS_CRD_CERTIFICATE, credentials)) < 0) fail("gnutls_credentials_set", code);
    if (!client) gnutls_certificate_server_set_request(endpoint->session, GNUTLS_CERT_REQUIRE);
    code = gnutls_srtp_set_profile_direct(endpoint->session, "SRTP_AES128_CM_HMAC_SHA1_80:SRTP_AES128_CM_HMAC_SHA1_32", NULL);
    if (code < 0) fail("gnutls_srtp_set_profile_direct", code);
    gnutls_dtls_set_mtu(endpoint->session, MTU);
    gnutls_transport_set_ptr(endpoint->session, endpoint);
    gnutls_transport_set_push_function(endpoint->session, push);
    gnutls_transport_set_pull_function(endpoint->session, pull);
    gnutls_transport_set_pull_timeout_function(endpoint->session, pull_timeout);
    pthread_mutex_init(&endpoint->lock, NULL);
    pthread_mutex_init(&endpoint->room_lock, NULL);
    pthread_cond_init(&endpoint->room, NULL);
    endpoint->handshaking = 1;
}

// Both handshakes on this thread, stepped in turn until both are done.
static void handshake(struct endpoint *endpoints[2]) {
    int done[2] = {0, 0};
    double deadline = now_seconds() + 10;
    while (!done[0] || !done[1]) {
        if (now_seconds() > deadline) fail("DTLS handshake", ETIMEDOUT);
        for (int index = 0; index < 2; index++) {
            if (done[index]) continue;
            int code = gnutls_handshake(endpoints[index]->session);
            if (code == 0) done[index] = 1;
            else if (gnutls_error_is_fatal(code)) fail("gnutls_handshake", code);
        }
        struct pollfd ready[2] = {{.fd = endpoints[0]->fd, .events = POLLIN}, {.fd = endpoints[1]->fd, .events = POLLIN}};
        if (!done[0] || !done[1]) poll(ready, 2, 10);
    }
    endpoints[0]->handshaking = endpoints[1]->handshaking = 0;
}

// MARK: SCTP

// usrsctp has a packet for `address` (the endpoint): one record.
static int sctp_output(void *address, void *buffer, size_t length, uint8_t tos, uint8_t set_df) {
    (void)tos;
    (void)set_df;
    struct endpoint *endpoint = address;
    pthread_mutex_lock(&endpoint->lock);
    ssize_t sent = gnutls_record_send(endpoint->session, buffer, length);
    pthread_mutex_unlock(&endpoint->lock);
    if (sent != (ssize_t)length) atomic_fetch_add_explicit(&endpoint->records_refused, 1, memory_order_relaxed);
    raise_to(&endpoint->largest_packet, (long)length);
    return 0;
}

static int sctp_receive(struct socket *socket, union sctp_sockstore address, void *data, size_t length,
                        struct sctp_rcvinfo info, int flags, void *context) {
    (void)socket;
    (void)address;
    (void)info;
    struct endpoint *endpoint = context;
    if (!data) return 1;
    if (flags & MSG_NOTIFICATION) {
        const union sctp_notification *notification = data;
        if (length >= sizeof(struct sctp_assoc_change) && notification->sn_header.sn_type == SCTP_ASSOC_CHANGE &&
            notification->sn_assoc_change.sac_state == SCTP_COMM_UP)
            atomic_store(&endpoint->up, 1);
    } else {
        atomic_fetch_add_explicit(&endpoint->bytes, (long)length, memory_order_relaxed);
        if (flags & MSG_EOR) {
            atomic_fetch_add_explicit(&endpoint->messages, 1, memory_order_relaxed);
            atomic_store_explicit(&endpoint->last_delivery_ns, now_ns(), memory_order_relaxed);
        }
    }
    free(data);
    return 1;
}

// Half of the send buffer is free: wake the application.
static int sctp_send_space(struct socket *socket, uint32_t free_space, void *context) {
    (void)socket;
    (void)free_space;
    struct endpoint *endpoint = context;
    pthread_mutex_lock(&endpoint->room_lock);
    endpoint->room_signals++;
    pthread_cond_broadcast(&endpoint->room);
    pthread_mutex_unlock(&endpoint->room_lock);
    return 0;
}

static void set_option(struct socket *socket, int level, int name, const void *value, socklen_t size, const char *what) {
    if (usrsctp_setsockopt(socket, level, name, value, size) != 0) fail(what, errno);
}

static struct sockaddr_conn conn_address(struct endpoint *endpoint) {
    struct sockaddr_conn address;
    memset(&address, 0, sizeof address);
    address.sconn_family = AF_CONN;
    address.sconn_port = htons(PORT);
    address.sconn_addr = endpoint;
    return address;
}

// SctpAssociation.init and setOptions.
static void make_association(struct endpoint *endpoint) {
    usrsctp_register_address(endpoint);
    endpoint->sctp = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, sctp_receive, sctp_send_space, SCTP_BUFFER / 2, endpoint);
    if (!endpoint->sctp) fail("usrsctp_socket", errno);
    struct socket *socket = endpoint->sctp;
    if (usrsctp_set_non_blocking(socket, 1) != 0) fail("usrsctp_set_non_blocking", errno);
    struct linger linger = {.l_onoff = 1, .l_linger = 0};
    set_option(socket, SOL_SOCKET, SO_LINGER, &linger, sizeof linger, "SO_LINGER");
    int buffer = SCTP_BUFFER, on = 1;
    set_option(socket, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer, "SO_SNDBUF");
    set_option(socket, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer, "SO_RCVBUF");
    set_option(socket, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on, "SCTP_NODELAY");
    set_option(socket, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on, "SCTP_RECVRCVINFO");
    uint32_t point = SCTP_BUFFER / 2;
    set_option(socket, IPPROTO_SCTP, SCTP_PARTIAL_DELIVERY_POINT, &point, sizeof point, "SCTP_PARTIAL_DELIVERY_POINT");
    int level = 2;
    set_option(socket, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof level, "SCTP_FRAGMENT_INTERLEAVE");
    struct sctp_assoc_value scheduler = {.assoc_id = SCTP_FUTURE_ASSOC, .assoc_value = SCTP_SS_ROUND_ROBIN};
    set_option(socket, IPPROTO_SCTP, SCTP_PLUGGABLE_SS, &scheduler, sizeof scheduler, "SCTP_PLUGGABLE_SS");
    struct sctp_rtoinfo timeouts = {.srto_assoc_id = SCTP_FUTURE_ASSOC, .srto_initial = 1000, .srto_max = 10000, .srto_min = 1000};
    set_option(socket, IPPROTO_SCTP, SCTP_RTOINFO, &timeouts, sizeof timeouts, "SCTP_RTOINFO");
    struct sctp_assoc_value reset = {.assoc_id = SCTP_ALL_ASSOC, .assoc_value = SCTP_ENABLE_RESET_STREAM_REQ};
    set_option(socket, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset, sizeof reset, "SCTP_ENABLE_STREAM_RESET");
    struct sctp_initmsg init = {.sinit_num_ostreams = STREAMS, .sinit_max_instreams = STREAMS, .sinit_max_init_timeo = 10000};
    set_option(socket, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init, "SCTP_INITMSG");
    uint16_t events[] = {SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT};
    for (size_t index = 0; index < sizeof events / sizeof events[0]; index++) {
        struct sctp_event event = {.se_assoc_id = SCTP_ALL_ASSOC, .se_type = events[index], .se_on = 1};
        set_option(socket, IPPROTO_SCTP, SCTP_EVENT, &event, sizeof event, "SCTP_EVENT");
    }
    struct sockaddr_conn local = conn_address(endpoint);
    if (usrsctp_bind(socket, (struct sockaddr *)&local, sizeof local) != 0) fail("usrsctp_bind", errno);
}

// SctpAssociation.connect: connect (non-blocking), then packets of at most `packet` bytes.
static void connect_association(struct endpoint *endpoint, int packet) {
    struct sockaddr_conn remote = conn_address(endpoint);
    if (usrsctp_connect(endpoint->sctp, (struct sockaddr *)&remote, sizeof remote) != 0 && errno != EINPROGRESS)
        fail("usrsctp_connect", errno);
    struct sctp_paddrparams parameters;
    memset(&parameters, 0, sizeof parameters);
    memcpy(&parameters.spp_address, &remote, sizeof remote);
    parameters.spp_assoc_id = SCTP_FUTURE_ASSOC;
    parameters.spp_flags = SPP_PMTUD_DISABLE;
    parameters.spp_pathmtu = (uint32_t)(packet - 12);
    set_option(endpoint->sctp, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &parameters, sizeof parameters, "SCTP_PEER_ADDR_PARAMS");
}

// The receiver thread: each datagram decrypted, its packet into usrsctp.
static void *receive_datagrams(void *argument) {
    struct endpoint *endpoint = argument;
    unsigned char datagram[2048], packet[2048];
    for (;;) {
        ssize_t got = recv(endpoint->fd, datagram, sizeof datagram, 0);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
            perror("recv");
            return NULL;
        }
        int more;
        pthread_mutex_lock(&endpoint->lock);
        endpoint->datagram = datagram;
        endpoint->datagram_length = (size_t)got;
        pthread_mutex_unlock(&endpoint->lock);
        do {
            pthread_mutex_lock(&endpoint->lock);
            ssize_t plain = gnutls_record_recv(endpoint->session, packet, sizeof packet);
            more = plain > 0 && (endpoint->datagram || gnutls_record_check_pending(endpoint->session) > 0);
            if (!more) endpoint->datagram = NULL;
            pthread_mutex_unlock(&endpoint->lock);
            if (plain > 0) usrsctp_conninput(endpoint, packet, (size_t)plain, 0);
        } while (more);
    }
}

static double cpu_seconds(struct timeval value) { return (double)value.tv_sec + (double)value.tv_usec / 1e6; }

int datachannel_main(double seconds, int message_bytes) {
    if (seconds <= 0 || message_bytes < 1 || message_bytes > 262144) {
        fprintf(stderr, "SECONDS must be positive and MESSAGE_BYTES in 1...262144\n");
        return 2;
    }
    static struct endpoint client = {.name = "client"}, server = {.name = "server"};
    struct endpoint *endpoints[2] = {&client, &server};
    struct sockaddr_in client_address, server_address;
    client.fd = bound_socket(&client_address);
    server.fd = bound_socket(&server_address);
    if (connect(client.fd, (struct sockaddr *)&server_address, sizeof server_address) != 0 ||
        connect(server.fd, (struct sockaddr *)&client_address, sizeof client_address) != 0)
        fail("connect", errno);
    make_session(&client, 1, make_credentials());
    make_session(&server, 0, make_credentials());
    handshake(endpoints);
    const char *name = gnutls_ciphersuite_get(client.session);
    int packet = (int)gnutls_dtls_get_data_mtu(client.session);

    usrsctp_init(0, sctp_output, NULL);
    usrsctp_sysctl_set_sctp_ecn_enable(0);
    usrsctp_sysctl_set_sctp_pr_enable(1);
    make_association(&client);
    make_association(&server);
    // Both connect before either reads: each INIT waits in its socket, as WebRTC's ends both
    // connect (SctpAssociation holds a peer's early INIT until its own connect).
    connect_association(&client, packet);
    connect_association(&server, packet);
    for (int index = 0; index < 2; index++) {
        if (pthread_create(&endpoints[index]->receiver, NULL, receive_datagrams, endpoints[index]) != 0)
            fail("pthread_create", errno);
    }
    double deadline = now_seconds() + 10;
    while (!atomic_load(&client.up) || !atomic_load(&server.up)) {
        if (now_seconds() > deadline) fail("SCTP association", ETIMEDOUT);
        usleep(1000);
    }
    unsigned char *message = malloc((size_t)message_bytes);
    memset(message, 0xAB, (size_t)message_bytes);
    struct sctp_sendv_spa info;
    memset(&info, 0, sizeof info);
    info.sendv_flags = SCTP_SEND_SNDINFO_VALID;
    info.sendv_sndinfo.snd_sid = 0;
    info.sendv_sndinfo.snd_ppid = htonl(PPID_BINARY);
    info.sendv_sndinfo.snd_flags = SCTP_EOR;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    long long start = now_ns();
    long long end = start + (long long)(seconds * 1e9);
    atomic_store(&server.last_delivery_ns, start);
    long sent = 0, waits = 0, waits_timed_out = 0;
    while (now_ns() < end) {
        pthread_mutex_lock(&client.room_lock);
        long signals = client.room_signals;
        pthread_mutex_unlock(&client.room_lock);
        ssize_t taken = usrsctp_sendv(client.sctp, message, (size_t)message_bytes, NULL, 0, &info, sizeof info, SCTP_SENDV_SPA, 0);
        if (taken >= 0) {
            sent++;
            continue;
        }
        if (errno != EWOULDBLOCK && errno != EAGAIN) fail("usrsctp_sendv", errno);
        // No room: wait for the send callback (at most 100 ms).
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        waits++;
        pthread_mutex_lock(&client.room_lock);
        while (client.room_signals == signals) {
            if (pthread_cond_timedwait(&client.room, &client.room_lock, &until) == ETIMEDOUT) {
                waits_timed_out++;
                break;
            }
        }
        pthread_mutex_unlock(&client.room_lock);
    }
    // Everything sent arrives (reliable): wait for it, or for 2 s without progress.
    long previous = -1;
    double quiet = now_seconds() + 2;
    while (atomic_load(&server.messages) < sent && now_seconds() < quiet) {
        long now = atomic_load(&server.messages);
        if (now != previous) {
            previous = now;
            quiet = now_seconds() + 2;
        }
        usleep(1000);
    }
    getrusage(RUSAGE_SELF, &after);
    double elapsed = (double)(atomic_load(&server.last_delivery_ns) - start) / 1e9;
    printf("%ld %ld %.6f %.6f %.6f %ld\n", sent, atomic_load(&server.messages), elapsed > 0 ? elapsed : 1e-3,
           cpu_seconds(after.ru_utime) - cpu_seconds(before.ru_utime), cpu_seconds(after.ru_stime) - cpu_seconds(before.ru_stime),
           peak_resident_kb());
    printf("%s %d %ld %ld %ld %ld %ld\n", name ? name : "unknown", packet, atomic_load(&client.largest_packet),
           atomic_load(&client.largest_datagram), atomic_load(&client.records_refused) + atomic_load(&server.records_refused),
           waits, waits_timed_out);
    free(message);
    fflush(stdout);
    fflush(stderr);
    // usrsctp's teardown (usrsctp_finish) waits for its timers: the figures are out, leave.
    _exit(0);
}
