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
 * imported with n, e, d, p and q only.
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

/*
 * Parameters from a spec, one letter a number: n e d; p q r = rsa-factor1..3, Q = q given
 * as rsa-factor3 (a numbering gap); a b c = rsa-exponent1..3; i j = rsa-coefficient1..2.
 */
static OSSL_PARAM *params_of(const key_numbers *k, const char *spec)
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
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
    OSSL_PARAM_BLD_free(bld);
    return params;
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
} shape;

static void test_shapes(void **state)
{
    const shape shapes[] = {
        { "complete, two primes", &two, "nedpqabi", 0 },
        { "no CRT values (n, e, d, p, q)", &two, "nedpq", 0 },
        { "factors in reverse order, no CRT values", &two, "nedqp", 0 },
        { "CRT exponents without the coefficient", &two, "nedpqab", 0 },
        { "coefficient without the CRT exponents", &two, "nedpqi", 0 },
        { "one CRT exponent and the coefficient", &two, "nedpqai", 0 },
        { "one factor", &two, "nedp", 0 },
        { "factors numbered 1 and 3", &two, "nedpQ", 0 },
        { "CRT values without the factors", &two, "nedabi", 0 },
        { "factors without d", &two, "nepq", 0 },
        { "d without factors", &two, "ned", 0 },
        { "complete, three primes", &three, "nedpqrabcij", 0 },
        { "three primes, no CRT values", &three, "nedpqr", 1 },
        { "three primes, no coefficients", &three, "nedpqrabc", 1 },
        { "three primes, one coefficient", &three, "nedpqrabci", 1 },
        { "three primes, two CRT exponents", &three, "nedpqrabij", 1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const shape *s = &shapes[i];
        OSSL_PARAM *params = params_of(s->key, s->spec);
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
