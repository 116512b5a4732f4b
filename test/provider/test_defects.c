/*
 * Regression tests for issue 10's confirmed defects 1, 3, 4 and 6 and its differences from
 * the default provider, through the EVP API with the default provider as the oracle
 * (defect 5, the DRBG of key generation, is test_keygen_drbg.c):
 *   1. an RSA-PSS restriction naming an MGF1 digest without an OID in ctrsa's table is
 *      refused where it enters (import, generation) instead of crashing algorithm-id;
 *   3. above 3072 bits of modulus, public operations refuse e of more than 64 bits at once,
 *      as OpenSSL does; keys the default provider accepts keep working;
 *   4. UTF-8 string parameters whose data is not NUL-terminated are read within data_size
 *      (each value ends right before a PROT_NONE page: any over-read faults);
 *   6. a private operation with a composite "prime" fails with ctrsa's error on the queue,
 *      and so do getters that cannot answer;
 *   differences: EVP_PKEY_public_check verdicts equal the default's (n = 3q, p^2, prime n,
 *   small factors), 512-bit generation, the pad-mode alias "oeap", every pad-mode name and
 *   integer in every operation (the default's verdicts, modes and results), RSA-type imports
 *   with RSA-PSS parameters (both providers refuse them);
 *   issue 21: PSS with no digest set (SHA-1) and MD5-SHA1, signed by each provider and
 *   verified by the other; a private operation with a public key refused at the operation,
 *   not at its init.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "prov.h"
#include "testutil.h"

#define PQ_CTRSA "provider=ctrsa"
#define PQ_DEFAULT "provider=default"

static tu_env env;
static EVP_PKEY *rsa2048;   /* made by the default provider */

/* ---- helpers ---------------------------------------------------------------------------- */

/*
 * ctrsa's error for `reason` is on the queue, with the code errors.c raises it with (the
 * default provider's library and reason, or ctrsa's own under the library "ctrsa"); prints
 * the queue if not. Clears it. Searched rather than read from the top: OpenSSL 3.2 and
 * later add their own error ("provider signature failure") after the provider's.
 */
static void assert_ctrsa_reason(int reason)
{
    uint32_t code = ctrsa_reason_code(reason);
    unsigned long e, seen[16];
    size_t count = 0;
    int found = 0;

    while ((e = ERR_get_error()) != 0) {
        const char *lib = ERR_lib_error_string(e);
        if (count < sizeof(seen) / sizeof(seen[0]))
            seen[count++] = e;
        if (ERR_GET_LIB(code) != 0 ? ERR_GET_LIB(e) == ERR_GET_LIB(code)
                                     && ERR_GET_REASON(e) == ERR_GET_REASON(code)
                                   : lib != NULL && strcmp(lib, "ctrsa") == 0
                                     && ERR_GET_REASON(e) == reason)
            found = 1;
    }
    if (!found) {
        char text[256];
        fprintf(stderr, "expected ctrsa reason %d on the queue; it held:\n", reason);
        for (size_t i = 0; i < count; i++) {
            ERR_error_string_n(seen[i], text, sizeof(text));
            fprintf(stderr, "  %s\n", text);
        }
        fail();
    }
}

static EVP_PKEY *from_params(const char *type, const char *propq, int selection,
                             OSSL_PARAM *params)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, type, propq);
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    if (EVP_PKEY_fromdata(ctx, &key, selection, params) != 1) {
        key = NULL;
        if (getenv("TEST_VERBOSE") != NULL)
            tu_print_errors("fromdata");
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/* Key numbers as BN params: n, e and optionally d, p, q, dP, dQ, qInv. */
static OSSL_PARAM *numbers(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
                           const BIGNUM *p, const BIGNUM *q, const BIGNUM *dp,
                           const BIGNUM *dq, const BIGNUM *qinv)
{
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;

    assert_non_null(bld);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n), 1);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e), 1);
    if (d != NULL) {
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d), 1);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR1, p), 1);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR2, q), 1);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT1, dp), 1);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT2, dq), 1);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, qinv),
                         1);
    }
    params = OSSL_PARAM_BLD_to_param(bld);
    OSSL_PARAM_BLD_free(bld);
    assert_non_null(params);
    return params;
}

static BIGNUM *get_bn(const EVP_PKEY *key, const char *name)
{
    BIGNUM *v = NULL;

    assert_int_equal(EVP_PKEY_get_bn_param(key, name, &v), 1);
    return v;
}

/*
 * The numbers of `key` (selection) plus `extra` (ended by OSSL_PARAM_END). The merged
 * array points into *base: release with release_merged(merged, *base).
 */
static OSSL_PARAM *with_public(const EVP_PKEY *key, int selection, const OSSL_PARAM *extra,
                               OSSL_PARAM **base)
{
    OSSL_PARAM *merged;

    *base = NULL;
    assert_int_equal(EVP_PKEY_todata(key, selection, base), 1);
    merged = OSSL_PARAM_merge(*base, extra);
    assert_non_null(merged);
    return merged;
}

static void release_merged(OSSL_PARAM *merged, OSSL_PARAM *base)
{
    OSSL_PARAM_free(merged);
    OSSL_PARAM_free(base);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- RSA-PSS restriction to a digest the default provider cannot sign with --------------- */

/*
 * SHA-3 as the restriction's hash or MGF1 hash: both providers import the key, and both
 * must refuse to sign or verify with it (the default: "PSS restrictions lack [MGF1] hash
 * algorithm"). ctrsa signed with it until the CI fuzzer found the difference (2026-12-02).
 */
static void test_pss_restriction_sha3(void **state)
{
    static const char *const pairs[][2] = { { "SHA256", "SHA3-256" }, { "SHA3-256", "SHA256" } };
    static const char *const pqs[] = { PQ_CTRSA, PQ_DEFAULT };

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        OSSL_PARAM extra[3], *params, *base;

        extra[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST,
                                                    (char *)pairs[i][0], 0);
        extra[1] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                    (char *)pairs[i][1], 0);
        extra[2] = OSSL_PARAM_construct_end();
        params = with_public(rsa2048, EVP_PKEY_KEYPAIR, extra, &base);
        for (size_t j = 0; j < 2; j++) {
            EVP_PKEY *key = from_params("RSA-PSS", pqs[j], EVP_PKEY_KEYPAIR, params);
            EVP_MD_CTX *mctx = EVP_MD_CTX_new();

            assert_non_null(key);
            ERR_clear_error();
            assert_int_not_equal(EVP_DigestSignInit_ex(mctx, NULL, NULL, env.libctx, pqs[j],
                                                       key, NULL), 1);
            if (j == 0)
                assert_ctrsa_reason(CTRSA_R_DIGEST_NOT_ALLOWED);
            ERR_clear_error();
            EVP_MD_CTX_free(mctx);
            EVP_PKEY_free(key);
        }
        release_merged(params, base);
    }
}

/* ---- 1. RSA-PSS restriction with an MGF1 digest ctrsa has no OID for ---------------------- */

/*
 * Before the fix, import accepted the key and algorithm-id dereferenced the NULL table
 * entry. Now import (and generation) refuse it; should a key with such a restriction ever
 * be accepted, the signing sequence that crashed must fail cleanly instead.
 */
static void test_pss_mgf1_without_oid(void **state)
{
    /* Digests with no DigestInfo/OID entry in ctrsa's table (RIPEMD-160 has one since the
     * message signature algorithms came: RSA-RIPEMD160). */
    static const char *const mgf1s[] = { "SM3", "BLAKE2S-256", "MD5-SHA1" };
    char sha256[] = "SHA256";

    (void)state;
    for (size_t i = 0; i < sizeof(mgf1s) / sizeof(mgf1s[0]); i++) {
        EVP_MD *probe = EVP_MD_fetch(env.libctx, mgf1s[i], NULL);
        OSSL_PARAM extra[3];
        OSSL_PARAM *params, *base;
        EVP_PKEY *key;

        if (probe == NULL) {
            fprintf(stderr, "# %s not available here, skipped\n", mgf1s[i]);
            ERR_clear_error();
            continue;
        }
        EVP_MD_free(probe);
        extra[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, sha256, 0);
        extra[1] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                    (char *)mgf1s[i], 0);
        extra[2] = OSSL_PARAM_construct_end();
        params = with_public(rsa2048, EVP_PKEY_KEYPAIR, extra, &base);
        ERR_clear_error();
        key = from_params("RSA-PSS", PQ_CTRSA, EVP_PKEY_KEYPAIR, params);
        if (key != NULL) {
            EVP_MD_CTX *mctx = EVP_MD_CTX_new();
            EVP_PKEY_CTX *pctx = NULL;
            unsigned char der[128];
            OSSL_PARAM get[2] = {
                OSSL_PARAM_construct_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, der,
                                                  sizeof(der)),
                OSSL_PARAM_construct_end()
            };

            fprintf(stderr, "RSA-PSS key with MGF1 %s was imported\n", mgf1s[i]);
            if (EVP_DigestSignInit_ex(mctx, &pctx, "SHA256", env.libctx, PQ_CTRSA, key,
                                      NULL) == 1)
                assert_int_not_equal(EVP_PKEY_CTX_get_params(pctx, get), 1);
            EVP_MD_CTX_free(mctx);
            EVP_PKEY_free(key);
            fail();
        }
        assert_ctrsa_reason(CTRSA_R_DIGEST_NOT_ALLOWED);
        release_merged(params, base);

        /* generation takes the same restriction parameters */
        EVP_PKEY_CTX *gctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", PQ_CTRSA);
        size_t bits = 1024;
        OSSL_PARAM gen[4] = {
            OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
            extra[0], extra[1], OSSL_PARAM_construct_end()
        };
        assert_non_null(gctx);
        assert_int_equal(EVP_PKEY_keygen_init(gctx), 1);
        assert_int_not_equal(EVP_PKEY_CTX_set_params(gctx, gen), 1);
        assert_ctrsa_reason(CTRSA_R_DIGEST_NOT_ALLOWED);
        EVP_PKEY_CTX_free(gctx);
    }
}

/* ---- 3. the public exponent's bound ------------------------------------------------------ */

/* 1 if a PKCS#1 v1.5 SHA-256 verification under propq accepts sig for digest. */
static int verify_with(EVP_PKEY *key, const char *propq, const unsigned char *sig,
                       size_t siglen, const unsigned char *digest)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    int ok;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    ok = EVP_PKEY_verify(ctx, sig, siglen, digest, 32) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/*
 * A 16384-bit n with a 16383-bit e: import accepts it (as OpenSSL's does), verification
 * and encryption fail at once with ctrsa's reason (before the fix: about 2 s each, then
 * "bad signature"), and the default provider refuses it too.
 */
static void test_huge_e_refused_fast(void **state)
{
    BIGNUM *n = BN_new(), *e = BN_new();
    unsigned char sig[2048], digest[32] = { 1 }, ct[2048];
    size_t ctlen = sizeof(ct);
    OSSL_PARAM *params;
    EVP_PKEY *key, *dkey;
    EVP_PKEY_CTX *ctx;
    double t;

    (void)state;
    assert_int_equal(BN_rand(n, 16384, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    assert_int_equal(BN_rand(e, 16383, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    params = numbers(n, e, NULL, NULL, NULL, NULL, NULL, NULL);
    key = from_params("RSA", PQ_CTRSA, EVP_PKEY_PUBLIC_KEY, params);
    assert_non_null(key);
    dkey = from_params("RSA", PQ_DEFAULT, EVP_PKEY_PUBLIC_KEY, params);
    assert_non_null(dkey);
    memset(sig, 0x5a, sizeof(sig));
    sig[0] = 0;

    ERR_clear_error();
    t = now();
    assert_int_equal(verify_with(key, PQ_CTRSA, sig, sizeof(sig), digest), 0);
    t = now() - t;
    fprintf(stderr, "# verify refused in %.3f ms\n", t * 1e3);
    assert_true(t < 0.2);
    assert_ctrsa_reason(CTRSA_R_INVALID_KEY);
    assert_int_equal(verify_with(dkey, PQ_DEFAULT, sig, sizeof(sig), digest), 0);
    ERR_clear_error();

    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    t = now();
    assert_int_not_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, digest, sizeof(digest)), 1);
    t = now() - t;
    assert_true(t < 0.2);
    assert_ctrsa_reason(CTRSA_R_INVALID_KEY);
    EVP_PKEY_CTX_free(ctx);

    EVP_PKEY_free(key);
    EVP_PKEY_free(dkey);
    OSSL_PARAM_free(params);
    BN_free(n);
    BN_free(e);
}

/* A key pair from ctrsa's generator with e given as a decimal string. */
static EVP_PKEY *gen_with_e(size_t bits, const char *e_dec)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", PQ_CTRSA);
    BIGNUM *e = NULL;
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_not_equal(BN_dec2bn(&e, e_dec), 0);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits), 1);
    assert_int_equal(EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx, e), 1);
    assert_int_equal(EVP_PKEY_generate(ctx, &key), 1);
    EVP_PKEY_CTX_free(ctx);
    BN_free(e);
    return key;
}

/*
 * Sign with the default provider, verify with both; encrypt with both, decrypt with the
 * default provider. want: the verdict both must give.
 */
static void public_ops_agree(EVP_PKEY *key, int want)
{
    EVP_PKEY *dkey = tu_pkey_copy_to(env.libctx, key, 1, "default");
    unsigned char digest[32], sig[1024], ct[1024], pt[1024];
    size_t siglen = sizeof(sig), ctlen, ptlen;
    EVP_PKEY_CTX *ctx;
    const char *provs[] = { PQ_CTRSA, PQ_DEFAULT };

    assert_non_null(dkey);
    memset(digest, 7, sizeof(digest));
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, dkey, PQ_DEFAULT);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);
    for (int i = 0; i < 2; i++) {
        EVP_PKEY *k = i == 0 ? key : dkey;

        ERR_clear_error();
        assert_int_equal(verify_with(k, provs[i], sig, siglen, digest), want);
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, k, provs[i]);
        assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
        ctlen = sizeof(ct);
        assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, digest, sizeof(digest)) == 1, want);
        EVP_PKEY_CTX_free(ctx);
        if (i == 0 && !want)
            assert_ctrsa_reason(CTRSA_R_INVALID_KEY);
        if (!want)
            continue;
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, dkey, PQ_DEFAULT);
        assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
        ptlen = sizeof(pt);
        assert_int_equal(EVP_PKEY_decrypt(ctx, pt, &ptlen, ct, ctlen), 1);
        assert_memory_equal(pt, digest, sizeof(digest));
        EVP_PKEY_CTX_free(ctx);
    }
    ERR_clear_error();
    EVP_PKEY_free(dkey);
}

/* The bound's edges, ctrsa against the default provider on the same keys. */
static void test_e_bound_edges(void **state)
{
    EVP_PKEY *key;

    (void)state;
    /* 3072 bits: no bound, a 256-bit e works */
    key = gen_with_e(3072, "57896044618658097711785492504343953926634992332820282019728792003956564819949");
    public_ops_agree(key, 1);
    EVP_PKEY_free(key);
    /* 4096 bits: a 64-bit e (the largest 64-bit prime) works, a 65-bit one does not */
    key = gen_with_e(4096, "18446744073709551557");
    public_ops_agree(key, 1);
    EVP_PKEY_free(key);
    key = gen_with_e(4096, "36893488147419103363");
    public_ops_agree(key, 0);
    EVP_PKEY_free(key);
}

/* ---- 4. UTF-8 parameters not NUL-terminated ------------------------------------------------ */

/*
 * A copy of s (without its NUL) whose last byte is the last byte before a PROT_NONE page:
 * reading one byte past data_size faults. The mappings are left for the process's end.
 */
static char *at_page_end(const char *s)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t len = strlen(s);
    char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    memcpy(map + page - len, s, len);
    return map + page - len;
}

static OSSL_PARAM unterminated(const char *key, const char *value)
{
    return OSSL_PARAM_construct_utf8_string(key, at_page_end(value), strlen(value));
}

static void test_utf8_within_data_size(void **state)
{
    EVP_PKEY *key = tu_pkey_copy_to(env.libctx, rsa2048, 1, "ctrsa");
    EVP_PKEY_CTX *ctx;
    char name[64];
    OSSL_PARAM get[2];

    (void)state;
    assert_non_null(key);

    /* asym-cipher: pad-mode, digest, mgf1-digest and their properties */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    {
        OSSL_PARAM p[] = {
            unterminated(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, "oaep"),
            unterminated(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, "SHA384"),
            unterminated(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS, "provider=default"),
            unterminated(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, "SHA512"),
            unterminated(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS, "provider=default"),
            OSSL_PARAM_construct_end()
        };
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, p), 1);
    }
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, name,
                                              sizeof(name));
    get[1] = OSSL_PARAM_construct_end();
    assert_int_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
    assert_string_equal(name, "SHA2-512");
    EVP_PKEY_CTX_free(ctx);

    /* signature: pad-mode, digest, properties, mgf1-digest, mgf1-properties, saltlen */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    {
        OSSL_PARAM p[] = {
            unterminated(OSSL_SIGNATURE_PARAM_PAD_MODE, "pss"),
            unterminated(OSSL_SIGNATURE_PARAM_DIGEST, "SHA256"),
            unterminated(OSSL_SIGNATURE_PARAM_PROPERTIES, "provider=default"),
            unterminated(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "SHA384"),
            unterminated(OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, "provider=default"),
            unterminated(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "17"),
            OSSL_PARAM_construct_end()
        };
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, p), 1);
    }
    {
        OSSL_PARAM p[] = {
            unterminated(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "digest"),
            OSSL_PARAM_construct_end()
        };
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, p), 1);
    }
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, name,
                                              sizeof(name));
    assert_int_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
    assert_string_equal(name, "SHA384");   /* as given, as the default provider reports it */
    EVP_PKEY_CTX_free(ctx);

    /* RSA-PSS import: digest, mgf1-digest, mgf, properties */
    {
        OSSL_PARAM extra[] = {
            unterminated(OSSL_PKEY_PARAM_RSA_DIGEST, "SHA256"),
            unterminated(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, "SHA256"),
            unterminated(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, "MGF1"),
            unterminated(OSSL_PKEY_PARAM_RSA_DIGEST_PROPS, "provider=default"),
            OSSL_PARAM_construct_end()
        };
        OSSL_PARAM *base;
        OSSL_PARAM *params = with_public(rsa2048, EVP_PKEY_KEYPAIR, extra, &base);
        EVP_PKEY *pss = from_params("RSA-PSS", PQ_CTRSA, EVP_PKEY_KEYPAIR, params);

        assert_non_null(pss);
        assert_int_equal(EVP_PKEY_get_utf8_string_param(pss, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                        name, sizeof(name), NULL), 1);
        assert_string_equal(name, "SHA256");
        EVP_PKEY_free(pss);
        release_merged(params, base);

        /* the same restrictions through key generation's parameters */
        EVP_PKEY_CTX *gctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", PQ_CTRSA);
        assert_int_equal(EVP_PKEY_keygen_init(gctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_params(gctx, extra), 1);
        EVP_PKEY_CTX_free(gctx);
    }
    /* a value that fills its data_size with no room for more is still read whole */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    {
        char bad[] = "SHA256";
        OSSL_PARAM p[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, bad, 3),
            OSSL_PARAM_construct_end()
        };
        /* "SHA" (data_size 3) is not a digest: read as three bytes, not as "SHA256" */
        ERR_clear_error();
        assert_int_not_equal(EVP_PKEY_CTX_set_params(ctx, p), 1);
        ERR_clear_error();
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
}

/* ---- 6. a composite "prime": the private operation fails with an error ------------------- */

static void test_composite_prime_raises(void **state)
{
    BIGNUM *p = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_FACTOR1);
    BIGNUM *q = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_FACTOR2);
    BIGNUM *e = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_E);
    BIGNUM *P = BN_new(), *n = BN_new(), *d = BN_new(), *dp = BN_new(), *dq = BN_new();
    BIGNUM *qinv = BN_new(), *pm1 = BN_new(), *qm1 = BN_new(), *lam = BN_new();
    BIGNUM *g = BN_new();
    BN_CTX *bn = BN_CTX_new();
    unsigned char digest[32] = { 3 }, sig[512];
    size_t siglen = sizeof(sig);
    OSSL_PARAM *params;
    EVP_PKEY *key;
    EVP_PKEY_CTX *ctx;

    (void)state;
    /* P = 3p, n = Pq, d = e^-1 mod lcm(P - 1, q - 1), CRT values for P and q */
    assert_int_equal(BN_mul_word(BN_copy(P, p), 3), 1);
    assert_int_equal(BN_mul(n, P, q, bn), 1);
    assert_int_equal(BN_sub(pm1, P, BN_value_one()), 1);
    assert_int_equal(BN_sub(qm1, q, BN_value_one()), 1);
    assert_int_equal(BN_gcd(g, pm1, qm1, bn), 1);
    assert_int_equal(BN_mul(lam, pm1, qm1, bn), 1);
    assert_int_equal(BN_div(lam, NULL, lam, g, bn), 1);
    if (BN_mod_inverse(d, e, lam, bn) == NULL) {
        fprintf(stderr, "# e is not invertible modulo lcm(3p - 1, q - 1): skipped\n");
        skip();
    }
    assert_int_equal(BN_mod(dp, d, pm1, bn), 1);
    assert_int_equal(BN_mod(dq, d, qm1, bn), 1);
    assert_non_null(BN_mod_inverse(qinv, q, P, bn));
    params = numbers(n, e, d, P, q, dp, dq, qinv);
    key = from_params("RSA", PQ_CTRSA, EVP_PKEY_KEYPAIR, params);
    assert_non_null(key);   /* import does not test primality, nor does OpenSSL's */

    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    ERR_clear_error();
    assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)), 1);
    assert_int_not_equal(ERR_peek_error(), 0);
    assert_ctrsa_reason(CTRSA_R_INVALID_KEY);
    EVP_PKEY_CTX_free(ctx);

    EVP_PKEY_free(key);
    OSSL_PARAM_free(params);
    BN_free(p); BN_free(q); BN_free(e); BN_free(P); BN_free(n); BN_free(d); BN_free(dp);
    BN_free(dq); BN_free(qinv); BN_free(pm1); BN_free(qm1); BN_free(lam); BN_free(g);
    BN_CTX_free(bn);
}

/*
 * A valid key whose primes are 1 mod 2^64 (found by review): p - 2 then borrows from the
 * second limb, which the blinding's Fermat inverse must carry, or every private operation
 * on the key fails as if a factor were composite. Signs in ctrsa, verified by the default.
 */
static void test_primes_one_mod_2_64(void **state)
{
    BIGNUM *p = BN_new(), *q = BN_new(), *e = BN_new(), *n = BN_new(), *d = BN_new();
    BIGNUM *dp = BN_new(), *dq = BN_new(), *qinv = BN_new(), *pm1 = BN_new();
    BIGNUM *qm1 = BN_new(), *lam = BN_new(), *g = BN_new(), *add = BN_new();
    BN_CTX *bn = BN_CTX_new();
    unsigned char digest[32] = { 9 }, sig[512];
    size_t siglen = sizeof(sig);

    (void)state;
    assert_int_equal(BN_set_word(e, 65537), 1);
    assert_int_equal(BN_lshift(add, BN_value_one(), 64), 1);
    do {  /* p = 1 mod 2^64, q too; e invertible modulo lcm(p - 1, q - 1) */
        assert_int_equal(BN_generate_prime_ex2(p, 1024, 0, add, BN_value_one(), NULL, bn), 1);
        assert_int_equal(BN_generate_prime_ex2(q, 1024, 0, add, BN_value_one(), NULL, bn), 1);
        assert_int_equal(BN_sub(pm1, p, BN_value_one()), 1);
        assert_int_equal(BN_sub(qm1, q, BN_value_one()), 1);
        assert_int_equal(BN_gcd(g, pm1, qm1, bn), 1);
        assert_int_equal(BN_mul(lam, pm1, qm1, bn), 1);
        assert_int_equal(BN_div(lam, NULL, lam, g, bn), 1);
    } while (BN_cmp(p, q) <= 0 || BN_mod_inverse(d, e, lam, bn) == NULL);
    assert_int_equal(BN_mod(g, p, add, bn), 1);
    assert_true(BN_is_one(g));
    assert_int_equal(BN_mul(n, p, q, bn), 1);
    assert_int_equal(BN_mod(dp, d, pm1, bn), 1);
    assert_int_equal(BN_mod(dq, d, qm1, bn), 1);
    assert_non_null(BN_mod_inverse(qinv, q, p, bn));
    OSSL_PARAM *params = numbers(n, e, d, p, q, dp, dq, qinv);
    EVP_PKEY *key = from_params("RSA", PQ_CTRSA, EVP_PKEY_KEYPAIR, params);
    EVP_PKEY *ref = from_params("RSA", PQ_DEFAULT, EVP_PKEY_KEYPAIR, params);
    assert_non_null(key);
    assert_non_null(ref);

    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    if (EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)) != 1) {
        tu_print_errors("sign with primes = 1 mod 2^64");
        fail();
    }
    assert_true(tu_ctx_in_named_provider(ctx, "ctrsa"));
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ref, PQ_DEFAULT);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);

    EVP_PKEY_free(key);
    EVP_PKEY_free(ref);
    OSSL_PARAM_free(params);
    BN_free(p); BN_free(q); BN_free(e); BN_free(n); BN_free(d); BN_free(dp); BN_free(dq);
    BN_free(qinv); BN_free(pm1); BN_free(qm1); BN_free(lam); BN_free(g); BN_free(add);
    BN_CTX_free(bn);
}

/* Getters that cannot answer (wrong type, buffer too small) say so on the queue. */
static void test_getter_failures_raise(void **state)
{
    EVP_PKEY *key = tu_pkey_copy_to(env.libctx, rsa2048, 0, "ctrsa");
    EVP_PKEY_CTX *ctx;
    char tiny[2], text[16];
    OSSL_PARAM get[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    (void)state;
    assert_non_null(key);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_CTRSA);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, tiny, sizeof(tiny));
    ERR_clear_error();
    assert_int_not_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
    assert_ctrsa_reason(CTRSA_R_INVALID_PARAMETER);
    EVP_PKEY_CTX_free(ctx);

    /* "bits" asked for as a string */
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_BITS, text, sizeof(text));
    assert_int_not_equal(EVP_PKEY_get_params(key, get), 1);
    assert_ctrsa_reason(CTRSA_R_INVALID_PARAMETER);
    EVP_PKEY_free(key);
}

/* ---- differences ------------------------------------------------------------------------ */

/* EVP_PKEY_public_check of the public key (n, e) under propq: 1, 0, or -1 if not imported. */
static int public_check(const BIGNUM *n, const BIGNUM *e, const char *propq)
{
    OSSL_PARAM *params = numbers(n, e, NULL, NULL, NULL, NULL, NULL, NULL);
    EVP_PKEY *key = from_params("RSA", propq, EVP_PKEY_PUBLIC_KEY, params);
    EVP_PKEY_CTX *ctx;
    int r = -1;

    OSSL_PARAM_free(params);
    if (key == NULL)
        return -1;
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    assert_non_null(ctx);
    r = EVP_PKEY_public_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r;
}

static void test_public_check_like_default(void **state)
{
    BIGNUM *p = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_FACTOR1);
    BIGNUM *q = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_FACTOR2);
    BIGNUM *e = get_bn(rsa2048, OSSL_PKEY_PARAM_RSA_E);
    BIGNUM *n = BN_new();
    BN_CTX *bn = BN_CTX_new();
    static const struct { const char *what; int want; } cases[] = {
        { "p*q", 1 }, { "3q", 0 }, { "751q", 0 }, { "757q", 1 }, { "p^2", 0 }, { "p", 0 },
        { "q^3", 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        switch (i) {
        case 0: assert_int_equal(BN_mul(n, p, q, bn), 1); break;
        case 1: assert_int_equal(BN_mul_word(BN_copy(n, q), 3), 1); break;
        case 2: assert_int_equal(BN_mul_word(BN_copy(n, q), 751), 1); break;
        case 3: assert_int_equal(BN_mul_word(BN_copy(n, q), 757), 1); break;
        case 4: assert_int_equal(BN_sqr(n, p, bn), 1); break;
        case 5: assert_non_null(BN_copy(n, p)); break;
        case 6: assert_int_equal(BN_sqr(n, q, bn), 1);
                assert_int_equal(BN_mul(n, n, q, bn), 1); break;
        }
        int dflt = public_check(n, e, PQ_DEFAULT);
        int ours = public_check(n, e, PQ_CTRSA);
        /*
         * 757q passes the trial division (primes below 752) in both, then meets a random
         * Miller-Rabin base: a base of order dividing n - 1 modulo 757 makes gcd(x - 1, n)
         * find 757, so either verdict can come out, now and then 0 (seen about once in 40
         * runs). What the case shows is that trial division stops where OpenSSL's does:
         * some attempt in a few passes, in each provider.
         */
        for (int again = 0; cases[i].want == 1 && i == 3 && again < 8; again++) {
            if (dflt != 1)
                dflt = public_check(n, e, PQ_DEFAULT);
            if (ours != 1)
                ours = public_check(n, e, PQ_CTRSA);
            ERR_clear_error();
        }
        fprintf(stderr, "# n = %s: default %d, ctrsa %d\n", cases[i].what, dflt, ours);
        if (i == 3 && dflt != 1) {
            /* Seen under qemu's s390x emulation: the default provider refused 757q in all
             * nine attempts; its verdict is random here, so this case says nothing then. */
            fprintf(stderr, "# n = 757q: the default provider never passed it here; skipped\n");
            ERR_clear_error();
            continue;
        }
        assert_int_equal(dflt, cases[i].want);
        assert_int_equal(ours, dflt);
        if (ours == 0)
            assert_ctrsa_reason(CTRSA_R_INVALID_KEY);
        ERR_clear_error();
    }
    BN_free(p); BN_free(q); BN_free(e); BN_free(n);
    BN_CTX_free(bn);
}

/* 512-bit keys are generated, as the default provider does (511 is refused by both). */
static void test_keygen_512(void **state)
{
    const char *provs[] = { PQ_CTRSA, PQ_DEFAULT };

    (void)state;
    for (int i = 0; i < 2; i++) {
        EVP_PKEY *key = EVP_PKEY_Q_keygen(env.libctx, provs[i], "RSA", (size_t)512);
        EVP_PKEY *small = EVP_PKEY_Q_keygen(env.libctx, provs[i], "RSA", (size_t)511);

        assert_non_null(key);
        assert_null(small);
        ERR_clear_error();
        assert_int_equal(EVP_PKEY_get_bits(key), 512);
        if (i == 0) {
            EVP_PKEY *dkey = tu_pkey_copy_to(env.libctx, key, 1, "default");
            EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, dkey, PQ_DEFAULT);

            assert_int_equal(EVP_PKEY_check(ctx), 1);
            EVP_PKEY_CTX_free(ctx);
            EVP_PKEY_free(dkey);
            public_ops_agree(key, 1);
        }
        EVP_PKEY_free(key);
    }
}

/* "oeap" is OpenSSL's alias of "oaep" for encryption (read back as "oaep"). */
static void test_oeap_alias(void **state)
{
    const char *provs[] = { PQ_CTRSA, PQ_DEFAULT };
    char oeap[] = "oeap";

    (void)state;
    for (int i = 0; i < 2; i++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, rsa2048, provs[i]);
        OSSL_PARAM set[2] = {
            OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, oeap, 0),
            OSSL_PARAM_construct_end()
        };
        char mode[32] = "";
        OSSL_PARAM get[2] = {
            OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, mode,
                                             sizeof(mode)),
            OSSL_PARAM_construct_end()
        };
        int padding = 0;

        assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, set), 1);
        assert_int_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
        assert_string_equal(mode, "oaep");
        assert_true(EVP_PKEY_CTX_get_rsa_padding(ctx, &padding) > 0);
        assert_int_equal(padding, RSA_PKCS1_OAEP_PADDING);
        EVP_PKEY_CTX_free(ctx);
        /* (For signatures "oeap" is not a name; test_pad_mode_values.) */
    }
}

/* ---- pad-mode values, as the default provider reads them ---------------------------- */

/*
 * Each pad-mode value, as a name or an integer, set on both providers in each operation
 * and starting mode: the verdict (and the default's error code when it refuses), the mode
 * read back as an integer and as a name (and whether that raised), and what the operation
 * then does. The default provider (3.0 to 4.0) keeps the current mode for a signature
 * name it does not know ("oaep" included: OpenSSL 3.5's 15-test_rsax931 signs with
 * "pad-mode:oaep" and expects PKCS#1 v1.5), sets mode 0 for an asym-cipher name it does not
 * know ("pss" included, and "x931" from 3.4, where mode 5 also loses its name), takes every asym-cipher integer but PSS and refuses the signature
 * integers outside pkcs1, none, x931 and pss.
 */
typedef struct pm_value {
    const char *name;   /* NULL: the integer num */
    int num;
} pm_value;

static const pm_value pm_values[] = {
    { "pkcs1", 0 }, { "none", 0 }, { "oaep", 0 }, { "oeap", 0 }, { "x931", 0 }, { "pss", 0 },
    { "", 0 }, { "PKCS1", 0 }, { "pkcs1-tls", 0 }, { "bogus", 0 },
    { NULL, RSA_PKCS1_PADDING }, { NULL, RSA_NO_PADDING }, { NULL, RSA_PKCS1_OAEP_PADDING },
    { NULL, RSA_X931_PADDING }, { NULL, RSA_PKCS1_PSS_PADDING },
    { NULL, RSA_PKCS1_WITH_TLS_PADDING }, { NULL, 0 }, { NULL, 2 }, { NULL, 99 }, { NULL, -1 },
};

enum pm_op { PM_SIGN, PM_VERIFY_RECOVER, PM_ENCRYPT };

typedef struct pm_outcome {
    int set_ok;
    unsigned long set_err;      /* first error of a refused set, as lib and reason; 0: none */
    int mode;                   /* read back as an integer; -100 if that failed */
    int str_ok;
    char str[32];               /* read back as a name */
    unsigned long str_err;      /* the error that read raised, if any */
    int op_ok;                  /* the signature, or the encryption */
    int checked;                /* the signature verifies (default provider), or the
                                   ciphertext decrypts to the message (same provider) */
    unsigned char out[256];     /* the signature (pkcs1 and x931 are deterministic) */
    size_t outlen;
} pm_outcome;

static unsigned long pm_first_error(void)
{
    unsigned long e = ERR_peek_error();

    ERR_clear_error();
    return e == 0 ? 0 : ERR_PACK(ERR_GET_LIB(e), 0, ERR_GET_REASON(e));
}

static int pm_set(EVP_PKEY_CTX *ctx, const pm_value *v)
{
    int num = v->num;
    OSSL_PARAM p[2];

    p[0] = v->name != NULL
           ? OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_PAD_MODE, (char *)v->name, 0)
           : OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_PAD_MODE, &num);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, p);
}

static void pm_get(EVP_PKEY_CTX *ctx, pm_outcome *o)
{
    int mode = -100;
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_PAD_MODE, &mode),
                        OSSL_PARAM_construct_end() };

    ERR_clear_error();
    o->mode = EVP_PKEY_CTX_get_params(ctx, p) == 1 ? mode : -100;
    ERR_clear_error();
    p[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_PAD_MODE, o->str, sizeof(o->str));
    o->str_ok = EVP_PKEY_CTX_get_params(ctx, p);
    o->str_err = pm_first_error();
}

/* A context of provider pq for op on key, digest SHA-256 for signatures, start mode set. */
static EVP_PKEY_CTX *pm_ctx(EVP_PKEY *key, const char *pq, enum pm_op op, int start)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, pq);

    assert_non_null(ctx);
    switch (op) {
    case PM_SIGN:
        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        break;
    case PM_VERIFY_RECOVER:
        assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
        break;
    case PM_ENCRYPT:
        assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
        break;
    }
    if (op != PM_ENCRYPT)
        assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    if (start != 0)
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, start), 1);
    return ctx;
}

/* 1 if sig verifies with the default provider under mode and SHA-256. */
static int pm_verifies(EVP_PKEY *key, int mode, const unsigned char *tbs,
                       const unsigned char *sig, size_t siglen)
{
    EVP_PKEY_CTX *v = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, PQ_DEFAULT);
    int ok = v != NULL && EVP_PKEY_verify_init(v) == 1
             && EVP_PKEY_CTX_set_signature_md(v, EVP_sha256()) == 1
             && EVP_PKEY_CTX_set_rsa_padding(v, mode) == 1
             && EVP_PKEY_verify(v, sig, siglen, tbs, 32) == 1;

    EVP_PKEY_CTX_free(v);
    ERR_clear_error();
    return ok;
}

static void pm_run(EVP_PKEY *key, const char *pq, enum pm_op op, int start,
                   const pm_value *v, pm_outcome *o)
{
    unsigned char tbs[32], msg[256], ct[256], back[256];
    size_t ctlen = sizeof(ct), backlen = sizeof(back);
    EVP_PKEY_CTX *ctx = pm_ctx(key, pq, op, start), *d;

    memset(o, 0, sizeof(*o));
    memset(tbs, 0x5a, sizeof(tbs));
    ERR_clear_error();
    o->set_ok = pm_set(ctx, v);
    o->set_err = o->set_ok == 1 ? 0 : pm_first_error();
    ERR_clear_error();
    pm_get(ctx, o);
    if (op == PM_SIGN) {
        o->outlen = sizeof(o->out);
        o->op_ok = EVP_PKEY_sign(ctx, o->out, &o->outlen, tbs, sizeof(tbs)) == 1;
        o->checked = o->op_ok && pm_verifies(key, o->mode, tbs, o->out, o->outlen);
        if (!o->op_ok || o->mode == RSA_PKCS1_PSS_PADDING)
            o->outlen = 0;   /* PSS is randomised: only its verification is compared */
    } else if (op == PM_ENCRYPT) {
        /* 16 bytes; raw RSA needs k bytes below n */
        size_t mlen = o->mode == RSA_NO_PADDING ? sizeof(msg) : 16;

        memset(msg, 0x33, sizeof(msg));
        msg[0] = 0;
        o->op_ok = EVP_PKEY_encrypt(ctx, ct, &ctlen, msg, mlen) == 1;
        if (o->op_ok) {
            d = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, pq);
            assert_int_equal(EVP_PKEY_decrypt_init(d), 1);
            o->checked = pm_set(d, v) == 1
                         && EVP_PKEY_decrypt(d, back, &backlen, ct, ctlen) == 1
                         && backlen == mlen && memcmp(back, msg, mlen) == 0;
            EVP_PKEY_CTX_free(d);
        }
    }
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
}

static void pm_describe(char *buf, size_t size, const pm_value *v)
{
    if (v->name != NULL)
        snprintf(buf, size, "\"%s\"", v->name);
    else
        snprintf(buf, size, "%d", v->num);
}

/* Both providers on every value; returns the number of differences (each printed). */
static int pm_compare(EVP_PKEY *key, const char *what, enum pm_op op, int start)
{
    int diffs = 0;

    for (size_t i = 0; i < sizeof(pm_values) / sizeof(pm_values[0]); i++) {
        pm_outcome c, d;
        char val[32];
        int differ;

        pm_run(key, PQ_CTRSA, op, start, &pm_values[i], &c);
        pm_run(key, PQ_DEFAULT, op, start, &pm_values[i], &d);
        pm_describe(val, sizeof(val), &pm_values[i]);
        /*
         * After a refused set only the verdict and the error are compared: where the
         * default refuses "none" for a digest already set, it has stored the mode before
         * that check (its context is left in mode none, and the signature then fails),
         * while ctrsa's is left as it was (docs/compatibility.md).
         */
        differ = c.set_ok != d.set_ok || (d.set_err != 0 && c.set_err != d.set_err);
        differ = differ || (d.set_ok == 1 && (c.mode != d.mode || c.str_ok != d.str_ok || strcmp(c.str, d.str) != 0
                 || (c.str_err == 0) != (d.str_err == 0) || c.str_err != d.str_err
                 || c.op_ok != d.op_ok || c.checked != d.checked || c.outlen != d.outlen
                 || memcmp(c.out, d.out, c.outlen) != 0));
        fprintf(stderr, "%s%s, start %d, pad-mode %s: default set %d (err %lx), "
                "reads %d / \"%s\" (%d, err %lx), op %d, checked %d%s\n",
                differ ? "DIFFERENT: " : "", what, start, val, d.set_ok, d.set_err, d.mode,
                d.str, d.str_ok, d.str_err, d.op_ok, d.checked, d.outlen ? ", bytes" : "");
        if (differ) {
            fprintf(stderr, "    ctrsa: set %d (err %lx), reads %d / \"%s\" (%d, err %lx), "
                    "op %d, checked %d, %zu bytes%s\n", c.set_ok, c.set_err, c.mode, c.str,
                    c.str_ok, c.str_err, c.op_ok, c.checked, c.outlen,
                    c.outlen == d.outlen && memcmp(c.out, d.out, c.outlen) != 0
                        ? " (not the default's)" : "");
            diffs++;
        }
    }
    return diffs;
}

static void test_pad_mode_values(void **state)
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", PQ_DEFAULT);
    EVP_PKEY *pss = NULL;
    int diffs = 0;

    (void)state;
    assert_non_null(g);
    assert_int_equal(EVP_PKEY_keygen_init(g), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(g, 2048), 1);
    assert_int_equal(EVP_PKEY_generate(g, &pss), 1);
    EVP_PKEY_CTX_free(g);
    diffs += pm_compare(rsa2048, "sign", PM_SIGN, 0);
    diffs += pm_compare(rsa2048, "sign", PM_SIGN, RSA_PKCS1_PSS_PADDING);
    diffs += pm_compare(rsa2048, "sign", PM_SIGN, RSA_X931_PADDING);
    diffs += pm_compare(pss, "sign (RSA-PSS key)", PM_SIGN, 0);
    diffs += pm_compare(rsa2048, "verify-recover", PM_VERIFY_RECOVER, 0);
    diffs += pm_compare(rsa2048, "encrypt", PM_ENCRYPT, 0);
    diffs += pm_compare(rsa2048, "encrypt", PM_ENCRYPT, RSA_PKCS1_OAEP_PADDING);
    EVP_PKEY_free(pss);
    assert_int_equal(diffs, 0);
}

/*
 * An "RSA"-type import with RSA-PSS parameters: the default provider of OpenSSL 3.0 refuses
 * any restriction for a key that is not RSA-PSS and accepts "digest-props" alone; ctrsa
 * gives the same verdicts for every selection.
 */
/* ---- issue 21: PSS with no digest, MD5-SHA1 ------------------------------------------ */

/*
 * One signature over in[0..inlen) by provider `signer` and its verification by `verifier`,
 * with pad and digest (NULL: none set). 1 if both worked, each in the provider named.
 */
static int sign_then_verify(const char *signer, const char *verifier, int pad,
                            const char *digest, const unsigned char *in, size_t inlen)
{
    unsigned char sig[256];
    size_t siglen = sizeof(sig);
    char pq_sign[64], pq_verify[64];
    EVP_PKEY_CTX *s, *v;
    int ok;

    snprintf(pq_sign, sizeof(pq_sign), "provider=%s", signer);
    snprintf(pq_verify, sizeof(pq_verify), "provider=%s", verifier);
    s = EVP_PKEY_CTX_new_from_pkey(env.libctx, rsa2048, pq_sign);
    v = EVP_PKEY_CTX_new_from_pkey(env.libctx, rsa2048, pq_verify);
    ok = s != NULL && v != NULL && EVP_PKEY_sign_init(s) == 1 && EVP_PKEY_verify_init(v) == 1
         && EVP_PKEY_CTX_set_rsa_padding(s, pad) == 1 && EVP_PKEY_CTX_set_rsa_padding(v, pad) == 1
         && (digest == NULL
             || (EVP_PKEY_CTX_set_signature_md(s, EVP_get_digestbyname(digest)) == 1
                 && EVP_PKEY_CTX_set_signature_md(v, EVP_get_digestbyname(digest)) == 1))
         && EVP_PKEY_sign(s, sig, &siglen, in, inlen) == 1
         && EVP_PKEY_verify(v, sig, siglen, in, inlen) == 1
         && tu_ctx_in_named_provider(s, signer) && tu_ctx_in_named_provider(v, verifier);
    if (!ok) {
        fprintf(stderr, "%s signs, %s verifies, pad %d, digest %s: failed\n", signer,
                verifier, pad, digest != NULL ? digest : "(none)");
        tu_print_errors("sign_then_verify");
    }
    EVP_PKEY_CTX_free(s);
    EVP_PKEY_CTX_free(v);
    return ok;
}

/*
 * As the default provider: PSS with no digest set signs and verifies with SHA-1 (a 20-byte
 * input), and MD5-SHA1 (TLS 1.0/1.1's 36-byte hash) is a digest for PKCS#1 v1.5, bare,
 * without a DigestInfo, and for PSS. Each in both directions.
 */
static void test_pss_default_digest_and_md5_sha1(void **state)
{
    unsigned char in[36];
    static const char *const prov[2] = { "ctrsa", "default" };

    (void)state;
    memset(in, 0x5a, sizeof(in));
    for (int i = 0; i < 2; i++) {
        assert_true(sign_then_verify(prov[i], prov[1 - i], RSA_PKCS1_PSS_PADDING, NULL, in, 20));
        assert_true(sign_then_verify(prov[i], prov[1 - i], RSA_PKCS1_PADDING, "MD5-SHA1", in,
                                     36));
        assert_true(sign_then_verify(prov[i], prov[1 - i], RSA_PKCS1_PSS_PADDING, "MD5-SHA1",
                                     in, 36));
    }
}

static void test_rsa_import_with_pss_params(void **state)
{
    char sha256[] = "SHA256", sha1[] = "SHA1", mgf1[] = "MGF1", props[] = "provider=default";
    int salt = 20;
    const int selections[] = { EVP_PKEY_KEY_PARAMETERS, EVP_PKEY_PUBLIC_KEY, EVP_PKEY_KEYPAIR };
    OSSL_PARAM cases[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, sha256, 0),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, sha1, 0),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, sha256, 0),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, mgf1, 0),
        OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &salt),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST_PROPS, props, 0),
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (size_t s = 0; s < 3; s++) {
            OSSL_PARAM extra[2] = { cases[i], OSSL_PARAM_construct_end() };
            OSSL_PARAM *base;
            OSSL_PARAM *params = with_public(rsa2048, selections[s] == EVP_PKEY_KEYPAIR
                                                      ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                                             extra, &base);
            EVP_PKEY *d = from_params("RSA", PQ_DEFAULT, selections[s], params);
            EVP_PKEY *c = from_params("RSA", PQ_CTRSA, selections[s], params);

            if ((d != NULL) != (c != NULL))
                fprintf(stderr, "%s, selection %d: default %d, ctrsa %d\n", cases[i].key,
                        selections[s], d != NULL, c != NULL);
            assert_int_equal(d != NULL, c != NULL);
            assert_int_equal(d != NULL, i == 5);
            ERR_clear_error();
            EVP_PKEY_free(d);
            EVP_PKEY_free(c);
            release_merged(params, base);
        }
    }
}

/*
 * Recipe run (test_evp_libctx): a private operation with a public key. As the default
 * provider, every init succeeds (sign, decrypt, decapsulate) and the operation itself fails
 * with an error; a size query still answers.
 */
static void test_private_op_with_public_key(void **state)
{
    static const char *const pq[2] = { PQ_CTRSA, PQ_DEFAULT };
    unsigned char in[256], out[256];
    size_t outlen, outlen2;

    (void)state;
    memset(in, 0, sizeof(in));
    in[255] = 2;
    for (int i = 0; i < 2; i++) {
        OSSL_PARAM *base;
        OSSL_PARAM *params = with_public(rsa2048, EVP_PKEY_PUBLIC_KEY, NULL, &base);
        EVP_PKEY *pub = from_params("RSA", pq[i], EVP_PKEY_PUBLIC_KEY, params);
        EVP_PKEY_CTX *ctx;

        assert_non_null(pub);
        fprintf(stderr, "%s: ", pq[i]);
        /* sign */
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, pub, pq[i]);
        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
        outlen = 0;
        assert_int_equal(EVP_PKEY_sign(ctx, NULL, &outlen, in, sizeof(in)), 1);
        assert_int_equal(outlen, 256);
        outlen = sizeof(out);
        assert_true(EVP_PKEY_sign(ctx, out, &outlen, in, sizeof(in)) <= 0);
        assert_true(ERR_peek_error() != 0);
        ERR_clear_error();
        if (i == 0)
            assert_true(tu_ctx_in_named_provider(ctx, "ctrsa"));
        EVP_PKEY_CTX_free(ctx);
        /* decrypt */
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, pub, pq[i]);
        assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
        outlen = sizeof(out);
        assert_true(EVP_PKEY_decrypt(ctx, out, &outlen, in, sizeof(in)) <= 0);
        assert_true(ERR_peek_error() != 0);
        ERR_clear_error();
        EVP_PKEY_CTX_free(ctx);
        /* decapsulate (RSASVE) */
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, pub, pq[i]);
        assert_int_equal(EVP_PKEY_decapsulate_init(ctx, NULL), 1);
        assert_int_equal(EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE"), 1);
        outlen2 = sizeof(out);
        assert_true(EVP_PKEY_decapsulate(ctx, out, &outlen2, in, sizeof(in)) <= 0);
        assert_true(ERR_peek_error() != 0);
        ERR_clear_error();
        EVP_PKEY_CTX_free(ctx);
        fprintf(stderr, "init accepted, operations refused\n");
        EVP_PKEY_free(pub);
        release_merged(params, base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pss_mgf1_without_oid),
        cmocka_unit_test(test_pss_restriction_sha3),
        cmocka_unit_test(test_huge_e_refused_fast),
        cmocka_unit_test(test_e_bound_edges),
        cmocka_unit_test(test_utf8_within_data_size),
        cmocka_unit_test(test_composite_prime_raises),
        cmocka_unit_test(test_primes_one_mod_2_64),
        cmocka_unit_test(test_getter_failures_raise),
        cmocka_unit_test(test_public_check_like_default),
        cmocka_unit_test(test_keygen_512),
        cmocka_unit_test(test_oeap_alias),
        cmocka_unit_test(test_pad_mode_values),
        cmocka_unit_test(test_rsa_import_with_pss_params),
        cmocka_unit_test(test_pss_default_digest_and_md5_sha1),
        cmocka_unit_test(test_private_op_with_public_key),
    };
    int failed;

    if (getenv("CTRSA_TEST_FILTER") != NULL)   /* one test by name, e.g. to see it fail */
        cmocka_set_test_filter(getenv("CTRSA_TEST_FILTER"));
    if (!tu_env_init(&env))
        return 1;
    rsa2048 = EVP_PKEY_Q_keygen(env.libctx, PQ_DEFAULT, "RSA", (size_t)2048);
    if (rsa2048 == NULL)
        return 1;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    EVP_PKEY_free(rsa2048);
    tu_env_free(&env);
    return failed;
}
