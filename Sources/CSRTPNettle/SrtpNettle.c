// Nettle-backed AES-ICM-128, AES-GCM-128/256 and HMAC-SHA1 for libsrtp (see include/CSRTPNettle.h).
#include "CSRTPNettle.h"

#include <srtp2/auth.h>
#include <srtp2/cipher.h>
#include <srtp2/srtp.h>

#include <nettle/aes.h>
#include <nettle/gcm.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/memxor.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// The stock types and their known-answer tests: exported by libsrtp2.so, not declared in its
// public headers. The replacements reuse the stock test cases so libsrtp self-tests them.
extern const srtp_cipher_type_t srtp_aes_icm_128;
extern const srtp_cipher_type_t srtp_aes_gcm_128;
extern const srtp_cipher_type_t srtp_aes_gcm_256;
extern const srtp_auth_type_t srtp_hmac;
extern const srtp_cipher_test_case_t srtp_aes_icm_128_test_case_0;
extern const srtp_cipher_test_case_t srtp_aes_gcm_128_test_case_0;
extern const srtp_cipher_test_case_t srtp_aes_gcm_256_test_case_0;
extern const srtp_auth_test_case_t srtp_hmac_test_case_0;

// MARK: - AES-ICM-128 (RFC 3711 §4.1.1)
//
// The keystream is AES_k(counter), counter = (salt || 0x0000) XOR iv, where libsrtp's iv is
// (SSRC, packet index) or the key-derivation label, and the low 16 bits count blocks:
//
//      0                   1                   2                   3
//     +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
//     |                 salt (14 octets)                      | 0   0 |  offset
//     +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
//  XOR|      0        |     SSRC      |   packet index (48 bits)  |0 0|  iv
//     +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
//     = counter; block i of the keystream encrypts counter + i (mod 2^16 in the low 16 bits)

enum {
    icm_key_len = 16,
    icm_salt_len = 14,
    icm_key_len_with_salt = icm_key_len + icm_salt_len,
    icm_block = 16,
    icm_batch_blocks = 32,
};

typedef struct {
    struct aes128_ctx aes;
    uint8_t offset[icm_block];
    uint8_t counter[icm_block];
    // Keystream left over from a partial block, so consecutive encrypt calls after one set_iv
    // continue the keystream (as libsrtp's own implementations do).
    uint8_t keystream[icm_block];
    unsigned keystream_used;
} icm_state;

typedef struct {
    srtp_cipher_t cipher;
    icm_state state;
} icm_cipher;

static const srtp_cipher_type_t fast_aes_icm_128;

static srtp_err_status_t icm_alloc(srtp_cipher_pointer_t *cp, int key_len, int tag_len)
{
    (void)tag_len;
    if (key_len != icm_key_len_with_salt) {
        return srtp_err_status_bad_param;
    }
    icm_cipher *c = calloc(1, sizeof(icm_cipher));
    if (c == NULL) {
        return srtp_err_status_alloc_fail;
    }
    c->cipher.type = &fast_aes_icm_128;
    c->cipher.state = &c->state;
    c->cipher.key_len = key_len;
    c->cipher.algorithm = SRTP_AES_ICM_128;
    c->state.keystream_used = icm_block;
    *cp = &c->cipher;
    return srtp_err_status_ok;
}

static srtp_err_status_t icm_dealloc(srtp_cipher_pointer_t cp)
{
    icm_cipher *c = (icm_cipher *)cp;
    explicit_bzero(c, sizeof(*c));
    free(c);
    return srtp_err_status_ok;
}

static srtp_err_status_t icm_init(void *sv, const uint8_t *key)
{
    icm_state *s = sv;
    aes128_set_encrypt_key(&s->aes, key);
    memset(s->offset, 0, sizeof(s->offset));
    memcpy(s->offset, key + icm_key_len, icm_salt_len);
    memcpy(s->counter, s->offset, sizeof(s->counter));
    s->keystream_used = icm_block;
    return srtp_err_status_ok;
}

static srtp_err_status_t icm_set_iv(void *sv, uint8_t *iv, srtp_cipher_direction_t direction)
{
    (void)direction;
    icm_state *s = sv;
    for (int i = 0; i < icm_block; i++) {
        s->counter[i] = s->offset[i] ^ iv[i];
    }
    s->keystream_used = icm_block;
    return srtp_err_status_ok;
}

static inline unsigned icm_block_counter(const icm_state *s)
{
    return ((unsigned)s->counter[14] << 8) | s->counter[15];
}

static inline void icm_advance(icm_state *s)
{
    unsigned next = (icm_block_counter(s) + 1) & 0xffff;
    s->counter[14] = (uint8_t)(next >> 8);
    s->counter[15] = (uint8_t)next;
}

// Encryption and decryption are the same XOR with the keystream, in place.
static srtp_err_status_t icm_encrypt(void *sv, uint8_t *buffer, unsigned int *octets)
{
    icm_state *s = sv;
    size_t length = *octets;

    size_t leftover = icm_block - s->keystream_used;
    size_t take = leftover < length ? leftover : length;
    if (take > 0) {
        memxor(buffer, s->keystream + s->keystream_used, take);
        s->keystream_used += (unsigned)take;
        buffer += take;
        length -= take;
    }

    // The 16-bit block counter must not wrap within one packet (64 KiB keystream per IV).
    size_t blocks_needed = (length + icm_block - 1) / icm_block;
    if (icm_block_counter(s) + blocks_needed > 0x10000) {
        return srtp_err_status_terminus;
    }

    uint8_t counters[icm_batch_blocks * icm_block];
    uint8_t keystream[icm_batch_blocks * icm_block];
    while (length >= icm_block) {
        size_t blocks = length / icm_block;
        if (blocks > icm_batch_blocks) {
            blocks = icm_batch_blocks;
        }
        for (size_t i = 0; i < blocks; i++) {
            memcpy(counters + i * icm_block, s->counter, icm_block);
            icm_advance(s);
        }
        size_t bytes = blocks * icm_block;
        aes128_encrypt(&s->aes, bytes, keystream, counters);
        memxor(buffer, keystream, bytes);
        buffer += bytes;
        length -= bytes;
    }
    if (length > 0) {
        aes128_encrypt(&s->aes, icm_block, s->keystream, s->counter);
        icm_advance(s);
        memxor(buffer, s->keystream, length);
        s->keystream_used = (unsigned)length;
    }
    explicit_bzero(keystream, sizeof(keystream));
    return srtp_err_status_ok;
}

static const srtp_cipher_type_t fast_aes_icm_128 = {
    .alloc = icm_alloc,
    .dealloc = icm_dealloc,
    .init = icm_init,
    .set_aad = NULL,
    .encrypt = icm_encrypt,
    .decrypt = icm_encrypt,
    .set_iv = icm_set_iv,
    .get_tag = NULL,
    .description = "AES-128 integer counter mode using nettle",
    .test_data = &srtp_aes_icm_128_test_case_0,
    .id = SRTP_AES_ICM_128,
};

// MARK: - HMAC-SHA1 (RFC 2104, RFC 3711 §4.2.1)

enum { sha1_digest_len = 20 };

typedef struct {
    srtp_auth_t auth;
    struct hmac_sha1_ctx hmac;
} mac_auth;

static const srtp_auth_type_t fast_hmac_sha1;

static srtp_err_status_t mac_alloc(srtp_auth_pointer_t *ap, int key_len, int out_len)
{
    if (key_len < 0 || out_len < 0 || out_len > sha1_digest_len) {
        return srtp_err_status_bad_param;
    }
    mac_auth *a = calloc(1, sizeof(mac_auth));
    if (a == NULL) {
        return srtp_err_status_alloc_fail;
    }
    a->auth.type = &fast_hmac_sha1;
    a->auth.state = &a->hmac;
    a->auth.out_len = out_len;
    a->auth.key_len = key_len;
    a->auth.prefix_len = 0;
    *ap = &a->auth;
    return srtp_err_status_ok;
}

static srtp_err_status_t mac_dealloc(srtp_auth_pointer_t ap)
{
    mac_auth *a = (mac_auth *)ap;
    explicit_bzero(a, sizeof(*a));
    free(a);
    return srtp_err_status_ok;
}

static srtp_err_status_t mac_init(void *sv, const uint8_t *key, int key_len)
{
    if (key_len < 0) {
        return srtp_err_status_bad_param;
    }
    hmac_sha1_set_key(sv, (size_t)key_len, key);
    return srtp_err_status_ok;
}

// Restarts the MAC: the inner hash state keyed with (key XOR ipad), kept by nettle.
static srtp_err_status_t mac_start(void *sv)
{
    struct hmac_sha1_ctx *ctx = sv;
    memcpy(&ctx->state, &ctx->inner, sizeof(ctx->state));
    return srtp_err_status_ok;
}

static srtp_err_status_t mac_update(void *sv, const uint8_t *buffer, int octets)
{
    if (octets < 0) {
        return srtp_err_status_bad_param;
    }
    hmac_sha1_update(sv, (size_t)octets, buffer);
    return srtp_err_status_ok;
}

static srtp_err_status_t mac_compute(void *sv, const uint8_t *buffer, int octets, int tag_len,
                                      uint8_t *tag)
{
    if (octets < 0 || tag_len < 0 || tag_len > sha1_digest_len) {
        return srtp_err_status_bad_param;
    }
    uint8_t digest[sha1_digest_len];
    hmac_sha1_update(sv, (size_t)octets, buffer);
    hmac_sha1_digest(sv, sha1_digest_len, digest);  // also restarts the MAC for the next packet
    memcpy(tag, digest, (size_t)tag_len);
    return srtp_err_status_ok;
}

static const srtp_auth_type_t fast_hmac_sha1 = {
    .alloc = mac_alloc,
    .dealloc = mac_dealloc,
    .init = mac_init,
    .compute = mac_compute,
    .update = mac_update,
    .start = mac_start,
    .description = "HMAC-SHA1 using nettle",
    .test_data = &srtp_hmac_test_case_0,
    .id = SRTP_HMAC_SHA1,
};

// MARK: - AES-GCM-128 and AES-GCM-256 (RFC 7714)
//
// libsrtp computes the 12-octet IV (RFC 7714 §8.1, §9.1) and hands over the AAD (the RTP
// header; for SRTCP the first 8 octets, then the E flag and index) in one or more set_aad
// calls; encrypt produces the tag that get_tag returns; decrypt checks the tag that ends the
// buffer. nettle wants the AAD in whole blocks except the last, so a partial block is held.

enum {
    gcm_128_key_len = 16,
    gcm_256_key_len = 32,
    gcm_salt_len = 12,
    gcm_iv_len = 12,
    gcm_max_tag_len = 16,
};

typedef struct {
    union {
        struct gcm_aes128_ctx aes128;
        struct gcm_aes256_ctx aes256;
    } gcm;
    int key_size;
    int tag_len;
    uint8_t aad_partial[GCM_BLOCK_SIZE];
    size_t aad_partial_len;
    uint8_t tag[gcm_max_tag_len];
} aead_state;

typedef struct {
    srtp_cipher_t cipher;
    aead_state state;
} aead_cipher;

static const srtp_cipher_type_t fast_aes_gcm_128;
static const srtp_cipher_type_t fast_aes_gcm_256;

static srtp_err_status_t aead_alloc(srtp_cipher_pointer_t *cp, int key_len, int tag_len)
{
    int key_size;
    const srtp_cipher_type_t *type;
    int algorithm;
    if (key_len == gcm_128_key_len + gcm_salt_len) {
        key_size = gcm_128_key_len;
        type = &fast_aes_gcm_128;
        algorithm = SRTP_AES_GCM_128;
    } else if (key_len == gcm_256_key_len + gcm_salt_len) {
        key_size = gcm_256_key_len;
        type = &fast_aes_gcm_256;
        algorithm = SRTP_AES_GCM_256;
    } else {
        return srtp_err_status_bad_param;
    }
    if (tag_len != 16 && tag_len != 8) {
        return srtp_err_status_bad_param;
    }
    aead_cipher *c = calloc(1, sizeof(aead_cipher));
    if (c == NULL) {
        return srtp_err_status_alloc_fail;
    }
    c->cipher.type = type;
    c->cipher.state = &c->state;
    c->cipher.key_len = key_len;
    c->cipher.algorithm = algorithm;
    c->state.key_size = key_size;
    c->state.tag_len = tag_len;
    *cp = &c->cipher;
    return srtp_err_status_ok;
}

static srtp_err_status_t aead_dealloc(srtp_cipher_pointer_t cp)
{
    aead_cipher *c = (aead_cipher *)cp;
    explicit_bzero(c, sizeof(*c));
    free(c);
    return srtp_err_status_ok;
}

static srtp_err_status_t aead_init(void *sv, const uint8_t *key)
{
    aead_state *s = sv;
    if (s->key_size == gcm_128_key_len) {
        gcm_aes128_set_key(&s->gcm.aes128, key);
    } else {
        gcm_aes256_set_key(&s->gcm.aes256, key);
    }
    s->aad_partial_len = 0;
    return srtp_err_status_ok;
}

static srtp_err_status_t aead_set_iv(void *sv, uint8_t *iv, srtp_cipher_direction_t direction)
{
    (void)direction;
    aead_state *s = sv;
    if (s->key_size == gcm_128_key_len) {
        gcm_aes128_set_iv(&s->gcm.aes128, gcm_iv_len, iv);
    } else {
        gcm_aes256_set_iv(&s->gcm.aes256, gcm_iv_len, iv);
    }
    s->aad_partial_len = 0;
    return srtp_err_status_ok;
}

static void aead_update(aead_state *s, size_t length, const uint8_t *data)
{
    if (s->key_size == gcm_128_key_len) {
        gcm_aes128_update(&s->gcm.aes128, length, data);
    } else {
        gcm_aes256_update(&s->gcm.aes256, length, data);
    }
}

static srtp_err_status_t aead_set_aad(void *sv, const uint8_t *aad, uint32_t length)
{
    aead_state *s = sv;
    if (s->aad_partial_len > 0) {
        size_t take = GCM_BLOCK_SIZE - s->aad_partial_len;
        if (take > length) {
            take = length;
        }
        memcpy(s->aad_partial + s->aad_partial_len, aad, take);
        s->aad_partial_len += take;
        aad += take;
        length -= (uint32_t)take;
        if (s->aad_partial_len < GCM_BLOCK_SIZE) {
            return srtp_err_status_ok;
        }
        aead_update(s, GCM_BLOCK_SIZE, s->aad_partial);
        s->aad_partial_len = 0;
    }
    size_t whole = length - length % GCM_BLOCK_SIZE;
    if (whole > 0) {
        aead_update(s, whole, aad);
    }
    if (length > whole) {
        memcpy(s->aad_partial, aad + whole, length - whole);
    }
    s->aad_partial_len = length - whole;
    return srtp_err_status_ok;
}

static void aead_finish_aad(aead_state *s)
{
    if (s->aad_partial_len > 0) {
        aead_update(s, s->aad_partial_len, s->aad_partial);
        s->aad_partial_len = 0;
    }
}

static srtp_err_status_t aead_encrypt(void *sv, uint8_t *buffer, unsigned int *octets)
{
    aead_state *s = sv;
    aead_finish_aad(s);
    if (s->key_size == gcm_128_key_len) {
        gcm_aes128_encrypt(&s->gcm.aes128, *octets, buffer, buffer);
        gcm_aes128_digest(&s->gcm.aes128, (size_t)s->tag_len, s->tag);
    } else {
        gcm_aes256_encrypt(&s->gcm.aes256, *octets, buffer, buffer);
        gcm_aes256_digest(&s->gcm.aes256, (size_t)s->tag_len, s->tag);
    }
    return srtp_err_status_ok;
}

// The buffer holds ciphertext then tag; on success *octets drops the tag.
static srtp_err_status_t aead_decrypt(void *sv, uint8_t *buffer, unsigned int *octets)
{
    aead_state *s = sv;
    if (*octets < (unsigned)s->tag_len) {
        return srtp_err_status_bad_param;
    }
    size_t length = *octets - (unsigned)s->tag_len;
    uint8_t tag[gcm_max_tag_len];
    aead_finish_aad(s);
    if (s->key_size == gcm_128_key_len) {
        gcm_aes128_decrypt(&s->gcm.aes128, length, buffer, buffer);
        gcm_aes128_digest(&s->gcm.aes128, (size_t)s->tag_len, tag);
    } else {
        gcm_aes256_decrypt(&s->gcm.aes256, length, buffer, buffer);
        gcm_aes256_digest(&s->gcm.aes256, (size_t)s->tag_len, tag);
    }
    if (!memeql_sec(tag, buffer + length, (size_t)s->tag_len)) {
        return srtp_err_status_auth_fail;
    }
    *octets = (unsigned)length;
    return srtp_err_status_ok;
}

static srtp_err_status_t aead_get_tag(void *sv, uint8_t *tag, uint32_t *length)
{
    aead_state *s = sv;
    memcpy(tag, s->tag, (size_t)s->tag_len);
    *length = (uint32_t)s->tag_len;
    return srtp_err_status_ok;
}

static const srtp_cipher_type_t fast_aes_gcm_128 = {
    .alloc = aead_alloc,
    .dealloc = aead_dealloc,
    .init = aead_init,
    .set_aad = aead_set_aad,
    .encrypt = aead_encrypt,
    .decrypt = aead_decrypt,
    .set_iv = aead_set_iv,
    .get_tag = aead_get_tag,
    .description = "AES-128 GCM using nettle",
    .test_data = &srtp_aes_gcm_128_test_case_0,
    .id = SRTP_AES_GCM_128,
};

static const srtp_cipher_type_t fast_aes_gcm_256 = {
    .alloc = aead_alloc,
    .dealloc = aead_dealloc,
    .init = aead_init,
    .set_aad = aead_set_aad,
    .encrypt = aead_encrypt,
    .decrypt = aead_decrypt,
    .set_iv = aead_set_iv,
    .get_tag = aead_get_tag,
    .description = "AES-256 GCM using nettle",
    .test_data = &srtp_aes_gcm_256_test_case_0,
    .id = SRTP_AES_GCM_256,
};

// MARK: - Initialisation and installation

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static srtp_err_status_t init_status = srtp_err_status_init_fail;

static void init_libsrtp(void)
{
    srtp_err_status_t status = srtp_init();
    // bad_param: libsrtp was initialised before (its debug module is registered already).
    init_status = status == srtp_err_status_bad_param ? srtp_err_status_ok : status;
}

int swiftrtc_srtp_init(void)
{
    pthread_once(&init_once, init_libsrtp);
    return (int)init_status;
}

// The pairs (type id, replacement, stock type), installed together or not at all.
typedef struct {
    srtp_cipher_type_id_t id;
    const srtp_cipher_type_t *fast;
    const srtp_cipher_type_t *stock;
} cipher_slot;

static const cipher_slot cipher_slots[] = {
    {SRTP_AES_ICM_128, &fast_aes_icm_128, &srtp_aes_icm_128},
    {SRTP_AES_GCM_128, &fast_aes_gcm_128, &srtp_aes_gcm_128},
    {SRTP_AES_GCM_256, &fast_aes_gcm_256, &srtp_aes_gcm_256},
};
enum { cipher_slot_count = sizeof(cipher_slots) / sizeof(cipher_slots[0]) };

int swiftrtc_srtp_install_stock(void)
{
    srtp_err_status_t status = srtp_replace_auth_type(&srtp_hmac, SRTP_HMAC_SHA1);
    for (int i = 0; i < cipher_slot_count && status == srtp_err_status_ok; i++) {
        status = srtp_replace_cipher_type(cipher_slots[i].stock, cipher_slots[i].id);
    }
    return (int)status;
}

int swiftrtc_srtp_install_nettle(void)
{
    srtp_err_status_t status = srtp_replace_auth_type(&fast_hmac_sha1, SRTP_HMAC_SHA1);
    for (int i = 0; i < cipher_slot_count && status == srtp_err_status_ok; i++) {
        status = srtp_replace_cipher_type(cipher_slots[i].fast, cipher_slots[i].id);
    }
    if (status != srtp_err_status_ok) {
        // Keep the set consistent: all fast or all stock.
        (void)swiftrtc_srtp_install_stock();
    }
    return (int)status;
}

const void *swiftrtc_srtp_nettle_aes_icm_128(void)
{
    return &fast_aes_icm_128;
}

const void *swiftrtc_srtp_nettle_aes_gcm_128(void)
{
    return &fast_aes_gcm_128;
}

const void *swiftrtc_srtp_nettle_aes_gcm_256(void)
{
    return &fast_aes_gcm_256;
}

const void *swiftrtc_srtp_nettle_hmac_sha1(void)
{
    return &fast_hmac_sha1;
}
