/*
 * Prime generation and the RSA private numbers (bignum/prime.h) against OpenSSL's BN:
 * secret shifts, gcd, exact division, inverses of e modulo even numbers, lcm; the sieve
 * against BN trial division; Miller-Rabin rounds against a BN Miller-Rabin, on known primes,
 * Carmichael numbers and strong pseudoprimes to small bases; generated primes checked by
 * BN_check_prime; d, dP, dQ, qInv (and 3-prime coefficients) against BN's arithmetic, and
 * dP, dQ, qInv from d for keys imported without them.
 * The PRNG seed comes from CTRSA_TEST_SEED (bn_oracle.c) and is printed with failures.
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

#include "bn_oracle.h"
#include "prime.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SEED_TEST() oracle_seed_for(__func__)

static BIGNUM *bn_dec(const char *s)
{
    BIGNUM *b = NULL;
    assert_true(BN_dec2bn(&b, s) > 0);
    return b;
}

/* ---- shifts, ctz, gcd, exact division ---------------------------------------------- */

static void test_ctz_shifts(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t n = 1; n <= 9; n++) {
        ctbn_limb *x = limbs_alloc(n), *r = limbs_alloc(n);
        for (int it = 0; it < 200; it++) {
            rand_pattern(x, n, 64 * n);
            if (it % 7 == 0) {                  /* many trailing zeros */
                ctbn_limb s = rng_below(64 * n);
                ctbn_lshift_ct(x, x, n, s);
            }
            BIGNUM *bx = bn_from_limbs(x, n), *want = BN_new();
            report_begin("ctz/shift n=%zu", n);
            report_operand("x", x, n);
            uint64_t tz = 0;
            if (BN_is_zero(bx))
                tz = 64 * n;
            else
                while (!BN_is_bit_set(bx, (int)tz))
                    tz++;
            expect_word("ctz", ctbn_ctz_ct(x, n), tz);
            ctbn_limb s = rng_below(64 * n);
            report_scalar("s", s);
            ctbn_rshift_ct(r, x, n, s);
            BN_rshift(want, bx, (int)s);
            expect_limbs_bn("x >> s", r, n, want);
            ctbn_lshift_ct(r, x, n, s);
            BN_lshift(want, bx, (int)s);
            BN_mask_bits(want, (int)(64 * n));
            expect_limbs_bn("x << s", r, n, want);
            BN_free(bx);
            BN_free(want);
        }
        free(x);
        free(r);
    }
}

static void test_gcd(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t n = 1; n <= 17; n += (n < 4 ? 1 : 4)) {
        ctbn_limb *a = limbs_alloc(n), *b = limbs_alloc(n), *g = limbs_alloc(n);
        ctbn_limb *ws = limbs_alloc(CTBN_GCD_SCRATCH(n));
        for (int it = 0; it < 60; it++) {
            BIGNUM *ba, *bb, *want = BN_new(), *f = BN_new();
            rand_pattern(a, n, 64 * n);
            rand_pattern(b, n, 64 * n);
            if (it % 3 == 0 && n >= 2) {          /* a large common factor */
                ba = bn_from_limbs(a, n);
                bb = bn_from_limbs(b, n);
                BN_rand(f, (int)(32 * n), BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
                BN_rshift(ba, ba, (int)(32 * n));
                BN_rshift(bb, bb, (int)(32 * n));
                BN_mul(ba, ba, f, bctx);
                BN_mul(bb, bb, f, bctx);
                limbs_from_bn(a, n, ba);
                limbs_from_bn(b, n, bb);
                BN_free(ba);
                BN_free(bb);
            }
            if (it == 1)
                ctbn_zero(a, n);                 /* gcd(0, b) = b */
            if (ctbn_is_zero(a, n) && ctbn_is_zero(b, n))
                b[0] = 6;
            ba = bn_from_limbs(a, n);
            bb = bn_from_limbs(b, n);
            BN_gcd(want, ba, bb, bctx);
            report_begin("gcd n=%zu", n);
            report_operand("a", a, n);
            report_operand("b", b, n);
            ctbn_gcd_ct(g, a, b, n, ws);
            expect_limbs_bn("gcd", g, n, want);
            BN_free(ba);
            BN_free(bb);
            BN_free(want);
            BN_free(f);
        }
        free(a);
        free(b);
        free(g);
        free(ws);
    }
}

static void test_divexact(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t n = 1; n <= 33; n += (n < 4 ? 1 : 8)) {
        ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n), *q = limbs_alloc(n);
        ctbn_limb *ws = limbs_alloc(CTBN_DIVEXACT_SCRATCH(n));
        for (int it = 0; it < 40; it++) {
            /* y odd, quotient random, x = q * y below 2^(64n) */
            size_t ybits = rng_range(1, 64 * n - 1);
            BIGNUM *by = BN_new(), *bq = BN_new(), *bx = BN_new(), *inv = BN_new();
            BIGNUM *r = BN_new();
            BN_rand(by, (int)ybits, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
            BN_rand(bq, (int)(64 * n - ybits), BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
            BN_mul(bx, bq, by, bctx);
            limbs_from_bn(x, n, bx);
            limbs_from_bn(y, n, by);
            report_begin("divexact n=%zu", n);
            report_operand("x", x, n);
            report_operand("y", y, n);
            ctbn_divexact_ct(q, x, y, n, ws);
            expect_limbs_bn("x / y", q, n, bq);
            /* the inverse mod 2^(64n) itself */
            BN_one(r);
            BN_lshift(r, r, (int)(64 * n));
            BN_mod_inverse(inv, by, r, bctx);
            ctbn_inv_pow2_ct(q, y, n, ws);
            expect_limbs_bn("y^-1 mod 2^64n", q, n, inv);
            BN_free(by);
            BN_free(bq);
            BN_free(bx);
            BN_free(inv);
            BN_free(r);
        }
        free(x);
        free(y);
        free(q);
        free(ws);
    }
}

/* ---- e^-1 mod even m, lcm, |a - b| ------------------------------------------------- */

static void test_inv_public(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    static const uint64_t es[] = {3, 5, 17, 65537, 0xffffffffffffffc5ull /* prime */};
    for (size_t n = 4; n <= 32; n += 7) {
        for (size_t k = 0; k < ARRAY_LEN(es) + 1; k++) {
            size_t en = k < ARRAY_LEN(es) ? 1 : 4;
            ctbn_limb *m = limbs_alloc(n), *r = limbs_alloc(n), e[4] = {0};
            ctbn_limb *ws = limbs_alloc(CTBN_INV_PUBLIC_SCRATCH(n, en));
            if (k < ARRAY_LEN(es))
                e[0] = es[k];
            else
                for (size_t i = 0; i < 4; i++)
                    e[i] = rng_u64() | (i == 0);      /* a random odd 256-bit e */
            BIGNUM *be = bn_from_limbs(e, en), *g = BN_new(), *want = BN_new();
            for (int it = 0; it < 12; it++) {
                rand_modulus(m, n, 64 * n - rng_below(60), MOD_RANDOM);
                if (it % 2 == 0)
                    m[0] &= ~(ctbn_limb)1;            /* even, as p - 1 and lambda */
                BIGNUM *bm = bn_from_limbs(m, n);
                BN_gcd(g, be, bm, bctx);
                report_begin("inv_public n=%zu en=%zu", n, en);
                report_operand("m", m, n);
                report_operand("e", e, en);
                ctbn_mask ok = ctbn_inv_public_ct(r, e, en, m, n, ws);
                expect_word("invertible", ok, BN_is_one(g) ? ~(uint64_t)0 : 0);
                if (BN_is_one(g)) {
                    BN_mod_inverse(want, be, bm, bctx);
                    expect_limbs_bn("e^-1 mod m", r, n, want);
                }
                BN_free(bm);
            }
            BN_free(be);
            BN_free(g);
            BN_free(want);
            free(m);
            free(r);
            free(ws);
        }
    }
}

static void test_lcm_diff(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t n = 2; n <= 32; n += 6) {
        ctbn_limb *a = limbs_alloc(n), *b = limbs_alloc(n), *l = limbs_alloc(n);
        ctbn_limb *ws = limbs_alloc(CTBN_LCM_SCRATCH(n));
        for (int it = 0; it < 10; it++) {
            /* p - 1 and q - 1 style: even, sharing 2^k * small factors sometimes */
            BIGNUM *ba = BN_new(), *bb = BN_new(), *prod = BN_new(), *g = BN_new();
            BIGNUM *want = BN_new();
            int half = (int)(32 * n) - 12;   /* a * b must fit in n limbs */
            BN_rand(ba, half, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY);
            BN_rand(bb, half, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY);
            BN_lshift(ba, ba, 1 + (int)rng_below(3));
            BN_lshift(bb, bb, 1 + (int)rng_below(3));
            if (it % 3 == 0) {
                BN_mul_word(ba, 3 * 5 * 7);
                BN_mul_word(bb, 5 * 7 * 11);
            }
            limbs_from_bn(a, n, ba);
            limbs_from_bn(b, n, bb);
            BN_mul(prod, ba, bb, bctx);
            BN_gcd(g, ba, bb, bctx);
            BN_div(want, NULL, prod, g, bctx);
            report_begin("lcm n=%zu", n);
            report_operand("a", a, n);
            report_operand("b", b, n);
            ctbn_lcm_ct(l, a, b, n, ws);
            expect_limbs_bn("lcm", l, n, want);

            /* |a - b| > 2^t around the boundary */
            BIGNUM *d = BN_new();
            BN_sub(d, ba, bb);
            BN_set_negative(d, 0);
            int t = BN_num_bits(d) - 1;          /* 2^t <= |a-b| < 2^(t+1) */
            if (t >= 0) {
                int is_pow = BN_is_bit_set(d, t) && BN_num_bits(d) == t + 1;
                int exact_pow = is_pow;
                for (int i = 0; i < t && exact_pow; i++)
                    exact_pow = !BN_is_bit_set(d, i);
                expect_word("|a-b| > 2^t", ctbn_diff_exceeds_ct(a, b, n, (size_t)t),
                            exact_pow ? 0 : ~(uint64_t)0);
                expect_word("|a-b| > 2^(t+1)", ctbn_diff_exceeds_ct(a, b, n, (size_t)t + 1), 0);
            }
            expect_word("|a-a| > 2^0", ctbn_diff_exceeds_ct(a, a, n, 0), 0);
            BN_free(d);
            BN_free(ba);
            BN_free(bb);
            BN_free(prod);
            BN_free(g);
            BN_free(want);
        }
        free(a);
        free(b);
        free(l);
        free(ws);
    }
}

/* ---- the sieve ---------------------------------------------------------------------- */

static int bn_has_small_factor(const BIGNUM *x, const ctbn_sieve *s)
{
    for (size_t i = 0; i < s->nprimes; i++)
        if (BN_mod_word(x, s->primes[i]) == 0)
            return 1;
    return 0;
}

static void test_sieve(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_sieve *s = malloc(sizeof(*s));
    assert_non_null(s);
    /* the table: the odd primes up to 17863, in order */
    assert_int_equal(ctbn_sieve_init(s, 16, 0), 0);
    assert_int_equal(s->nprimes, CTBN_SIEVE_PRIMES);
    assert_int_equal(s->primes[0], 3);
    assert_int_equal(s->primes[s->nprimes - 1], CTBN_SIEVE_LARGEST);
    for (size_t i = 0; i < s->ngroups; i++)
        assert_true(s->groups[i].m < ((uint64_t)1 << 62));
    assert_int_equal(ctbn_sieve_init(s, 0, 0), -1);
    assert_int_equal(ctbn_sieve_init(s, 1, CTBN_SIEVE_PRIMES + 1), -1);

    for (size_t n = 1; n <= 32; n = n < 4 ? n + 1 : n * 2) {
        assert_int_equal(ctbn_sieve_init(s, n, 0), 0);
        ctbn_limb *x = limbs_alloc(n);
        int passed = 0, failed = 0;
        for (int it = 0; it < 600; it++) {
            rand_pattern(x, n, 64 * n);
            x[0] |= 1;
            if (ctbn_bitlen_vartime(x, n) < 16)
                x[n - 1] |= (ctbn_limb)1 << 63;
            BIGNUM *bx = bn_from_limbs(x, n);
            if (it % 5 == 0) {                    /* a multiple of a large table prime */
                BN_rshift(bx, bx, 15);
                BN_mul_word(bx, s->primes[s->nprimes - 1 - rng_below(50)]);
                limbs_from_bn(x, n, bx);
            }
            int want = !bn_has_small_factor(bx, s);
            report_begin("sieve n=%zu", n);
            report_operand("x", x, n);
            expect_word("screen", ctbn_sieve_screen(s, x), want ? ~(uint64_t)0 : 0);
            passed += want;
            failed += !want;
            BN_free(bx);
        }
        assert_true(passed > 10 && failed > 10);
        /* known primes above the table pass */
        BIGNUM *p = BN_new();
        BN_generate_prime_ex(p, (int)(64 * n < 64 ? 64 : 64 * n), 0, NULL, NULL, NULL);
        limbs_from_bn(x, n, p);
        expect_word("prime passes", ctbn_sieve_screen(s, x), ~(uint64_t)0);
        /* a product of the two largest table primes, and the largest prime squared */
        ctbn_zero(x, n);
        x[0] = (uint64_t)CTBN_SIEVE_LARGEST * 17851;
        expect_word("17851 * 17863 fails", ctbn_sieve_screen(s, x), 0);
        x[0] = (uint64_t)CTBN_SIEVE_LARGEST * CTBN_SIEVE_LARGEST;
        expect_word("17863^2 fails", ctbn_sieve_screen(s, x), 0);
        x[0] = 17881ull * 17891;            /* the next primes: no table factor */
        expect_word("17881 * 17891 passes", ctbn_sieve_screen(s, x), ~(uint64_t)0);
        BN_free(p);
        free(x);
    }
    /* a reduced table */
    assert_int_equal(ctbn_sieve_init(s, 2, 3), 0);
    assert_int_equal(s->nprimes, 3);
    ctbn_limb y[2] = {11 * 13, 0};
    expect_word("3,5,7 table: 143 passes", ctbn_sieve_screen(s, y), ~(uint64_t)0);
    y[0] = 7 * 11;
    expect_word("3,5,7 table: 77 fails", ctbn_sieve_screen(s, y), 0);
    free(s);
}

/* ---- Miller-Rabin -------------------------------------------------------------------- */

/* BN reference: is w a strong probable prime to base b? */
static int bn_spsp(const BIGNUM *w, const BIGNUM *b)
{
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *w1 = BN_dup(w), *m = BN_new(), *z = BN_new();
    int a = 0, ok = 0;
    BN_sub_word(w1, 1);
    while (!BN_is_bit_set(w1, a))
        a++;
    BN_rshift(m, w1, a);
    BN_mod_exp(z, b, m, w, bctx);
    if (BN_is_one(z) || BN_cmp(z, w1) == 0)
        ok = 1;
    for (int j = 1; j < a && !ok; j++) {
        BN_mod_sqr(z, z, w, bctx);
        if (BN_cmp(z, w1) == 0)
            ok = 1;
    }
    BN_free(w1);
    BN_free(m);
    BN_free(z);
    return ok;
}

typedef struct mr_fixture {
    ctbn_mont_max mont;
    ctbn_mr mr;
    size_t n;
    ctbn_limb w[CTBN_MAX_LIMBS], b[CTBN_MAX_LIMBS];
    ctbn_limb scratch[CTBN_MR_SCRATCH(CTBN_MAX_LIMBS)];
} mr_fixture;

/* Load w (exact test: max_twos = bits - 1). */
static void mr_load(mr_fixture *f, const BIGNUM *w, size_t max_twos)
{
    f->n = CTBN_LIMBS(BN_num_bits(w));
    limbs_from_bn(f->w, f->n, w);
    assert_int_equal(ctbn_mont_init(&f->mont.ctx, f->w, f->n), 0);
    ctbn_mr_init(&f->mr, &f->mont.ctx, max_twos ? max_twos : f->mont.ctx.bits - 1);
}

/* The round with base b (base 2 through its own path), 1 if w passes. */
static int mr_base(mr_fixture *f, unsigned long b)
{
    if (b == 2)
        return ctbn_mr_round_base2(&f->mr, f->scratch) != 0;
    ctbn_set_u64(f->b, f->n, b);
    return ctbn_mr_round(&f->mr, f->b, f->scratch) != 0;
}

static mr_fixture *fixture_new(void)
{
    mr_fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    return f;
}

static void test_mr_known(void **state)
{
    (void)state;
    SEED_TEST();
    mr_fixture *f = fixture_new();
    static const unsigned long bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43};

    /* primes: every base passes */
    static const char *primes[] = {
        "5", "7", "13", "17", "257", "65537", "2147483647", "4294967291",
        "18446744073709551557",                       /* largest prime below 2^64 */
        "170141183460469231731687303715884105727",    /* 2^127 - 1 */
        "340282366920938463463374607431768211297",    /* a prime just below 2^128 */
        /* 2^255 - 19 */
        "57896044618658097711785492504343953926634992332820282019728792003956564819949",
        /* 2^521 - 1 */
        "6864797660130609714981900799081393217269435300143305409394463459185543183397656052122"
        "559640661454554977296311391480858037121987999716643812574028291115057151",
        "6864797660130609714981900799081393217269435300143305409394463459185543183397656052122"
        "559640661454554977296311391480858037121987999716643812574028291115057149", /* composite */
    };
    for (size_t i = 0; i < ARRAY_LEN(primes); i++) {
        BIGNUM *w = bn_dec(primes[i]);
        int is_prime = BN_check_prime(w, oracle_bn_ctx(), NULL);
        mr_load(f, w, 0);
        for (size_t k = 0; k < ARRAY_LEN(bases); k++) {
            BIGNUM *b = BN_new();
            BN_set_word(b, bases[k]);
            if (BN_cmp(b, w) >= 0 || bases[k] + 1 >= BN_get_word(w)) {
                BN_free(b);
                continue;
            }
            report_begin("MR %s base %lu", primes[i], bases[k]);
            expect_word("round", (uint64_t)mr_base(f, bases[k]), (uint64_t)bn_spsp(w, b));
            if (is_prime)
                expect_word("prime passes", (uint64_t)mr_base(f, bases[k]), 1);
            BN_free(b);
        }
        BN_free(w);
    }

    /* Carmichael numbers: a Fermat test passes them for every coprime base; MR does not */
    static const char *carmichael[] = {
        "561", "1105", "1729", "2465", "2821", "6601", "8911", "41041", "825265",
        "321197185", "5394826801", "232250619601", "9746347772161",
        "1436697831295441",          /* 11 prime factors */
        "15841",                     /* Carmichael and a strong pseudoprime to base 2 */
    };
    for (size_t i = 0; i < ARRAY_LEN(carmichael); i++) {
        BIGNUM *w = bn_dec(carmichael[i]);
        int rejected = 0;
        mr_load(f, w, 0);
        for (size_t k = 0; k < ARRAY_LEN(bases); k++) {
            BIGNUM *b = BN_new();
            BN_set_word(b, bases[k]);
            int pass = mr_base(f, bases[k]);
            report_begin("Carmichael %s base %lu", carmichael[i], bases[k]);
            expect_word("round", (uint64_t)pass, (uint64_t)bn_spsp(w, b));
            rejected |= !pass;
            BN_free(b);
        }
        report_begin("Carmichael %s", carmichael[i]);
        expect_word("rejected by some base", (uint64_t)rejected, 1);
        BN_free(w);
    }

    /* strong pseudoprimes: pass every base listed, fail the next prime base */
    static const struct { const char *w; unsigned passes; } spsp[] = {
        {"2047", 1}, {"3277", 1}, {"4033", 1}, {"4681", 1}, {"8321", 1},  /* base 2 */
        {"1373653", 2},                          /* bases 2, 3 */
        {"25326001", 3},                         /* 2, 3, 5 */
        {"3215031751", 4},                       /* 2, 3, 5, 7 */
        {"2152302898747", 5},                    /* 2 .. 11 */
        {"3474749660383", 6},                    /* 2 .. 13 */
        {"341550071728321", 8},                  /* 2 .. 19 */
        {"3825123056546413051", 11},             /* 2 .. 31 */
        {"318665857834031151167461", 12},        /* 2 .. 37 */
        {"3317044064679887385961981", 13},       /* 2 .. 41 */
    };
    for (size_t i = 0; i < ARRAY_LEN(spsp); i++) {
        BIGNUM *w = bn_dec(spsp[i].w);
        assert_int_equal(BN_check_prime(w, oracle_bn_ctx(), NULL), 0);
        mr_load(f, w, 0);
        for (size_t k = 0; k < ARRAY_LEN(bases) && k <= spsp[i].passes; k++) {
            BIGNUM *b = BN_new();
            BN_set_word(b, bases[k]);
            report_begin("spsp %s base %lu", spsp[i].w, bases[k]);
            int pass = mr_base(f, bases[k]);
            expect_word("round", (uint64_t)pass, (uint64_t)bn_spsp(w, b));
            expect_word("expected verdict", (uint64_t)pass, k < spsp[i].passes ? 1 : 0);
            BN_free(b);
        }
        BN_free(w);
    }
    free(f);
}

/* Random odd w and random bases: the rounds equal the BN reference; the bound on the
 * squarings only turns passes into failures for w with more trailing zeros in w - 1. */
static void test_mr_differential(void **state)
{
    (void)state;
    SEED_TEST();
    mr_fixture *f = fixture_new();
    BN_CTX *bctx = oracle_bn_ctx();
    static const int sizes[] = {64, 65, 127, 512, 1024};
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        for (int it = 0; it < 24; it++) {
            BIGNUM *w = BN_new(), *b = BN_new(), *w3 = BN_new();
            if (it % 2 == 0) {
                BN_generate_prime_ex(w, sizes[s], 0, NULL, NULL, NULL);
            } else if (it % 4 == 1) {
                BN_rand(w, sizes[s], BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
            } else {                          /* p * q: composite with large factors */
                BIGNUM *q = BN_new();
                BN_generate_prime_ex(w, sizes[s] / 2, 0, NULL, NULL, NULL);
                BN_generate_prime_ex(q, sizes[s] - sizes[s] / 2, 0, NULL, NULL, NULL);
                BN_mul(w, w, q, bctx);
                BN_free(q);
            }
            if (it == 3) {                    /* w - 1 with many twos: 2^40 * k + 1 */
                BN_rand(w, sizes[s] - 40, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
                BN_lshift(w, w, 40);
                BN_add_word(w, 1);
            }
            mr_load(f, w, 0);
            BN_copy(w3, w);
            BN_sub_word(w3, 3);
            for (int r = 0; r < 3; r++) {
                BN_rand_range(b, w3);
                BN_add_word(b, 2);
                limbs_from_bn(f->b, f->n, b);
                report_begin("MR differential bits=%d", sizes[s]);
                report_operand("w", f->w, f->n);
                report_operand("b", f->b, f->n);
                int want = bn_spsp(w, b);
                expect_word("round", ctbn_mr_round(&f->mr, f->b, f->scratch) != 0,
                            (uint64_t)want);
            }
            BN_set_word(b, 2);
            expect_word("base 2", (uint64_t)mr_base(f, 2), (uint64_t)bn_spsp(w, b));
            BN_free(w);
            BN_free(b);
            BN_free(w3);
        }
    }
    /* the bound: a prime 2^70 * k + 1 fails base 2 with max_twos = 64 only if its witness
     * sequence needed the squarings past 64; never the other way round */
    for (int it = 0; it < 200; it++) {
        BIGNUM *w = BN_new(), *b = BN_new();
        BN_rand(w, 60, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
        BN_lshift(w, w, 70);
        BN_add_word(w, 1);
        if (BN_check_prime(w, bctx, NULL) != 1) {
            BN_free(w);
            BN_free(b);
            continue;
        }
        BN_set_word(b, 2);
        mr_load(f, w, 0);
        int exact = mr_base(f, 2);
        mr_load(f, w, CTBN_MR_KEYGEN_MAX_TWOS);
        int bounded = mr_base(f, 2);
        assert_int_equal(exact, 1);
        assert_true(bounded <= exact);
        BN_free(w);
        BN_free(b);
    }
    free(f);
}

static void test_mr_rounds_table(void **state)
{
    (void)state;
    /* FIPS 186-5 Table B.1 for two primes */
    assert_int_equal(ctbn_prime_mr_rounds(1024, 2048, 2), 5);
    assert_int_equal(ctbn_prime_mr_rounds(1536, 3072, 2), 4);
    assert_int_equal(ctbn_prime_mr_rounds(2048, 4096, 2), 4);
    assert_int_equal(ctbn_prime_mr_rounds(4096, 8192, 2), 4);
    /* below 2048-bit moduli and multi-prime: the DLP bound at 2^-112 */
    assert_int_equal(ctbn_prime_mr_rounds(512, 1024, 2), 10);
    assert_int_equal(ctbn_prime_mr_rounds(341, 1024, 3), 15);
    assert_int_equal(ctbn_prime_mr_rounds(1024, 3072, 3), 5);
    assert_int_equal(ctbn_prime_mr_rounds(1365, 4096, 3), 4);
    assert_int_equal(ctbn_prime_mr_rounds(128, 256, 2), 64);
}

/* ---- prime generation ---------------------------------------------------------------- */

static int test_random(void *arg, uint8_t *buf, size_t len)
{
    int *calls = arg;
    if (calls != NULL)
        (*calls)++;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)rng_u64();
    return 1;
}

static int failing_random(void *arg, uint8_t *buf, size_t len)
{
    (void)arg;
    (void)buf;
    (void)len;
    return 0;
}

typedef struct progress_log {
    int stages[4];
    int stop_at_stage;  /* -1: never stop */
} progress_log;

static int test_progress(void *arg, int stage, int count)
{
    progress_log *log = arg;
    (void)count;
    assert_true(stage >= 0 && stage <= 3);
    log->stages[stage]++;
    return stage != log->stop_at_stage;
}

static void test_prime_gen(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_prime_ws *ws = calloc(1, sizeof(*ws));
    assert_non_null(ws);
    static const struct { size_t bits; unsigned top; uint64_t e; } reqs[] = {
        {64, 1, 3}, {100, 2, 65537}, {341, 3, 65537}, {512, 2, 3}, {1024, 2, 65537},
        {1025, 2, 17}, {1536, 2, 65537},
    };
    for (size_t i = 0; i < ARRAY_LEN(reqs); i++) {
        size_t n = CTBN_LIMBS(reqs[i].bits);
        ctbn_limb e[1] = {reqs[i].e}, *p = limbs_alloc(n);
        progress_log log = {{0}, -1};
        int calls = 0;
        ctbn_prime_req req = {
            .bits = reqs[i].bits, .top_bits = reqs[i].top, .e = e, .en = 1,
            .rounds = ctbn_prime_mr_rounds(reqs[i].bits, 2 * reqs[i].bits, 2),
            .random = test_random, .random_arg = &calls,
            .progress = test_progress, .progress_arg = &log,
        };
        assert_int_equal(ctbn_prime_gen(p, &req, ws), 1);
        BIGNUM *bp = bn_from_limbs(p, n), *pm1 = BN_dup(bp), *be = BN_new(), *g = BN_new();
        report_begin("prime_gen bits=%zu", reqs[i].bits);
        report_operand("p", p, n);
        assert_int_equal(BN_num_bits(bp), (int)reqs[i].bits);
        for (unsigned t = 0; t < reqs[i].top; t++)
            assert_true(BN_is_bit_set(bp, (int)(reqs[i].bits - 1 - t)));
        assert_int_equal(BN_check_prime(bp, bctx, NULL), 1);
        BN_sub_word(pm1, 1);
        BN_set_word(be, reqs[i].e);
        BN_gcd(g, pm1, be, bctx);
        assert_true(BN_is_one(g));
        /* every candidate that reached MR reported stage 0; one prime found */
        assert_int_equal(log.stages[3], 1);
        assert_int_equal((unsigned long)log.stages[0], ws->stat_mr);
        assert_int_equal(log.stages[1], (int)req.rounds);
        assert_true(ws->stat_candidates >= ws->stat_sieved && ws->stat_sieved >= ws->stat_mr);
        BN_free(bp);
        BN_free(pm1);
        BN_free(be);
        BN_free(g);
        free(p);
    }

    /* e = 3 with p = 1 mod 3 excluded; a 2-limb e */
    ctbn_limb e2[2] = {0x123456789abcdef1ull, 0x1ull}, p[16];
    ctbn_prime_req req = {.bits = 1024, .top_bits = 2, .e = e2, .en = 2, .rounds = 5,
                          .random = test_random};
    ws->rnd_left = 0;
    int calls = 0;
    req.random_arg = &calls;
    assert_int_equal(ctbn_prime_gen(p, &req, ws), 1);
    assert_true(calls > 0);
    BIGNUM *bp = bn_from_limbs(p, 16), *be = bn_from_limbs(e2, 2), *g = BN_new();
    BN_sub_word(bp, 1);
    BN_gcd(g, bp, be, bctx);
    assert_true(BN_is_one(g));
    BN_free(bp);
    BN_free(be);
    BN_free(g);

    /* refusals and failures */
    ctbn_limb e[1] = {65537};
    ctbn_prime_req bad = {.bits = 512, .top_bits = 2, .e = e, .en = 1, .rounds = 5,
                          .random = test_random};
    bad.bits = CTBN_PRIME_MIN_BITS - 1;
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    bad.bits = 512;
    e[0] = 65536;                                   /* even e */
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    e[0] = 1;                                       /* e = 1 */
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    e[0] = 65537;
    bad.top_bits = 4;
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    bad.top_bits = 2;
    static const unsigned bad_mod8[] = {2, 4, 6, 8, 9, 0xffffffffu};  /* even, or >= 8 */
    for (size_t i = 0; i < ARRAY_LEN(bad_mod8); i++) {
        bad.mod8 = bad_mod8[i];
        assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    }
    bad.mod8 = 0;
    bad.random = failing_random;
    ws->rnd_left = 0;
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    bad.random = test_random;
    progress_log stop = {{0}, 0};                   /* abort at the first MR candidate */
    bad.progress = test_progress;
    bad.progress_arg = &stop;
    assert_int_equal(ctbn_prime_gen(p, &bad, ws), 0);
    assert_int_equal(stop.stages[0], 1);
    free(ws);
}

/*
 * FIPS 186-5 A.1.3's congruence (OpenSSL 4.0's rsa-a and rsa-b): p = mod8 (mod 8) for each
 * odd residue, several primes each (a candidate whose low bits were left random would
 * match by chance one time in four), still primes of the size asked for.
 */
static void test_prime_gen_mod8(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_prime_ws *ws = calloc(1, sizeof(*ws));
    ctbn_limb e[1] = {65537}, p[CTBN_LIMBS(512)];
    int calls = 0;
    assert_non_null(ws);
    for (unsigned mod8 = 1; mod8 < 8; mod8 += 2) {
        for (int round = 0; round < 4; round++) {
            ctbn_prime_req req = {.bits = 512, .top_bits = 2, .e = e, .en = 1,
                                  .rounds = 5, .mod8 = mod8, .random = test_random,
                                  .random_arg = &calls};
            assert_int_equal(ctbn_prime_gen(p, &req, ws), 1);
            BIGNUM *bp = bn_from_limbs(p, CTBN_LIMBS(512));
            assert_int_equal(BN_num_bits(bp), 512);
            assert_true(BN_is_bit_set(bp, 510));
            assert_int_equal(BN_mod_word(bp, 8), mod8);
            assert_int_equal(BN_check_prime(bp, bctx, NULL), 1);
            BN_free(bp);
        }
    }
    free(ws);
}

/* ---- the RSA private numbers ------------------------------------------------------- */

static void check_derive(size_t nbits, size_t k, uint64_t e_word)
{
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *pr[CTBN_RSA_MAX_PRIMES], *bn = BN_new(), *lam = BN_new(), *t = BN_new();
    BIGNUM *be = BN_new(), *want = BN_new(), *g = BN_new();
    ctbn_limb *primes[CTBN_RSA_MAX_PRIMES], *exps[CTBN_RSA_MAX_PRIMES];
    ctbn_limb *coeffs[CTBN_RSA_MAX_PRIMES];
    size_t plimbs[CTBN_RSA_MAX_PRIMES], nl = CTBN_LIMBS(nbits);
    ctbn_limb e[1] = {e_word};

    BN_set_word(be, e_word);
    BN_one(bn);
    BN_one(lam);
    for (size_t i = 0; i < k; i++) {
        size_t bits = nbits / k + (i < nbits % k);
        do {
            pr[i] = BN_new();
            BN_generate_prime_ex(pr[i], (int)bits, 0, NULL, NULL, NULL);
            BN_sub_word(pr[i], 1);
            BN_gcd(g, pr[i], be, bctx);
            BN_add_word(pr[i], 1);
            if (!BN_is_one(g))
                BN_free(pr[i]);
        } while (!BN_is_one(g));
        plimbs[i] = CTBN_LIMBS(bits);
        primes[i] = limbs_alloc(plimbs[i]);
        exps[i] = limbs_alloc(plimbs[i]);
        coeffs[i] = limbs_alloc(plimbs[i]);
        limbs_from_bn(primes[i], plimbs[i], pr[i]);
        BN_mul(bn, bn, pr[i], bctx);
        /* lam := lcm(lam, p_i - 1) */
        BIGNUM *pm1 = BN_dup(pr[i]);
        BN_sub_word(pm1, 1);
        BN_gcd(g, lam, pm1, bctx);
        BN_mul(lam, lam, pm1, bctx);
        BN_div(lam, NULL, lam, g, bctx);
        BN_free(pm1);
    }
    nl = CTBN_LIMBS(BN_num_bits(bn));
    ctbn_limb *d = limbs_alloc(nl), *ws = limbs_alloc(CTBN_RSA_DERIVE_SCRATCH(nl));
    report_begin("rsa_derive bits=%zu k=%zu e=%llu", nbits, k, (unsigned long long)e_word);
    for (size_t i = 0; i < k; i++)
        report_operand("prime", primes[i], plimbs[i]);
    expect_word("ok", ctbn_rsa_derive_ct((const ctbn_limb *const *)primes, plimbs, k, e, 1, nl,
                                         d, exps, coeffs, ws),
                ~(uint64_t)0);
    BN_mod_inverse(want, be, lam, bctx);
    expect_limbs_bn("d", d, nl, want);
    for (size_t i = 0; i < k; i++) {
        BIGNUM *pm1 = BN_dup(pr[i]);
        BN_sub_word(pm1, 1);
        BN_mod_inverse(want, be, pm1, bctx);
        expect_limbs_bn("d_i", exps[i], plimbs[i], want);
        BN_free(pm1);
    }
    BN_mod_inverse(want, pr[1], pr[0], bctx);
    expect_limbs_bn("qInv", coeffs[0], plimbs[0], want);
    BN_mul(t, pr[0], pr[1], bctx);
    for (size_t i = 2; i < k; i++) {
        BN_mod_inverse(want, t, pr[i], bctx);
        expect_limbs_bn("t_i", coeffs[i - 1], plimbs[i], want);
        BN_mul(t, t, pr[i], bctx);
    }
    for (size_t i = 0; i < k; i++) {
        BN_free(pr[i]);
        free(primes[i]);
        free(exps[i]);
        free(coeffs[i]);
    }
    BN_free(bn);
    BN_free(lam);
    BN_free(t);
    BN_free(be);
    BN_free(want);
    BN_free(g);
    free(d);
    free(ws);
}

static void test_rsa_derive(void **state)
{
    (void)state;
    SEED_TEST();
    check_derive(1024, 2, 65537);
    check_derive(1024, 2, 3);
    check_derive(2048, 2, 65537);
    check_derive(2050, 2, 17);
    check_derive(3072, 3, 65537);
    check_derive(4096, 4, 65537);
    check_derive(8192, 5, 65537);

    /* e sharing a factor with p - 1 is reported */
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *p = BN_new(), *q = BN_new(), *rem = BN_new();
    do {
        BN_generate_prime_ex(p, 512, 0, NULL, NULL, NULL);
    } while (BN_mod_word(p, 3) != 1);
    BN_generate_prime_ex(q, 512, 0, NULL, NULL, NULL);
    (void)rem;
    ctbn_limb lp[8], lq[8], d[16], dp[8], dq[8], qi[8], qj[8], e[1] = {3};
    ctbn_limb *ws = limbs_alloc(CTBN_RSA_DERIVE_SCRATCH(16));
    limbs_from_bn(lp, 8, p);
    limbs_from_bn(lq, 8, q);
    const ctbn_limb *primes[2] = {lp, lq};
    ctbn_limb *exps[2] = {dp, dq}, *coeffs[2] = {qi, qj};
    size_t plimbs[2] = {8, 8};
    assert_int_equal(ctbn_rsa_derive_ct(primes, plimbs, 2, e, 1, 16, d, exps, coeffs, ws), 0);
    (void)bctx;
    BN_free(p);
    BN_free(q);
    BN_free(rem);
    free(ws);
}

/*
 * dP = d mod (p - 1), dQ = d mod (q - 1), qInv = q^-1 mod p from d (keys imported without
 * their CRT values) against BN, on 300 random prime pairs of 64 to 1100 bits each (unequal
 * sizes and limb counts, p above or below q), with d the private exponent modulo lambda(n),
 * modulo phi(n) (what older tools wrote), or any random number of up to two n-sizes (the
 * function reduces whatever it is given; the key object checks e * dP = 1 mod (p - 1)).
 */
static void test_rsa_crt_from_d(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *p = BN_new(), *q = BN_new(), *pm1 = BN_new(), *qm1 = BN_new(), *d = BN_new();
    BIGNUM *m = BN_new(), *g = BN_new(), *e = BN_new(), *want = BN_new();
    /* 300 key pairs, two BN_generate_prime_ex each: 70% of this program's time (75 at a
     * reduced CTRSA_TEST_SCALE, 40 at least; 170 s under qemu-aarch64 at full count) */
    const int count = (int)oracle_scaled(300, 40);
    for (int it = 0; it < count; it++) {
        int pbits = 64 + (int)rng_below(1037), qbits = 64 + (int)rng_below(1037);
        if (it % 5 == 0)
            qbits = pbits;
        do {
            BN_generate_prime_ex(p, pbits, 0, NULL, NULL, NULL);
            BN_generate_prime_ex(q, qbits, 0, NULL, NULL, NULL);
        } while (BN_cmp(p, q) == 0);
        BN_sub(pm1, p, BN_value_one());
        BN_sub(qm1, q, BN_value_one());
        BN_mul(m, pm1, qm1, bctx);                    /* phi(n) */
        int kind = (int)rng_below(3);
        if (kind == 0) {                              /* lambda(n) */
            BN_gcd(g, pm1, qm1, bctx);
            BN_div(m, NULL, m, g, bctx);
        }
        size_t pn = CTBN_LIMBS((size_t)pbits), qn = CTBN_LIMBS((size_t)qbits);
        size_t dn = pn + qn;
        ctbn_limb *lp = limbs_alloc(pn), *lq = limbs_alloc(qn), *ld;
        if (kind < 2) {
            static const unsigned long es[] = {3, 17, 65537};
            int found = 0;
            for (size_t i = 0; i < ARRAY_LEN(es) && !found; i++) {
                BN_set_word(e, es[i]);
                found = BN_mod_inverse(d, e, m, bctx) != NULL;
            }
            if (!found) {
                BN_rand_range(d, m);
            }
        } else {
            dn += rng_below(pn + qn + 1);
            BN_rand(d, (int)(64 * dn) - (int)rng_below(64), BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
        }
        ld = limbs_alloc(dn);
        ctbn_limb *dp = limbs_alloc(pn), *dq = limbs_alloc(qn), *qi = limbs_alloc(pn);
        ctbn_limb *ws = limbs_alloc(CTBN_RSA_CRT_FROM_D_SCRATCH(pn, qn));
        limbs_from_bn(lp, pn, p);
        limbs_from_bn(lq, qn, q);
        limbs_from_bn(ld, dn, d);
        report_begin("rsa_crt_from_d pbits=%d qbits=%d kind=%d", pbits, qbits, kind);
        report_operand("p", lp, pn);
        report_operand("q", lq, qn);
        report_operand("d", ld, dn);
        expect_word("ok", ctbn_rsa_crt_from_d_ct(lp, pn, lq, qn, ld, dn, dp, dq, qi, ws),
                    ~(uint64_t)0);
        BN_mod(want, d, pm1, bctx);
        expect_limbs_bn("dP", dp, pn, want);
        BN_mod(want, d, qm1, bctx);
        expect_limbs_bn("dQ", dq, qn, want);
        BN_mod_inverse(want, q, p, bctx);
        expect_limbs_bn("qInv", qi, pn, want);
        for (size_t i = 0; i < CTBN_RSA_CRT_FROM_D_SCRATCH(pn, qn); i++)
            expect_word("scratch wiped", ws[i], 0);
        free(lp); free(lq); free(ld); free(dp); free(dq); free(qi); free(ws);
    }
    /* p = q: q is not invertible mod p, reported */
    BN_generate_prime_ex(p, 512, 0, NULL, NULL, NULL);
    ctbn_limb lp[8], ld[16] = {12345}, dp[8], dq[8], qi[8];
    ctbn_limb *ws = limbs_alloc(CTBN_RSA_CRT_FROM_D_SCRATCH(8, 8));
    limbs_from_bn(lp, 8, p);
    assert_int_equal(ctbn_rsa_crt_from_d_ct(lp, 8, lp, 8, ld, 16, dp, dq, qi, ws), 0);
    free(ws);
    BN_free(p); BN_free(q); BN_free(pm1); BN_free(qm1); BN_free(d); BN_free(m); BN_free(g);
    BN_free(e); BN_free(want);
}

/*
 * ctbn_rsa_crt_from_d_multi_ct against BN: d mod (p_i - 1) for each prime, qInv and each
 * t_i = (p_1 ... p_(i-1))^-1 mod p_i, for 2 to 5 primes of unequal random sizes and a d
 * of random length (a real private exponent or any number: the reduction does not care);
 * k = 2 also against ctbn_rsa_crt_from_d_ct; the scratch wiped; a repeated prime reported.
 */
static void test_rsa_crt_from_d_multi(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *pb[CTBN_RSA_MAX_PRIMES], *pm1 = BN_new(), *prod = BN_new(), *d = BN_new();
    BIGNUM *want = BN_new();
    for (size_t i = 0; i < CTBN_RSA_MAX_PRIMES; i++)
        pb[i] = BN_new();
    const int count = (int)oracle_scaled(60, 12);
    for (int it = 0; it < count; it++) {
        size_t k = 2 + (size_t)rng_below(CTBN_RSA_MAX_PRIMES - 1), sum = 0;
        size_t plimbs[CTBN_RSA_MAX_PRIMES];
        ctbn_limb *lp[CTBN_RSA_MAX_PRIMES], *ex[CTBN_RSA_MAX_PRIMES], *co[CTBN_RSA_MAX_PRIMES];
        for (size_t i = 0; i < k; i++) {
            int bits = 64 + (int)rng_below(700);
            int again;
            do {
                BN_generate_prime_ex(pb[i], bits, 0, NULL, NULL, NULL);
                again = 0;
                for (size_t j = 0; j < i; j++)
                    again |= BN_cmp(pb[i], pb[j]) == 0;
            } while (again);
            plimbs[i] = CTBN_LIMBS((size_t)bits);
            sum += plimbs[i];
            lp[i] = limbs_alloc(plimbs[i]);
            ex[i] = limbs_alloc(plimbs[i]);
            co[i] = limbs_alloc(plimbs[i]);
            limbs_from_bn(lp[i], plimbs[i], pb[i]);
        }
        size_t dn = 1 + (size_t)rng_below(2 * sum);
        BN_rand(d, (int)(64 * dn) - (int)rng_below(64), BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
        ctbn_limb *ld = limbs_alloc(dn);
        ctbn_limb *ws = limbs_alloc(CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum));
        limbs_from_bn(ld, dn, d);
        /* coefficient i - 1 has its modulus' length: p_1's for qInv, p_i's for t_i */
        ctbn_limb *coeffs[CTBN_RSA_MAX_PRIMES - 1];
        for (size_t i = 1; i < k; i++)
            coeffs[i - 1] = co[i == 1 ? 0 : i];
        report_begin("rsa_crt_from_d_multi k=%zu dn=%zu", k, dn);
        for (size_t i = 0; i < k; i++)
            report_operand("prime", lp[i], plimbs[i]);
        report_operand("d", ld, dn);
        expect_word("ok", ctbn_rsa_crt_from_d_multi_ct((const ctbn_limb *const *)lp, plimbs, k,
                                                       ld, dn, ex, coeffs, ws), ~(uint64_t)0);
        BN_copy(prod, pb[0]);
        for (size_t i = 0; i < k; i++) {
            BN_sub(pm1, pb[i], BN_value_one());
            BN_mod(want, d, pm1, bctx);
            expect_limbs_bn("exponent", ex[i], plimbs[i], want);
            if (i == 0)
                continue;
            if (i == 1)
                BN_mod_inverse(want, pb[1], pb[0], bctx);
            else
                BN_mod_inverse(want, prod, pb[i], bctx);
            expect_limbs_bn("coefficient", coeffs[i - 1], plimbs[i == 1 ? 0 : i], want);
            BN_mul(prod, prod, pb[i], bctx);
        }
        for (size_t i = 0; i < CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum); i++)
            expect_word("scratch wiped", ws[i], 0);
        if (k == 2) {
            ctbn_limb *dp = limbs_alloc(plimbs[0]), *dq = limbs_alloc(plimbs[1]);
            ctbn_limb *qi = limbs_alloc(plimbs[0]);
            ctbn_limb *ws2 = limbs_alloc(CTBN_RSA_CRT_FROM_D_SCRATCH(plimbs[0], plimbs[1]));
            ctbn_rsa_crt_from_d_ct(lp[0], plimbs[0], lp[1], plimbs[1], ld, dn, dp, dq, qi, ws2);
            assert_memory_equal(dp, ex[0], plimbs[0] * sizeof(ctbn_limb));
            assert_memory_equal(dq, ex[1], plimbs[1] * sizeof(ctbn_limb));
            assert_memory_equal(qi, co[0], plimbs[0] * sizeof(ctbn_limb));
            free(dp); free(dq); free(qi); free(ws2);
        }
        for (size_t i = 0; i < k; i++) {
            free(lp[i]); free(ex[i]); free(co[i]);
        }
        free(ld); free(ws);
    }
    /* p_3 = p_1: no t_3, reported */
    BN_generate_prime_ex(pb[0], 256, 0, NULL, NULL, NULL);
    BN_generate_prime_ex(pb[1], 256, 0, NULL, NULL, NULL);
    ctbn_limb a[4], b[4], ld[12] = {12345}, ex[3][4], co[3][4];
    limbs_from_bn(a, 4, pb[0]);
    limbs_from_bn(b, 4, pb[1]);
    const ctbn_limb *primes[3] = {a, b, a};
    ctbn_limb *exps[3] = {ex[0], ex[1], ex[2]}, *coeffs[2] = {co[0], co[2]};
    size_t plimbs[3] = {4, 4, 4};
    ctbn_limb *ws = limbs_alloc(CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(12));
    assert_int_equal(ctbn_rsa_crt_from_d_multi_ct(primes, plimbs, 3, ld, 12, exps, coeffs, ws),
                     0);
    free(ws);
    for (size_t i = 0; i < CTBN_RSA_MAX_PRIMES; i++)
        BN_free(pb[i]);
    BN_free(pm1); BN_free(prod); BN_free(d); BN_free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctz_shifts),
        cmocka_unit_test(test_gcd),
        cmocka_unit_test(test_divexact),
        cmocka_unit_test(test_inv_public),
        cmocka_unit_test(test_lcm_diff),
        cmocka_unit_test(test_sieve),
        cmocka_unit_test(test_mr_known),
        cmocka_unit_test(test_mr_differential),
        cmocka_unit_test(test_mr_rounds_table),
        cmocka_unit_test(test_prime_gen),
        cmocka_unit_test(test_prime_gen_mod8),
        cmocka_unit_test(test_rsa_derive),
        cmocka_unit_test(test_rsa_crt_from_d),
        cmocka_unit_test(test_rsa_crt_from_d_multi),
    };
    fprintf(stderr, "test_prime: seed 0x%llx (set CTRSA_TEST_SEED to reproduce)\n",
            (unsigned long long)oracle_base_seed());
    return cmocka_run_group_tests(tests, NULL, NULL);
}
