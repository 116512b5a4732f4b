/*
 * End-to-end tests of the "RSA" KEM (RSASVE) through EVP_PKEY_encapsulate/decapsulate, with
 * OpenSSL's default provider as the oracle: the provider under test encapsulates and the
 * default provider decapsulates, and the reverse, on 1024, 2048, 3072 and 4096-bit keys and
 * on moduli whose length is not a multiple of 8 (1025, 2049 bits); each secret is checked
 * with BN to lie in [2, n-2] and to encrypt to the ciphertext; ciphertexts 2 and n-2
 * decapsulate to what the default provider gives, 0, 1 and n-1 are refused (SP 800-56B's
 * range, as OpenSSL 3.5 refuses them); wrong lengths, c >= n, short buffers, an
 * unknown operation and a public key for decapsulation fail with a reason; every operation
 * is checked to have run in the provider under test.
 */
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
#include <openssl/param_build.h>

#include "testutil.h"

#define MAX_K 512

static tu_env env;

struct keyset {
    size_t bits;
    EVP_PKEY *oracle, *priv, *pub;
};
static struct keyset keys[] = { { 1024, NULL, NULL, NULL }, { 1025, NULL, NULL, NULL },
                                { 2048, NULL, NULL, NULL }, { 2049, NULL, NULL, NULL },
                                { 3072, NULL, NULL, NULL }, { 4096, NULL, NULL, NULL } };
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static int setup(void **state)
{
    size_t i;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    for (i = 0; i < N_KEYS; i++) {
        keys[i].oracle = EVP_PKEY_Q_keygen(env.libctx, TU_PROPQ_DEFAULT, "RSA", keys[i].bits);
        if (keys[i].oracle == NULL)
            return -1;
        keys[i].priv = tu_pkey_copy_to(env.libctx, keys[i].oracle, 1, tu_provider_name());
        keys[i].pub = tu_pkey_copy_to(env.libctx, keys[i].oracle, 0, tu_provider_name());
        if (keys[i].priv == NULL || keys[i].pub == NULL)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < N_KEYS; i++) {
        EVP_PKEY_free(keys[i].pub);
        EVP_PKEY_free(keys[i].priv);
        EVP_PKEY_free(keys[i].oracle);
    }
    tu_env_free(&env);
    return 0;
}

/* A context for key under propq, initialised for encapsulation or decapsulation. */
static EVP_PKEY_CTX *kem_ctx(EVP_PKEY *key, const char *propq, int decap, const char *op)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    int ok;

    if (ctx == NULL)
        return NULL;
    ok = decap ? EVP_PKEY_decapsulate_init(ctx, NULL) : EVP_PKEY_encapsulate_init(ctx, NULL);
    if (ok == 1 && op != NULL)
        ok = EVP_PKEY_CTX_set_kem_op(ctx, op);
    if (ok != 1) {
        tu_print_errors("kem init");
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Encapsulate with key under propq; 1 on success. in_ut: check it ran in the provider under test. */
static int encap(EVP_PKEY *key, const char *propq, int in_ut, uint8_t *ct, size_t *ctlen,
                 uint8_t *z, size_t *zlen)
{
    EVP_PKEY_CTX *ctx = kem_ctx(key, propq, 0, "RSASVE");
    int ok;

    if (ctx == NULL)
        return 0;
    ok = EVP_PKEY_encapsulate(ctx, ct, ctlen, z, zlen) == 1;
    if (ok && in_ut && !tu_ctx_in_provider(ctx))
        fail_msg("encapsulation did not run in %s", tu_provider_name());
    if (ok && !in_ut && !tu_ctx_in_named_provider(ctx, "default"))
        fail_msg("the oracle's encapsulation did not run in the default provider");
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int decap(EVP_PKEY *key, const char *propq, int in_ut, const uint8_t *ct, size_t ctlen,
                 uint8_t *z, size_t *zlen)
{
    EVP_PKEY_CTX *ctx = kem_ctx(key, propq, 1, "RSASVE");
    int ok;

    if (ctx == NULL)
        return 0;
    ok = EVP_PKEY_decapsulate(ctx, z, zlen, ct, ctlen) == 1;
    if (ok && in_ut && !tu_ctx_in_provider(ctx))
        fail_msg("decapsulation did not run in %s", tu_provider_name());
    if (ok && !in_ut && !tu_ctx_in_named_provider(ctx, "default"))
        fail_msg("the oracle's decapsulation did not run in the default provider");
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* n of key as a BIGNUM. */
static BIGNUM *get_n(const EVP_PKEY *key)
{
    BIGNUM *n = NULL;

    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &n), 1);
    return n;
}

/* z (k bytes) lies in [2, n-2] and z^e mod n is the ciphertext: checked with BN. */
static void check_pair(const EVP_PKEY *key, const uint8_t *ct, const uint8_t *z, size_t k)
{
    BIGNUM *n = get_n(key), *e = NULL, *bz = BN_bin2bn(z, (int)k, NULL), *bc = BN_new();
    BIGNUM *lim = BN_dup(n);
    BN_CTX *bnctx = BN_CTX_new();
    uint8_t want[MAX_K];

    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &e), 1);
    assert_non_null(bz);
    assert_non_null(lim);
    assert_true(BN_sub_word(lim, 2));
    assert_true(BN_cmp(bz, BN_value_one()) > 0);  /* z >= 2 */
    assert_true(BN_cmp(bz, lim) <= 0);            /* z <= n - 2 */
    assert_true(BN_mod_exp(bc, bz, e, n, bnctx));
    assert_int_equal(BN_bn2binpad(bc, want, (int)k), (int)k);
    assert_memory_equal(want, ct, k);
    BN_free(n);
    BN_free(e);
    BN_free(bz);
    BN_free(bc);
    BN_free(lim);
    BN_CTX_free(bnctx);
}

static void test_both_directions(void **state)
{
    size_t i;
    int round;

    (void)state;
    for (i = 0; i < N_KEYS; i++) {
        const struct keyset *ks = &keys[i];
        size_t k = (size_t)EVP_PKEY_get_size(ks->oracle);

        for (round = 0; round < 8; round++) {
            uint8_t ct[MAX_K], z[MAX_K], z2[MAX_K];
            size_t ctlen = sizeof(ct), zlen = sizeof(z), z2len = sizeof(z2);

            /* Under test encapsulates (public key), the default provider decapsulates. */
            assert_true(encap(ks->pub, tu_propq(), 1, ct, &ctlen, z, &zlen));
            assert_int_equal(ctlen, k);
            assert_int_equal(zlen, k);
            check_pair(ks->oracle, ct, z, k);
            assert_true(decap(ks->oracle, TU_PROPQ_DEFAULT, 0, ct, ctlen, z2, &z2len));
            assert_int_equal(z2len, k);
            assert_memory_equal(z, z2, k);
            /* And the provider under test decapsulates its own. */
            z2len = sizeof(z2);
            assert_true(decap(ks->priv, tu_propq(), 1, ct, ctlen, z2, &z2len));
            assert_int_equal(z2len, k);
            assert_memory_equal(z, z2, k);

            /* The default provider encapsulates, the provider under test decapsulates. */
            ctlen = sizeof(ct);
            zlen = sizeof(z);
            z2len = sizeof(z2);
            assert_true(encap(ks->oracle, TU_PROPQ_DEFAULT, 0, ct, &ctlen, z, &zlen));
            assert_true(decap(ks->priv, tu_propq(), 1, ct, ctlen, z2, &z2len));
            assert_int_equal(z2len, k);
            assert_memory_equal(z, z2, k);
        }
    }
}

/* The operation may be left unset (RSASVE by default) and is matched without case. */
static void test_operation_names(void **state)
{
    const struct keyset *ks = &keys[2];
    const char *ops[] = { NULL, "RSASVE", "rsasve", "RsaSve" };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        uint8_t ct[MAX_K], z[MAX_K], z2[MAX_K];
        size_t ctlen = sizeof(ct), zlen = sizeof(z), z2len = sizeof(z2);
        EVP_PKEY_CTX *ctx = kem_ctx(ks->pub, tu_propq(), 0, ops[i]);

        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_encapsulate(ctx, ct, &ctlen, z, &zlen), 1);
        assert_true(tu_ctx_in_provider(ctx));
        EVP_PKEY_CTX_free(ctx);
        assert_true(decap(ks->oracle, TU_PROPQ_DEFAULT, 0, ct, ctlen, z2, &z2len));
        assert_memory_equal(z, z2, zlen);
    }
    /* An unknown operation is refused, at set time, with a reason. */
    {
        EVP_PKEY_CTX *ctx = kem_ctx(ks->pub, tu_propq(), 0, NULL);

        assert_non_null(ctx);
        assert_int_not_equal(EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE2"), 1);
        assert_true(tu_ctx_in_provider(ctx));
        EVP_PKEY_CTX_free(ctx);
        ERR_clear_error();
    }
}

/*
 * Found by review: the operation name read only within its data_size (an unterminated
 * "RSASVEXYZ" cut at 6 bytes is RSASVE), a secret buffer too small refused, and OpenSSL's
 * bound on e (at most 64 bits above 3072-bit moduli) applied to encapsulation as to every
 * public operation, so a hostile public key cannot make it burn CPU.
 */
static void test_review_findings(void **state)
{
    const struct keyset *ks = &keys[2];
    uint8_t ct[MAX_K], z[MAX_K];
    size_t ctlen = sizeof(ct), zlen;
    char name[9] = { 'R', 'S', 'A', 'S', 'V', 'E', 'X', 'Y', 'Z' };  /* no NUL */
    OSSL_PARAM op[2] = { OSSL_PARAM_construct_utf8_string(OSSL_KEM_PARAM_OPERATION, name, 6),
                         OSSL_PARAM_construct_end() };

    (void)state;
    EVP_PKEY_CTX *ctx = kem_ctx(ks->pub, tu_propq(), 0, NULL);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_CTX_set_params(ctx, op), 1);
    zlen = 16;  /* k is 256 */
    assert_int_not_equal(EVP_PKEY_encapsulate(ctx, ct, &ctlen, z, &zlen), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);

    if (strcmp(tu_provider_name(), "ctrsa") != 0)
        return;
    /* n: a random odd 4096-bit number; e: odd, 4000 bits (public key only, import takes it) */
    BIGNUM *n = BN_new(), *e = BN_new();
    assert_int_equal(BN_rand(n, 4096, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    assert_int_equal(BN_rand(e, 4000, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n), 1);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e), 1);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ictx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    EVP_PKEY *big = NULL;
    assert_int_equal(EVP_PKEY_fromdata_init(ictx), 1);
    assert_int_equal(EVP_PKEY_fromdata(ictx, &big, EVP_PKEY_PUBLIC_KEY, params), 1);
    ctx = kem_ctx(big, tu_propq(), 0, "RSASVE");
    assert_non_null(ctx);
    ctlen = sizeof(ct);
    zlen = sizeof(z);
    assert_int_not_equal(EVP_PKEY_encapsulate(ctx, ct, &ctlen, z, &zlen), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(big);
    EVP_PKEY_CTX_free(ictx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
}

/* Sizes are reported without an output buffer: k for both. */
static void test_size_queries(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < N_KEYS; i++) {
        size_t k = (size_t)EVP_PKEY_get_size(keys[i].oracle), ctlen = 0, zlen = 0;
        uint8_t ct[MAX_K];
        EVP_PKEY_CTX *ctx = kem_ctx(keys[i].pub, tu_propq(), 0, "RSASVE");

        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_encapsulate(ctx, NULL, &ctlen, NULL, &zlen), 1);
        assert_int_equal(ctlen, k);
        assert_int_equal(zlen, k);
        EVP_PKEY_CTX_free(ctx);
        ctx = kem_ctx(keys[i].priv, tu_propq(), 1, "RSASVE");
        assert_non_null(ctx);
        zlen = 0;
        memset(ct, 0, k); /* libcrypto wants a ciphertext even for the size */
        assert_int_equal(EVP_PKEY_decapsulate(ctx, NULL, &zlen, ct, k), 1);
        assert_int_equal(zlen, k);
        assert_true(tu_ctx_in_provider(ctx));
        EVP_PKEY_CTX_free(ctx);
    }
}

/* ct (k bytes) := v, or n - v when from_n. */
static void edge_value(const EVP_PKEY *key, unsigned v, int from_n, uint8_t *ct, size_t k)
{
    BIGNUM *b = from_n ? get_n(key) : BN_new();

    assert_non_null(b);
    if (from_n)
        assert_true(BN_sub_word(b, v));
    else
        assert_true(BN_set_word(b, v));
    assert_int_equal(BN_bn2binpad(b, ct, (int)k), (int)k);
    BN_free(b);
}

static void decap_fails(EVP_PKEY *key, const uint8_t *ct, size_t ctlen, size_t zbuf,
                        const char *what);

/*
 * The ends of the range 1 < c < n-1: c = 2 and n-2 decapsulate to what the default provider
 * gives; c = 0, 1 and n-1 (their own d-th powers: the secret would be known) are refused with a
 * reason (SP 800-56B's RSADP range, as OpenSSL 3.5's default provider refuses them; 3.0's
 * accepted them, so the default provider is not asked about those).
 */
static void test_edge_ciphertexts(void **state)
{
    const struct keyset *ks = &keys[2];
    size_t k = (size_t)EVP_PKEY_get_size(ks->oracle);
    uint8_t ct[MAX_K], z[MAX_K], z2[MAX_K];
    int from_n;

    (void)state;
    for (from_n = 0; from_n < 2; from_n++) {
        size_t zlen = sizeof(z), z2len = sizeof(z2);

        edge_value(ks->oracle, 2, from_n, ct, k);
        assert_true(decap(ks->oracle, TU_PROPQ_DEFAULT, 0, ct, k, z2, &z2len));
        assert_true(decap(ks->priv, tu_propq(), 1, ct, k, z, &zlen));
        assert_int_equal(zlen, z2len);
        assert_memory_equal(z, z2, k);
    }
    edge_value(ks->oracle, 0, 0, ct, k);
    decap_fails(ks->priv, ct, k, MAX_K, "c = 0");
    edge_value(ks->oracle, 1, 0, ct, k);
    decap_fails(ks->priv, ct, k, MAX_K, "c = 1");
    edge_value(ks->oracle, 1, 1, ct, k);
    decap_fails(ks->priv, ct, k, MAX_K, "c = n-1");
}

/* A failing decapsulation: it must fail with a reason on the queue. */
static void decap_fails(EVP_PKEY *key, const uint8_t *ct, size_t ctlen, size_t zbuf,
                        const char *what)
{
    EVP_PKEY_CTX *ctx = kem_ctx(key, tu_propq(), 1, "RSASVE");
    uint8_t z[MAX_K + 8];
    size_t zlen = zbuf;

    assert_non_null(ctx);
    if (EVP_PKEY_decapsulate(ctx, z, &zlen, ct, ctlen) == 1)
        fail_msg("%s: decapsulation succeeded", what);
    if (!tu_error_with_reason())
        fail_msg("%s: no reason on the error queue", what);
    assert_true(tu_ctx_in_provider(ctx));
    EVP_PKEY_CTX_free(ctx);
}

static void test_errors(void **state)
{
    const struct keyset *ks = &keys[2];
    size_t k = (size_t)EVP_PKEY_get_size(ks->oracle), ctlen, zlen;
    BIGNUM *n = get_n(ks->oracle);
    uint8_t ct[MAX_K + 8], z[MAX_K];
    EVP_PKEY_CTX *ctx;

    (void)state;
    ctlen = sizeof(ct);
    zlen = sizeof(z);
    assert_true(encap(ks->pub, tu_propq(), 1, ct, &ctlen, z, &zlen));
    /* Wrong ciphertext lengths: one byte short, one byte long, empty. */
    decap_fails(ks->priv, ct, k - 1, MAX_K, "ciphertext of k-1 bytes");
    ct[k] = 0;
    decap_fails(ks->priv, ct, k + 1, MAX_K, "ciphertext of k+1 bytes");
    /* An empty ciphertext: libcrypto refuses it before any provider sees it. */
    ctx = kem_ctx(ks->priv, tu_propq(), 1, "RSASVE");
    assert_non_null(ctx);
    zlen = sizeof(z);
    assert_int_not_equal(EVP_PKEY_decapsulate(ctx, z, &zlen, ct, 0), 1);
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    /* A secret buffer one byte short. */
    decap_fails(ks->priv, ct, k, k - 1, "secret buffer of k-1 bytes");
    /* c = n and c = 2^(8k) - 1 are not below n. */
    assert_int_equal(BN_bn2binpad(n, ct, (int)k), (int)k);
    decap_fails(ks->priv, ct, k, MAX_K, "c = n");
    memset(ct, 0xff, k);
    decap_fails(ks->priv, ct, k, MAX_K, "c = 2^(8k) - 1");
    BN_free(n);

    /* Encapsulation into a ciphertext buffer one byte short. */
    ctx = kem_ctx(ks->pub, tu_propq(), 0, "RSASVE");
    assert_non_null(ctx);
    ctlen = k - 1;
    zlen = sizeof(z);
    assert_int_not_equal(EVP_PKEY_encapsulate(ctx, ct, &ctlen, z, &zlen), 1);
    assert_true(tu_error_with_reason());
    assert_true(tu_ctx_in_provider(ctx));
    EVP_PKEY_CTX_free(ctx);

    /* Decapsulation with a public key starts, as with the default provider, and fails. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ks->pub, tu_propq());
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_decapsulate_init(ctx, NULL), 1);
    assert_int_equal(EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE"), 1);
    zlen = sizeof(z);
    assert_int_not_equal(EVP_PKEY_decapsulate(ctx, z, &zlen, ct, ctlen), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);
}

/* A duplicated context encapsulates and decapsulates like the original. */
static void test_dup(void **state)
{
    const struct keyset *ks = &keys[0];
    EVP_PKEY_CTX *ctx = kem_ctx(ks->priv, tu_propq(), 1, "RSASVE"), *dup;
    uint8_t ct[MAX_K], z[MAX_K], z2[MAX_K];
    size_t ctlen = sizeof(ct), zlen = sizeof(z), z2len = sizeof(z2);

    (void)state;
    assert_non_null(ctx);
    assert_true(encap(ks->oracle, TU_PROPQ_DEFAULT, 0, ct, &ctlen, z, &zlen));
    dup = EVP_PKEY_CTX_dup(ctx);
    assert_non_null(dup);
    EVP_PKEY_CTX_free(ctx);
    assert_int_equal(EVP_PKEY_decapsulate(dup, z2, &z2len, ct, ctlen), 1);
    assert_true(tu_ctx_in_provider(dup));
    assert_memory_equal(z, z2, zlen);
    EVP_PKEY_CTX_free(dup);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_directions),
        cmocka_unit_test(test_operation_names),
        cmocka_unit_test(test_size_queries),
        cmocka_unit_test(test_edge_ciphertexts),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dup),
        cmocka_unit_test(test_review_findings),
    };

    return cmocka_run_group_tests_name("kem", tests, setup, teardown);
}
