/*
 * Key generation end to end: keys made by the provider under test (ctrsa unless
 * CTRSA_TEST_PROVIDER says otherwise) of 1024 to 4096 bits, 3- and 4-prime keys (4 only
 * where the default provider imports them intact: not OpenSSL 3.3 and later), other
 * public exponents and RSA-PSS keys, checked by the default provider (EVP_PKEY_check and
 * the pairwise check after export), by BN arithmetic on the exported numbers (p*q = n, the
 * sizes, |p - q|, d = e^-1 mod lcm(p-1, q-1), d > 2^(nlen/2), the CRT values), and used for
 * sign/verify and encrypt/decrypt in both directions with the default provider. Bad
 * parameters are refused with the error text checked; the progress callback can stop it.
 */
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
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include "testutil.h"

static tu_env env;

static int under_ctrsa(void)
{
    return strcmp(tu_provider_name(), "ctrsa") == 0;
}

/* Generate a key of `type` in the provider under test with the given gen parameters. */
static EVP_PKEY *gen_key(const char *type, const OSSL_PARAM *params)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, type, tu_propq());
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    if (params != NULL && EVP_PKEY_CTX_set_params(ctx, params) != 1)
        tu_print_errors("set_params");
    else if (EVP_PKEY_generate(ctx, &key) != 1)
        tu_print_errors("generate");
    if (key != NULL)
        assert_true(tu_ctx_in_provider(ctx));
    EVP_PKEY_CTX_free(ctx);
    return key;
}

static EVP_PKEY *gen_rsa(size_t bits, size_t primes, unsigned long e)
{
    OSSL_PARAM params[4];
    BIGNUM *be = BN_new();
    unsigned char ebuf[8];
    size_t n = 0;

    params[n++] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits);
    params[n++] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes);
    if (e != 0) {
        BN_set_word(be, e);
        BN_bn2nativepad(be, ebuf, sizeof(ebuf));
        params[n++] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, ebuf, sizeof(ebuf));
    }
    params[n] = OSSL_PARAM_construct_end();
    BN_free(be);
    return gen_key("RSA", params);
}

static BIGNUM *get_bn(const EVP_PKEY *key, const char *name)
{
    BIGNUM *b = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &b) != 1)
        return NULL;
    return b;
}

/* The numbers, checked with BN: n = prod p_i, sizes, distances, d, the CRT values. */
static void check_numbers(const EVP_PKEY *key, size_t bits, size_t k, unsigned long e_want)
{
    static const char *factors[] = {
        OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_FACTOR3,
        OSSL_PKEY_PARAM_RSA_FACTOR4, OSSL_PKEY_PARAM_RSA_FACTOR5 };
    static const char *exps[] = {
        OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
        OSSL_PKEY_PARAM_RSA_EXPONENT3, OSSL_PKEY_PARAM_RSA_EXPONENT4,
        OSSL_PKEY_PARAM_RSA_EXPONENT5 };
    static const char *coeffs[] = {
        OSSL_PKEY_PARAM_RSA_COEFFICIENT1, OSSL_PKEY_PARAM_RSA_COEFFICIENT2,
        OSSL_PKEY_PARAM_RSA_COEFFICIENT3, OSSL_PKEY_PARAM_RSA_COEFFICIENT4 };
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *n = get_bn(key, OSSL_PKEY_PARAM_RSA_N), *e = get_bn(key, OSSL_PKEY_PARAM_RSA_E);
    BIGNUM *d = get_bn(key, OSSL_PKEY_PARAM_RSA_D), *p[5] = {0};
    BIGNUM *prod = BN_new(), *lam = BN_new(), *t = BN_new(), *g = BN_new(), *pm1 = BN_new();

    assert_non_null(n);
    assert_non_null(e);
    assert_non_null(d);
    assert_int_equal(BN_num_bits(n), (int)bits);
    assert_int_equal(EVP_PKEY_get_bits(key), (int)bits);
    assert_true(BN_is_word(e, e_want));
    /* exactly k factors */
    BIGNUM *extra = k < 5 ? get_bn(key, factors[k]) : NULL;
    assert_null(extra);
    BN_one(prod);
    BN_one(lam);
    for (size_t i = 0; i < k; i++) {
        p[i] = get_bn(key, factors[i]);
        assert_non_null(p[i]);
        assert_int_equal(BN_num_bits(p[i]), (int)(bits / k + (i < bits % k)));
        assert_int_equal(BN_check_prime(p[i], bctx, NULL), 1);
        BN_mul(prod, prod, p[i], bctx);
        BN_sub(pm1, p[i], BN_value_one());
        BN_gcd(g, pm1, e, bctx);
        assert_true(BN_is_one(g));                           /* gcd(e, p - 1) = 1 */
        BN_gcd(g, lam, pm1, bctx);
        BN_mul(lam, lam, pm1, bctx);
        BN_div(lam, NULL, lam, g, bctx);                     /* lcm */
        /* d_i = e^-1 mod (p_i - 1) */
        BIGNUM *di = get_bn(key, exps[i]);
        assert_non_null(di);
        BN_mod_inverse(t, e, pm1, bctx);
        assert_int_equal(BN_cmp(di, t), 0);
        BN_free(di);
        for (size_t j = 0; j < i; j++) {                     /* |p_i - p_j| > 2^(b - 100) */
            BN_sub(t, p[i], p[j]);
            BN_set_negative(t, 0);
            assert_true(BN_num_bits(t) > BN_num_bits(p[i]) - 100);
        }
    }
    assert_int_equal(BN_cmp(prod, n), 0);
    /* d = e^-1 mod lambda(n) exactly (FIPS 186-5), and d > 2^(nlen/2) */
    BN_mod_inverse(t, e, lam, bctx);
    assert_int_equal(BN_cmp(d, t), 0);
    assert_true(BN_num_bits(d) > (int)(bits / 2));
    /* qInv = q^-1 mod p, t_i = (p_1 .. p_(i-1))^-1 mod p_i */
    BIGNUM *c = get_bn(key, coeffs[0]);
    assert_non_null(c);
    BN_mod_inverse(t, p[1], p[0], bctx);
    assert_int_equal(BN_cmp(c, t), 0);
    BN_free(c);
    BN_mul(prod, p[0], p[1], bctx);
    for (size_t i = 2; i < k; i++) {
        c = get_bn(key, coeffs[i - 1]);
        assert_non_null(c);
        BN_mod_inverse(t, prod, p[i], bctx);
        assert_int_equal(BN_cmp(c, t), 0);
        BN_mul(prod, prod, p[i], bctx);
        BN_free(c);
    }
    if (k == 2)
        assert_true(BN_cmp(p[0], p[1]) > 0);                 /* p > q, as OpenSSL */
    for (size_t i = 0; i < k; i++)
        BN_free(p[i]);
    BN_free(n);
    BN_free(e);
    BN_free(d);
    BN_free(prod);
    BN_free(lam);
    BN_free(t);
    BN_free(g);
    BN_free(pm1);
    BN_CTX_free(bctx);
}

/* The default provider's checks on a copy of the key. */
static EVP_PKEY *check_in_default(const EVP_PKEY *key)
{
    EVP_PKEY *copy = tu_pkey_copy_to(env.libctx, key, 1, "default");
    assert_non_null(copy);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, copy, TU_PROPQ_DEFAULT);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_check(ctx), 1);
    assert_int_equal(EVP_PKEY_pairwise_check(ctx), 1);
    assert_int_equal(EVP_PKEY_private_check(ctx), 1);
    assert_int_equal(EVP_PKEY_public_check(ctx), 1);
    assert_true(tu_pkey_in_named_provider(copy, "default"));
    EVP_PKEY_CTX_free(ctx);
    /* and the provider under test's own check */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, (EVP_PKEY *)key, tu_propq());
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_check(ctx), 1);
    assert_int_equal(EVP_PKEY_pairwise_check(ctx), 1);
    EVP_PKEY_CTX_free(ctx);
    return copy;
}

/* Sign with `signer` in provider sprov, verify with `verifier` in vprov. */
static void sign_verify(EVP_PKEY *signer, const char *sprov, EVP_PKEY *verifier,
                        const char *vprov, int pss)
{
    static const unsigned char msg[] = "ctrsa key generation test message";
    char sq[64], vq[64];
    unsigned char sig[1024];
    size_t siglen = sizeof(sig);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;

    snprintf(sq, sizeof(sq), "provider=%s", sprov);
    snprintf(vq, sizeof(vq), "provider=%s", vprov);
    assert_int_equal(EVP_DigestSignInit_ex(md, &pctx, "SHA256", env.libctx, sq, signer, NULL), 1);
    assert_true(tu_ctx_in_named_provider(pctx, sprov));
    if (pss)
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_DigestSign(md, sig, &siglen, msg, sizeof(msg)), 1);
    EVP_MD_CTX_free(md);
    md = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit_ex(md, &pctx, "SHA256", env.libctx, vq, verifier,
                                             NULL), 1);
    assert_true(tu_ctx_in_named_provider(pctx, vprov));
    if (pss)
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_DigestVerify(md, sig, siglen, msg, sizeof(msg)), 1);
    sig[siglen / 2] ^= 1;
    assert_int_equal(EVP_DigestVerify(md, sig, siglen, msg, sizeof(msg)), 0);
    ERR_clear_error();
    EVP_MD_CTX_free(md);
}

/* Encrypt (OAEP) with `enc` in eprov, decrypt with `dec` in dprov. */
static void encrypt_decrypt(EVP_PKEY *enc, const char *eprov, EVP_PKEY *dec, const char *dprov)
{
    static const unsigned char secret[32] = "0123456789abcdef0123456789abcde";
    unsigned char ct[1024], pt[1024];
    size_t ctlen = sizeof(ct), ptlen = sizeof(pt);
    char eq[64], dq[64];

    snprintf(eq, sizeof(eq), "provider=%s", eprov);
    snprintf(dq, sizeof(dq), "provider=%s", dprov);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, enc, eq);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_true(tu_ctx_in_named_provider(ctx, eprov));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, secret, sizeof(secret)), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, dec, dq);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    assert_true(tu_ctx_in_named_provider(ctx, dprov));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    assert_int_equal(EVP_PKEY_decrypt(ctx, pt, &ptlen, ct, ctlen), 1);
    assert_int_equal(ptlen, sizeof(secret));
    assert_memory_equal(pt, secret, sizeof(secret));
    EVP_PKEY_CTX_free(ctx);
}

static void full_check(size_t bits, size_t primes, unsigned long e)
{
    EVP_PKEY *key = gen_rsa(bits, primes, e);
    assert_non_null(key);
    assert_true(tu_pkey_in_named_provider(key, tu_provider_name()));
    check_numbers(key, bits, primes, e != 0 ? e : 65537);
    EVP_PKEY *copy = check_in_default(key);
    const char *me = tu_provider_name();
    sign_verify(key, me, copy, "default", 0);
    sign_verify(copy, "default", key, me, 0);
    sign_verify(key, me, copy, "default", 1);
    encrypt_decrypt(key, me, copy, "default");
    encrypt_decrypt(copy, "default", key, me);
    EVP_PKEY_free(copy);
    EVP_PKEY_free(key);
}

static void test_sizes(void **state)
{
    (void)state;
    full_check(1024, 2, 0);
    full_check(2048, 2, 0);
    full_check(3072, 2, 0);
    full_check(4096, 2, 0);
    full_check(2049, 2, 0);          /* odd size: p one bit longer than q */
}

static void test_default_params(void **state)
{
    (void)state;
    EVP_PKEY *key = gen_key("RSA", NULL);        /* 2048 bits, e = 65537, two primes */
    assert_non_null(key);
    check_numbers(key, 2048, 2, 65537);
    EVP_PKEY_free(key);
}

static void test_exponents(void **state)
{
    (void)state;
    full_check(1024, 2, 3);
    full_check(2048, 2, 17);
    full_check(2048, 2, 0xffffffffffffffc5ul);   /* the largest 64-bit prime */

    /* a 256-bit e (the largest FIPS 186-5 allows is below 2^256) */
    unsigned char ebuf[32];
    size_t bits = 2048;
    BIGNUM *be = BN_new(), *got;
    BN_rand(be, 256, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
    BN_bn2nativepad(be, ebuf, sizeof(ebuf));
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
        OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, ebuf, sizeof(ebuf)),
        OSSL_PARAM_construct_end()
    };
    EVP_PKEY *key = gen_key("RSA", params);
    assert_non_null(key);
    got = get_bn(key, OSSL_PKEY_PARAM_RSA_E);
    assert_int_equal(BN_cmp(got, be), 0);
    EVP_PKEY *copy = check_in_default(key);
    sign_verify(key, tu_provider_name(), copy, "default", 0);
    EVP_PKEY_free(copy);
    EVP_PKEY_free(key);
    BN_free(be);
    BN_free(got);
}

static void refuse(const OSSL_PARAM *params, const char *needle);

/*
 * 1 if the running OpenSSL's default provider mangles keys of more than 3 primes on import
 * (OpenSSL 3.3 and later store primes 3 and up in reverse order, each with its own
 * coefficient): a 4-prime key of its own no longer passes its own check after
 * EVP_PKEY_todata and EVP_PKEY_fromdata. Asked of the library, not of its version number.
 */
static int default_mangles_multiprime(void)
{
    size_t bits = 4096, primes = 4;
    OSSL_PARAM gp[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
                        OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes),
                        OSSL_PARAM_construct_end() };
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    EVP_PKEY *key = NULL, *back = NULL;
    OSSL_PARAM *data = NULL;
    int ok;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_params(ctx, gp), 1);
    assert_int_equal(EVP_PKEY_generate(ctx, &key), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_check(ctx), 1);            /* fine before the round trip */
    EVP_PKEY_CTX_free(ctx);
    assert_int_equal(EVP_PKEY_todata(key, EVP_PKEY_KEYPAIR, &data), 1);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    assert_int_equal(EVP_PKEY_fromdata(ctx, &back, EVP_PKEY_KEYPAIR, data), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, back, TU_PROPQ_DEFAULT);
    ok = EVP_PKEY_check(ctx) == 1;
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(data);
    EVP_PKEY_free(back);
    EVP_PKEY_free(key);
    return !ok;
}

/*
 * 3 primes everywhere. 4 primes where the default provider imports them intact (OpenSSL
 * 3.0 to 3.2); where it does not (3.3 and later), ctrsa refuses to generate them, since
 * the key would fail every check and be encoded invalid once it left ctrsa.
 */
static void test_multiprime(void **state)
{
    (void)state;
    full_check(2048, 3, 0);
    full_check(1024, 3, 0);
    if (!default_mangles_multiprime()) {
        print_message("%s imports 4-prime keys intact: ctrsa generates them\n",
                      OpenSSL_version(OPENSSL_VERSION));
        full_check(4096, 4, 0);
    } else if (under_ctrsa()) {
        size_t bits = 4096, four = 4, five = 5, eight_k = 8192;
        OSSL_PARAM p4[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
                            OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &four),
                            OSSL_PARAM_construct_end() };
        OSSL_PARAM p5[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &eight_k),
                            OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &five),
                            OSSL_PARAM_construct_end() };

        print_message("%s reorders primes 3 and up on import: ctrsa refuses 4 and 5\n",
                      OpenSSL_version(OPENSSL_VERSION));
        refuse(p4, "4 primes: not generated with OpenSSL");
        refuse(p5, "5 primes: not generated with OpenSSL");
    }
}

static void test_rsapss(void **state)
{
    (void)state;
    size_t bits = 2048;
    int saltlen = 32;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &saltlen),
        OSSL_PARAM_construct_end()
    };
    EVP_PKEY *key = gen_key("RSA-PSS", params);
    assert_non_null(key);
    assert_true(EVP_PKEY_is_a(key, "RSA-PSS"));
    check_numbers(key, 2048, 2, 65537);
    char md[64] = "";
    assert_int_equal(EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_MANDATORY_DIGEST,
                                                    md, sizeof(md), NULL), 1);
    assert_string_equal(md, "SHA256");
    int got_salt = 0;
    assert_int_equal(EVP_PKEY_get_int_param(key, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &got_salt), 1);
    assert_int_equal(got_salt, 32);
    EVP_PKEY *copy = check_in_default(key);
    sign_verify(key, tu_provider_name(), copy, "default", 1);
    sign_verify(copy, "default", key, tu_provider_name(), 1);
    EVP_PKEY_free(copy);
    EVP_PKEY_free(key);

    /* unrestricted RSA-PSS key */
    key = gen_key("RSA-PSS", NULL);
    assert_non_null(key);
    assert_true(EVP_PKEY_is_a(key, "RSA-PSS"));
    copy = check_in_default(key);
    sign_verify(key, tu_provider_name(), copy, "default", 1);
    EVP_PKEY_free(copy);
    EVP_PKEY_free(key);
}

/* The error queue holds an error whose text (reason and detail) contains `needle`. */
static void expect_error(const char *needle)
{
    unsigned long e;
    const char *data;
    int flags, found = 0;
    char text[512];

    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        const char *reason = ERR_reason_error_string(e);
        snprintf(text, sizeof(text), "%s: %s", reason != NULL ? reason : "?",
                 (flags & ERR_TXT_STRING) != 0 ? data : "");
        fprintf(stderr, "    error: %s\n", text);
        if (strstr(text, needle) != NULL)
            found = 1;
    }
    if (!found)
        fprintf(stderr, "no error containing \"%s\"\n", needle);
    if (under_ctrsa())
        assert_true(found);
}

/* Setting params on a keygen context fails (1) or the generation fails (2) with needle. */
static void refuse(const OSSL_PARAM *params, const char *needle)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    ERR_clear_error();
    if (EVP_PKEY_CTX_set_params(ctx, params) == 1)
        assert_int_not_equal(EVP_PKEY_generate(ctx, &key), 1);
    assert_null(key);
    expect_error(needle);
    EVP_PKEY_CTX_free(ctx);
}

static void test_bad_params(void **state)
{
    (void)state;
    size_t sizes[] = {511, 256, 16385, 65536};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        OSSL_PARAM p[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &sizes[i]),
                           OSSL_PARAM_construct_end() };
        refuse(p, "ctrsa generates keys of 512 to 16384 bits");
    }
    int negative = -2048;
    OSSL_PARAM pneg[] = { OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_BITS, &negative),
                          OSSL_PARAM_construct_end() };
    refuse(pneg, "must be a non-negative integer");

    size_t primes[] = {0, 1, 6};
    for (size_t i = 0; i < 3; i++) {
        OSSL_PARAM p[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes[i]),
                           OSSL_PARAM_construct_end() };
        refuse(p, "ctrsa generates keys of 2 to 5 primes");
    }
    /* more primes than the size allows (OpenSSL's cap): 4 primes need 4096 bits */
    size_t four = 4, bits = 2048;
    OSSL_PARAM pcap[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &four),
                          OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
                          OSSL_PARAM_construct_end() };
    refuse(pcap, "4 primes for a 2048-bit key: at most 3");

    unsigned long bad_e[] = {65536, 2, 1, 0};
    for (size_t i = 0; i < 4; i++) {
        unsigned char ebuf[8];
        BIGNUM *be = BN_new();
        BN_set_word(be, bad_e[i]);
        BN_bn2nativepad(be, ebuf, sizeof(ebuf));
        OSSL_PARAM p[] = { OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, ebuf, sizeof(ebuf)),
                           OSSL_PARAM_construct_end() };
        refuse(p, "e must be odd and at least 3");
        BN_free(be);
    }
    unsigned char big[40];
    memset(big, 0, sizeof(big));
    big[0] = 1;                       /* native order on a little-endian host: 2^256 + 1 */
    big[32] = 1;
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 1) {
        OSSL_PARAM p[] = { OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, big, sizeof(big)),
                           OSSL_PARAM_construct_end() };
        refuse(p, "e is larger than 2^256");
    }
}

/*
 * OpenSSL 4.0's rsa-a and rsa-b (FIPS 186-5 A.1.3: p = a, q = b (mod 8)). Generated with
 * the provider under test and with the default provider, the congruences are checked with
 * BN on both (as an unordered pair: both order p > q after choosing them); the same values
 * are refused by both; keys of 3 primes ignore them in both. Before 4.0 neither provider
 * lists them, and both ignore them as unknown parameters.
 */
static int gen_mod8_ctx(const char *prov, size_t bits, size_t primes, const OSSL_PARAM *ab,
                        EVP_PKEY **key)
{
    char propq[64];
    EVP_PKEY_CTX *ctx;
    OSSL_PARAM params[3];
    int ok;

    snprintf(propq, sizeof(propq), "provider=%s", prov);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_true(tu_ctx_in_named_provider(ctx, prov));
    params[0] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits);
    params[1] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes);
    params[2] = OSSL_PARAM_construct_end();
    assert_int_equal(EVP_PKEY_CTX_set_params(ctx, params), 1);
    ok = EVP_PKEY_CTX_set_params(ctx, ab) == 1;
    if (ok && key != NULL) {
        ok = EVP_PKEY_generate(ctx, key) == 1;
        if (ok)
            assert_true(tu_pkey_in_named_provider(*key, prov));
    }
    if (!ok && key != NULL)
        tu_print_errors(prov);      /* a refused set is left on the queue for the caller */
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int has_param(const OSSL_PARAM *list, const char *name)
{
    return list != NULL && OSSL_PARAM_locate_const(list, name) != NULL;
}

static void test_prime_congruence(void **state)
{
    (void)state;
    const char *provs[2] = { tu_provider_name(), "default" };
    int is40 = OpenSSL_version_num() >= 0x40000000UL;

    for (int i = 0; i < 2; i++) {
        char propq[64];
        snprintf(propq, sizeof(propq), "provider=%s", provs[i]);
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
        const OSSL_PARAM *settable = EVP_PKEY_CTX_settable_params(ctx);
        assert_int_equal(has_param(settable, "rsa-a"), is40);
        assert_int_equal(has_param(settable, "rsa-b"), is40);
        EVP_PKEY_CTX_free(ctx);
    }
    if (!is40) {
        /* an unknown parameter to both: ignored, even a value 4.0 refuses */
        uint32_t two = 2;
        OSSL_PARAM ab[] = { OSSL_PARAM_construct_uint32("rsa-a", &two),
                            OSSL_PARAM_construct_end() };
        for (int i = 0; i < 2; i++)
            assert_true(gen_mod8_ctx(provs[i], 2048, 2, ab, NULL));
        print_message("%s: no rsa-a/rsa-b (OpenSSL 4.0+)\n", OpenSSL_version(OPENSSL_VERSION));
        return;
    }

    static const uint32_t pairs[][2] = { {1, 3}, {5, 7}, {3, 3}, {7, 1}, {0, 5}, {1, 0} };
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        uint32_t a = pairs[k][0], b = pairs[k][1];
        OSSL_PARAM ab[] = { OSSL_PARAM_construct_uint32("rsa-a", &a),
                            OSSL_PARAM_construct_uint32("rsa-b", &b),
                            OSSL_PARAM_construct_end() };
        for (int i = 0; i < 2; i++) {
            EVP_PKEY *key = NULL;
            assert_true(gen_mod8_ctx(provs[i], 2048, 2, ab, &key));
            BIGNUM *p = get_bn(key, OSSL_PKEY_PARAM_RSA_FACTOR1);
            BIGNUM *q = get_bn(key, OSSL_PKEY_PARAM_RSA_FACTOR2);
            assert_non_null(p);
            assert_non_null(q);
            uint32_t pm = (uint32_t)BN_mod_word(p, 8), qm = (uint32_t)BN_mod_word(q, 8);
            /* {p mod 8, q mod 8} = {a, b}, a 0 matching any residue */
            int straight = (a == 0 || pm == a) && (b == 0 || qm == b);
            int swapped = (a == 0 || qm == a) && (b == 0 || pm == b);
            if (!straight && !swapped)
                fail_msg("%s: a=%u b=%u gave p = %u, q = %u (mod 8)", provs[i], a, b, pm, qm);
            assert_true(BN_cmp(p, q) > 0);
            if (i == 0) {
                check_numbers(key, 2048, 2, 65537);
                EVP_PKEY_free(check_in_default(key));
            }
            BN_free(p);
            BN_free(q);
            EVP_PKEY_free(key);
        }
    }

    /* refused by both: even, above 7, negative */
    static const uint32_t bad[] = { 2, 4, 6, 8, 9, 0xffffffffu };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        for (int which = 0; which < 2; which++) {
            OSSL_PARAM ab[] = { OSSL_PARAM_construct_uint32(which ? "rsa-b" : "rsa-a",
                                                            (uint32_t *)&bad[k]),
                                OSSL_PARAM_construct_end() };
            for (int i = 1; i >= 0; i--) {
                ERR_clear_error();
                assert_false(gen_mod8_ctx(provs[i], 2048, 2, ab, NULL));
            }
            /* the provider under test's error, last on the queue */
            expect_error("residue mod 8 is 1, 3, 5 or 7");
        }
    }
    int minus_one = -1;
    OSSL_PARAM neg[] = { OSSL_PARAM_construct_int("rsa-a", &minus_one),
                         OSSL_PARAM_construct_end() };
    for (int i = 0; i < 2; i++)
        assert_false(gen_mod8_ctx(provs[i], 2048, 2, neg, NULL));
    ERR_clear_error();

    /* 3 primes: accepted and ignored by both (the key is still generated) */
    uint32_t a = 3, b = 5;
    OSSL_PARAM ab[] = { OSSL_PARAM_construct_uint32("rsa-a", &a),
                        OSSL_PARAM_construct_uint32("rsa-b", &b), OSSL_PARAM_construct_end() };
    for (int i = 0; i < 2; i++) {
        EVP_PKEY *key = NULL;
        assert_true(gen_mod8_ctx(provs[i], 2048, 3, ab, &key));
        EVP_PKEY_free(key);
    }
}

static int progress_calls, progress_stop_after;

static int progress_cb(EVP_PKEY_CTX *ctx)
{
    int potential = EVP_PKEY_CTX_get_keygen_info(ctx, 0);
    (void)potential;
    progress_calls++;
    return progress_stop_after < 0 || progress_calls < progress_stop_after;
}

static void test_callback(void **state)
{
    (void)state;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    EVP_PKEY_CTX_set_cb(ctx, progress_cb);
    progress_calls = 0;
    progress_stop_after = -1;
    assert_int_equal(EVP_PKEY_generate(ctx, &key), 1);
    assert_true(progress_calls >= 2 * (1 + 5 + 1));   /* per prime: a candidate, 5 rounds, found */
    EVP_PKEY_free(key);
    key = NULL;
    progress_calls = 0;
    progress_stop_after = 3;                           /* stop early */
    assert_int_not_equal(EVP_PKEY_generate(ctx, &key), 1);
    assert_null(key);
    assert_int_equal(progress_calls, 3);
    expect_error("stopped");
    EVP_PKEY_CTX_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_params),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_exponents),
        cmocka_unit_test(test_multiprime),
        cmocka_unit_test(test_rsapss),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_prime_congruence),
        cmocka_unit_test(test_callback),
    };
    if (!tu_env_init(&env))
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tu_env_free(&env);
    return failed;
}
