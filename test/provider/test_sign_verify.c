/*
 * End-to-end signatures through EVP: the provider under test (testutil.h) against OpenSSL's
 * default provider as the oracle, for 2048, 3072 and 4096-bit keys and every supported
 * digest. The provider under test signs and the oracle verifies, and the reverse; PKCS#1
 * v1.5 (and PSS with salt length 0) signatures must equal the oracle's byte for byte.
 * Negative cases (tampered, wrong digest, wrong length, wrong salt length, input >= n,
 * private operation on a public key) must fail with an error carrying a reason string.
 * Every operation is checked to have run in the provider it was meant for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "testutil.h"

#define NKEYS 3
#define MAX_SIG 512   /* 4096 bits */

static const int key_bits[NKEYS] = { 2048, 3072, 4096 };
static const char *const digests[] = {
    "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA512-224", "SHA512-256",
    "SHA3-256", "SHA3-384", "SHA3-512",
};
#define NDIGESTS (sizeof(digests) / sizeof(digests[0]))

typedef struct keyset {
    EVP_PKEY *oracle;   /* key pair in the default provider */
    EVP_PKEY *test;     /* the same key pair in the provider under test */
    EVP_PKEY *test_pub; /* its public half only, in the provider under test */
    size_t size;        /* bytes of n */
} keyset;

static tu_env env;
static keyset keys[NKEYS];

static const unsigned char message[] =
    "The quick brown fox jumps over the lazy dog, and then some more bytes so that the "
    "streaming interface is fed in several uneven pieces across block boundaries.";

/* Signature options: padding and PSS salt length (ignored for PKCS#1). */
typedef struct sigopts {
    int pad;            /* RSA_PKCS1_PADDING or RSA_PKCS1_PSS_PADDING */
    int saltlen;        /* RSA_PSS_SALTLEN_DIGEST/_MAX/_AUTO or a length */
    int saltlen_as_str; /* pass the salt length as its string name, as the CLI does */
} sigopts;

static const sigopts PKCS1 = { RSA_PKCS1_PADDING, 0, 0 };

static const char *provider_of(const char *propq)
{
    return strcmp(propq, TU_PROPQ_DEFAULT) == 0 ? "default" : tu_provider_name();
}

static int set_opts(EVP_PKEY_CTX *pctx, const sigopts *o)
{
    char buf[16];
    OSSL_PARAM params[2];

    if (EVP_PKEY_CTX_set_rsa_padding(pctx, o->pad) != 1)
        return 0;
    if (o->pad != RSA_PKCS1_PSS_PADDING)
        return 1;
    if (!o->saltlen_as_str)
        return EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, o->saltlen) == 1;
    switch (o->saltlen) {
    case RSA_PSS_SALTLEN_DIGEST: strcpy(buf, OSSL_PKEY_RSA_PSS_SALT_LEN_DIGEST); break;
    case RSA_PSS_SALTLEN_MAX: strcpy(buf, OSSL_PKEY_RSA_PSS_SALT_LEN_MAX); break;
    case RSA_PSS_SALTLEN_AUTO: strcpy(buf, OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO); break;
    default: snprintf(buf, sizeof(buf), "%d", o->saltlen); break;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, buf, 0);
    params[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(pctx, params) == 1;
}

/*
 * Digest-sign msg with key in the provider named by propq; `chunk` > 0 streams the message
 * in pieces of that size, 0 signs in one shot. Fails the test on any error.
 */
static size_t sign_msg(EVP_PKEY *key, const char *propq, const char *md, const sigopts *o,
                       size_t chunk, unsigned char *sig)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    size_t siglen = MAX_SIG, len = sizeof(message) - 1;

    assert_non_null(mctx);
    if (EVP_DigestSignInit_ex(mctx, &pctx, md, env.libctx, propq, key, NULL) != 1
            || !set_opts(pctx, o)) {
        tu_print_errors("sign setup");
        fail_msg("cannot set up %s signing with %s in %s", md, o->pad == RSA_PKCS1_PADDING
                 ? "pkcs1" : "pss", provider_of(propq));
    }
    assert_true(tu_ctx_in_named_provider(EVP_MD_CTX_get_pkey_ctx(mctx), provider_of(propq)));
    if (chunk == 0) {
        int ok = EVP_DigestSign(mctx, sig, &siglen, message, len);

        if (ok != 1)
            tu_print_errors("sign");
        assert_int_equal(ok, 1);
    } else {
        for (size_t off = 0; off < len; off += chunk)
            assert_int_equal(EVP_DigestSignUpdate(mctx, message + off,
                                                  off + chunk <= len ? chunk : len - off), 1);
        assert_int_equal(EVP_DigestSignFinal(mctx, NULL, &siglen), 1);
        assert_int_equal(EVP_DigestSignFinal(mctx, sig, &siglen), 1);
    }
    EVP_MD_CTX_free(mctx);
    return siglen;
}

/* Digest-verify; returns the verdict (1 accepted, 0 rejected). Setup must succeed. */
static int verify_msg(EVP_PKEY *key, const char *propq, const char *md, const sigopts *o,
                      size_t chunk, const unsigned char *sig, size_t siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    size_t len = sizeof(message) - 1;
    int ret;

    assert_non_null(mctx);
    if (EVP_DigestVerifyInit_ex(mctx, &pctx, md, env.libctx, propq, key, NULL) != 1
            || !set_opts(pctx, o)) {
        tu_print_errors("verify setup");
        fail_msg("cannot set up %s verification with %s in %s", md,
                 o->pad == RSA_PKCS1_PADDING ? "pkcs1" : "pss", provider_of(propq));
    }
    assert_true(tu_ctx_in_named_provider(EVP_MD_CTX_get_pkey_ctx(mctx), provider_of(propq)));
    if (chunk == 0) {
        ret = EVP_DigestVerify(mctx, sig, siglen, message, len);
    } else {
        for (size_t off = 0; off < len; off += chunk)
            assert_int_equal(EVP_DigestVerifyUpdate(mctx, message + off,
                                                    off + chunk <= len ? chunk : len - off), 1);
        ret = EVP_DigestVerifyFinal(mctx, sig, siglen);
    }
    EVP_MD_CTX_free(mctx);
    return ret == 1;
}

/* A rejection by the provider under test: verdict 0 and an error with a reason string. */
static void assert_test_rejects(const char *what, EVP_PKEY *key, const char *md,
                                const sigopts *o, const unsigned char *sig, size_t siglen)
{
    ERR_clear_error();
    if (verify_msg(key, tu_propq(), md, o, 0, sig, siglen) != 0)
        fail_msg("accepted: %s (%d bits, pad %d, %s)", what, EVP_PKEY_get_bits(key), o->pad,
                 md);
    if (!tu_error_with_reason())
        fail_msg("no error with a reason after rejecting: %s", what);
}

/* ---- fixtures ---- */

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    for (size_t i = 0; i < NKEYS; i++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);

        if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1
                || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, key_bits[i]) != 1
                || EVP_PKEY_generate(ctx, &keys[i].oracle) != 1)
            return -1;
        EVP_PKEY_CTX_free(ctx);
        keys[i].test = tu_pkey_copy_to(env.libctx, keys[i].oracle, 1, tu_provider_name());
        keys[i].test_pub = tu_pkey_copy_to(env.libctx, keys[i].oracle, 0, tu_provider_name());
        if (keys[i].test == NULL || keys[i].test_pub == NULL)
            return -1;
        if (!tu_pkey_in_named_provider(keys[i].test, tu_provider_name()))
            return -1;
        keys[i].size = (size_t)EVP_PKEY_get_size(keys[i].test);
        if (keys[i].size * 8 != (size_t)key_bits[i])
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++) {
        EVP_PKEY_free(keys[i].oracle);
        EVP_PKEY_free(keys[i].test);
        EVP_PKEY_free(keys[i].test_pub);
    }
    tu_env_free(&env);
    return 0;
}

/* ---- PKCS#1 v1.5 ---- */

static void test_pkcs1_cross(void **state)
{
    unsigned char mine[MAX_SIG], theirs[MAX_SIG], streamed[MAX_SIG];
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        for (size_t d = 0; d < NDIGESTS; d++) {
            const char *md = digests[d];
            size_t n1 = sign_msg(keys[k].test, tu_propq(), md, &PKCS1, 0, mine);
            size_t n2 = sign_msg(keys[k].oracle, TU_PROPQ_DEFAULT, md, &PKCS1, 0, theirs);
            size_t n3 = sign_msg(keys[k].test, tu_propq(), md, &PKCS1, 7, streamed);

            assert_int_equal(n1, keys[k].size);
            assert_int_equal(n2, n1);
            assert_int_equal(n3, n1);
            assert_memory_equal(mine, theirs, n1);
            assert_memory_equal(streamed, theirs, n1);
            assert_true(verify_msg(keys[k].oracle, TU_PROPQ_DEFAULT, md, &PKCS1, 0, mine, n1));
            assert_true(verify_msg(keys[k].test, tu_propq(), md, &PKCS1, 0, theirs, n2));
            assert_true(verify_msg(keys[k].test_pub, tu_propq(), md, &PKCS1, 13, theirs, n2));
        }
    }
}

/* EVP_PKEY_sign on a precomputed digest equals the digest-sign result. */
static void test_pkcs1_pkey_sign_digest(void **state)
{
    unsigned char dgst[EVP_MAX_MD_SIZE], sig[MAX_SIG], ref[MAX_SIG];
    unsigned int dlen;
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        for (size_t d = 0; d < NDIGESTS; d++) {
            EVP_MD *md = EVP_MD_fetch(env.libctx, digests[d], TU_PROPQ_DEFAULT);
            EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test,
                                                           tu_propq());
            size_t siglen = sizeof(sig);
            size_t reflen;

            assert_non_null(md);
            assert_int_equal(EVP_Digest(message, sizeof(message) - 1, dgst, &dlen, md, NULL),
                             1);
            assert_non_null(ctx);
            assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
            assert_true(tu_ctx_in_provider(ctx));
            assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
            assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, md), 1);
            assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, dgst, dlen), 1);
            reflen = sign_msg(keys[k].oracle, TU_PROPQ_DEFAULT, digests[d], &PKCS1, 0, ref);
            assert_int_equal(siglen, reflen);
            assert_memory_equal(sig, ref, siglen);

            /* A digest of the wrong length for the set digest is refused. */
            siglen = sizeof(sig);
            ERR_clear_error();
            assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, dgst, dlen - 1), 1);
            assert_true(tu_error_with_reason());

            /* Verify through EVP_PKEY_verify on the public key. */
            EVP_PKEY_CTX_free(ctx);
            ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test_pub, tu_propq());
            assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
            assert_true(tu_ctx_in_provider(ctx));
            assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
            assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, md), 1);
            assert_int_equal(EVP_PKEY_verify(ctx, ref, reflen, dgst, dlen), 1);
            EVP_PKEY_CTX_free(ctx);
            EVP_MD_free(md);
        }
    }
}

/* ---- PSS ---- */

static void test_pss_cross(void **state)
{
    static const int saltlens[] = { RSA_PSS_SALTLEN_DIGEST, RSA_PSS_SALTLEN_MAX, 0 };
    unsigned char mine[MAX_SIG], theirs[MAX_SIG];
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        for (size_t d = 0; d < NDIGESTS; d++) {
            for (size_t s = 0; s < sizeof(saltlens) / sizeof(saltlens[0]); s++) {
                const char *md = digests[d];
                sigopts o = { RSA_PKCS1_PSS_PADDING, saltlens[s], (int)(d & 1) };
                sigopts o_int = { RSA_PKCS1_PSS_PADDING, saltlens[s], 0 };
                sigopts autolen = { RSA_PKCS1_PSS_PADDING, RSA_PSS_SALTLEN_AUTO, (int)(s & 1) };
                size_t n1 = sign_msg(keys[k].test, tu_propq(), md, &o, (d & 1) ? 5 : 0, mine);
                size_t n2 = sign_msg(keys[k].oracle, TU_PROPQ_DEFAULT, md, &o_int, 0, theirs);

                assert_int_equal(n1, keys[k].size);
                assert_int_equal(n2, n1);
                /* Oracle verifies ours, with the same salt length and with "auto". */
                assert_true(verify_msg(keys[k].oracle, TU_PROPQ_DEFAULT, md, &o_int, 0, mine,
                                       n1));
                assert_true(verify_msg(keys[k].oracle, TU_PROPQ_DEFAULT, md, &autolen, 0, mine,
                                       n1));
                /* We verify the oracle's, both ways. */
                assert_true(verify_msg(keys[k].test_pub, tu_propq(), md, &o, 0, theirs, n2));
                assert_true(verify_msg(keys[k].test_pub, tu_propq(), md, &autolen, 11,
                                       theirs, n2));
                /* With no salt, PSS is deterministic: equal to the oracle byte for byte. */
                if (saltlens[s] == 0)
                    assert_memory_equal(mine, theirs, n1);
                else
                    assert_memory_not_equal(mine, theirs, n1);
            }
        }
    }
}

/* ---- negative cases ---- */

static void test_rejects_bad_signatures(void **state)
{
    static const sigopts pss = { RSA_PKCS1_PSS_PADDING, RSA_PSS_SALTLEN_DIGEST, 0 };
    static const sigopts pss0 = { RSA_PKCS1_PSS_PADDING, 0, 0 };
    const sigopts *modes[] = { &PKCS1, &pss };
    unsigned char sig[MAX_SIG + 2], bad[MAX_SIG + 2];
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        EVP_PKEY *pub = keys[k].test_pub;
        BIGNUM *n = NULL;

        for (size_t m = 0; m < 2; m++) {
            const sigopts *o = modes[m];
            size_t len = sign_msg(keys[k].oracle, TU_PROPQ_DEFAULT, "SHA256", o, 0, sig);

            assert_true(verify_msg(pub, tu_propq(), "SHA256", o, 0, sig, len));
            /* One flipped bit anywhere: first byte, middle, last byte. */
            for (size_t pos = 0; pos < 3; pos++) {
                size_t at = pos == 0 ? 0 : pos == 1 ? len / 2 : len - 1;

                memcpy(bad, sig, len);
                bad[at] ^= pos == 0 ? 0x01 : 0x80;
                assert_test_rejects("one bit flipped", pub, "SHA256", o, bad, len);
            }
            /* Another digest than the one signed. */
            assert_test_rejects("other digest SHA384", pub, "SHA384", o, sig, len);
            assert_test_rejects("other digest SHA3-256", pub, "SHA3-256", o, sig, len);
            /* Wrong lengths: one byte short, one long, empty. */
            /*
             * When the signature's first byte is 0 its last k-1 bytes are the same number;
             * OpenSSL's default provider then accepts them for PSS, RFC 8017 (8.1.2 step 1)
             * does not, and neither may ctrsa.
             */
            if (sig[0] != 0 || strcmp(tu_provider_name(), "default") != 0)
                assert_test_rejects("one byte short", pub, "SHA256", o, sig + 1, len - 1);
            memcpy(bad, sig, len);
            bad[len] = 0;
            assert_test_rejects("one byte long", pub, "SHA256", o, bad, len + 1);
            assert_test_rejects("empty", pub, "SHA256", o, sig, 0);
            /* Leading zero byte prepended (same value, wrong length). */
            bad[0] = 0;
            memcpy(bad + 1, sig, len);
            assert_test_rejects("leading zero added", pub, "SHA256", o, bad, len + 1);
        }
        /* PSS: the salt length the verifier insists on must match. */
        {
            size_t len = sign_msg(keys[k].test, tu_propq(), "SHA256", &pss0, 0, sig);

            assert_test_rejects("salt length 0 as digest", pub, "SHA256", &pss, sig, len);
            /* PKCS#1 verification of a PSS signature and the reverse. */
            assert_test_rejects("PSS as PKCS#1", pub, "SHA256", &PKCS1, sig, len);
            len = sign_msg(keys[k].test, tu_propq(), "SHA256", &PKCS1, 0, sig);
            assert_test_rejects("PKCS#1 as PSS", pub, "SHA256", &pss, sig, len);
        }
        /* A "signature" equal to n (not reduced) is rejected. */
        assert_int_equal(EVP_PKEY_get_bn_param(keys[k].oracle, OSSL_PKEY_PARAM_RSA_N, &n), 1);
        assert_int_equal(BN_bn2binpad(n, bad, (int)keys[k].size), (int)keys[k].size);
        assert_test_rejects("signature = n", pub, "SHA256", &PKCS1, bad, keys[k].size);
        BN_free(n);
    }
}

/* A private operation on a public key fails with a reason, in the provider under test. */
static void test_sign_with_public_key_fails(void **state)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    unsigned char sig[MAX_SIG];
    size_t siglen = sizeof(sig);
    int ret;
    (void)state;

    ERR_clear_error();
    ret = EVP_DigestSignInit_ex(mctx, &pctx, "SHA256", env.libctx, tu_propq(),
                                keys[0].test_pub, NULL);
    if (ret == 1) {
        assert_true(tu_ctx_in_provider(pctx));
        ret = EVP_DigestSign(mctx, sig, &siglen, message, sizeof(message) - 1);
    }
    assert_int_not_equal(ret, 1);
    assert_true(tu_error_with_reason());
    EVP_MD_CTX_free(mctx);
}

/* ---- verify-recover ---- */

static void test_verify_recover(void **state)
{
    unsigned char sig[MAX_SIG], out[MAX_SIG], ref[MAX_SIG], dgst[EVP_MAX_MD_SIZE];
    unsigned int dlen;
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        for (size_t d = 0; d < NDIGESTS; d += 3) {
            EVP_MD *md = EVP_MD_fetch(env.libctx, digests[d], TU_PROPQ_DEFAULT);
            size_t siglen = sign_msg(keys[k].oracle, TU_PROPQ_DEFAULT, digests[d], &PKCS1, 0,
                                     sig);

            assert_int_equal(EVP_Digest(message, sizeof(message) - 1, dgst, &dlen, md, NULL),
                             1);
            for (int with_md = 0; with_md < 2; with_md++) {
                EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test_pub,
                                                               tu_propq());
                EVP_PKEY_CTX *oc = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].oracle,
                                                              TU_PROPQ_DEFAULT);
                size_t outlen = sizeof(out), reflen = sizeof(ref);

                assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
                assert_int_equal(EVP_PKEY_verify_recover_init(oc), 1);
                assert_true(tu_ctx_in_provider(ctx));
                assert_true(tu_ctx_in_named_provider(oc, "default"));
                assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
                assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(oc, RSA_PKCS1_PADDING), 1);
                if (with_md) {
                    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, md), 1);
                    assert_int_equal(EVP_PKEY_CTX_set_signature_md(oc, md), 1);
                }
                assert_int_equal(EVP_PKEY_verify_recover(ctx, out, &outlen, sig, siglen), 1);
                assert_int_equal(EVP_PKEY_verify_recover(oc, ref, &reflen, sig, siglen), 1);
                /* With a digest: the digest itself; without: the whole DigestInfo. */
                assert_int_equal(outlen, reflen);
                assert_memory_equal(out, ref, outlen);
                if (with_md) {
                    assert_int_equal(outlen, dlen);
                    assert_memory_equal(out, dgst, dlen);
                } else {
                    assert_true(outlen > dlen);
                    assert_memory_equal(out + outlen - dlen, dgst, dlen);
                }
                /* A tampered signature recovers nothing. */
                sig[siglen / 2] ^= 0x10;
                outlen = sizeof(out);
                ERR_clear_error();
                assert_int_not_equal(EVP_PKEY_verify_recover(ctx, out, &outlen, sig, siglen),
                                     1);
                assert_true(tu_error_with_reason());
                sig[siglen / 2] ^= 0x10;
                EVP_PKEY_CTX_free(ctx);
                EVP_PKEY_CTX_free(oc);
            }
            EVP_MD_free(md);
        }
    }
}

/* ---- raw modes ---- */

/* EVP_PKEY_sign with PKCS#1 padding and no digest: signs the bytes as given. */
static void test_pkcs1_no_digest(void **state)
{
    unsigned char in[64], sig[MAX_SIG], ref[MAX_SIG];
    (void)state;

    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)(i * 7 + 3);
    for (size_t k = 0; k < NKEYS; k++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test, tu_propq());
        EVP_PKEY_CTX *oc = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].oracle,
                                                      TU_PROPQ_DEFAULT);
        size_t siglen = sizeof(sig), reflen = sizeof(ref);

        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        assert_true(tu_ctx_in_provider(ctx));
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
        assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, sizeof(in)), 1);
        assert_int_equal(EVP_PKEY_sign_init(oc), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(oc, RSA_PKCS1_PADDING), 1);
        assert_int_equal(EVP_PKEY_sign(oc, ref, &reflen, in, sizeof(in)), 1);
        assert_int_equal(siglen, keys[k].size);
        assert_int_equal(siglen, reflen);
        assert_memory_equal(sig, ref, siglen);
        /* Input longer than k - 11 does not fit. */
        {
            unsigned char big[MAX_SIG] = { 0 }, out[MAX_SIG];
            size_t outlen = sizeof(out);

            ERR_clear_error();
            assert_int_not_equal(EVP_PKEY_sign(ctx, out, &outlen, big, keys[k].size - 10), 1);
            assert_true(tu_error_with_reason());
        }
        EVP_PKEY_CTX_free(ctx);

        /* The oracle verifies the raw signature. */
        assert_int_equal(EVP_PKEY_verify_init(oc), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(oc, RSA_PKCS1_PADDING), 1);
        assert_int_equal(EVP_PKEY_verify(oc, ref, reflen, in, sizeof(in)), 1);
        EVP_PKEY_CTX_free(oc);

        /* And we verify it on the public key. */
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test_pub, tu_propq());
        assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
        assert_true(tu_ctx_in_provider(ctx));
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
        assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, in, sizeof(in)), 1);
        in[0] ^= 1;
        ERR_clear_error();
        assert_int_not_equal(EVP_PKEY_verify(ctx, sig, siglen, in, sizeof(in)), 1);
        /* ctrsa must say why; OpenSSL's default provider (oracle mode) just returns 0. */
        if (strcmp(tu_provider_name(), "default") != 0)
            assert_true(tu_error_with_reason());
        ERR_clear_error();
        in[0] ^= 1;
        EVP_PKEY_CTX_free(ctx);
    }
}

/* Pad mode none: a k-byte input below n is exponentiated; n or above is refused. */
static void test_pad_none(void **state)
{
    unsigned char in[MAX_SIG], sig[MAX_SIG], ref[MAX_SIG];
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        size_t len = keys[k].size;
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].test, tu_propq());
        EVP_PKEY_CTX *oc = EVP_PKEY_CTX_new_from_pkey(env.libctx, keys[k].oracle,
                                                      TU_PROPQ_DEFAULT);
        size_t siglen = sizeof(sig), reflen = sizeof(ref);
        BIGNUM *n = NULL;

        in[0] = 0x00;
        for (size_t i = 1; i < len; i++)
            in[i] = (unsigned char)(0xa5 ^ i);
        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        assert_true(tu_ctx_in_provider(ctx));
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
        assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, len), 1);
        assert_int_equal(EVP_PKEY_sign_init(oc), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(oc, RSA_NO_PADDING), 1);
        assert_int_equal(EVP_PKEY_sign(oc, ref, &reflen, in, len), 1);
        assert_int_equal(siglen, len);
        assert_int_equal(reflen, len);
        assert_memory_equal(sig, ref, len);

        /* in = n and in = all 0xff (> n) are refused with a reason. */
        assert_int_equal(EVP_PKEY_get_bn_param(keys[k].oracle, OSSL_PKEY_PARAM_RSA_N, &n), 1);
        assert_int_equal(BN_bn2binpad(n, in, (int)len), (int)len);
        BN_free(n);
        siglen = sizeof(sig);
        ERR_clear_error();
        assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, len), 1);
        assert_true(tu_error_with_reason());
        memset(in, 0xff, len);
        siglen = sizeof(sig);
        assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, len), 1);
        assert_true(tu_error_with_reason());
        /* A short input is not k bytes: refused. */
        siglen = sizeof(sig);
        assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, in + 1, len - 1), 1);
        assert_true(tu_error_with_reason());
        EVP_PKEY_CTX_free(ctx);
        EVP_PKEY_CTX_free(oc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkcs1_cross),
        cmocka_unit_test(test_pkcs1_pkey_sign_digest),
        cmocka_unit_test(test_pss_cross),
        cmocka_unit_test(test_rejects_bad_signatures),
        cmocka_unit_test(test_sign_with_public_key_fails),
        cmocka_unit_test(test_verify_recover),
        cmocka_unit_test(test_pkcs1_no_digest),
        cmocka_unit_test(test_pad_none),
    };

    printf("provider under test: %s\n", tu_provider_name());
    return cmocka_run_group_tests(tests, setup, teardown);
}
