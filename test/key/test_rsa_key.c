/*
 * The key object on its own (no OpenSSL provider glue): import validation, the private
 * operation (CRT, no-CRT and three-prime keys) and the public operation, checked against
 * OpenSSL's BN as the oracle; the blinding cache across threads and fork.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include "rsa_key_internal.h" /* unusable keys: no Montgomery context, no blinding */
#include "rsa_op.h"

static CTRSA_PROVCTX prov; /* no core handle: errors are dropped; randomness from libctx */

typedef struct {
    BIGNUM *n, *e, *d, *f[5], *x[5], *c[4];
    size_t nprimes;
    uint8_t buf[16][1024];
} oracle_key;

static void oracle_generate(oracle_key *k, int bits, int primes)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", "provider=default");
    EVP_PKEY *pkey = NULL;
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_primes(ctx, primes), 1);
    assert_int_equal(EVP_PKEY_generate(ctx, &pkey), 1);
    memset(k, 0, sizeof(*k));
    assert_int_equal(EVP_PKEY_get_bn_param(pkey, "n", &k->n), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(pkey, "e", &k->e), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(pkey, "d", &k->d), 1);
    static const char *fn[] = {"rsa-factor1", "rsa-factor2", "rsa-factor3"};
    static const char *xn[] = {"rsa-exponent1", "rsa-exponent2", "rsa-exponent3"};
    static const char *cn[] = {"rsa-coefficient1", "rsa-coefficient2"};
    k->nprimes = (size_t)primes;
    for (int i = 0; i < primes; i++) {
        assert_int_equal(EVP_PKEY_get_bn_param(pkey, fn[i], &k->f[i]), 1);
        assert_int_equal(EVP_PKEY_get_bn_param(pkey, xn[i], &k->x[i]), 1);
        if (i + 1 < primes)
            assert_int_equal(EVP_PKEY_get_bn_param(pkey, cn[i], &k->c[i]), 1);
    }
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(ctx);
}

static void oracle_free(oracle_key *k)
{
    BN_free(k->n); BN_free(k->e); BN_clear_free(k->d);
    for (int i = 0; i < 5; i++) { BN_clear_free(k->f[i]); BN_clear_free(k->x[i]); }
    for (int i = 0; i < 4; i++) BN_clear_free(k->c[i]);
}

static ctrsa_num num(oracle_key *k, int slot, const BIGNUM *v)
{
    ctrsa_num r = {k->buf[slot], (size_t)BN_num_bytes(v)};
    BN_bn2bin(v, k->buf[slot]);
    return r;
}

/* Fill nums from k; with_crt = 0 gives an n, e, d key. */
static void numbers_of(oracle_key *k, ctrsa_key_numbers *nums, int with_private, int with_crt)
{
    memset(nums, 0, sizeof(*nums));
    nums->n = num(k, 0, k->n);
    nums->e = num(k, 1, k->e);
    if (!with_private)
        return;
    nums->d = num(k, 2, k->d);
    if (!with_crt)
        return;
    nums->nprimes = k->nprimes;
    for (size_t i = 0; i < k->nprimes; i++) {
        nums->primes[i] = num(k, 3 + (int)i, k->f[i]);
        nums->exps[i] = num(k, 8 + (int)i, k->x[i]);
        if (i + 1 < k->nprimes)
            nums->coeffs[i] = num(k, 13 + (int)i, k->c[i]);
    }
}

/* x^d mod n and x^e mod n by ctrsa agree with BN for random x < n. */
static void check_ops(CTRSA_KEY *key, oracle_key *k, int rounds)
{
    size_t len = ctrsa_key_size(key);
    uint8_t in[1024], out[1024], back[1024], want[1024];
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *x = BN_new(), *y = BN_new();
    for (int i = 0; i < rounds; i++) {
        BN_rand_range(x, k->n);
        BN_bn2binpad(x, in, (int)len);
        assert_int_equal(ctrsa_key_private_op(key, out, in), 1);
        BN_mod_exp(y, x, k->d, k->n, bctx);
        BN_bn2binpad(y, want, (int)len);
        assert_memory_equal(out, want, len);
        assert_int_equal(ctrsa_key_public_op(key, back, out), 1);
        assert_memory_equal(back, in, len);
    }
    /* Inputs >= n are refused by both operations. */
    BN_bn2binpad(k->n, in, (int)len);
    assert_int_equal(ctrsa_key_private_op(key, out, in), 0);
    assert_int_equal(ctrsa_key_public_op(key, out, in), 0);
    memset(in, 0xff, len);
    assert_int_equal(ctrsa_key_private_op(key, out, in), 0);
    BN_free(x); BN_free(y); BN_CTX_free(bctx);
}

static void test_crt_keys(void **state)
{
    (void)state;
    static const int sizes[] = {1024, 2048, 3072, 4096, 1536, 2056};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        oracle_key k;
        ctrsa_key_numbers nums;
        oracle_generate(&k, sizes[s], 2);
        numbers_of(&k, &nums, 1, 1);
        CTRSA_KEY *key = ctrsa_key_new(&prov);
        assert_int_equal(ctrsa_key_set(key, &nums), 1);
        assert_int_equal(ctrsa_key_bits(key), sizes[s]);
        assert_true(ctrsa_key_has_private(key));
        /* More than CTRSA_BLINDING_MAX_USES operations: the pair is refreshed on the way. */
        check_ops(key, &k, sizes[s] <= 2048 ? 40 : 6);
        assert_int_equal(ctrsa_key_validate(key, 1), 1);
        ctrsa_key_free(key);
        oracle_free(&k);
    }
}

static void test_no_crt_and_three_primes(void **state)
{
    (void)state;
    oracle_key k;
    ctrsa_key_numbers nums;
    oracle_generate(&k, 2048, 2);
    numbers_of(&k, &nums, 1, 0);
    CTRSA_KEY *key = ctrsa_key_new(&prov);
    assert_int_equal(ctrsa_key_set(key, &nums), 1);
    check_ops(key, &k, 3);
    ctrsa_key_free(key);
    oracle_free(&k);

    oracle_generate(&k, 3072, 3);
    numbers_of(&k, &nums, 1, 1);
    key = ctrsa_key_new(&prov);
    assert_int_equal(ctrsa_key_set(key, &nums), 1);
    check_ops(key, &k, 3);
    ctrsa_key_numbers out;
    assert_int_equal(ctrsa_key_get_numbers(key, &out, 1), 1);
    assert_int_equal(out.nprimes, 3);
    assert_int_equal(out.coeffs[1].len, nums.coeffs[1].len);
    assert_memory_equal(out.coeffs[1].p, nums.coeffs[1].p, nums.coeffs[1].len);
    ctrsa_key_numbers_clear(&out);
    ctrsa_key_free(key);
    oracle_free(&k);
}

static void test_public_only_and_match(void **state)
{
    (void)state;
    oracle_key k;
    ctrsa_key_numbers nums;
    oracle_generate(&k, 2048, 2);
    numbers_of(&k, &nums, 0, 0);
    CTRSA_KEY *pub = ctrsa_key_new(&prov);
    assert_int_equal(ctrsa_key_set(pub, &nums), 1);
    assert_false(ctrsa_key_has_private(pub));
    uint8_t in[256] = {0}, out[256];
    in[255] = 2;
    assert_int_equal(ctrsa_key_private_op(pub, out, in), 0);
    assert_int_equal(ctrsa_key_public_op(pub, out, in), 1);
    numbers_of(&k, &nums, 1, 1);
    CTRSA_KEY *priv = ctrsa_key_new(&prov);
    assert_int_equal(ctrsa_key_set(priv, &nums), 1);
    assert_int_equal(ctrsa_key_match(pub, priv, 0), 1);
    assert_int_equal(ctrsa_key_match(pub, priv, 1), 0);
    CTRSA_KEY *copy = ctrsa_key_dup(priv, 1);
    assert_non_null(copy);
    assert_int_equal(ctrsa_key_match(copy, priv, 1), 1);
    check_ops(copy, &k, 2);
    ctrsa_key_free(copy);
    ctrsa_key_free(pub);
    ctrsa_key_free(priv);
    oracle_free(&k);
}

/* Each malformation must be refused, and must leave the key as it was. */
/* The default provider's public check of a modulus below 512 bits (3.0's
 * ossl_rsa_sp800_56b_check_public, e = 65537 given): odd, no factor below 752, composite. */
static int small_n_public_ok(const ctrsa_num *n)
{
    BIGNUM *b = BN_bin2bn(n->p, (int)n->len, NULL);
    int ok = b != NULL && BN_is_odd(b);
    for (BN_ULONG f = 3; ok && f < 752; f += 2) {
        int prime = 1;
        for (BN_ULONG g = 3; g * g <= f; g += 2)
            prime &= f % g != 0;
        if (prime && BN_mod_word(b, f) == 0)
            ok = 0;
    }
    ok = ok && BN_check_prime(b, NULL, NULL) == 0;
    BN_free(b);
    return ok;
}

static void test_malformed(void **state)
{
    (void)state;
    oracle_key k;
    ctrsa_key_numbers nums;
    oracle_generate(&k, 1024, 2);
    CTRSA_KEY *key = ctrsa_key_new(&prov);
    uint8_t bad[1024];
    BIGNUM *t = BN_new();

#define REFUSE(mutate)                                                                     \
    do {                                                                                   \
        numbers_of(&k, &nums, 1, 1);                                                       \
        mutate;                                                                            \
        assert_int_equal(ctrsa_key_set(key, &nums), 0);                                    \
        assert_false(ctrsa_key_has_public(key));                                           \
    } while (0)

    /*
     * A d not below n, or zero with the factors, imports (as in OpenSSL's default provider)
     * with every number kept as given: the public operation and check run, every private
     * operation is refused and the private-key check fails, before any private number is
     * loaded (no d, no CRT state, no blinding pair); the numbers export, duplicate and
     * match as given.
     */
#define D_KEPT(mutate)                                                                     \
    do {                                                                                   \
        CTRSA_KEY *u = ctrsa_key_new(&prov);                                              \
        ctrsa_key_numbers got;                                                             \
        uint8_t io[1024] = {0};                                                            \
        numbers_of(&k, &nums, 1, 1);                                                       \
        mutate;                                                                            \
        assert_int_equal(ctrsa_key_set(u, &nums), 1);                                      \
        assert_true(ctrsa_key_has_private(u));                                             \
        assert_int_equal(ctrsa_key_computable(u), 1);                                      \
        assert_int_equal(ctrsa_key_public_op(u, io, io), 1);                               \
        assert_int_equal(ctrsa_key_private_computable(u), 0);                              \
        assert_int_equal(ctrsa_key_private_op(u, io, io), 0);                              \
        assert_int_equal(ctrsa_key_check_private(u), 0);                                   \
        assert_null(u->d);                                                                 \
        assert_null(u->crt_secrets);                                                       \
        assert_null(u->slots);                                                             \
        assert_int_equal(ctrsa_key_get_numbers(u, &got, 1), 1);                            \
        assert_int_equal(got.d.len, nums.d.len);                                           \
        assert_memory_equal(got.d.p, nums.d.p, nums.d.len);                                \
        assert_int_equal(got.nprimes, nums.nprimes);                                       \
        CTRSA_KEY *c = ctrsa_key_dup(u, 1);                                                \
        assert_non_null(c);                                                                \
        assert_true(ctrsa_key_match(u, c, 1));                                             \
        ctrsa_key_free(c);                                                                 \
        ctrsa_key_numbers_clear(&got);                                                     \
        ctrsa_key_free(u);                                                                 \
    } while (0)

    /*
     * Keys the engine cannot compute with import (as in OpenSSL's default provider) and
     * refuse every operation before any arithmetic: no Montgomery context is ever made, no
     * blinding pair, no scratch; the numbers export as given.
     */
/* A key that imports with no arithmetic done on it; its public check fails unless
 * public_ok (the default's check takes an e above n, and some moduli below 512 bits). */
#define UNUSABLE_PUB(mutate, public_ok)                                                    \
    do {                                                                                   \
        CTRSA_KEY *u = ctrsa_key_new(&prov);                                              \
        ctrsa_key_numbers got;                                                             \
        uint8_t io[1024] = {0};                                                            \
        numbers_of(&k, &nums, 1, 1);                                                       \
        mutate;                                                                            \
        assert_int_equal(ctrsa_key_set(u, &nums), 1);                                      \
        assert_true(ctrsa_key_has_public(u));                                              \
        assert_int_equal(ctrsa_key_has_private(u), nums.d.len > 0);                        \
        assert_int_equal(ctrsa_key_computable(u), 0);                                      \
        assert_int_equal(ctrsa_key_public_op(u, io, io), 0);                               \
        assert_int_equal(ctrsa_key_private_op(u, io, io), 0);                              \
        assert_int_equal(ctrsa_key_check_public(u), public_ok);                            \
        assert_int_equal(ctrsa_key_validate(u, 1), 0);                                     \
        assert_null(u->mont_n);                                                            \
        assert_null(u->e);                                                                 \
        assert_null(u->d);                                                                 \
        assert_null(u->slots);                                                             \
        assert_int_equal(ctrsa_key_get_numbers(u, &got, 1), 1);                            \
        assert_int_equal(got.n.len, nums.n.len);                                           \
        assert_memory_equal(got.n.p, nums.n.p, nums.n.len);                                \
        assert_int_equal(got.d.len, nums.d.len);                                           \
        assert_int_equal(got.nprimes, nums.nprimes);                                       \
        CTRSA_KEY *c = ctrsa_key_dup(u, 1);                                                \
        assert_non_null(c);                                                                \
        assert_true(ctrsa_key_match(u, c, nums.d.len > 0));                                \
        ctrsa_key_free(c);                                                                 \
        ctrsa_key_numbers_clear(&got);                                                     \
        ctrsa_key_free(u);                                                                 \
    } while (0)
#define UNUSABLE(mutate) UNUSABLE_PUB(mutate, 0)

    /* even n */
    UNUSABLE({ memcpy(bad, nums.n.p, nums.n.len); bad[nums.n.len - 1] ^= 1; nums.n.p = bad; });
    /* tiny n (256 bits: the low bytes of the key's n; whether the check passes depends on
     * their factors, as with the default provider) */
    UNUSABLE_PUB({ nums.n.p += nums.n.len - 32; nums.n.len = 32; nums.d.len = 0;
                   nums.nprimes = 0; }, small_n_public_ok(&nums.n));
    /* p*q != n: p + 2 */
    REFUSE({ BN_copy(t, k.f[0]); BN_add_word(t, 2); nums.primes[0].len = (size_t)BN_bn2bin(t, bad);
             nums.primes[0].p = bad; });
    /* d wrong: d + 2 */
    REFUSE({ BN_copy(t, k.d); BN_add_word(t, 2); nums.d.len = (size_t)BN_bn2bin(t, bad); nums.d.p = bad; });
    /* dP wrong */
    REFUSE({ BN_copy(t, k.x[0]); BN_sub_word(t, 2); nums.exps[0].len = (size_t)BN_bn2bin(t, bad);
             nums.exps[0].p = bad; });
    /* qInv wrong */
    REFUSE({ BN_copy(t, k.c[0]); BN_add_word(t, 1); nums.coeffs[0].len = (size_t)BN_bn2bin(t, bad);
             nums.coeffs[0].p = bad; });
    /* CRT exponents without their coefficient */
    REFUSE({ nums.coeffs[0].len = 0; });
    /* one factor only */
    REFUSE({ nums.nprimes = 1; });
    /* even e, e = 1, e = n */
    UNUSABLE({ bad[0] = 4; nums.e.p = bad; nums.e.len = 1; });
    UNUSABLE({ bad[0] = 1; nums.e.p = bad; nums.e.len = 1; });
    UNUSABLE_PUB({ nums.e = nums.n; }, 1);
    /* d >= n: imports with its public part; no private number is loaded */
    D_KEPT({ nums.d = nums.n; });
    /* absent n or e (len 0) is refused; present and zero, the key imports unusable */
    REFUSE({ nums.n.len = 0; });
    REFUSE({ nums.e.len = 0; });
    UNUSABLE({ memset(bad, 0, 4); nums.n.p = bad; nums.n.len = 4; });
    UNUSABLE({ bad[0] = 0; nums.e.p = bad; nums.e.len = 1; });
    UNUSABLE({ bad[0] = 0; nums.n.p = nums.e.p = nums.d.p = bad; nums.n.len = nums.e.len = 1;
               nums.d.len = 1; nums.nprimes = 0; });
    /* d = 0 with factors: imports as d >= n does */
    D_KEPT({ memset(bad, 0, nums.d.len); nums.d.p = bad; });
    /* d = 0 without factors imports: the public operation runs, the private ones are
     * refused, d exports as zero */
    {
        CTRSA_KEY *z = ctrsa_key_new(&prov);
        ctrsa_key_numbers got;
        uint8_t io[1024] = {0}, zeros[1024] = {0};
        numbers_of(&k, &nums, 1, 1);
        memset(bad, 0, nums.d.len);
        nums.d.p = bad;
        nums.nprimes = 0;
        assert_int_equal(ctrsa_key_set(z, &nums), 1);
        assert_true(ctrsa_key_has_private(z));
        assert_int_equal(ctrsa_key_computable(z), 1);
        assert_int_equal(ctrsa_key_private_computable(z), 0);
        io[ctrsa_key_size(z) - 1] = 2;
        assert_int_equal(ctrsa_key_public_op(z, io, io), 1);
        assert_int_equal(ctrsa_key_private_op(z, io, io), 0);
        assert_int_equal(ctrsa_key_validate(z, 1), 0);
        assert_int_equal(ctrsa_key_check_public(z), 1);
        assert_null(z->slots);
        assert_int_equal(ctrsa_key_get_numbers(z, &got, 1), 1);
        assert_int_equal(got.d.len, ctrsa_key_size(z));
        assert_memory_equal(got.d.p, zeros, got.d.len);
        CTRSA_KEY *c = ctrsa_key_dup(z, 1);
        assert_non_null(c);
        assert_true(ctrsa_key_match(z, c, 1));
        assert_int_equal(ctrsa_key_private_computable(c), 0);
        ctrsa_key_free(c);
        ctrsa_key_numbers_clear(&got);
        ctrsa_key_free(z);
    }

    /* A good key still imports after all that. */
    numbers_of(&k, &nums, 1, 1);
    assert_int_equal(ctrsa_key_set(key, &nums), 1);
    BN_free(t);
    ctrsa_key_free(key);
    oracle_free(&k);
}

typedef struct {
    CTRSA_KEY *key;
    oracle_key *k;
    int failures;
} thread_arg;

static void *sign_many(void *p)
{
    thread_arg *a = p;
    size_t len = ctrsa_key_size(a->key);
    uint8_t in[512], out[512], back[512];
    for (int i = 0; i < 60; i++) {
        RAND_bytes(in, (int)len);
        in[0] = 0;
        if (!ctrsa_key_private_op(a->key, out, in) || !ctrsa_key_public_op(a->key, back, out)
            || memcmp(back, in, len) != 0)
            a->failures++;
    }
    return NULL;
}

static void test_threads_and_fork(void **state)
{
    (void)state;
    oracle_key k;
    ctrsa_key_numbers nums;
    oracle_generate(&k, 1024, 2);
    numbers_of(&k, &nums, 1, 1);
    CTRSA_KEY *key = ctrsa_key_new(&prov);
    assert_int_equal(ctrsa_key_set(key, &nums), 1);

    pthread_t th[8];
    thread_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (thread_arg){key, &k, 0};
        assert_int_equal(pthread_create(&th[i], NULL, sign_many, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }

    /* The child computes correct results with pairs of its own after fork(): every slot
     * its first private operation touched (uses or A changed from the parent's copy) was
     * made fresh in the child (its pid), never a parent's pair squared on. White-box: the
     * slots are the key object's (rsa_key_internal.h). */
    enum { SLOTS = CTRSA_BLINDING_SLOTS };
    struct { unsigned uses; ctbn_limb A[CTBN_MAX_LIMBS]; } before[SLOTS];
    assert_non_null(key->slots);
    for (int i = 0; i < SLOTS; i++) {
        before[i].uses = key->slots[i].uses;
        memset(before[i].A, 0, sizeof(before[i].A));
        if (key->slots[i].A != NULL)
            memcpy(before[i].A, key->slots[i].A, key->nlimbs * sizeof(ctbn_limb));
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t len = ctrsa_key_size(key);
        uint8_t in[512] = {0}, out[512];
        in[len - 1] = 2;
        if (!ctrsa_key_private_op(key, out, in))
            _exit(3);
        int touched = 0;
        for (int i = 0; i < SLOTS; i++) {
            const ctrsa_blinding_slot *sl = &key->slots[i];
            int changed = sl->uses != before[i].uses ||
                          (sl->A != NULL &&
                           memcmp(before[i].A, sl->A, key->nlimbs * sizeof(ctbn_limb)) != 0);
            touched += changed;
            if (changed && sl->pid != (long)getpid())
                _exit(4); /* a pair of the parent's used in the child */
        }
        if (touched == 0)
            _exit(5);
        thread_arg a = {key, &k, 0};
        sign_many(&a);
        _exit(a.failures == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ctrsa_key_free(key);
    oracle_free(&k);
}

int main(void)
{
    prov.libctx = OSSL_LIB_CTX_new(); /* default provider, loaded on first fetch */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crt_keys),
        cmocka_unit_test(test_no_crt_and_three_primes),
        cmocka_unit_test(test_public_only_and_match),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_threads_and_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
