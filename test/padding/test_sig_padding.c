/*
 * Signature padding (padding/sig_padding.h, padding/mgf1.h) against OpenSSL as the oracle:
 * DigestInfo prefixes against the blocks OpenSSL's own RSA signatures carry, raw type-1
 * padding against RSA_padding_add_PKCS1_type_1, EMSA-PSS both ways against
 * RSA_padding_add_PKCS1_PSS_mgf1 / RSA_verify_PKCS1_PSS_mgf1, MGF1 against PKCS1_MGF1, the
 * X9.31 block both ways against RSA_padding_add_X931 / RSA_padding_check_X931 (every block
 * length and every one-byte change of a valid block), and every kind of malformed block
 * built by hand.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "mgf1.h"
#include "sig_padding.h"

/* ---- ctrsa_hash over EVP (the test's own adapter) ---- */

typedef struct test_hash {
    ctrsa_hash h;
    EVP_MD *md;
    EVP_MD_CTX *ctx;
    int fail;  /* make digest() fail, for the error paths */
} test_hash;

static int test_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count, uint8_t *out)
{
    const test_hash *t = h->impl;
    unsigned int len = 0;
    size_t i;

    if (t->fail || !EVP_DigestInit_ex2(t->ctx, t->md, NULL))
        return 0;
    for (i = 0; i < count; i++)
        if (!EVP_DigestUpdate(t->ctx, parts[i].p, parts[i].len))
            return 0;
    return EVP_DigestFinal_ex(t->ctx, out, &len) && len == h->size;
}

static void hash_open(test_hash *t, const char *name)
{
    memset(t, 0, sizeof(*t));
    t->md = EVP_MD_fetch(NULL, name, NULL);
    assert_non_null(t->md);
    t->ctx = EVP_MD_CTX_new();
    assert_non_null(t->ctx);
    t->h.size = (size_t)EVP_MD_get_size(t->md);
    t->h.block_size = (size_t)EVP_MD_get_block_size(t->md);
    t->h.impl = t;
    t->h.digest = test_digest;
}

static void hash_close(test_hash *t)
{
    EVP_MD_CTX_free(t->ctx);
    EVP_MD_free(t->md);
}

static void hash_of(test_hash *t, const char *msg, uint8_t *out)
{
    ctrsa_span s = { (const uint8_t *)msg, strlen(msg) };

    assert_true(t->h.digest(&t->h, &s, 1, out));
}

/* ---- randomness ---- */

static int rand_openssl(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r;
    return RAND_bytes(buf, (int)len) == 1;
}

static int rand_fails(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r;
    (void)buf;
    (void)len;
    return 0;
}

static const ctrsa_rand good_rand = { NULL, rand_openssl };
static const ctrsa_rand bad_rand = { NULL, rand_fails };

/* ---- an RSA object that only carries a modulus of a given bit length, for OpenSSL's
 *      padding functions (they read RSA_bits and RSA_size only) ---- */

static RSA *rsa_with_bits(int bits)
{
    RSA *rsa = RSA_new();
    BIGNUM *n = BN_new(), *e = BN_new();

    assert_non_null(rsa);
    assert_non_null(n);
    assert_non_null(e);
    assert_true(BN_set_bit(n, bits - 1));
    assert_true(BN_set_bit(n, 0));
    assert_true(BN_set_word(e, 65537));
    assert_true(RSA_set0_key(rsa, n, e, NULL));
    assert_int_equal(RSA_bits(rsa), bits);
    return rsa;
}

/* ---- MGF1 ---- */

static void test_mgf1_matches_openssl(void **state)
{
    static const char *names[] = { "SHA1", "SHA2-256", "SHA2-512", "SHA3-256" };
    uint8_t seed[64], ours[300], theirs[300], base[300];
    size_t i, len;
    (void)state;

    assert_int_equal(RAND_bytes(seed, sizeof(seed)), 1);
    assert_int_equal(RAND_bytes(base, sizeof(base)), 1);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        test_hash h;

        hash_open(&h, names[i]);
        for (len = 0; len <= sizeof(ours); len += 37) {
            size_t j;

            /* XOR form: start from random bytes, undo them afterwards. */
            memcpy(ours, base, len);
            assert_int_equal(ctrsa_mgf1_xor(&h.h, ours, len, seed, 33), 1);
            for (j = 0; j < len; j++)
                ours[j] ^= base[j];
            assert_int_equal(PKCS1_MGF1(theirs, (long)len, seed, 33, h.md), 0);
            assert_memory_equal(ours, theirs, len);
        }
        h.fail = 1;
        assert_int_equal(ctrsa_mgf1_xor(&h.h, ours, 10, seed, 33), 0);
        hash_close(&h);
    }
}

static void test_mgf1_rejects_bad_hash(void **state)
{
    test_hash h;
    uint8_t out[8] = { 0 }, seed[4] = { 0 };
    (void)state;

    hash_open(&h, "SHA2-256");
    h.h.size = 0;
    assert_int_equal(ctrsa_mgf1_xor(&h.h, out, sizeof(out), seed, sizeof(seed)), 0);
    h.h.size = CTRSA_MGF1_MAX_HASH + 1;
    assert_int_equal(ctrsa_mgf1_xor(&h.h, out, sizeof(out), seed, sizeof(seed)), 0);
    hash_close(&h);
}

/* ---- digest table ---- */

static const char *all_digests[] = {
    "MD5", "SHA1", "SHA2-224", "SHA2-256", "SHA2-384", "SHA2-512", "SHA2-512/224",
    "SHA2-512/256", "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "RIPEMD-160",
};

static void test_digest_lookup_aliases(void **state)
{
    static const struct { const char *alias, *canonical; } cases[] = {
        { "sha256", "SHA2-256" }, { "SHA-256", "SHA2-256" }, { "SHA2-256", "SHA2-256" },
        { "2.16.840.1.101.3.4.2.1", "SHA2-256" }, { "SHA1", "SHA1" }, { "sha-1", "SHA1" },
        { "SHA512-256", "SHA2-512/256" }, { "SHA-512/224", "SHA2-512/224" },
        { "sha3-384", "SHA3-384" }, { "SSL3-MD5", "MD5" }, { "SHA384", "SHA2-384" },
    };
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const ctrsa_digest_info *d = ctrsa_digest_info_lookup(cases[i].alias);

        assert_non_null(d);
        assert_string_equal(d->name, cases[i].canonical);
    }
    assert_null(ctrsa_digest_info_lookup("SHA2"));
    assert_null(ctrsa_digest_info_lookup("SHA256x"));
    assert_null(ctrsa_digest_info_lookup("SHAKE256"));
    assert_null(ctrsa_digest_info_lookup(""));
    assert_null(ctrsa_digest_info_lookup(NULL));
    /* Every name OpenSSL knows for the digest maps to the same entry, and sizes agree. */
    for (i = 0; i < sizeof(all_digests) / sizeof(all_digests[0]); i++) {
        const ctrsa_digest_info *d = ctrsa_digest_info_lookup(all_digests[i]);
        EVP_MD *md = EVP_MD_fetch(NULL, all_digests[i], NULL);

        assert_non_null(d);
        assert_non_null(md);
        assert_int_equal(d->size, (size_t)EVP_MD_get_size(md));
        assert_true(EVP_MD_is_a(md, d->name));
        EVP_MD_free(md);
    }
}

/* RFC 8017 9.2 note 1 lists the SHA-256 prefix. */
static void test_digestinfo_rfc_prefix(void **state)
{
    static const uint8_t sha256_prefix[] = {
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
        0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    };
    static const uint8_t sha1_prefix[] = {
        0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14,
    };
    uint8_t out[CTRSA_DIGESTINFO_PREFIX_MAX];
    (void)state;

    assert_int_equal(ctrsa_digestinfo_prefix(ctrsa_digest_info_lookup("SHA256"), out),
                     sizeof(sha256_prefix));
    assert_memory_equal(out, sha256_prefix, sizeof(sha256_prefix));
    assert_int_equal(ctrsa_digestinfo_prefix(ctrsa_digest_info_lookup("SHA1"), out),
                     sizeof(sha1_prefix));
    assert_memory_equal(out, sha1_prefix, sizeof(sha1_prefix));
}

/*
 * For every digest: OpenSSL's default provider signs with PKCS#1 v1.5, the signature is
 * opened with the public key without padding, and the block must equal our encoding.
 */
static void test_pkcs1_encode_matches_openssl_signatures(void **state)
{
    EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
    size_t i;
    (void)state;

    assert_non_null(pkey);
    for (i = 0; i < sizeof(all_digests) / sizeof(all_digests[0]); i++) {
        const ctrsa_digest_info *d = ctrsa_digest_info_lookup(all_digests[i]);
        EVP_MD *md = EVP_MD_fetch(NULL, all_digests[i], NULL);
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
        uint8_t digest[64], sig[128], block[128], ours[128];
        size_t siglen = sizeof(sig), blocklen = sizeof(block), off = 0, len = 0;

        assert_non_null(d);
        assert_non_null(md);
        assert_non_null(ctx);
        assert_int_equal(RAND_bytes(digest, (int)d->size), 1);
        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
        assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, md), 1);
        assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest, d->size), 1);
        assert_int_equal(siglen, 128);
        assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
        assert_int_equal(EVP_PKEY_verify_recover(ctx, block, &blocklen, sig, siglen), 1);
        assert_int_equal(blocklen, 128);

        assert_int_equal(ctrsa_emsa_pkcs1_encode(ours, 128, d, digest, d->size), CTRSA_PAD_OK);
        assert_memory_equal(ours, block, 128);
        assert_int_equal(ctrsa_emsa_pkcs1_verify(block, 128, d, digest, d->size), CTRSA_PAD_OK);
        assert_int_equal(ctrsa_pkcs1_type1_recover(block, 128, d, &off, &len), CTRSA_PAD_OK);
        assert_int_equal(len, d->size);
        assert_memory_equal(block + off, digest, d->size);

        EVP_PKEY_CTX_free(ctx);
        EVP_MD_free(md);
    }
    EVP_PKEY_free(pkey);
}

/* A block 00 01 FF.. 00 T built by hand. */
static void hand_block(uint8_t *em, size_t k, const uint8_t *t, size_t tlen)
{
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, k - 3 - tlen);
    em[k - 1 - tlen] = 0x00;
    memcpy(em + k - tlen, t, tlen);
}

static void test_pkcs1_raw_type1(void **state)
{
    uint8_t in[256], ours[256], theirs[256];
    size_t k, len, off, got;
    (void)state;

    assert_int_equal(RAND_bytes(in, sizeof(in)), 1);
    for (k = 64; k <= 256; k += 64) {
        for (len = 0; len <= k - 11; len += (len < 20 ? 1 : 23)) {
            assert_int_equal(ctrsa_emsa_pkcs1_encode(ours, k, NULL, in, len), CTRSA_PAD_OK);
            assert_int_equal(RSA_padding_add_PKCS1_type_1(theirs, (int)k, in, (int)len), 1);
            assert_memory_equal(ours, theirs, k);
            hand_block(theirs, k, in, len);
            assert_memory_equal(ours, theirs, k);
            assert_int_equal(ctrsa_emsa_pkcs1_verify(ours, k, NULL, in, len), CTRSA_PAD_OK);
            assert_int_equal(ctrsa_pkcs1_type1_recover(ours, k, NULL, &off, &got), CTRSA_PAD_OK);
            assert_int_equal(got, len);
            assert_int_equal(off, k - len);
            assert_memory_equal(ours + off, in, len);
        }
        /* The largest raw input is k - 11 bytes. */
        assert_int_equal(ctrsa_emsa_pkcs1_encode(ours, k, NULL, in, k - 11), CTRSA_PAD_OK);
        assert_int_equal(ctrsa_emsa_pkcs1_encode(ours, k, NULL, in, k - 10),
                         CTRSA_PAD_BAD_INPUT_LENGTH);
    }
    /* Too small to hold anything. */
    assert_int_equal(ctrsa_emsa_pkcs1_encode(ours, 10, NULL, in, 0), CTRSA_PAD_BAD_INPUT_LENGTH);
}

static void test_pkcs1_digest_length_and_key_size(void **state)
{
    const ctrsa_digest_info *sha512 = ctrsa_digest_info_lookup("SHA512");
    uint8_t em[128], digest[64] = { 1 };
    (void)state;

    /* The digest must be exactly the digest's size. */
    assert_int_equal(ctrsa_emsa_pkcs1_encode(em, 128, sha512, digest, 63),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(em, 128, sha512, digest, 63),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    /* SHA-512 DigestInfo is 83 bytes: needs k >= 94. */
    assert_int_equal(ctrsa_emsa_pkcs1_encode(em, 94, sha512, digest, 64), CTRSA_PAD_OK);
    assert_int_equal(ctrsa_emsa_pkcs1_encode(em, 93, sha512, digest, 64),
                     CTRSA_PAD_KEY_TOO_SMALL);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(em, 93, sha512, digest, 64),
                     CTRSA_PAD_BAD_SIGNATURE);
}

/* Every single-byte corruption and structural defect of a valid block is rejected. */
static void test_pkcs1_rejects_malformed(void **state)
{
    const ctrsa_digest_info *sha256 = ctrsa_digest_info_lookup("SHA2-256");
    const ctrsa_digest_info *sha224 = ctrsa_digest_info_lookup("SHA2-224");
    const ctrsa_digest_info *sha3 = ctrsa_digest_info_lookup("SHA3-256");
    uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX], t[64], digest[32], good[128], em[128];
    size_t plen, i, off, len, k = 128;
    (void)state;

    assert_int_equal(RAND_bytes(digest, sizeof(digest)), 1);
    assert_int_equal(ctrsa_emsa_pkcs1_encode(good, k, sha256, digest, 32), CTRSA_PAD_OK);
    plen = ctrsa_digestinfo_prefix(sha256, prefix);
    memcpy(t, prefix, plen);
    memcpy(t + plen, digest, 32);
    hand_block(em, k, t, plen + 32);
    assert_memory_equal(em, good, k);

    for (i = 0; i < k; i++) {
        memcpy(em, good, k);
        em[i] ^= 0x01;
        assert_int_equal(ctrsa_emsa_pkcs1_verify(em, k, sha256, digest, 32),
                         CTRSA_PAD_BAD_SIGNATURE);
        if (i < k - 32) /* a flipped digest byte still recovers (it is a different digest) */
            assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, sha256, &off, &len),
                             CTRSA_PAD_BAD_SIGNATURE);
    }
    /* Block type 2 instead of 1. */
    memcpy(em, good, k);
    em[1] = 0x02;
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, NULL, &off, &len), CTRSA_PAD_BAD_SIGNATURE);
    /* No separator at all: all 0xff after the header. */
    memset(em, 0xff, k);
    em[0] = 0x00;
    em[1] = 0x01;
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, NULL, &off, &len), CTRSA_PAD_BAD_SIGNATURE);
    /* PS shorter than 8 bytes: 7 x 0xff then the separator. */
    memset(em, 0x5a, k);
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, 7);
    em[9] = 0x00;
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, NULL, &off, &len), CTRSA_PAD_BAD_SIGNATURE);
    em[9] = 0xff; /* 8 bytes of PS now */
    em[10] = 0x00;
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, NULL, &off, &len), CTRSA_PAD_OK);
    assert_int_equal(off, 11);
    /* Wrong DigestInfo: the SHA-224 prefix with the same (32-byte) payload, and SHA3-256's. */
    assert_int_equal(ctrsa_emsa_pkcs1_verify(good, k, sha3, digest, 32), CTRSA_PAD_BAD_SIGNATURE);
    assert_int_equal(ctrsa_pkcs1_type1_recover(good, k, sha3, &off, &len),
                     CTRSA_PAD_BAD_SIGNATURE);
    assert_int_equal(ctrsa_pkcs1_type1_recover(good, k, sha224, &off, &len),
                     CTRSA_PAD_BAD_SIGNATURE);
    /* DigestInfo without the NULL parameters (a shorter, different encoding) is refused. */
    t[1] -= 2;
    t[3] -= 2;
    memmove(t + 15, t + 17, 2 + 32);
    hand_block(em, k, t, plen - 2 + 32);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(em, k, sha256, digest, 32), CTRSA_PAD_BAD_SIGNATURE);
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, sha256, &off, &len),
                     CTRSA_PAD_BAD_SIGNATURE);
    /* Trailing garbage: DigestInfo then one byte more (PS one byte shorter). */
    memcpy(t, prefix, plen);
    memcpy(t + plen, digest, 32);
    t[plen + 32] = 0x00;
    hand_block(em, k, t, plen + 33);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(em, k, sha256, digest, 32), CTRSA_PAD_BAD_SIGNATURE);
    assert_int_equal(ctrsa_pkcs1_type1_recover(em, k, sha256, &off, &len),
                     CTRSA_PAD_BAD_SIGNATURE);
    /* Wrong digest. */
    digest[0] ^= 0x80;
    assert_int_equal(ctrsa_emsa_pkcs1_verify(good, k, sha256, digest, 32), CTRSA_PAD_BAD_SIGNATURE);
    /* Raw: verify compares the whole payload and its length. */
    assert_int_equal(ctrsa_emsa_pkcs1_verify(good, k, NULL, good + k - 51, 51), CTRSA_PAD_OK);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(good, k, NULL, good + k - 50, 50),
                     CTRSA_PAD_BAD_SIGNATURE);
    assert_int_equal(ctrsa_emsa_pkcs1_verify(good, k, NULL, good + k - 52, 52),
                     CTRSA_PAD_BAD_SIGNATURE);
}

/* ---- EMSA-PSS ---- */

static const int pss_bits[] = { 1024, 1025, 1026, 1031, 1032, 2048, 2049 };

struct pss_case {
    const char *md, *mgf1;
};

static const struct pss_case pss_cases[] = {
    { "SHA1", "SHA1" }, { "SHA2-256", "SHA2-256" }, { "SHA2-256", "SHA1" },
    { "SHA2-512", "SHA2-256" }, { "SHA3-256", "SHA3-256" }, { "SHA2-384", "SHA2-512" },
};

static size_t pss_max_salt(int bits, size_t hlen)
{
    return ((size_t)bits - 1 + 7) / 8 - hlen - 2;
}

/* Ours encodes, OpenSSL verifies; OpenSSL encodes, ours verifies; all salt modes. */
static void test_pss_cross_openssl(void **state)
{
    size_t b, c;
    (void)state;

    for (b = 0; b < sizeof(pss_bits) / sizeof(pss_bits[0]); b++) {
        int bits = pss_bits[b];
        size_t k = ((size_t)bits + 7) / 8;
        RSA *rsa = rsa_with_bits(bits);

        for (c = 0; c < sizeof(pss_cases) / sizeof(pss_cases[0]); c++) {
            test_hash h, m;
            uint8_t mhash[64], em[300];
            size_t hlen, max, found;
            const int modes[] = { CTRSA_PSS_SALTLEN_DIGEST, CTRSA_PSS_SALTLEN_AUTO,
                                  CTRSA_PSS_SALTLEN_MAX, CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX,
                                  0, 1, 20, 33 };
            size_t mi;

            hash_open(&h, pss_cases[c].md);
            hash_open(&m, pss_cases[c].mgf1);
            hlen = h.h.size;
            max = pss_max_salt(bits, hlen);
            hash_of(&h, "message", mhash);

            for (mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++) {
                int mode = modes[mi];
                size_t expect = mode == CTRSA_PSS_SALTLEN_DIGEST ? hlen
                              : mode == CTRSA_PSS_SALTLEN_AUTO ? max
                              : mode == CTRSA_PSS_SALTLEN_MAX ? max
                              : mode == CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX ? (hlen < max ? hlen : max)
                              : (size_t)mode;
                size_t got = 0;

                if (expect > max) {
                    /* Does not fit: both refuse (SHA-512 with a 64-byte salt in 1024 bits). */
                    assert_int_equal(ctrsa_pss_sign_saltlen((size_t)bits, hlen, mode, &got),
                                     CTRSA_PAD_KEY_TOO_SMALL);
                    assert_int_equal(ctrsa_emsa_pss_encode(em, k, (size_t)bits, &h.h, &m.h,
                                                           mhash, hlen, mode, &good_rand),
                                     CTRSA_PAD_KEY_TOO_SMALL);
                    ERR_set_mark();
                    assert_int_equal(RSA_padding_add_PKCS1_PSS_mgf1(rsa, em, mhash, h.md, m.md,
                                                                    mode), 0);
                    ERR_pop_to_mark();
                    continue;
                }
                assert_int_equal(ctrsa_pss_sign_saltlen((size_t)bits, hlen, mode, &got),
                                 CTRSA_PAD_OK);
                assert_int_equal(got, expect);
                assert_int_equal(ctrsa_emsa_pss_encode(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, mode, &good_rand), CTRSA_PAD_OK);
                /* OpenSSL checks the exact salt length, and recovers it (-2). */
                assert_int_equal(RSA_verify_PKCS1_PSS_mgf1(rsa, mhash, h.md, m.md, em,
                                                           (int)expect), 1);
                assert_int_equal(RSA_verify_PKCS1_PSS_mgf1(rsa, mhash, h.md, m.md, em,
                                                           RSA_PSS_SALTLEN_AUTO), 1);
                /* Ours verifies its own with the exact length, auto, and auto-digestmax. */
                found = 999;
                assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, (int)expect, &found), CTRSA_PAD_OK);
                assert_int_equal(found, expect);
                assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, CTRSA_PSS_SALTLEN_AUTO, &found),
                                 CTRSA_PAD_OK);
                assert_int_equal(found, expect);
                assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX,
                                                       NULL), CTRSA_PAD_OK);
                /* A different exact length is refused. */
                assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, (int)expect + 1, NULL),
                                 CTRSA_PAD_BAD_SIGNATURE);
                if (expect == hlen)
                    assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h,
                                                           mhash, hlen,
                                                           CTRSA_PSS_SALTLEN_DIGEST, NULL),
                                     CTRSA_PAD_OK);
                assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h, mhash,
                                                       hlen, CTRSA_PSS_SALTLEN_MAX, NULL),
                                 expect == max ? CTRSA_PAD_OK : CTRSA_PAD_BAD_SIGNATURE);

                /* OpenSSL encodes with the same length (modes -1..-3 and numbers). */
                if (mode != CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX) {
                    assert_int_equal(RSA_padding_add_PKCS1_PSS_mgf1(rsa, em, mhash, h.md, m.md,
                                                                    mode), 1);
                    assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h,
                                                           mhash, hlen, CTRSA_PSS_SALTLEN_AUTO,
                                                           &found), CTRSA_PAD_OK);
                    assert_int_equal(found, expect);
                    assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h,
                                                           mhash, hlen, (int)expect, NULL),
                                     CTRSA_PAD_OK);
                    /* Another message digest does not verify. */
                    mhash[0] ^= 1;
                    assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &m.h,
                                                           mhash, hlen, CTRSA_PSS_SALTLEN_AUTO,
                                                           NULL), CTRSA_PAD_BAD_SIGNATURE);
                    mhash[0] ^= 1;
                }
            }
            hash_close(&h);
            hash_close(&m);
        }
        RSA_free(rsa);
    }
}

/* Two encodings of the same message differ (random salt), and a zero-length salt is fixed. */
static void test_pss_salt_is_random(void **state)
{
    test_hash h;
    uint8_t mhash[32], a[128], b[128];
    (void)state;

    hash_open(&h, "SHA2-256");
    hash_of(&h, "m", mhash);
    assert_int_equal(ctrsa_emsa_pss_encode(a, 128, 1024, &h.h, &h.h, mhash, 32, 32, &good_rand),
                     CTRSA_PAD_OK);
    assert_int_equal(ctrsa_emsa_pss_encode(b, 128, 1024, &h.h, &h.h, mhash, 32, 32, &good_rand),
                     CTRSA_PAD_OK);
    assert_memory_not_equal(a, b, 128);
    assert_int_equal(ctrsa_emsa_pss_encode(a, 128, 1024, &h.h, &h.h, mhash, 32, 0, &bad_rand),
                     CTRSA_PAD_OK);
    assert_int_equal(ctrsa_emsa_pss_encode(b, 128, 1024, &h.h, &h.h, mhash, 32, 0, NULL),
                     CTRSA_PAD_OK);
    assert_memory_equal(a, b, 128);
    hash_close(&h);
}

static void test_pss_argument_errors(void **state)
{
    test_hash h, sha512;
    uint8_t mhash[64] = { 0 }, em[300];
    size_t s;
    (void)state;

    hash_open(&h, "SHA2-256");
    hash_open(&sha512, "SHA2-512");
    /* Salt mode below -4. */
    assert_int_equal(ctrsa_pss_sign_saltlen(1024, 32, -5, &s), CTRSA_PAD_BAD_SALT_LENGTH);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, -5, &good_rand),
                     CTRSA_PAD_BAD_SALT_LENGTH);
    assert_int_equal(ctrsa_emsa_pss_verify(em, 128, 1024, &h.h, &h.h, mhash, 32, -5, NULL),
                     CTRSA_PAD_BAD_SALT_LENGTH);
    /* Salt too long for the modulus: 1024 bits, SHA-256: max 94. */
    assert_int_equal(ctrsa_pss_sign_saltlen(1024, 32, 94, &s), CTRSA_PAD_OK);
    assert_int_equal(ctrsa_pss_sign_saltlen(1024, 32, 95, &s), CTRSA_PAD_KEY_TOO_SMALL);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, 95, &good_rand),
                     CTRSA_PAD_KEY_TOO_SMALL);
    assert_int_equal(ctrsa_pss_sign_saltlen(1024, 32, CTRSA_PSS_SALTLEN_MAX, &s), CTRSA_PAD_OK);
    assert_int_equal(s, 94);
    /* 1025 bits: emBits 1024, emLen 128, max salt still 94; 1032 bits: emLen 129, max 95. */
    assert_int_equal(ctrsa_pss_sign_saltlen(1025, 32, CTRSA_PSS_SALTLEN_MAX, &s), CTRSA_PAD_OK);
    assert_int_equal(s, 94);
    assert_int_equal(ctrsa_pss_sign_saltlen(1032, 32, CTRSA_PSS_SALTLEN_MAX, &s), CTRSA_PAD_OK);
    assert_int_equal(s, 95);
    /* Modulus too short for the digest: SHA-512 and salt 64 need emLen >= 130. */
    assert_int_equal(ctrsa_emsa_pss_encode(em, 64, 512, &sha512.h, &sha512.h, mhash, 64,
                                           CTRSA_PSS_SALTLEN_DIGEST, &good_rand),
                     CTRSA_PAD_KEY_TOO_SMALL);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 64, 512, &sha512.h, &sha512.h, mhash, 64, 0,
                                           &good_rand), CTRSA_PAD_KEY_TOO_SMALL);
    /* emLen < hLen + 2 on verify. */
    memset(em, 0, 64);
    em[63] = 0xbc;
    assert_int_equal(ctrsa_emsa_pss_verify(em, 64, 512, &sha512.h, &sha512.h, mhash, 64,
                                           CTRSA_PSS_SALTLEN_AUTO, NULL),
                     CTRSA_PAD_BAD_SIGNATURE);
    /* The smallest modulus for SHA-512 with no salt: emLen = 66. */
    assert_int_equal(ctrsa_emsa_pss_encode(em, 66, 528, &sha512.h, &sha512.h, mhash, 64, 0,
                                           &good_rand), CTRSA_PAD_OK);
    assert_int_equal(ctrsa_emsa_pss_verify(em, 66, 528, &sha512.h, &sha512.h, mhash, 64,
                                           CTRSA_PSS_SALTLEN_AUTO, &s), CTRSA_PAD_OK);
    assert_int_equal(s, 0);
    /* Wrong digest length and a k that does not match the bit length. */
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 31, 32, &good_rand),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    assert_int_equal(ctrsa_emsa_pss_verify(em, 128, 1024, &h.h, &h.h, mhash, 33, 32, NULL),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 129, 1024, &h.h, &h.h, mhash, 32, 32, &good_rand),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    assert_int_equal(ctrsa_emsa_pss_verify(em, 127, 1024, &h.h, &h.h, mhash, 32, 32, NULL),
                     CTRSA_PAD_BAD_INPUT_LENGTH);
    /* Randomness and hash failures. */
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, 32, &bad_rand),
                     CTRSA_PAD_RANDOM_FAILED);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, 32, NULL),
                     CTRSA_PAD_RANDOM_FAILED);
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, 32, &good_rand),
                     CTRSA_PAD_OK);
    {
        test_hash mgf;  /* MGF1 still works: only the final H' fails */

        hash_open(&mgf, "SHA2-256");
        h.fail = 1;
        assert_int_equal(ctrsa_emsa_pss_verify(em, 128, 1024, &h.h, &mgf.h, mhash, 32, 32, NULL),
                         CTRSA_PAD_HASH_FAILED);
        hash_close(&mgf);
    }
    assert_int_equal(ctrsa_emsa_pss_encode(em, 128, 1024, &h.h, &h.h, mhash, 32, 32, &good_rand),
                     CTRSA_PAD_HASH_FAILED);
    hash_close(&h);
    hash_close(&sha512);
}

/*
 * A PSS block built by hand with OpenSSL's MGF1, so that each defect can be made alone:
 * DB = zeros || sep || salt (with one PS byte set to `ps_byte` at ps_pos if ps_pos >= 0),
 * H = Hash(M') computed honestly over the salt, the top bits of maskedDB optionally left set,
 * and the trailer byte given.
 */
struct pss_defects {
    uint8_t sep;
    int ps_pos;
    uint8_t ps_byte;
    int keep_top_bits;
    uint8_t trailer;
    uint8_t lead;  /* leading byte when emLen < k */
};

static void build_pss(uint8_t *em, size_t k, int bits, test_hash *h, test_hash *m,
                      const uint8_t *mhash, const uint8_t *salt, size_t slen,
                      const struct pss_defects *d)
{
    size_t emlen = ((size_t)bits - 1 + 7) / 8, hlen = h->h.size, dblen = emlen - hlen - 1, i;
    uint8_t *out = em + (k - emlen), mask[300];
    ctrsa_span parts[3] = { { (const uint8_t *)"\0\0\0\0\0\0\0\0", 8 }, { mhash, hlen },
                            { salt, slen } };

    memset(em, d->lead, k - emlen);
    memset(out, 0, dblen - slen - 1);
    if (d->ps_pos >= 0)
        out[d->ps_pos] = d->ps_byte;
    out[dblen - slen - 1] = d->sep;
    memcpy(out + dblen - slen, salt, slen);
    assert_true(h->h.digest(&h->h, parts, 3, out + dblen));
    assert_int_equal(PKCS1_MGF1(mask, (long)dblen, out + dblen, (long)hlen, m->md), 0);
    for (i = 0; i < dblen; i++)
        out[i] ^= mask[i];
    if (!d->keep_top_bits)
        out[0] &= (uint8_t)(0xff >> (8 * emlen - ((size_t)bits - 1)));
    out[emlen - 1] = d->trailer;
}

static void test_pss_rejects_malformed(void **state)
{
    static const int bits_list[] = { 1024, 1025, 1031 };
    size_t b;
    (void)state;

    for (b = 0; b < sizeof(bits_list) / sizeof(bits_list[0]); b++) {
        int bits = bits_list[b];
        size_t k = ((size_t)bits + 7) / 8, found, i;
        test_hash h;
        uint8_t mhash[32], salt[32], em[130], good[130];
        struct pss_defects ok = { 0x01, -1, 0, 0, 0xbc, 0x00 }, d;
        RSA *rsa = rsa_with_bits(bits);

        hash_open(&h, "SHA2-256");
        hash_of(&h, "malformed", mhash);
        assert_int_equal(RAND_bytes(salt, sizeof(salt)), 1);

        /* Control: the honest hand-built block verifies, here and in OpenSSL. */
        build_pss(good, k, bits, &h, &h, mhash, salt, 20, &ok);
        assert_int_equal(ctrsa_emsa_pss_verify(good, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                               CTRSA_PSS_SALTLEN_AUTO, &found), CTRSA_PAD_OK);
        assert_int_equal(found, 20);
        assert_int_equal(ctrsa_emsa_pss_verify(good, k, (size_t)bits, &h.h, &h.h, mhash, 32, 20,
                                               NULL), CTRSA_PAD_OK);
        assert_int_equal(RSA_verify_PKCS1_PSS_mgf1(rsa, mhash, h.md, h.md, good, 20), 1);

        /* Bad trailer. */
        d = ok;
        d.trailer = 0xbd;
        build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                               CTRSA_PSS_SALTLEN_AUTO, NULL),
                         CTRSA_PAD_BAD_SIGNATURE);
        d.trailer = 0xcc; /* the X9.31 trailer is not PSS */
        build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32, 20,
                                               NULL), CTRSA_PAD_BAD_SIGNATURE);
        /* Separator 0x02 instead of 0x01 (H is honest, so only the separator is wrong). */
        d = ok;
        d.sep = 0x02;
        build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                               CTRSA_PSS_SALTLEN_AUTO, NULL),
                         CTRSA_PAD_BAD_SIGNATURE);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32, 20,
                                               NULL), CTRSA_PAD_BAD_SIGNATURE);
        /* No separator at all (sep 0x00, salt length 0): DB is all zero. */
        d = ok;
        d.sep = 0x00;
        build_pss(em, k, bits, &h, &h, mhash, salt, 0, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                               CTRSA_PSS_SALTLEN_AUTO, NULL),
                         CTRSA_PAD_BAD_SIGNATURE);
        /*
         * A nonzero PS byte: with auto the first nonzero byte is not 0x01; with the exact
         * length the zeros are checked.
         */
        d = ok;
        d.ps_pos = 5;
        d.ps_byte = 0x01;
        build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32, 20,
                                               NULL), CTRSA_PAD_BAD_SIGNATURE);
        d.ps_byte = 0x80;
        build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
        assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                               CTRSA_PSS_SALTLEN_AUTO, NULL),
                         CTRSA_PAD_BAD_SIGNATURE);
        /* Top bits of maskedDB left set (when emBits is not a multiple of 8 they must be 0). */
        if ((bits - 1) % 8 != 0) {
            d = ok;
            d.keep_top_bits = 1;
            for (i = 0; i < 16; i++) { /* find a mask with a top bit set */
                salt[0]++;
                build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
                if ((em[k - ((size_t)bits - 1 + 7) / 8]
                     & (uint8_t)~(0xff >> (8 * (((size_t)bits - 1 + 7) / 8) - ((size_t)bits - 1))))
                    != 0)
                    break;
            }
            assert_true(i < 16);
            assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                                   CTRSA_PSS_SALTLEN_AUTO, NULL),
                             CTRSA_PAD_BAD_SIGNATURE);
        }
        /* emLen < k: the leading byte must be zero. */
        if ((bits - 1) % 8 == 0) {
            d = ok;
            d.lead = 0x01;
            build_pss(em, k, bits, &h, &h, mhash, salt, 20, &d);
            assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                                   CTRSA_PSS_SALTLEN_AUTO, NULL),
                             CTRSA_PAD_BAD_SIGNATURE);
        }
        /* Any single flipped bit anywhere is rejected. */
        for (i = 0; i < k * 8; i += 7) {
            memcpy(em, good, k);
            em[i / 8] ^= (uint8_t)(1u << (i % 8));
            assert_int_equal(ctrsa_emsa_pss_verify(em, k, (size_t)bits, &h.h, &h.h, mhash, 32,
                                                   CTRSA_PSS_SALTLEN_AUTO, NULL),
                             CTRSA_PAD_BAD_SIGNATURE);
        }
        /* A different MGF1 digest than the one used. */
        {
            test_hash sha1;

            hash_open(&sha1, "SHA1");
            assert_int_equal(ctrsa_emsa_pss_verify(good, k, (size_t)bits, &h.h, &sha1.h, mhash,
                                                   32, CTRSA_PSS_SALTLEN_AUTO, NULL),
                             CTRSA_PAD_BAD_SIGNATURE);
            hash_close(&sha1);
        }
        hash_close(&h);
        RSA_free(rsa);
    }
}

/* ---- ANSI X9.31 ---- */

/* The decoder's verdict and payload against OpenSSL's RSA_padding_check_X931 on em. */
static void x931_decode_agrees(const uint8_t *em, size_t k)
{
    uint8_t ref[1024];
    size_t off = 0, len = 0;
    ctrsa_pad_status st = ctrsa_x931_decode(em, k, &off, &len);
    int r = RSA_padding_check_X931(ref, (int)k, em, (int)k, (int)k);

    ERR_clear_error();
    if ((st == CTRSA_PAD_OK) != (r >= 0))
        fail_msg("X9.31 block of %zu bytes: ctrsa %s, OpenSSL %d", k,
                 st == CTRSA_PAD_OK ? "accepts" : "refuses", r);
    if (r >= 0) {
        assert_int_equal(len, (size_t)r);
        assert_true(off + len <= k);
        if (len > 0)
            assert_memory_equal(em + off, ref, len);
    }
}

static void test_x931_matches_openssl(void **state)
{
    uint8_t payload[300], em[320], ref[320];
    (void)state;

    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 13 + 1);
    for (size_t k = 3; k <= 300; k += (k < 80 ? 1 : 37)) {
        for (size_t len = 0; len <= k; len++) {
            ctrsa_pad_status st = ctrsa_x931_encode(em, k, payload, len);
            int r = RSA_padding_add_X931(ref, (int)k, payload, (int)len);

            ERR_clear_error();
            assert_int_equal(st == CTRSA_PAD_OK, r == 1);
            if (r != 1) {
                assert_int_equal(st, CTRSA_PAD_BAD_INPUT_LENGTH);
                continue;
            }
            assert_memory_equal(em, ref, k);
            x931_decode_agrees(em, k);
            /* Every single-byte change to a padding byte, a payload edge or the trailer,
             * and a few values each: the same verdict as OpenSSL's check. */
            for (size_t at = 0; at < k; at++) {
                static const uint8_t vals[] = { 0x00, 0x6a, 0x6b, 0xba, 0xbb, 0xcc, 0xff };

                if (at > 3 && at + 3 < k && at % 11 != 0)
                    continue;
                for (size_t v = 0; v < sizeof(vals); v++) {
                    uint8_t keep = em[at];

                    em[at] = vals[v];
                    x931_decode_agrees(em, k);
                    em[at] = keep;
                }
            }
        }
    }
    /* Blocks the encoder never makes. */
    memset(em, 0xbb, 40);
    em[0] = 0x6b;
    em[38] = 0xcc;                 /* no 0xba: empty payload, trailer at k - 2 */
    x931_decode_agrees(em, 40);
    em[1] = 0xba;                  /* 0x6b 0xba: refused, as OpenSSL refuses it */
    x931_decode_agrees(em, 40);
    em[0] = 0x6c;
    x931_decode_agrees(em, 40);
}

/* The X9.31 hash ids (OpenSSL's RSA_X931_hash_id) and the digests without one. */
static void test_x931_hash_ids(void **state)
{
    static const struct { const char *name; int nid; } digs[] = {
        { "SHA1", NID_sha1 }, { "SHA2-224", NID_sha224 }, { "SHA2-256", NID_sha256 },
        { "SHA2-384", NID_sha384 }, { "SHA2-512", NID_sha512 },
        { "SHA2-512/256", NID_sha512_256 }, { "SHA3-256", NID_sha3_256 }, { "MD5", NID_md5 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(digs) / sizeof(digs[0]); i++) {
        const ctrsa_digest_info *d = ctrsa_digest_info_lookup(digs[i].name);
        int id = RSA_X931_hash_id(digs[i].nid);

        assert_non_null(d);
        assert_int_equal(d->x931_id, id < 0 ? 0 : id);
    }
}

/* min(s, n - s) and its inverse on the verifier's side, against BN. */
static void test_x931_representative(void **state)
{
    uint8_t n[128], s[128], t[128];
    BIGNUM *bn = BN_new(), *bs = BN_new(), *bt = BN_new();
    (void)state;

    assert_non_null(bn);
    for (int round = 0; round < 200; round++) {
        size_t k = 64 + (size_t)(round % 65);

        assert_int_equal(RAND_bytes(n, (int)k), 1);
        n[0] |= 0x80;
        n[k - 1] |= 1;
        assert_int_equal(RAND_bytes(s, (int)k), 1);
        s[0] &= 0x7f;
        if (round % 3 == 0)
            s[0] = 0;
        BN_bin2bn(n, (int)k, bn);
        BN_bin2bn(s, (int)k, bs);
        BN_sub(bt, bn, bs);
        memcpy(t, s, k);
        ctrsa_x931_sig_minimal(t, n, k);
        BN_bin2bn(t, (int)k, bt);
        /* t is s or n - s, and t <= n - t */
        {
            BIGNUM *other = BN_new();

            BN_sub(other, bn, bt);
            assert_true(BN_cmp(bt, other) <= 0);
            assert_true(BN_cmp(bt, bs) == 0 || BN_cmp(other, bs) == 0);
            BN_free(other);
        }
        /* a block ending in 0xcc is kept; its negation n - m is mapped back to it */
        s[k - 1] = 0xcc;
        memcpy(t, s, k);
        ctrsa_x931_block_from_public(t, n, k);
        assert_memory_equal(t, s, k);
        BN_bin2bn(s, (int)k, bs);
        BN_sub(bt, bn, bs);
        assert_int_equal(BN_bn2binpad(bt, t, (int)k), (int)k);
        ctrsa_x931_block_from_public(t, n, k);
        assert_memory_equal(t, s, k);
    }
    BN_free(bn);
    BN_free(bs);
    BN_free(bt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mgf1_matches_openssl),
        cmocka_unit_test(test_mgf1_rejects_bad_hash),
        cmocka_unit_test(test_digest_lookup_aliases),
        cmocka_unit_test(test_digestinfo_rfc_prefix),
        cmocka_unit_test(test_pkcs1_encode_matches_openssl_signatures),
        cmocka_unit_test(test_pkcs1_raw_type1),
        cmocka_unit_test(test_pkcs1_digest_length_and_key_size),
        cmocka_unit_test(test_pkcs1_rejects_malformed),
        cmocka_unit_test(test_pss_cross_openssl),
        cmocka_unit_test(test_pss_salt_is_random),
        cmocka_unit_test(test_pss_argument_errors),
        cmocka_unit_test(test_pss_rejects_malformed),
        cmocka_unit_test(test_x931_matches_openssl),
        cmocka_unit_test(test_x931_hash_ids),
        cmocka_unit_test(test_x931_representative),
    };

    return cmocka_run_group_tests_name("sig_padding", tests, NULL, NULL);
}
