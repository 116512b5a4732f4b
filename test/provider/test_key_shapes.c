/*
 * Keys without their CRT values, and the other shapes of private key numbers (issue 21,
 * item 6), each imported by the provider under test and by the default provider of the
 * running OpenSSL, which is the oracle: the same import verdict; then, for a key both
 * import, the same PKCS#1 v1.5 signature byte for byte, the same OAEP decryption, the same
 * exported numbers (a key imported without dP, dQ, qInv exports without them, as the
 * default does), and a duplicate that signs the same. Every operation must have run in the
 * provider under test. Also: a legacy RSA object made with RSA_set0_key + RSA_set0_factors
 * used through EVP (OpenSSL exports it to the provider as n, e, d, p, q), and 24 random keys
 * (1024 to 2048 bits, e of 3, 17 or 65537, d modulo lambda(n) or phi(n), p above or below q)
 * imported with n, e, d, p and q only. And rsa-derive-from-pq (OpenSSL 3.3's request for the
 * CRT values, which 3.0 to 3.2 ignore): its shapes, and the steps of OpenSSL 3.5's
 * test_fromdata_rsa_derive_from_pq_sp800 and _multiprime on their keys, in both providers.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* RSA_set0_key and RSA_set0_factors: the legacy path */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "testutil.h"

/* OpenSSL 3.3's name, absent from older headers (the core passes the name through). */
#ifndef OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ
#define OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ "rsa-derive-from-pq"
#endif

static tu_env env;

/* The numbers of one key: n, e, d, up to three factors, exponents, two coefficients. */
typedef struct key_numbers {
    BIGNUM *n, *e, *d, *f[3], *x[3], *c[2];
} key_numbers;

static key_numbers two, three;

static void numbers_free(key_numbers *k)
{
    BN_free(k->n);
    BN_free(k->e);
    BN_clear_free(k->d);
    for (int i = 0; i < 3; i++) {
        BN_clear_free(k->f[i]);
        BN_clear_free(k->x[i]);
    }
    BN_clear_free(k->c[0]);
    BN_clear_free(k->c[1]);
    memset(k, 0, sizeof(*k));
}

/* A key of `bits` bits, `primes` primes and public exponent e from the default provider. */
static void numbers_generate(key_numbers *k, int bits, int primes, unsigned long e)
{
    static const char *const fn[] = { OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
                                      OSSL_PKEY_PARAM_RSA_FACTOR3 };
    static const char *const xn[] = { OSSL_PKEY_PARAM_RSA_EXPONENT1,
                                      OSSL_PKEY_PARAM_RSA_EXPONENT2,
                                      OSSL_PKEY_PARAM_RSA_EXPONENT3 };
    static const char *const cn[] = { OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
                                      OSSL_PKEY_PARAM_RSA_COEFFICIENT2 };
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    EVP_PKEY *key = NULL;
    BIGNUM *be = BN_new();

    memset(k, 0, sizeof(*k));
    assert_non_null(ctx);
    assert_int_equal(BN_set_word(be, e), 1);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_primes(ctx, primes), 1);
    assert_int_equal(EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx, be), 1);
    assert_int_equal(EVP_PKEY_generate(ctx, &key), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &k->n), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &k->e), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_D, &k->d), 1);
    for (int i = 0; i < primes; i++) {
        assert_int_equal(EVP_PKEY_get_bn_param(key, fn[i], &k->f[i]), 1);
        assert_int_equal(EVP_PKEY_get_bn_param(key, xn[i], &k->x[i]), 1);
        if (i > 0)
            assert_int_equal(EVP_PKEY_get_bn_param(key, cn[i - 1], &k->c[i - 1]), 1);
    }
    BN_free(be);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
}

/* rsa-derive-from-pq in a key's parameters: absent, the int 1 or 0, or the string "1". */
enum derive_param { NO_DERIVE_PARAM = 0, DERIVE_1, DERIVE_0, DERIVE_STRING };

/*
 * Parameters from a spec, one letter a number: n e d; p q r = rsa-factor1..3, Q = q given
 * as rsa-factor3 (a numbering gap); a b c = rsa-exponent1..3; i j = rsa-coefficient1..2;
 * then rsa-derive-from-pq as `derive` says.
 */
static OSSL_PARAM *params_with(const key_numbers *k, const char *spec, enum derive_param derive)
{
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;

    assert_non_null(bld);
    for (const char *s = spec; *s != '\0'; s++) {
        const char *name = NULL;
        const BIGNUM *v = NULL;

        switch (*s) {
        case 'n': name = OSSL_PKEY_PARAM_RSA_N; v = k->n; break;
        case 'e': name = OSSL_PKEY_PARAM_RSA_E; v = k->e; break;
        case 'd': name = OSSL_PKEY_PARAM_RSA_D; v = k->d; break;
        case 'p': name = OSSL_PKEY_PARAM_RSA_FACTOR1; v = k->f[0]; break;
        case 'q': name = OSSL_PKEY_PARAM_RSA_FACTOR2; v = k->f[1]; break;
        case 'r': name = OSSL_PKEY_PARAM_RSA_FACTOR3; v = k->f[2]; break;
        case 'Q': name = OSSL_PKEY_PARAM_RSA_FACTOR3; v = k->f[1]; break;
        case 'a': name = OSSL_PKEY_PARAM_RSA_EXPONENT1; v = k->x[0]; break;
        case 'b': name = OSSL_PKEY_PARAM_RSA_EXPONENT2; v = k->x[1]; break;
        case 'c': name = OSSL_PKEY_PARAM_RSA_EXPONENT3; v = k->x[2]; break;
        case 'i': name = OSSL_PKEY_PARAM_RSA_COEFFICIENT1; v = k->c[0]; break;
        case 'j': name = OSSL_PKEY_PARAM_RSA_COEFFICIENT2; v = k->c[1]; break;
        default: fail_msg("bad spec letter %c", *s);
        }
        assert_non_null(v);
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, name, v), 1);
    }
    if (derive == DERIVE_1 || derive == DERIVE_0)
        assert_int_equal(OSSL_PARAM_BLD_push_int(bld, OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ,
                                                 derive == DERIVE_1), 1);
    else if (derive == DERIVE_STRING)
        assert_int_equal(OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ,
                                                         "1", 0), 1);
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
    OSSL_PARAM_BLD_free(bld);
    return params;
}

static OSSL_PARAM *params_of(const key_numbers *k, const char *spec)
{
    return params_with(k, spec, NO_DERIVE_PARAM);
}

/*
 * OpenSSL 3.0's default provider leaks the CRT values it drops from a partial set (the
 * BIGNUMs ossl_rsa_fromdata collected): in the ASan build, LeakSanitizer ignores what is
 * allocated during the oracle's import, and only there (the provider under test's import is
 * a separate call, still checked).
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define ORACLE_LEAKS_IGNORED_BEGIN(oracle) do { if (oracle) __lsan_disable(); } while (0)
#define ORACLE_LEAKS_IGNORED_END(oracle) do { if (oracle) __lsan_enable(); } while (0)
#else
#define ORACLE_LEAKS_IGNORED_BEGIN(oracle) ((void)(oracle))
#define ORACLE_LEAKS_IGNORED_END(oracle) ((void)(oracle))
#endif

static EVP_PKEY *import(const OSSL_PARAM *params, const char *propq)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    EVP_PKEY *key = NULL;
    int oracle = strcmp(propq, TU_PROPQ_DEFAULT) == 0 && strcmp(tu_propq(), propq) != 0;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    ORACLE_LEAKS_IGNORED_BEGIN(oracle);
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, (OSSL_PARAM *)params) != 1)
        key = NULL;
    ORACLE_LEAKS_IGNORED_END(oracle);
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/* A PKCS#1 v1.5 SHA-256 signature of a fixed digest; in_test: must run in the provider
 * under test. *len := its length. */
static void sign(EVP_PKEY *key, const char *propq, int in_test, unsigned char *sig,
                 size_t *len)
{
    unsigned char md[32];
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);

    memset(md, 0x5a, sizeof(md));
    assert_non_null(ctx);
    if (EVP_PKEY_sign_init(ctx) != 1
        || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) != 1
        || EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) != 1
        || EVP_PKEY_sign(ctx, sig, len, md, sizeof(md)) != 1) {
        tu_print_errors("sign");
        fail_msg("signing failed");
    }
    if (in_test)
        assert_true(tu_ctx_in_provider(ctx));
    EVP_PKEY_CTX_free(ctx);
}

/* OAEP-decrypt (in the provider under test) what the default provider encrypted to key. */
static void decrypt_check(EVP_PKEY *key)
{
    static const unsigned char msg[] = "a key without its CRT values";
    unsigned char ct[2048], pt[2048];
    size_t clen = sizeof(ct), plen = sizeof(pt);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, TU_PROPQ_DEFAULT);

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &clen, msg, sizeof(msg)), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    if (EVP_PKEY_decrypt(ctx, pt, &plen, ct, clen) != 1) {
        tu_print_errors("decrypt");
        fail_msg("decryption failed");
    }
    assert_true(tu_ctx_in_provider(ctx));
    assert_int_equal(plen, sizeof(msg));
    assert_memory_equal(pt, msg, sizeof(msg));
    EVP_PKEY_CTX_free(ctx);
}

/* Both keys export the same private numbers, with the same values, and lack the same ones. */
static void same_numbers(const EVP_PKEY *want, const EVP_PKEY *got)
{
    static const char *const names[] = {
        OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
        OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_FACTOR3,
        OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
        OSSL_PKEY_PARAM_RSA_EXPONENT3, OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
        OSSL_PKEY_PARAM_RSA_COEFFICIENT2,
    };
    OSSL_PARAM *wp = NULL, *gp = NULL;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        BIGNUM *w = NULL, *g = NULL;
        int hw = EVP_PKEY_get_bn_param(want, names[i], &w);
        int hg = EVP_PKEY_get_bn_param(got, names[i], &g);

        if (hw != hg || (hw && BN_cmp(w, g) != 0))
            fail_msg("%s: the default provider has %s, the provider under test %s", names[i],
                     hw ? "it" : "none", hg ? (hw ? "another value" : "one") : "none");
        BN_clear_free(w);
        BN_clear_free(g);
    }
    ERR_clear_error();
    /* and the export (EVP_PKEY_todata): the same parameter names */
    assert_int_equal(EVP_PKEY_todata(want, EVP_PKEY_KEYPAIR, &wp), 1);
    assert_int_equal(EVP_PKEY_todata(got, EVP_PKEY_KEYPAIR, &gp), 1);
    for (const OSSL_PARAM *p = wp; p->key != NULL; p++)
        if (OSSL_PARAM_locate(gp, p->key) == NULL)
            fail_msg("export lacks %s", p->key);
    for (const OSSL_PARAM *p = gp; p->key != NULL; p++)
        if (OSSL_PARAM_locate(wp, p->key) == NULL)
            fail_msg("export has %s, which the default provider does not export", p->key);
    OSSL_PARAM_free(wp);
    OSSL_PARAM_free(gp);
}

/* deflt and tested hold the same key: same signature, decryption, numbers, duplicate. */
static void same_use(EVP_PKEY *deflt, EVP_PKEY *tested)
{
    unsigned char s1[2048], s2[2048], s3[2048];
    size_t l1 = sizeof(s1), l2 = sizeof(s2), l3 = sizeof(s3);
    EVP_PKEY *dup;

    assert_true(tu_pkey_in_named_provider(tested, tu_provider_name()));
    sign(deflt, TU_PROPQ_DEFAULT, 0, s1, &l1);
    sign(tested, tu_propq(), 1, s2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(s1, s2, l1);
    decrypt_check(tested);
    same_numbers(deflt, tested);
    dup = EVP_PKEY_dup(tested);
    assert_non_null(dup);
    sign(dup, tu_propq(), 1, s3, &l3);
    assert_int_equal(l3, l1);
    assert_memory_equal(s3, s1, l1);
    same_numbers(deflt, dup);
    EVP_PKEY_free(dup);
}

/* OpenSSL 3.3's default provider refuses CRT values it does not use (it derives them only
 * when none is given); 3.0's drops them. */
static int core_refuses_partial_crt(void)
{
    return OpenSSL_version_num() >= 0x30300000UL;
}

/* OpenSSL 3.3's default provider reads rsa-derive-from-pq (the same commit); 3.0's ignores
 * the name. */
static int core_derives_on_request(void)
{
    return OpenSSL_version_num() >= 0x30300000UL;
}

static int has_d(const EVP_PKEY *key)
{
    BIGNUM *d = NULL;
    int has = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_D, &d) == 1;

    BN_clear_free(d);
    return has;
}

typedef struct shape {
    const char *name;
    const key_numbers *key;
    const char *spec;
    /* Before OpenSSL 3.3 the default provider crashes on this shape (a three-prime key
     * without a complete set of CRT values, ossl_rsa_set0_all_params): only the provider
     * under test runs, and must refuse it with an error. */
    int default_crashes_before_3_3;
    enum derive_param derive;
} shape;

static void test_shapes(void **state)
{
    const shape shapes[] = {
        { "complete, two primes", &two, "nedpqabi", 0, NO_DERIVE_PARAM },
        { "no CRT values (n, e, d, p, q)", &two, "nedpq", 0, NO_DERIVE_PARAM },
        { "factors in reverse order, no CRT values", &two, "nedqp", 0, NO_DERIVE_PARAM },
        { "CRT exponents without the coefficient", &two, "nedpqab", 0, NO_DERIVE_PARAM },
        { "coefficient without the CRT exponents", &two, "nedpqi", 0, NO_DERIVE_PARAM },
        { "one CRT exponent and the coefficient", &two, "nedpqai", 0, NO_DERIVE_PARAM },
        { "one factor", &two, "nedp", 0, NO_DERIVE_PARAM },
        { "factors numbered 1 and 3", &two, "nedpQ", 0, NO_DERIVE_PARAM },
        { "CRT values without the factors", &two, "nedabi", 0, NO_DERIVE_PARAM },
        { "factors without d", &two, "nepq", 0, NO_DERIVE_PARAM },
        { "d without factors", &two, "ned", 0, NO_DERIVE_PARAM },
        { "complete, three primes", &three, "nedpqrabcij", 0, NO_DERIVE_PARAM },
        { "three primes, no CRT values", &three, "nedpqr", 1, NO_DERIVE_PARAM },
        { "three primes, no coefficients", &three, "nedpqrabc", 1, NO_DERIVE_PARAM },
        { "three primes, one coefficient", &three, "nedpqrabci", 1, NO_DERIVE_PARAM },
        { "three primes, two CRT exponents", &three, "nedpqrabij", 1, NO_DERIVE_PARAM },
        { "derive-from-pq 1, two primes", &two, "nedpq", 0, DERIVE_1 },
        { "derive-from-pq 0, two primes", &two, "nedpq", 0, DERIVE_0 },
        { "derive-from-pq as a string", &two, "nedpq", 0, DERIVE_STRING },
        { "derive-from-pq, complete", &two, "nedpqabi", 0, DERIVE_1 },
        { "derive-from-pq, CRT exponents only", &two, "nedpqab", 0, DERIVE_1 },
        { "derive-from-pq, one factor", &two, "nedp", 0, DERIVE_1 },
        { "derive-from-pq, factors numbered 1 and 3", &two, "nedpQ", 0, DERIVE_1 },
        { "derive-from-pq, d without factors", &two, "ned", 0, DERIVE_1 },
        { "derive-from-pq, factors without d", &two, "nepq", 0, DERIVE_1 },
        { "derive-from-pq, n and e alone", &two, "ne", 0, DERIVE_1 },
        { "derive-from-pq 1, three primes", &three, "nedpqr", 1, DERIVE_1 },
        { "derive-from-pq 0, three primes", &three, "nedpqr", 1, DERIVE_0 },
        { "derive-from-pq, three primes, two-prime CRT values", &three, "nedpqrabi", 1,
          DERIVE_1 },
        { "derive-from-pq, three primes, complete", &three, "nedpqrabcij", 0, DERIVE_1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const shape *s = &shapes[i];
        OSSL_PARAM *params = params_with(s->key, s->spec, s->derive);
        EVP_PKEY *deflt = NULL, *tested;
        int want;

        fprintf(stderr, "shape: %s\n", s->name);
        if (s->default_crashes_before_3_3 && !core_refuses_partial_crt()) {
            want = 0;
        } else {
            deflt = import(params, TU_PROPQ_DEFAULT);
            want = deflt != NULL;
            ERR_clear_error();
        }
        tested = import(params, tu_propq());
        if ((tested != NULL) != want)
            fail_msg("%s: the default provider %s it, the provider under test %s it", s->name,
                     want ? "imports" : "refuses", tested != NULL ? "imports" : "refuses");
        if (tested == NULL)
            assert_true(tu_error_with_reason());
        else if (!has_d(tested))
            ERR_clear_error();   /* a public key (factors without d): nothing to sign */
        else
            same_use(deflt, tested);
        EVP_PKEY_free(deflt);
        EVP_PKEY_free(tested);
        OSSL_PARAM_free(params);
    }
}

/* A legacy RSA object with n, e, d and the factors (RSA_set0_key + RSA_set0_factors), no
 * CRT values, used through EVP: OpenSSL exports it to the provider as n, e, d, p, q. */
static void test_legacy_set0(void **state)
{
    RSA *rsa = RSA_new();
    EVP_PKEY *legacy = EVP_PKEY_new(), *deflt;
    unsigned char s1[2048], s2[2048];
    size_t l1 = sizeof(s1), l2 = sizeof(s2);
    OSSL_PARAM *params = params_of(&two, "nedpq");

    (void)state;
    assert_non_null(rsa);
    assert_non_null(legacy);
    assert_int_equal(RSA_set0_key(rsa, BN_dup(two.n), BN_dup(two.e), BN_dup(two.d)), 1);
    assert_int_equal(RSA_set0_factors(rsa, BN_dup(two.f[0]), BN_dup(two.f[1])), 1);
    assert_int_equal(EVP_PKEY_assign_RSA(legacy, rsa), 1);
    deflt = import(params, TU_PROPQ_DEFAULT);
    assert_non_null(deflt);
    sign(deflt, TU_PROPQ_DEFAULT, 0, s1, &l1);
    sign(legacy, tu_propq(), 1, s2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(s1, s2, l1);
    decrypt_check(legacy);
    EVP_PKEY_free(legacy);
    EVP_PKEY_free(deflt);
    OSSL_PARAM_free(params);
}

/* Random keys imported with n, e, d, p, q only: d modulo lambda(n) (as generated) or phi(n)
 * (as older tools wrote it), p above or below q; both providers sign the same, the key
 * passes the pairwise check in the provider under test, and decrypts. */
static void test_random_keys(void **state)
{
    static const int sizes[] = { 1024, 1536, 2048, 1032, 1304 };
    static const unsigned long exps[] = { 3, 17, 65537 };
    BN_CTX *bctx = BN_CTX_new();
    /* 24 keys; CTRSA_TEST_SCALE (the cross runs' 0.25 under qemu) scales it, 6 at least */
    int count = (int)tu_scaled(24, 6);

    (void)state;
    assert_non_null(bctx);
    for (int it = 0; it < count; it++) {
        key_numbers k;
        OSSL_PARAM *params;
        EVP_PKEY *deflt, *tested;
        EVP_PKEY_CTX *ctx;

        numbers_generate(&k, sizes[it % 5], 2, exps[it % 3]);
        if (it % 2 == 1) {                  /* d := e^-1 mod phi(n) */
            BIGNUM *p1 = BN_dup(k.f[0]), *q1 = BN_dup(k.f[1]), *phi = BN_new();
            assert_int_equal(BN_sub_word(p1, 1) && BN_sub_word(q1, 1)
                             && BN_mul(phi, p1, q1, bctx), 1);
            assert_non_null(BN_mod_inverse(k.d, k.e, phi, bctx));
            BN_free(p1);
            BN_free(q1);
            BN_free(phi);
        }
        fprintf(stderr, "random key %d: %d bits, e = %lu, d mod %s, %s\n", it, sizes[it % 5],
                exps[it % 3], it % 2 ? "phi" : "lambda", it % 4 >= 2 ? "q, p" : "p, q");
        params = params_of(&k, it % 4 >= 2 ? "nedqp" : "nedpq");
        deflt = import(params, TU_PROPQ_DEFAULT);
        tested = import(params, tu_propq());
        assert_non_null(deflt);
        if (tested == NULL) {
            tu_print_errors("import");
            fail_msg("random key %d refused", it);
        }
        same_use(deflt, tested);
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, tested, tu_propq());
        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_pairwise_check(ctx), 1);
        EVP_PKEY_CTX_free(ctx);
        EVP_PKEY_free(deflt);
        EVP_PKEY_free(tested);
        OSSL_PARAM_free(params);
        numbers_free(&k);
    }
    BN_CTX_free(bctx);
}

/* OpenSSL 3.5's keys for rsa-derive-from-pq (test/evp_pkey_provided_test.c): the numbers
 * in hex, and the CRT values its default provider derives (what the test expects). */
typedef struct derive_vector {
    const char *name;
    const char *n, *e, *d, *f[3], *x[3], *c[2];
} derive_vector;

static const derive_vector derive_vectors[] = {
    {
        "test_fromdata_rsa_derive_from_pq_sp800 (512 bits, two primes)",
        "C706D86B3C4FB795424490BDEFF3C4B5A8559E33A3043A90E513FF876915A48A1710CCDFF9C5"
        "0FF112FF1211E56B5C83D943D18A7EA660072EBB03172DEC1787",
        "10001",
        "1E5E5D077FDC6A16CC55CA00316CF0C70738893B37D49D5B1E993E945AE482868A78340937D5"
        "E7B4EF5F8394FFE53679100C38C53A33A67C3CCC98E0F5DBE681",
        {
            "F661380E1F827CB8BA00D3ACDC4E6B7EF758F3D9D821ED54A336D22C5F067DC5",
            "CECC4AA54FD673D020C39864209BC123D85C824FE8A532CD7E97B4DEF64C80DB",
        },
        {
            "D107B67934FE8E366388A40E3A7345FC587A5D98EB280DA50B3C4DA05B96B449",
            "5B4702DFAAB8AE8FBC16796A20967F0E924E6ADA5886AA40D7D2A06C156CB927",
        },
        {
            "A0D6F0E8179EE7E69912D6D943CFED3729F56C3EC17F2E313F643466685C2208",
        },
    },
    {
        "test_fromdata_rsa_derive_from_pq_multiprime (2048 bits, three primes)",
        "957821E0CA946C0B862A01DED9ABEE884A274FCC5FF171E10BC3D18876F08303937E39FA4789"
        "3427181997FCD4FEE58AA91183B5154A29A6A6D06E0C7F618F7E7CFBFC048BCA44F8590B226F"
        "3F922398B5C8F7FFF7AC6B36B3AF39DE6638519FBEE2FCE46F1A0F7ADE7F0F4EBCEDA299C5D1"
        "BF8FBA9291E40091BB67367D0050DA2838DC9FFE3F245A0DE18DE9452CD7F2678C0C6EDBC88B"
        "6B38302194C0E3D7E023D3D4FADBB9FE1ACCC9791935184230C4B592331ED4C4C09D5537D4EF"
        "5471810915DB11386B359311DCB16CD6A43784F3B22F1BD6059F0E5C98292F95B655BD2444C5"
        "C8A2761EF8828ADF34727EDD654BFC6C1C9670E269B5121B5967149D",
        "10001",
        "64574D86F6F844C047C51394635484C181E67A2F9D891D06133BD60262B67B7D7F1A92196EC4"
        "B0FA3DB790CCEEC05FA082777B8FA9472C46F05DA44347905B20730F46D45673E7714175B41C"
        "32F50C688C40EA1C3012A2650227984E0ABF2B72B25CE3BE3EC7DB9BA24A90C0A7B000F16AFF"
        "A377F771A241E96E7C382446D55C492AE6EE274B2E6F16542D373601392B234BB465254D7F72"
        "207F5DEC50BABBAA9C3C1DA1402C6A8B5F2EE0A6F79E03B5445F74C79F892B712F669F036C96"
        "D023364DA1F082CC43E708934018C0397383E2EC9B819D4C86AA59A8671C80DC6F7F236B7D2C"
        "5699A0897EDB8B7AAA038E8E8E3A58B4036B65FA920A9693A6076001",
        {
            "6557FBDFDA84C945E108A5437F364373ACA181BDD71A594C93159A589E9C4BA55906D9CCC525"
            "D44A8BC2B3B8CBD96FACD5463E3C8FE5EC67398147A540EE7754993203317A934A8EEAF3ACCF"
            "569FC301ADF4961A4D1",
            "613746EDE7C33C2E7052CEB257D4A077E03CF6A23362523F65DDEA30F82E64BEC39BF371F4F5"
            "61ED862325CF5377520E27E5682C635D34DFA6CC393F060537895EEF98B2CAFB1475C290D2A4"
            "77FD07A4E267B47FB61",
            "3E2413DB1DDADD73BF8AB32278BAC95C01A3F808E21A9B8A2EDCF975C6110941BD0BE88C2A72"
            "0E5A5C27A7EF0D1E41375B96290F1C35B8CE9A95BB76DDCCD12EA970504252A93D14E051A50A"
            "267B84B0915656C662D",
        },
        {
            "1133A1F9192A38CFB7A6B40684ED3CFDC16B988E1498D057830FC3A70F251061FC7E813194B5"
            "1B179C296C400DB9D68ECB94A4B3BAE917FB5D736829D09FA9799E97329B8F66B8DD115C5314"
            "CE6B47BA5D408AC9E41",
            "5CD33C2DD3BB8ECE44C03CCEFBA0722CA4777184050E5FBC5B571ED3ED55D72A737A88648A62"
            "7744266D8F1FBCF1D4EEE1576235E816CA72B7408F74C719DA2297FCAD502312C541802B6A86"
            "526FCF89B8090FC7561",
            "27D1624FC35F9D0B302F25FDEEB271985D0CBE40A2F13DBD5BAE08C328B97DDEFBCE07A2D907"
            "E09E91F26F2F448EA067626E63BCE4EC9F90F3890268765369AEA6AFEB1DB46DF14FD1353FB5"
            "B356EE7D5D839F72DB9",
        },
        {
            "578F8DD1C6F3DAF538432A93552F3D04DF809853D72208B47BAC8CEACD976900588638A102BC"
            "DD3BE8C16606AFDCEC79FFABBE3A6DEC28F1D25DC41CBA4EB76C9DC8E490EE47CD2D56E263C0"
            "BD3C5204E4BB6F7AEEF",
            "1BA660AA286C0577F4E68B18663235B0EEB9342D1AA1513CC29718AB0E0C967DE1A7C1AEFA70"
            "885B3AE9899DEAF0938FC46295F4F7E016C501395914C0F00BACA40A3D058B6624CD1B6D3295"
            "D82B33D61BE5DF04BF4",
        },
    },
};

static BIGNUM *bn_hex(const char *hex)
{
    BIGNUM *b = NULL;

    if (hex == NULL)
        return NULL;
    assert_int_equal(BN_hex2bn(&b, hex), (int)strlen(hex));
    return b;
}

/* PKCS#1 v1.5 SHA-256 over a fixed digest: sign with key in the provider under test, verify
 * with verifier in the default provider. */
static void sign_then_default_verifies(EVP_PKEY *key, EVP_PKEY *verifier)
{
    unsigned char md[32], sig[2048];
    size_t len = sizeof(sig);
    EVP_PKEY_CTX *ctx;

    sign(key, tu_propq(), 1, sig, &len);
    memset(md, 0x5a, sizeof(md));
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, verifier, TU_PROPQ_DEFAULT);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, len, md, sizeof(md)), 1);
    EVP_PKEY_CTX_free(ctx);
}

/* The four checks of key (in the provider under test) pass, as the default's of deflt. */
static void checks_pass(EVP_PKEY *deflt, EVP_PKEY *key)
{
    static const char *const names[] = { "check", "public check", "private check",
                                         "pairwise check" };
    static int (*const checks[])(EVP_PKEY_CTX *) = { EVP_PKEY_check, EVP_PKEY_public_check,
                                                     EVP_PKEY_private_check,
                                                     EVP_PKEY_pairwise_check };

    for (size_t i = 0; i < 4; i++) {
        EVP_PKEY_CTX *dc = EVP_PKEY_CTX_new_from_pkey(env.libctx, deflt, TU_PROPQ_DEFAULT);
        EVP_PKEY_CTX *tc = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
        int want, got;

        assert_non_null(dc);
        assert_non_null(tc);
        want = checks[i](dc);
        got = checks[i](tc);
        if (want <= 0 || got <= 0) {
            tu_print_errors(names[i]);
            fail_msg("%s: the default provider says %d, the provider under test %d", names[i],
                     want, got);
        }
        EVP_PKEY_CTX_free(dc);
        EVP_PKEY_CTX_free(tc);
    }
}

/*
 * The steps of OpenSSL 3.5's test_fromdata_rsa_derive_from_pq_sp800 and _multiprime
 * (do_fromdata_rsa_derive), with the default provider beside the provider under test: n, e,
 * d and the factors imported with rsa-derive-from-pq = 1 and no CRT value; the export has
 * every number the default's has, with the same values, and from 3.3 the CRT values the
 * OpenSSL test expects; the same bits, security bits and size; every check passes; the
 * copy of parameters is refused; a duplicate matches (EVP_PKEY_eq) and goes through the same
 * steps; each signs (in the provider under test) what the default verifies. Before 3.3 the
 * default provider ignores the parameter, and crashes on the three-prime key without CRT
 * values: the provider under test must refuse that one, with an error.
 */
static void test_derive_from_pq(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof(derive_vectors) / sizeof(derive_vectors[0]); v++) {
        const derive_vector *dv = &derive_vectors[v];
        key_numbers k = { bn_hex(dv->n), bn_hex(dv->e), bn_hex(dv->d),
                          { bn_hex(dv->f[0]), bn_hex(dv->f[1]), bn_hex(dv->f[2]) },
                          { bn_hex(dv->x[0]), bn_hex(dv->x[1]), bn_hex(dv->x[2]) },
                          { bn_hex(dv->c[0]), bn_hex(dv->c[1]) } };
        int three_primes = k.f[2] != NULL;
        OSSL_PARAM *params = params_with(&k, three_primes ? "nedpqr" : "nedpq", DERIVE_1);
        EVP_PKEY *deflt = NULL, *tested;

        fprintf(stderr, "%s\n", dv->name);
        if (three_primes && !core_derives_on_request()) {
            tested = import(params, tu_propq());
            if (tested != NULL)
                fail_msg("%s: imported, where the default provider crashes", dv->name);
            assert_true(tu_error_with_reason());
            OSSL_PARAM_free(params);
            numbers_free(&k);
            continue;
        }
        deflt = import(params, TU_PROPQ_DEFAULT);
        assert_non_null(deflt);
        tested = import(params, tu_propq());
        if (tested == NULL) {
            tu_print_errors("import");
            fail_msg("%s: refused", dv->name);
        }
        assert_true(tu_pkey_in_named_provider(tested, tu_provider_name()));
        if (core_derives_on_request()) {
            /* the values OpenSSL's test expects, in the export (EVP_PKEY_todata) */
            static const char *const xn[] = { OSSL_PKEY_PARAM_RSA_EXPONENT1,
                                              OSSL_PKEY_PARAM_RSA_EXPONENT2,
                                              OSSL_PKEY_PARAM_RSA_EXPONENT3 };
            static const char *const cn[] = { OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
                                              OSSL_PKEY_PARAM_RSA_COEFFICIENT2 };
            OSSL_PARAM *out = NULL;

            assert_int_equal(EVP_PKEY_todata(tested, EVP_PKEY_KEYPAIR, &out), 1);
            for (size_t i = 0; i < 5; i++) {
                const char *name = i < 3 ? xn[i] : cn[i - 3];
                const BIGNUM *want = i < 3 ? k.x[i] : k.c[i - 3];
                const OSSL_PARAM *p = OSSL_PARAM_locate_const(out, name);
                BIGNUM *got = NULL;

                if (want == NULL)
                    continue;
                if (p == NULL)
                    fail_msg("%s: the export lacks %s", dv->name, name);
                assert_int_equal(OSSL_PARAM_get_BN(p, &got), 1);
                if (BN_cmp(got, want) != 0)
                    fail_msg("%s: %s is not the value OpenSSL's test expects", dv->name, name);
                BN_clear_free(got);
            }
            OSSL_PARAM_free(out);
        }
        for (int round = 0; round < 2; round++) {
            EVP_PKEY *copy = EVP_PKEY_new(), *dup;

            same_numbers(deflt, tested);
            assert_int_equal(EVP_PKEY_get_bits(tested), EVP_PKEY_get_bits(deflt));
            assert_int_equal(EVP_PKEY_get_security_bits(tested),
                             EVP_PKEY_get_security_bits(deflt));
            assert_int_equal(EVP_PKEY_get_size(tested), EVP_PKEY_get_size(deflt));
            assert_int_equal(EVP_PKEY_missing_parameters(tested), 0);
            checks_pass(deflt, tested);
            assert_non_null(copy);
            assert_int_equal(EVP_PKEY_copy_parameters(copy, tested), 0);
            EVP_PKEY_free(copy);
            ERR_clear_error();
            sign_then_default_verifies(tested, deflt);
            if (round == 1)
                break;
            dup = EVP_PKEY_dup(tested);
            assert_non_null(dup);
            assert_true(tu_pkey_in_named_provider(dup, tu_provider_name()));
            assert_int_equal(EVP_PKEY_eq(tested, dup), 1);
            EVP_PKEY_free(tested);
            tested = dup;
        }
        EVP_PKEY_free(deflt);
        EVP_PKEY_free(tested);
        OSSL_PARAM_free(params);
        numbers_free(&k);
    }
}

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    numbers_generate(&two, 2048, 2, 65537);
    numbers_generate(&three, 2048, 3, 65537);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    numbers_free(&two);
    numbers_free(&three);
    tu_env_free(&env);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_legacy_set0),
        cmocka_unit_test(test_random_keys),
        cmocka_unit_test(test_derive_from_pq),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
