/*
 * End-to-end tests of the message signature algorithms of OpenSSL 3.4+ (RSA-SHA2-256 and
 * the others: PKCS#1 v1.5 with a fixed digest), against the default provider's own:
 *
 *  - every algorithm is fetched from the provider under test by its name, its aliases and
 *    its OID, and a program that merely prefers ctrsa ("?provider=ctrsa") gets ctrsa's;
 *  - sign-message one-shot and streamed (uneven chunks) in the provider under test gives the
 *    default provider's signature byte for byte (PKCS#1 v1.5 is deterministic), which the
 *    default provider verifies; the default provider's signatures verify in the provider
 *    under test, one-shot and streamed with the signature set as a parameter; every
 *    operation is checked to have run where it should (EVP_PKEY_CTX_get0_provider);
 *  - sign/verify/verify-recover initialised with the algorithm (EVP_PKEY_sign_init_ex2...)
 *    work on a digest as the default provider's do;
 *  - a duplicated context mid-stream finishes like the original;
 *  - bad input fails with a reason: a tampered message or signature, verify-message-final
 *    without a signature, an update or final after the final, a one-shot after an update,
 *    a digest of the wrong length, an RSA-PSS key.
 *
 * Built against headers older than 3.4 (no message API to call) or run on a libcrypto older
 * than 3.4, the message tests skip with a message, and one check still runs: the provider
 * under test offers no RSA-SHA* algorithm on a core that could not drive it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "testutil.h"

#if OPENSSL_VERSION_NUMBER >= 0x30400000L
#define HAVE_MESSAGE_API 1
#endif

#define MAX_SIG 512

static tu_env env;
static EVP_PKEY *oracle_key;  /* default provider, 2048 bits */
static EVP_PKEY *ut_priv, *ut_pub;
static EVP_PKEY *oracle_pss;  /* an RSA-PSS key, for the refusal */
static EVP_PKEY *ut_pss;

/* The algorithms, each with its digest and every name the default provider gives it. */
static const struct alg {
    const char *name, *digest;
    const char *aliases[3];
} algs[] = {
    { "RSA-SHA1", "SHA1", { "RSA-SHA-1", "sha1WithRSAEncryption", "1.2.840.113549.1.1.5" } },
    { "RSA-SHA2-224", "SHA2-224",
      { "RSA-SHA224", "sha224WithRSAEncryption", "1.2.840.113549.1.1.14" } },
    { "RSA-SHA2-256", "SHA2-256",
      { "RSA-SHA256", "sha256WithRSAEncryption", "1.2.840.113549.1.1.11" } },
    { "RSA-SHA2-384", "SHA2-384",
      { "RSA-SHA384", "sha384WithRSAEncryption", "1.2.840.113549.1.1.12" } },
    { "RSA-SHA2-512", "SHA2-512",
      { "RSA-SHA512", "sha512WithRSAEncryption", "1.2.840.113549.1.1.13" } },
    { "RSA-SHA2-512/224", "SHA2-512/224",
      { "RSA-SHA512-224", "sha512-224WithRSAEncryption", "1.2.840.113549.1.1.15" } },
    { "RSA-SHA2-512/256", "SHA2-512/256",
      { "RSA-SHA512-256", "sha512-256WithRSAEncryption", "1.2.840.113549.1.1.16" } },
    { "RSA-SHA3-224", "SHA3-224",
      { "id-rsassa-pkcs1-v1_5-with-sha3-224", "2.16.840.1.101.3.4.3.13", NULL } },
    { "RSA-SHA3-256", "SHA3-256",
      { "id-rsassa-pkcs1-v1_5-with-sha3-256", "2.16.840.1.101.3.4.3.14", NULL } },
    { "RSA-SHA3-384", "SHA3-384",
      { "id-rsassa-pkcs1-v1_5-with-sha3-384", "2.16.840.1.101.3.4.3.15", NULL } },
    { "RSA-SHA3-512", "SHA3-512",
      { "id-rsassa-pkcs1-v1_5-with-sha3-512", "2.16.840.1.101.3.4.3.16", NULL } },
    { "RSA-RIPEMD160", "RIPEMD-160", { "ripemd160WithRSA", "1.3.36.3.3.1.2", NULL } },
    { "RSA-SM3", "SM3", { "sm3WithRSAEncryption", "1.2.156.10197.1.504", NULL } },
};
#define N_ALGS (sizeof(algs) / sizeof(algs[0]))

static int running_has_message_api(void)
{
    return OpenSSL_version_num() >= 0x30400000L;
}

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    oracle_key = EVP_PKEY_Q_keygen(env.libctx, TU_PROPQ_DEFAULT, "RSA", (size_t)2048);
    {
        EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", TU_PROPQ_DEFAULT);

        if (g == NULL || EVP_PKEY_keygen_init(g) != 1
            || EVP_PKEY_CTX_set_rsa_keygen_bits(g, 2048) != 1
            || EVP_PKEY_generate(g, &oracle_pss) != 1)
            tu_print_errors("RSA-PSS key");
        EVP_PKEY_CTX_free(g);
    }
    if (oracle_key == NULL || oracle_pss == NULL)
        return -1;
    ut_priv = tu_pkey_copy_to(env.libctx, oracle_key, 1, tu_provider_name());
    ut_pub = tu_pkey_copy_to(env.libctx, oracle_key, 0, tu_provider_name());
    ut_pss = tu_pkey_copy_to(env.libctx, oracle_pss, 1, tu_provider_name());
    return ut_priv != NULL && ut_pub != NULL && ut_pss != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(ut_pss);
    EVP_PKEY_free(ut_pub);
    EVP_PKEY_free(ut_priv);
    EVP_PKEY_free(oracle_pss);
    EVP_PKEY_free(oracle_key);
    tu_env_free(&env);
    return 0;
}

/* On a core older than 3.4, no RSA-SHA* algorithm comes from the provider under test. */
static void test_offered_only_where_usable(void **state)
{
    size_t i;

    (void)state;
    if (running_has_message_api()) {
        fprintf(stderr, "skipped: libcrypto %s has the message API; the tests below cover it\n",
                OpenSSL_version(OPENSSL_VERSION_STRING));
        skip();
    }
    for (i = 0; i < N_ALGS; i++) {
        EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(env.libctx, algs[i].name, tu_propq());

        if (s != NULL)
            fail_msg("%s is offered by %s on OpenSSL %s, which cannot drive it", algs[i].name,
                     tu_provider_name(), OpenSSL_version(OPENSSL_VERSION_STRING));
    }
    ERR_clear_error();
}

#ifdef HAVE_MESSAGE_API

#define SKIP_IF_OLD()                                                                        \
    do {                                                                                     \
        if (!running_has_message_api()) {                                                    \
            fprintf(stderr, "skipped: libcrypto %s has no message signature API (3.4+)\n", \
                    OpenSSL_version(OPENSSL_VERSION_STRING));                                \
            skip();                                                                          \
        }                                                                                    \
    } while (0)

/* A message of len bytes, the same every run. */
static void fill(unsigned char *m, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++)
        m[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 8));
}

static EVP_SIGNATURE *fetch(const char *name, const char *propq)
{
    EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(env.libctx, name, propq);

    if (s == NULL) {
        tu_print_errors(name);
        fail_msg("%s not found with \"%s\"", name, propq);
    }
    return s;
}

/* 1 if ctx ran in the provider the test meant (under test when ut, else default). */
static void check_where(const EVP_PKEY_CTX *ctx, int ut, const char *what)
{
    if (ut ? !tu_ctx_in_provider(ctx) : !tu_ctx_in_named_provider(ctx, "default"))
        fail_msg("%s ran in the wrong provider", what);
}

/* sig := the signature of msg with alg in the provider under test (ut) or the default one.
 * chunk 0: one-shot EVP_PKEY_sign; else updates of chunk, chunk+1, ... bytes and a final. */
static size_t sign_msg(const struct alg *a, int ut, const unsigned char *msg, size_t len,
                       size_t chunk, unsigned char *sig)
{
    EVP_SIGNATURE *s = fetch(a->name, ut ? tu_propq() : TU_PROPQ_DEFAULT);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut ? ut_priv : oracle_key,
                                                   ut ? tu_propq() : TU_PROPQ_DEFAULT);
    size_t siglen = 0, off = 0;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_sign_message_init(ctx, s, NULL), 1);
    check_where(ctx, ut, a->name);
    if (chunk == 0) {
        assert_int_equal(EVP_PKEY_sign(ctx, NULL, &siglen, msg, len), 1);
        assert_true(siglen <= MAX_SIG);
        assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, msg, len), 1);
    } else {
        while (off < len) {
            size_t n = len - off < chunk ? len - off : chunk;

            assert_int_equal(EVP_PKEY_sign_message_update(ctx, msg + off, n), 1);
            off += n;
            chunk++;
        }
        assert_int_equal(EVP_PKEY_sign_message_final(ctx, NULL, &siglen), 1);
        assert_true(siglen <= MAX_SIG);
        assert_int_equal(EVP_PKEY_sign_message_final(ctx, sig, &siglen), 1);
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_SIGNATURE_free(s);
    return siglen;
}

/* 1 if sig verifies for msg with alg; one-shot (chunk 0) or streamed with set_signature. */
static int verify_msg(const struct alg *a, int ut, const unsigned char *msg, size_t len,
                      size_t chunk, const unsigned char *sig, size_t siglen)
{
    EVP_SIGNATURE *s = fetch(a->name, ut ? tu_propq() : TU_PROPQ_DEFAULT);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut ? ut_pub : oracle_key,
                                                   ut ? tu_propq() : TU_PROPQ_DEFAULT);
    size_t off = 0;
    int ok = 1;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_verify_message_init(ctx, s, NULL), 1);
    check_where(ctx, ut, a->name);
    if (chunk == 0) {
        ok = EVP_PKEY_verify(ctx, sig, siglen, msg, len) == 1;
    } else {
        assert_int_equal(EVP_PKEY_CTX_set_signature(ctx, sig, siglen), 1);
        while (off < len && ok) {
            size_t n = len - off < chunk ? len - off : chunk;

            ok = EVP_PKEY_verify_message_update(ctx, msg + off, n) == 1;
            off += n;
            chunk++;
        }
        ok = ok && EVP_PKEY_verify_message_final(ctx) == 1;
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_SIGNATURE_free(s);
    return ok;
}

static void test_fetch_by_every_name(void **state)
{
    size_t i, j;

    (void)state;
    SKIP_IF_OLD();
    for (i = 0; i < N_ALGS; i++) {
        EVP_SIGNATURE *s = fetch(algs[i].name, tu_propq());

        assert_string_equal(OSSL_PROVIDER_get0_name(EVP_SIGNATURE_get0_provider(s)),
                            tu_provider_name());
        for (j = 0; j < 3 && algs[i].aliases[j] != NULL; j++) {
            EVP_SIGNATURE *t = fetch(algs[i].aliases[j], tu_propq());

            if (!EVP_SIGNATURE_is_a(t, algs[i].name))
                fail_msg("%s is not %s", algs[i].aliases[j], algs[i].name);
            assert_ptr_equal(EVP_SIGNATURE_get0_provider(t), EVP_SIGNATURE_get0_provider(s));
            EVP_SIGNATURE_free(t);
        }
        EVP_SIGNATURE_free(s);
    }
}

/* A program that only prefers ctrsa (as provider.cnf's users do) gets ctrsa's algorithm. */
static void test_preferred_provider_serves(void **state)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *ut, *def;
    char propq[64];
    size_t i;

    (void)state;
    SKIP_IF_OLD();
    if (env.under_test == NULL)
        skip(); /* the provider under test is the default one */
    assert_non_null(lib);
    assert_true(OSSL_PROVIDER_set_default_search_path(lib, getenv("CTRSA_MODULE_DIR")));
    def = OSSL_PROVIDER_load(lib, "default");
    ut = OSSL_PROVIDER_load(lib, tu_provider_name());
    assert_non_null(def);
    assert_non_null(ut);
    snprintf(propq, sizeof(propq), "?provider=%s", tu_provider_name());
    assert_true(EVP_set_default_properties(lib, propq));
    for (i = 0; i < N_ALGS; i++) {
        EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(lib, algs[i].name, NULL);

        assert_non_null(s);
        if (EVP_SIGNATURE_get0_provider(s) != ut)
            fail_msg("%s preferring %s came from %s", algs[i].name, tu_provider_name(),
                     OSSL_PROVIDER_get0_name(EVP_SIGNATURE_get0_provider(s)));
        EVP_SIGNATURE_free(s);
    }
    OSSL_PROVIDER_unload(ut);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(lib);
}

static void test_both_directions(void **state)
{
    static const size_t lens[] = { 0, 1, 55, 64, 1000, 4099 };
    static const size_t chunks[] = { 0, 1, 7, 200 };
    unsigned char msg[4099], ut_sig[MAX_SIG], def_sig[MAX_SIG];
    size_t i, l, ch;

    (void)state;
    SKIP_IF_OLD();
    for (i = 0; i < N_ALGS; i++) {
        for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            size_t len = lens[l], ut_len, def_len;

            fill(msg, len, (unsigned)(i + l));
            def_len = sign_msg(&algs[i], 0, msg, len, 0, def_sig);
            for (ch = 0; ch < sizeof(chunks) / sizeof(chunks[0]); ch++) {
                if (chunks[ch] != 0 && len == 0)
                    continue;
                ut_len = sign_msg(&algs[i], 1, msg, len, chunks[ch], ut_sig);
                if (ut_len != def_len || memcmp(ut_sig, def_sig, def_len) != 0)
                    fail_msg("%s, %zu-byte message, chunks %zu: the signature differs from "
                             "the default provider's", algs[i].name, len, chunks[ch]);
                if (!verify_msg(&algs[i], 0, msg, len, chunks[ch], ut_sig, ut_len))
                    fail_msg("%s: the default provider rejects ours", algs[i].name);
                if (!verify_msg(&algs[i], 1, msg, len, chunks[ch], def_sig, def_len))
                    fail_msg("%s, %zu bytes, chunks %zu: ours rejects the default provider's",
                             algs[i].name, len, chunks[ch]);
            }
        }
    }
}

/* Initialised with the algorithm but on a digest: sign, verify and verify-recover. */
static void test_on_a_digest(void **state)
{
    unsigned char msg[100], md[EVP_MAX_MD_SIZE], sig[MAX_SIG], want[MAX_SIG];
    unsigned char rec[MAX_SIG];
    unsigned int mdlen = 0;
    size_t i, siglen, wantlen, reclen;

    (void)state;
    SKIP_IF_OLD();
    fill(msg, sizeof(msg), 3);
    for (i = 0; i < N_ALGS; i++) {
        EVP_SIGNATURE *s = fetch(algs[i].name, tu_propq());
        EVP_PKEY_CTX *ctx;
        EVP_MD *m = EVP_MD_fetch(env.libctx, algs[i].digest, TU_PROPQ_DEFAULT);
        assert_non_null(m);
        assert_int_equal(EVP_Digest(msg, sizeof(msg), md, &mdlen, m, NULL), 1);
        EVP_MD_free(m);
        wantlen = sign_msg(&algs[i], 0, msg, sizeof(msg), 0, want);

        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_priv, tu_propq());
        assert_int_equal(EVP_PKEY_sign_init_ex2(ctx, s, NULL), 1);
        check_where(ctx, 1, algs[i].name);
        siglen = sizeof(sig);
        assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, md, mdlen), 1);
        assert_int_equal(siglen, wantlen);
        assert_memory_equal(sig, want, wantlen);
        /* A digest of the wrong length is refused with a reason. */
        siglen = sizeof(sig);
        assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, md, mdlen - 1), 1);
        assert_true(tu_error_with_reason());
        EVP_PKEY_CTX_free(ctx);

        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pub, tu_propq());
        assert_int_equal(EVP_PKEY_verify_init_ex2(ctx, s, NULL), 1);
        check_where(ctx, 1, algs[i].name);
        assert_int_equal(EVP_PKEY_verify(ctx, want, wantlen, md, mdlen), 1);
        md[0] ^= 1;
        assert_int_not_equal(EVP_PKEY_verify(ctx, want, wantlen, md, mdlen), 1);
        assert_true(tu_error_with_reason());
        md[0] ^= 1;
        EVP_PKEY_CTX_free(ctx);

        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pub, tu_propq());
        assert_int_equal(EVP_PKEY_verify_recover_init_ex2(ctx, s, NULL), 1);
        check_where(ctx, 1, algs[i].name);
        reclen = sizeof(rec);
        assert_int_equal(EVP_PKEY_verify_recover(ctx, rec, &reclen, want, wantlen), 1);
        assert_int_equal(reclen, mdlen);
        assert_memory_equal(rec, md, mdlen);
        EVP_PKEY_CTX_free(ctx);
        EVP_SIGNATURE_free(s);
    }
}

static void test_dup_mid_stream(void **state)
{
    const struct alg *a = &algs[2];
    unsigned char msg[300], sig1[MAX_SIG], sig2[MAX_SIG], want[MAX_SIG];
    size_t l1 = sizeof(sig1), l2 = sizeof(sig2), wl;
    EVP_SIGNATURE *s;
    EVP_PKEY_CTX *ctx, *dup;

    (void)state;
    SKIP_IF_OLD();
    fill(msg, sizeof(msg), 9);
    wl = sign_msg(a, 0, msg, sizeof(msg), 0, want);
    s = fetch(a->name, tu_propq());
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_priv, tu_propq());
    assert_int_equal(EVP_PKEY_sign_message_init(ctx, s, NULL), 1);
    assert_int_equal(EVP_PKEY_sign_message_update(ctx, msg, 100), 1);
    dup = EVP_PKEY_CTX_dup(ctx);
    assert_non_null(dup);
    assert_int_equal(EVP_PKEY_sign_message_update(ctx, msg + 100, 200), 1);
    assert_int_equal(EVP_PKEY_sign_message_update(dup, msg + 100, 200), 1);
    assert_int_equal(EVP_PKEY_sign_message_final(ctx, sig1, &l1), 1);
    assert_int_equal(EVP_PKEY_sign_message_final(dup, sig2, &l2), 1);
    check_where(dup, 1, "duplicate");
    assert_int_equal(l1, wl);
    assert_int_equal(l2, wl);
    assert_memory_equal(sig1, want, wl);
    assert_memory_equal(sig2, want, wl);
    EVP_PKEY_CTX_free(dup);
    EVP_PKEY_CTX_free(ctx);
    EVP_SIGNATURE_free(s);
}

static void test_errors(void **state)
{
    const struct alg *a = &algs[2];
    unsigned char msg[64], sig[MAX_SIG];
    size_t siglen;
    EVP_SIGNATURE *s;
    EVP_PKEY_CTX *ctx;

    (void)state;
    SKIP_IF_OLD();
    fill(msg, sizeof(msg), 5);
    siglen = sign_msg(a, 1, msg, sizeof(msg), 0, sig);
    s = fetch(a->name, tu_propq());

    /* A tampered message, a tampered signature, a short signature. */
    msg[10] ^= 0x40;
    assert_false(verify_msg(a, 1, msg, sizeof(msg), 0, sig, siglen));
    assert_true(tu_error_with_reason());
    assert_false(verify_msg(a, 1, msg, sizeof(msg), 5, sig, siglen));
    assert_true(tu_error_with_reason());
    msg[10] ^= 0x40;
    sig[siglen - 1] ^= 1;
    assert_false(verify_msg(a, 1, msg, sizeof(msg), 0, sig, siglen));
    assert_true(tu_error_with_reason());
    sig[siglen - 1] ^= 1;
    assert_false(verify_msg(a, 1, msg, sizeof(msg), 0, sig, siglen - 1));
    assert_true(tu_error_with_reason());
    assert_true(verify_msg(a, 1, msg, sizeof(msg), 0, sig, siglen));

    /* verify-message-final without a signature. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pub, tu_propq());
    assert_int_equal(EVP_PKEY_verify_message_init(ctx, s, NULL), 1);
    assert_int_equal(EVP_PKEY_verify_message_update(ctx, msg, sizeof(msg)), 1);
    assert_int_not_equal(EVP_PKEY_verify_message_final(ctx), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);

    /* After a final: no update, no second final; a one-shot after an update. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_priv, tu_propq());
    assert_int_equal(EVP_PKEY_sign_message_init(ctx, s, NULL), 1);
    assert_int_equal(EVP_PKEY_sign_message_update(ctx, msg, sizeof(msg)), 1);
    siglen = sizeof(sig);
    assert_int_not_equal(EVP_PKEY_sign(ctx, sig, &siglen, msg, sizeof(msg)), 1);
    assert_true(tu_error_with_reason());
    siglen = sizeof(sig);
    assert_int_equal(EVP_PKEY_sign_message_final(ctx, sig, &siglen), 1);
    assert_int_not_equal(EVP_PKEY_sign_message_update(ctx, msg, sizeof(msg)), 1);
    assert_true(tu_error_with_reason());
    siglen = sizeof(sig);
    assert_int_not_equal(EVP_PKEY_sign_message_final(ctx, sig, &siglen), 1);
    assert_true(tu_error_with_reason());
    /* A new init starts over. */
    assert_int_equal(EVP_PKEY_sign_message_init(ctx, s, NULL), 1);
    siglen = sizeof(sig);
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, msg, sizeof(msg)), 1);
    EVP_PKEY_CTX_free(ctx);

    /* An RSA-PSS key does not take a PKCS#1 v1.5 algorithm. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pss, tu_propq());
    assert_non_null(ctx);
    assert_int_not_equal(EVP_PKEY_sign_message_init(ctx, s, NULL), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);
    EVP_SIGNATURE_free(s);
}

#else /* headers older than 3.4 */

static void test_message_api_absent(void **state)
{
    (void)state;
    fprintf(stderr, "skipped: built against OpenSSL %s headers, which have no message "
            "signature API (3.4+)\n", OPENSSL_VERSION_STR);
    skip();
}

#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offered_only_where_usable),
#ifdef HAVE_MESSAGE_API
        cmocka_unit_test(test_fetch_by_every_name),
        cmocka_unit_test(test_preferred_provider_serves),
        cmocka_unit_test(test_both_directions),
        cmocka_unit_test(test_on_a_digest),
        cmocka_unit_test(test_dup_mid_stream),
        cmocka_unit_test(test_errors),
#else
        cmocka_unit_test(test_message_api_absent),
#endif
    };

    return cmocka_run_group_tests_name("message_sig", tests, setup, teardown);
}
