/*
 * No key digit is left in a vector register after a private operation: for every engine
 * backend this CPU supports (CTRSA_CPU, set before each load of the provider), an RSA
 * PKCS#1 v1.5 signature through EVP_PKEY_sign with ctrsa at 1024, 2048, 3072 and 4096
 * bits, then, right after EVP_PKEY_sign returns, every vector register is stored to memory
 * (zmm0-31 and k0-7 on a CPU with AVX-512F, else ymm0-15 with AVX, else xmm0-15) and
 * searched for the key's secret digits: p, q, dP, dQ, qInv, d and the Montgomery-friendly
 * k0 p, k0 q of the AVX2 kernels (bignum/avx2.h), in radix 2^64, 2^52 (IFMA), 2^29 and 2^28
 * (AVX2, avx512). A 64-bit lane equal to a digit of radix 2^64 or 2^52 of at least 40 bits
 * is a hit; for the radices 2^29 and 2^28, two adjacent lanes equal to two consecutive digits
 * holding at least 40 bits between them.
 *
 * What libcrypto runs after the provider returns may leave its own (public) values in the
 * registers, so the criterion is the key's digits, not zero registers; the count of
 * registers not zero is printed for information.
 *
 * x86-64 only (test/provider/meson.build), natively: valgrind cannot run AVX-512.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "bignum.h"
#include "testutil.h"
#include "vector_regs.h"

#define NKEYS 4
static const int key_bits[NKEYS] = { 1024, 2048, 3072, 4096 };
static EVP_PKEY *keys[NKEYS]; /* key pairs in the default provider of the default context */

/* ---------------------------------------------------------------------------------------
 * The key's secret digits
 */
typedef struct secret {
    char name[16];
    unsigned radix;   /* 64, 52, 29 or 28 */
    size_t count;
    uint64_t digit[160]; /* 4096-bit d in radix 2^28: 147 */
} secret;

#define MAX_SECRETS 64
static secret secrets[MAX_SECRETS];
static size_t nsecrets;

static void add_digits(const char *name, const BIGNUM *x, unsigned radix)
{
    secret *s = &secrets[nsecrets++];
    int bits = BN_num_bits(x);

    assert_true(nsecrets <= MAX_SECRETS);
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->radix = radix;
    s->count = ((size_t)bits + radix - 1) / radix;
    assert_true(s->count <= 160);
    for (size_t i = 0; i < s->count; i++) {
        uint64_t d = 0;
        for (unsigned b = 0; b < radix; b++)
            d |= (uint64_t)BN_is_bit_set(x, (int)(i * radix + b)) << b;
        s->digit[i] = d;
    }
}

static BIGNUM *get_bn(const EVP_PKEY *key, const char *param)
{
    BIGNUM *x = NULL;

    assert_int_equal(EVP_PKEY_get_bn_param(key, param, &x), 1);
    return x;
}

/* k0 m with k0 = -m^-1 mod 2^w: the Montgomery-friendly modulus of bignum/avx2.h. */
static BIGNUM *friendly(const BIGNUM *m, unsigned w, BN_CTX *bn)
{
    BIGNUM *pw = BN_new(), *inv = BN_new(), *k0 = BN_new(), *out = BN_new();

    assert_true(pw && inv && k0 && out);
    assert_int_equal(BN_set_bit(pw, (int)w), 1);
    assert_non_null(BN_mod_inverse(inv, m, pw, bn));
    assert_int_equal(BN_sub(k0, pw, inv), 1); /* -m^-1 mod 2^w */
    assert_int_equal(BN_mul(out, k0, m, bn), 1);
    BN_free(pw);
    BN_free(inv);
    BN_free(k0);
    return out;
}

static void secrets_of(const EVP_PKEY *key)
{
    static const char *const params[] = {
        OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
        OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
        OSSL_PKEY_PARAM_RSA_COEFFICIENT1, OSSL_PKEY_PARAM_RSA_D,
    };
    static const char *const names[] = { "p", "q", "dP", "dQ", "qInv", "d" };
    static const unsigned radices[] = { 64, 52, 29, 28 };
    BN_CTX *bn = BN_CTX_new();

    assert_non_null(bn);
    nsecrets = 0;
    for (size_t i = 0; i < 6; i++) {
        BIGNUM *x = get_bn(key, params[i]);
        for (size_t r = 0; r < 4; r++)
            add_digits(names[i], x, radices[r]);
        if (i < 2) { /* the primes' friendly forms */
            for (unsigned w = 28; w <= 29; w++) {
                BIGNUM *f = friendly(x, w, bn);
                char name[16];
                snprintf(name, sizeof(name), "k0%s(%u)", names[i], w);
                add_digits(name, f, w);
                BN_free(f);
            }
        }
        BN_free(x);
    }
    BN_CTX_free(bn);
}

/* ---------------------------------------------------------------------------------------
 * The search
 */
#define MIN_BITS 40

static int bits_of(uint64_t x)
{
    return x == 0 ? 0 : 64 - __builtin_clzll(x);
}

/* Hits of the secrets in register v (lanes lanes); prints each. */
static int search_register(const uint64_t *v, int lanes, const char *what, int index)
{
    int hits = 0;

    for (size_t s = 0; s < nsecrets; s++) {
        const secret *sec = &secrets[s];
        for (size_t i = 0; i < sec->count; i++) {
            for (int l = 0; l < lanes; l++) {
                int hit;
                if (sec->radix >= 52) {
                    hit = v[l] == sec->digit[i] && bits_of(sec->digit[i]) >= MIN_BITS;
                } else {
                    /* two consecutive digits in adjacent lanes, 40 bits between them */
                    hit = l + 1 < lanes && i + 1 < sec->count && v[l] == sec->digit[i]
                          && v[l + 1] == sec->digit[i + 1]
                          && bits_of(sec->digit[i + 1]) + (int)sec->radix >= MIN_BITS
                          && sec->digit[i] != 0;
                }
                if (hit) {
                    printf("#   %s%d lane %d: digit %zu of %s in radix 2^%u (0x%llx)\n", what,
                           index, l, i, sec->name, sec->radix,
                           (unsigned long long)sec->digit[i]);
                    hits++;
                }
            }
        }
    }
    return hits;
}

static int search(const vregs *r)
{
    int hits = 0;

    for (int i = 0; i < r->nv; i++)
        hits += search_register(r->v[i], r->lanes, r->kind, i);
    return hits;
}

/* ---------------------------------------------------------------------------------------
 * The operation
 */
static int backend_supported(const char *name)
{
    const char *names[16];
    size_t count = ctbn_backend_supported(names, 16);

    for (size_t i = 0; i < count && i < 16; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

static void require_backend(const tu_env *env, const char *want)
{
    const char *got = NULL;
    OSSL_PARAM params[2] = {
        OSSL_PARAM_utf8_ptr("ctrsa-backend", &got, 0),
        OSSL_PARAM_END,
    };

    assert_int_equal(OSSL_PROVIDER_get_params(env->under_test, params), 1);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("the provider runs backend %s, not %s", got, want);
}

/* Hits after one PKCS#1 v1.5 signature of a SHA-256 digest with key (in ctrsa). */
static int sign_and_search(const tu_env *env, EVP_PKEY *key)
{
    unsigned char digest[32], sig[512];
    size_t siglen = sizeof(sig);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env->libctx, key, tu_propq());
    vregs r;
    int ok;

    memset(digest, 0x5a, sizeof(digest));
    memset(&r, 0, sizeof(r));
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_true(tu_ctx_in_provider(ctx));
    ok = EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest));
    vregs_dump(&r);
    if (ok != 1)
        tu_print_errors("sign");
    assert_int_equal(ok, 1);
    EVP_PKEY_CTX_free(ctx);
    vregs_print_nonzero(&r, "after EVP_PKEY_sign");
    return search(&r);
}

static void test_backend(void **state)
{
    const char *name = *state;
    tu_env env;
    int hits = 0;

    if (!backend_supported(name)) {
        printf("# %s: not supported by this CPU or build\n", name);
        skip();
    }
    assert_int_equal(setenv("CTRSA_CPU", name, 1), 0);
    assert_true(tu_env_init(&env));
    require_backend(&env, name);
    for (size_t i = 0; i < NKEYS; i++) {
        EVP_PKEY *key = tu_pkey_copy_to(env.libctx, keys[i], 1, tu_provider_name());
        assert_non_null(key);
        secrets_of(keys[i]);
        printf("# %s, RSA-%d:\n", name, key_bits[i]);
        int h = sign_and_search(&env, key);
        if (h != 0)
            printf("#   %d key digits left in registers\n", h);
        hits += h;
        EVP_PKEY_free(key);
    }
    tu_env_free(&env);
    assert_true(unsetenv("CTRSA_CPU") == 0);
    if (hits != 0)
        fail_msg("%s: %d key digits in vector registers after EVP_PKEY_sign", name, hits);
}

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++) {
        keys[i] = EVP_PKEY_Q_keygen(NULL, "provider=default", "RSA", (size_t)key_bits[i]);
        if (keys[i] == NULL) {
            tu_print_errors("keygen");
            return -1;
        }
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++)
        EVP_PKEY_free(keys[i]);
    return 0;
}

int main(void)
{
    /* one test per backend, named after it (bignum/backend.c's names and order) */
#define BACKEND(name) { name, test_backend, NULL, NULL, (void *)name }
    const struct CMUnitTest tests[] = {
        BACKEND("portable"), BACKEND("adx"), BACKEND("avx512y"), BACKEND("avx2"),
        BACKEND("avx512"), BACKEND("ifma"), BACKEND("ifmaz"),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
