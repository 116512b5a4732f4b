/*
 * Tests of the encryption paddings (padding/enc_padding.h): OAEP, PKCS#1 v1.5 type 2 with
 * and without implicit rejection, and the TLS pre-master decode. OpenSSL is the oracle:
 * its RSA_padding_* functions cross-check our blocks both ways, its HMAC checks the
 * implicit-rejection KDF, and OpenSSL 3.2's own known answers (enc_ir_vectors.h) pin the
 * synthetic messages byte for byte.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* RSA_padding_* are the oracle here */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "enc_padding.h"
#include "mgf1.h"
#include "enc_ir_vectors.h"

/* ---------------------------------------------------------------------------------------
 * Hash and randomness adapters over OpenSSL for the padding interface.
 */

static int evp_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                      uint8_t *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int len = 0;
    size_t i;
    int ok = ctx != NULL && EVP_DigestInit_ex2(ctx, (const EVP_MD *)h->impl, NULL);

    for (i = 0; ok && i < count; i++)
        ok = EVP_DigestUpdate(ctx, parts[i].p, parts[i].len);
    ok = ok && EVP_DigestFinal_ex(ctx, out, &len) && len == h->size;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static ctrsa_hash make_hash(const char *name)
{
    ctrsa_hash h;
    EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);

    assert_non_null(md);
    h.size = (size_t)EVP_MD_get_size(md);
    h.block_size = (size_t)EVP_MD_get_block_size(md);
    h.impl = md;
    h.digest = evp_digest;
    return h;
}

static void free_hash(ctrsa_hash *h)
{
    EVP_MD_free(h->impl);
    h->impl = NULL;
}

static int failing_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                          uint8_t *out)
{
    (void)h, (void)parts, (void)count, (void)out;
    return 0;
}

static int rand_openssl(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r;
    return RAND_bytes(buf, (int)len) == 1;
}

static const ctrsa_rand good_rand = { NULL, rand_openssl };

/* First call: all zeros; later calls: 0x5a on alternating halves, so two refills suffice. */
struct zero_rand_state {
    int calls;
};

static int rand_zero_first(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    struct zero_rand_state *s = r->impl;
    size_t i;

    for (i = 0; i < len; i++)
        buf[i] = s->calls == 0 ? 0 : (uint8_t)(((i + (size_t)s->calls) % 2) ? 0x5a : 0x00);
    s->calls++;
    return 1;
}

/* A generator that only ever returns zeros: encoding must fail, not loop forever. */
static int rand_all_zero(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r;
    memset(buf, 0, len);
    return 1;
}

static int rand_fail(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r, (void)buf, (void)len;
    return 0;
}

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex) / 2, i;
    unsigned int v;

    assert_true(n <= cap);
    for (i = 0; i < n; i++) {
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

/* ---------------------------------------------------------------------------------------
 * OAEP
 */

struct oaep_case {
    const char *md, *mgf1md;
};

static const struct oaep_case oaep_cases[] = {
    { "SHA1", "SHA1" }, { "SHA256", "SHA256" }, { "SHA256", "SHA1" },
    { "SHA384", "SHA256" }, { "SHA512", "SHA512" }, { "SHA3-256", "SHA3-256" },
};

static void test_oaep_round_trip(void **state)
{
    static const size_t ks[] = { 128, 129, 256, 384, 512 };
    static const uint8_t label[] = "a label";
    uint8_t em[CTRSA_ENC_MAX_K], msg[CTRSA_ENC_MAX_K], out[CTRSA_ENC_MAX_K];
    size_t c, ki, mlen, outlen, maxlen, li;
    (void)state;

    for (c = 0; c < sizeof(oaep_cases) / sizeof(oaep_cases[0]); c++) {
        ctrsa_hash h = make_hash(oaep_cases[c].md), g = make_hash(oaep_cases[c].mgf1md);

        for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
            size_t k = ks[ki];

            if (!ctrsa_oaep_max_message(k, h.size, &maxlen))
                continue;
            for (li = 0; li < 2; li++) {
                const uint8_t *l = li ? label : NULL;
                size_t llen = li ? sizeof(label) - 1 : 0;
                size_t lens[] = { 0, 1, maxlen / 2, maxlen - 1, maxlen };
                size_t t;

                for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
                    mlen = lens[t];
                    assert_int_equal(RAND_bytes(msg, (int)mlen + 1), 1);
                    assert_int_equal(ctrsa_oaep_encode(&h, &g, &good_rand, em, k, msg, mlen,
                                                       l, llen), CTRSA_PAD_OK);
                    assert_int_equal(em[0], 0);
                    outlen = 12345;
                    assert_int_equal(ctrsa_oaep_decode(&h, &g, em, k, l, llen, out, k,
                                                       &outlen), CTRSA_PAD_OK);
                    assert_int_equal(outlen, mlen);
                    assert_memory_equal(out, msg, mlen);
                }
                /* One byte too long is refused before anything is written. */
                assert_int_equal(ctrsa_oaep_encode(&h, &g, &good_rand, em, k, msg,
                                                   maxlen + 1, l, llen), CTRSA_PAD_BAD_ARGS);
            }
        }
        free_hash(&h);
        free_hash(&g);
    }
}

/* Our encoding decoded by OpenSSL, and OpenSSL's encoding decoded by us. */
static void test_oaep_cross_openssl(void **state)
{
    static const uint8_t label[] = "cross-check label";
    uint8_t em[512], msg[512], out[512];
    size_t c, mlen, outlen, maxlen, k = 256;
    int round, r;
    (void)state;

    for (c = 0; c < sizeof(oaep_cases) / sizeof(oaep_cases[0]); c++) {
        ctrsa_hash h = make_hash(oaep_cases[c].md), g = make_hash(oaep_cases[c].mgf1md);
        const EVP_MD *md = h.impl, *mgf1md = g.impl;

        assert_true(ctrsa_oaep_max_message(k, h.size, &maxlen));
        for (round = 0; round < 20; round++) {
            const uint8_t *l = (round & 1) ? label : NULL;
            int llen = (round & 1) ? (int)sizeof(label) - 1 : 0;

            mlen = (size_t)round * maxlen / 19;
            assert_int_equal(RAND_bytes(msg, (int)mlen + 1), 1);

            assert_int_equal(ctrsa_oaep_encode(&h, &g, &good_rand, em, k, msg, mlen, l,
                                               (size_t)llen), CTRSA_PAD_OK);
            r = RSA_padding_check_PKCS1_OAEP_mgf1(out, (int)k, em, (int)k, (int)k, l, llen,
                                                  md, mgf1md);
            assert_int_equal(r, (int)mlen);
            assert_memory_equal(out, msg, mlen);

            assert_int_equal(RSA_padding_add_PKCS1_OAEP_mgf1(em, (int)k, msg, (int)mlen, l,
                                                             llen, md, mgf1md), 1);
            assert_int_equal(ctrsa_oaep_decode(&h, &g, em, k, l, (size_t)llen, out, k,
                                               &outlen), CTRSA_PAD_OK);
            assert_int_equal(outlen, mlen);
            assert_memory_equal(out, msg, mlen);
        }
        free_hash(&h);
        free_hash(&g);
    }
}

/*
 * Build an OAEP block by hand: em = y || maskedSeed || maskedDB with DB given in full, so
 * that every malformation can be produced.
 */
static void oaep_mask(const ctrsa_hash *h, uint8_t *em, size_t k, uint8_t y,
                      const uint8_t *db)
{
    size_t hlen = h->size, dblen = k - hlen - 1;

    em[0] = y;
    assert_int_equal(RAND_bytes(em + 1, (int)hlen), 1);
    memcpy(em + 1 + hlen, db, dblen);
    assert_true(ctrsa_mgf1_xor(h, em + 1 + hlen, dblen, em + 1, hlen));
    assert_true(ctrsa_mgf1_xor(h, em + 1, hlen, em + 1 + hlen, dblen));
}

static void test_oaep_malformed(void **state)
{
    ctrsa_hash h = make_hash("SHA256");
    const size_t k = 128, hlen = 32, dblen = k - hlen - 1;
    uint8_t db[128], em[128], out[128], lhash[32];
    ctrsa_span empty = { NULL, 0 };
    size_t outlen = 777, i;
    (void)state;

    assert_true(h.digest(&h, &empty, 1, lhash));

    /* A good block: lHash || zeros || 0x01 || "hi". */
    memset(db, 0, sizeof(db));
    memcpy(db, lhash, hlen);
    db[dblen - 3] = 0x01;
    db[dblen - 2] = 'h';
    db[dblen - 1] = 'i';
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, 2);
    assert_memory_equal(out, "hi", 2);

    /* Output capacity: exactly the message fits; one less is the opaque failure. */
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, 2, &outlen), CTRSA_PAD_OK);
    oaep_mask(&h, em, k, 0x00, db);
    outlen = 777;
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, 1, &outlen),
                     CTRSA_PAD_FAIL);
    assert_int_equal(outlen, 777);

    /* Wrong first byte Y. */
    oaep_mask(&h, em, k, 0x01, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen),
                     CTRSA_PAD_FAIL);

    /* Bad lHash: the label differs, or one bit of lHash' is flipped (each position). */
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, (const uint8_t *)"x", 1, out, k,
                                       &outlen), CTRSA_PAD_FAIL);
    for (i = 0; i < hlen; i++) {
        db[i] ^= 0x80;
        oaep_mask(&h, em, k, 0x00, db);
        assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen),
                         CTRSA_PAD_FAIL);
        db[i] ^= 0x80;
    }

    /* A nonzero byte other than 0x01 before the separator. */
    db[dblen - 5] = 0x02;
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen),
                     CTRSA_PAD_FAIL);
    db[dblen - 5] = 0x00;

    /* No separator at all: PS runs to the end. */
    memset(db + hlen, 0, dblen - hlen);
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen),
                     CTRSA_PAD_FAIL);

    /* Zero-length message: 0x01 is the last byte. */
    db[dblen - 1] = 0x01;
    oaep_mask(&h, em, k, 0x00, db);
    outlen = 777;
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, 0);
    /* ... and an empty output buffer can receive it. */
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, 0, &outlen), CTRSA_PAD_OK);

    /* Maximum length: 0x01 right after lHash', and the message has zeros in it. */
    memset(db + hlen, 0, dblen - hlen);
    db[hlen] = 0x01;
    db[dblen - 1] = 0x77;
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, k - 2 * hlen - 2);
    assert_int_equal(out[outlen - 1], 0x77);
    assert_int_equal(out[0], 0x00);

    /* The window past the message is zeroed. */
    memset(out, 0xee, sizeof(out));
    memset(db + hlen, 0, dblen - hlen);
    db[dblen - 2] = 0x01;
    db[dblen - 1] = 0x33;
    oaep_mask(&h, em, k, 0x00, db);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, k, NULL, 0, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, 1);
    assert_int_equal(out[0], 0x33);
    for (i = 1; i < k - 2 * hlen - 2; i++)
        assert_int_equal(out[i], 0);

    /* Public argument errors: k too small for the hash; a failing hash. */
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, 2 * hlen + 1, NULL, 0, out, k, &outlen),
                     CTRSA_PAD_BAD_ARGS);
    assert_int_equal(ctrsa_oaep_decode(&h, &h, em, CTRSA_ENC_MAX_K + 1, NULL, 0, out, k,
                                       &outlen), CTRSA_PAD_BAD_ARGS);
    {
        ctrsa_hash bad = h;

        bad.digest = failing_digest;
        assert_int_equal(ctrsa_oaep_decode(&bad, &h, em, k, NULL, 0, out, k, &outlen),
                         CTRSA_PAD_HASH_ERR);
        assert_int_equal(ctrsa_oaep_encode(&h, &bad, &good_rand, em, k, out, 1, NULL, 0),
                         CTRSA_PAD_HASH_ERR);
    }
    {
        ctrsa_rand nor = { NULL, rand_fail };

        assert_int_equal(ctrsa_oaep_encode(&h, &h, &nor, em, k, out, 1, NULL, 0),
                         CTRSA_PAD_RAND_ERR);
    }
    free_hash(&h);
}

/* ---------------------------------------------------------------------------------------
 * PKCS#1 v1.5 type 2
 */

static void test_pkcs1_round_trip_and_cross(void **state)
{
    static const size_t ks[] = { 64, 128, 257, 512 };
    uint8_t em[512], msg[512], out[512];
    size_t ki, t, outlen;
    int r;
    (void)state;

    for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        size_t k = ks[ki], maxlen = k - 11;
        size_t lens[] = { 0, 1, 11, maxlen / 2, maxlen - 1, maxlen };

        for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
            size_t mlen = lens[t], i;

            assert_int_equal(RAND_bytes(msg, (int)mlen + 1), 1);
            assert_int_equal(ctrsa_pkcs1_type2_encode(&good_rand, em, k, msg, mlen),
                             CTRSA_PAD_OK);
            assert_int_equal(em[0], 0);
            assert_int_equal(em[1], 2);
            for (i = 2; i < k - mlen - 1; i++)
                assert_int_not_equal(em[i], 0);
            assert_int_equal(em[k - mlen - 1], 0);

            /* OpenSSL decodes ours ... */
            r = RSA_padding_check_PKCS1_type_2(out, (int)k, em, (int)k, (int)k);
            assert_int_equal(r, (int)mlen);
            assert_memory_equal(out, msg, mlen);
            /* ... and we decode ours ... */
            assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_OK);
            assert_int_equal(outlen, mlen);
            assert_memory_equal(out, msg, mlen);
            /* ... and OpenSSL's. */
            assert_int_equal(RSA_padding_add_PKCS1_type_2(em, (int)k, msg, (int)mlen), 1);
            assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_OK);
            assert_int_equal(outlen, mlen);
            assert_memory_equal(out, msg, mlen);
        }
        assert_int_equal(ctrsa_pkcs1_type2_encode(&good_rand, em, k, msg, maxlen + 1),
                         CTRSA_PAD_BAD_ARGS);
    }
}

static void test_pkcs1_encode_nonzero_padding(void **state)
{
    struct zero_rand_state s = { 0 };
    ctrsa_rand zr = { &s, rand_zero_first };
    ctrsa_rand allzero = { NULL, rand_all_zero };
    ctrsa_rand nor = { NULL, rand_fail };
    uint8_t em[128];
    size_t i;
    (void)state;

    /* Zeros from the generator are replaced until none is left (three calls here). */
    assert_int_equal(ctrsa_pkcs1_type2_encode(&zr, em, sizeof(em), (const uint8_t *)"m", 1),
                     CTRSA_PAD_OK);
    for (i = 2; i < sizeof(em) - 2; i++)
        assert_int_not_equal(em[i], 0);
    assert_int_equal(s.calls, 3);
    /* A generator stuck at zero fails cleanly and leaves em wiped. */
    assert_int_equal(ctrsa_pkcs1_type2_encode(&allzero, em, sizeof(em),
                                              (const uint8_t *)"m", 1), CTRSA_PAD_RAND_ERR);
    for (i = 0; i < sizeof(em); i++)
        assert_int_equal(em[i], 0);
    assert_int_equal(ctrsa_pkcs1_type2_encode(&nor, em, sizeof(em), (const uint8_t *)"m", 1),
                     CTRSA_PAD_RAND_ERR);
}

/* em := 00 02 <ps nonzero bytes> 00 <msg>, k bytes in all. */
static void pkcs1_block(uint8_t *em, size_t k, size_t pslen, uint8_t fill)
{
    size_t i;

    em[0] = 0x00;
    em[1] = 0x02;
    for (i = 0; i < pslen; i++)
        em[2 + i] = fill;
    em[2 + pslen] = 0x00;
    for (i = 3 + pslen; i < k; i++)
        em[i] = (uint8_t)(i * 7); /* includes zeros: the message may hold any byte */
}

static void test_pkcs1_malformed(void **state)
{
    const size_t k = 128;
    uint8_t em[128], out[128];
    size_t outlen = 999, i;
    (void)state;

    /* PS of exactly 8 bytes: accepted, longest message. */
    pkcs1_block(em, k, 8, 0xff);
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, k - 11);
    /* PS of 7 bytes: rejected. */
    pkcs1_block(em, k, 7, 0xff);
    outlen = 999;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    assert_int_equal(outlen, 999);
    /* Zero-length message: the separator is the last byte. */
    pkcs1_block(em, k, k - 3, 0x11);
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, 0);
    /* No separator. */
    pkcs1_block(em, k, k - 3, 0x11);
    em[k - 1] = 0x22;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    /* Wrong first byte, wrong block type (1 and 3). */
    pkcs1_block(em, k, 20, 0x44);
    em[0] = 0x01;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    pkcs1_block(em, k, 20, 0x44);
    em[1] = 0x01;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    pkcs1_block(em, k, 20, 0x44);
    em[1] = 0x03;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    /* A zero inside the first 8 PS bytes (at each position) makes PS too short. */
    for (i = 2; i < 10; i++) {
        pkcs1_block(em, k, 20, 0x44);
        em[i] = 0x00;
        assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    }
    /* Capacity: the message (k - 23 bytes) fits exactly, and not in one byte less. */
    pkcs1_block(em, k, 20, 0x44);
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k - 23, &outlen), CTRSA_PAD_OK);
    assert_int_equal(outlen, k - 23);
    for (i = 0; i < outlen; i++)
        assert_int_equal(out[i], (uint8_t)((23 + i) * 7));
    pkcs1_block(em, k, 20, 0x44);
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k - 24, &outlen), CTRSA_PAD_FAIL);
    /* On failure the window is zeroed. */
    memset(out, 0xee, sizeof(out));
    pkcs1_block(em, k, 20, 0x44);
    em[0] = 0x05;
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, k, out, k, &outlen), CTRSA_PAD_FAIL);
    for (i = 0; i < k - 11; i++)
        assert_int_equal(out[i], 0);
    /* Public argument errors. */
    assert_int_equal(ctrsa_pkcs1_type2_decode(em, 10, out, k, &outlen), CTRSA_PAD_BAD_ARGS);
}

/* ---------------------------------------------------------------------------------------
 * Implicit rejection
 */

/* KDK, PRF and HMAC against OpenSSL's HMAC, computed the draft's way. */
static void test_ir_kdf_against_hmac(void **state)
{
    ctrsa_hash sha = make_hash("SHA256");
    uint8_t dh[32], ct[300], kdk[32], ref[32], prf[700], refprf[700], blk[32];
    unsigned int len;
    size_t k, pos;
    unsigned int iter;
    (void)state;

    for (k = 64; k <= 300; k += 79) {
        assert_int_equal(RAND_bytes(dh, 32), 1);
        assert_int_equal(RAND_bytes(ct, (int)k), 1);
        assert_int_equal(ctrsa_ir_kdk(&sha, dh, ct, k, kdk), CTRSA_PAD_OK);
        assert_non_null(HMAC(EVP_sha256(), dh, 32, ct, k, ref, &len));
        assert_memory_equal(kdk, ref, 32);

        for (pos = 0, iter = 0; pos < k; pos += 32, iter++) {
            uint8_t in[2 + 7 + 2] = { (uint8_t)(iter >> 8), (uint8_t)iter, 'm', 'e', 's', 's',
                                      'a', 'g', 'e', (uint8_t)((k * 8) >> 8),
                                      (uint8_t)(k * 8) };

            assert_non_null(HMAC(EVP_sha256(), kdk, 32, in, sizeof(in), blk, &len));
            memcpy(refprf + pos, blk, k - pos < 32 ? k - pos : 32);
        }
        assert_int_equal(ctrsa_ir_prf(&sha, kdk, "message", prf, k), CTRSA_PAD_OK);
        assert_memory_equal(prf, refprf, k);
    }
    /* Not SHA-256: refused rather than giving outputs OpenSSL would not. */
    {
        ctrsa_hash s1 = make_hash("SHA1");

        assert_int_equal(ctrsa_ir_kdk(&s1, dh, ct, 64, kdk), CTRSA_PAD_HASH_ERR);
        free_hash(&s1);
    }
    free_hash(&sha);
}

/* Load a PEM key; give k, SHA-256(d as k bytes) and a raw-RSA decryptor. */
struct ir_key {
    EVP_PKEY *pkey;
    size_t k;
    uint8_t d_hash[32];
};

static void ir_key_load(struct ir_key *key, const char *pem)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    BIGNUM *d = NULL;
    uint8_t dbuf[CTRSA_ENC_MAX_K];

    assert_non_null(bio);
    key->pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    assert_non_null(key->pkey);
    key->k = (size_t)EVP_PKEY_get_size(key->pkey);
    assert_int_equal(EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_RSA_D, &d), 1);
    assert_int_equal(BN_bn2binpad(d, dbuf, (int)key->k), (int)key->k);
    assert_non_null(EVP_Digest(dbuf, key->k, key->d_hash, NULL, EVP_sha256(), NULL));
    BN_clear_free(d);
}

/* em := ct^d mod n with OpenSSL's raw RSA (the oracle), ct exactly k bytes. */
static void raw_decrypt(const struct ir_key *key, const uint8_t *ct, uint8_t *em)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key->pkey, NULL);
    size_t len = key->k;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    assert_int_equal(EVP_PKEY_decrypt(ctx, em, &len, ct, key->k), 1);
    assert_int_equal(len, key->k);
    EVP_PKEY_CTX_free(ctx);
}

static void test_ir_known_answers(void **state)
{
    ctrsa_hash sha = make_hash("SHA256");
    uint8_t ct[CTRSA_ENC_MAX_K], em[CTRSA_ENC_MAX_K], out[CTRSA_ENC_MAX_K];
    uint8_t want[CTRSA_ENC_MAX_K];
    size_t v, ctlen, wantlen, outlen;
    (void)state;

    for (v = 0; v < sizeof(ir_vectors) / sizeof(ir_vectors[0]); v++) {
        const struct ir_vector *tv = &ir_vectors[v];
        struct ir_key key;

        ir_key_load(&key, tv->key_pem);
        /* A ciphertext shorter than k is left-padded with zeros, as OpenSSL does. */
        ctlen = unhex(tv->ct_hex, want, sizeof(want));
        assert_true(ctlen <= key.k);
        memset(ct, 0, key.k - ctlen);
        memcpy(ct + key.k - ctlen, want, ctlen);
        if (tv->out_hex != NULL) {
            wantlen = unhex(tv->out_hex, want, sizeof(want));
        } else {
            wantlen = strlen(tv->out_text);
            memcpy(want, tv->out_text, wantlen);
        }

        raw_decrypt(&key, ct, em);
        outlen = 99999;
        if (ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, key.k, out, key.k,
                                        &outlen) != CTRSA_PAD_OK
            || outlen != wantlen || memcmp(out, want, wantlen) != 0)
            fail_msg("implicit-rejection vector \"%s\": got %zu bytes, want %zu", tv->what,
                     outlen, wantlen);
        EVP_PKEY_free(key.pkey);
    }
    free_hash(&sha);
}

static void test_ir_properties(void **state)
{
    ctrsa_hash sha = make_hash("SHA256");
    struct ir_key key;
    uint8_t ct[256], em[256], out1[256], out2[256], out3[256], msg[256], good_em[256];
    size_t len1, len2, len3, outlen, t, seen_lengths = 0, prev = SIZE_MAX;
    (void)state;

    ir_key_load(&key, ir_key_2048);
    assert_int_equal(key.k, 256);

    for (t = 0; t < 16; t++) {
        /* A random block is (almost surely) badly padded. */
        assert_int_equal(RAND_bytes(ct, 256), 1);
        assert_int_equal(RAND_bytes(em, 256), 1);
        em[0] = 0x01; /* certainly bad */
        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 256, out1, 256,
                                                     &len1), CTRSA_PAD_OK);
        /* Deterministic: the same ciphertext gives the same synthetic message ... */
        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 256, out2, 256,
                                                     &len2), CTRSA_PAD_OK);
        assert_int_equal(len1, len2);
        assert_memory_equal(out1, out2, len1);
        /* ... in range ... */
        assert_true(len1 <= 256 - 11);
        /* ... and it does not depend on the (invalid) decrypted block at all ... */
        em[5] ^= 0xff;
        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 256, out2, 256,
                                                     &len2), CTRSA_PAD_OK);
        assert_int_equal(len1, len2);
        assert_memory_equal(out1, out2, len1);
        /* ... but on the ciphertext: one flipped bit changes it. */
        ct[255] ^= 1;
        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 256, out3, 256,
                                                     &len3), CTRSA_PAD_OK);
        assert_false(len1 == len3 && memcmp(out1, out3, len1) == 0);
        if (len1 != prev)
            seen_lengths++;
        prev = len1;

        /* Valid padding gives the real message, the same as explicit rejection. */
        assert_int_equal(RAND_bytes(msg, 64), 1);
        assert_int_equal(ctrsa_pkcs1_type2_encode(&good_rand, good_em, 256, msg, t * 3),
                         CTRSA_PAD_OK);
        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, good_em, 256, out1,
                                                     256, &len1), CTRSA_PAD_OK);
        assert_int_equal(len1, t * 3);
        assert_memory_equal(out1, msg, len1);
        assert_int_equal(ctrsa_pkcs1_type2_decode(good_em, 256, out2, 256, &outlen),
                         CTRSA_PAD_OK);
        assert_int_equal(outlen, len1);
    }
    /* The lengths vary from ciphertext to ciphertext. */
    assert_true(seen_lengths > 8);

    /* Public argument errors: output smaller than k - 11, k too small, not SHA-256. */
    assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 256, out1, 244,
                                                 &len1), CTRSA_PAD_BAD_ARGS);
    assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&sha, key.d_hash, ct, em, 10, out1, 256,
                                                 &len1), CTRSA_PAD_BAD_ARGS);
    {
        ctrsa_hash s512 = make_hash("SHA512");

        assert_int_equal(ctrsa_pkcs1_type2_decode_ir(&s512, key.d_hash, ct, em, 256, out1,
                                                     256, &len1), CTRSA_PAD_HASH_ERR);
        free_hash(&s512);
    }
    EVP_PKEY_free(key.pkey);
    free_hash(&sha);
}

/* ---------------------------------------------------------------------------------------
 * TLS pre-master secret
 */

static void tls_block(uint8_t *em, size_t k, unsigned int version)
{
    size_t i;

    em[0] = 0x00;
    em[1] = 0x02;
    for (i = 2; i < k - 49; i++)
        em[i] = (uint8_t)(1 + i % 255);
    em[k - 49] = 0x00;
    em[k - 48] = (uint8_t)(version >> 8);
    em[k - 47] = (uint8_t)version;
    for (i = k - 46; i < k; i++)
        em[i] = (uint8_t)(i * 13);
}

static void test_tls_premaster(void **state)
{
    const size_t k = 128;
    uint8_t em[128], rnd[48], out[48];
    (void)state;

    memset(rnd, 0xab, sizeof(rnd));

    /* Valid block, version matches the client's. */
    tls_block(em, k, 0x0303);
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0303, 0, rnd, out), CTRSA_PAD_OK);
    assert_memory_equal(out, em + k - 48, 48);
    /* Version mismatch: the random secret, no error. */
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0302, 0, rnd, out), CTRSA_PAD_OK);
    assert_memory_equal(out, rnd, 48);
    /* ... unless the negotiated (alternative) version matches. */
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0302, 0x0303, rnd, out),
                     CTRSA_PAD_OK);
    assert_memory_equal(out, em + k - 48, 48);
    /* Bad header, a zero inside PS, a nonzero separator: the random secret. */
    tls_block(em, k, 0x0303);
    em[1] = 0x01;
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0303, 0, rnd, out), CTRSA_PAD_OK);
    assert_memory_equal(out, rnd, 48);
    tls_block(em, k, 0x0303);
    em[20] = 0x00;
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0303, 0, rnd, out), CTRSA_PAD_OK);
    assert_memory_equal(out, rnd, 48);
    tls_block(em, k, 0x0303);
    em[k - 49] = 0x01;
    assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0303, 0, rnd, out), CTRSA_PAD_OK);
    assert_memory_equal(out, rnd, 48);
    /* A standard PKCS#1 block with a 48-byte message decodes the same way. */
    {
        uint8_t pms[48];

        assert_int_equal(RAND_bytes(pms, 48), 1);
        pms[0] = 0x03;
        pms[1] = 0x03;
        assert_int_equal(ctrsa_pkcs1_type2_encode(&good_rand, em, k, pms, 48), CTRSA_PAD_OK);
        assert_int_equal(ctrsa_tls_premaster_decode(em, k, 0x0303, 0, rnd, out),
                         CTRSA_PAD_OK);
        assert_memory_equal(out, pms, 48);
    }
    assert_int_equal(ctrsa_tls_premaster_decode(em, 58, 0x0303, 0, rnd, out),
                     CTRSA_PAD_BAD_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oaep_round_trip),
        cmocka_unit_test(test_oaep_cross_openssl),
        cmocka_unit_test(test_oaep_malformed),
        cmocka_unit_test(test_pkcs1_round_trip_and_cross),
        cmocka_unit_test(test_pkcs1_encode_nonzero_padding),
        cmocka_unit_test(test_pkcs1_malformed),
        cmocka_unit_test(test_ir_kdf_against_hmac),
        cmocka_unit_test(test_ir_known_answers),
        cmocka_unit_test(test_ir_properties),
        cmocka_unit_test(test_tls_premaster),
    };

    return cmocka_run_group_tests_name("enc_padding", tests, NULL, NULL);
}
