/*
 * The AVX-512 IFMA backend (bignum/ifma*.c) against the portable reference and OpenSSL BN:
 * radix 2^52 conversion, the almost-Montgomery kernels one and two at a time, and the
 * whole-modexp hooks (ctbn_modexp_ct / ctbn_modexp2_ct with the "ifma" backend selected)
 * for 512, 1024, 1536 and 2048-bit moduli of every kind (random, all-ones top limb, top
 * bit + 1, all ones, shorter moduli in the same limb count), bases 0, 1, m-1 and random
 * patterns, exponents of many public lengths including 0 and 1 bit (at 512 bits, the size
 * of RSA-1024's CRT halves, every edge base with every edge exponent length, one or two
 * halves). The public-exponent hook
 * (ctbn_ifma_modexp_public_vartime) at 512 to 4096 bits, with the single AMM kernels of
 * 60 and 80 digits it alone uses: exponents 0, 1, 2, 3, 65537, 256-bit odd and even,
 * multi-limb; bases 0, 1, m-1, random; r = b; other sizes refused.
 *
 * With the argument "ifmaz", all of it again on that backend's 512-bit kernels (10 and 20
 * digits on zmm). Skipped (exit 77, with the reason) when the CPU or OS lacks AVX-512 IFMA.
 * Reproduce a failure with CTRSA_TEST_SEED (the report prints it).
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

#include "backend.h"
#include "backend_fixtures.h"
#include "ifma.h"

/* The limb counts the IFMA hooks handle, and their full bit lengths. */
static const size_t ifma_bits[] = { 512, 1024, 1536, 2048 };

/*
 * Which instance this run tests: "ifma" (256-bit registers at 10 and 20 digits) or, run
 * with the argument "ifmaz", that backend (512-bit registers at every size). The kernel
 * selectors below and every hook test follow it; at 30 digits and more the two are the
 * same kernels, tested twice.
 */
static const char *backend = "ifma";
static int zmm;

static ctbn_ifma_amm_x1_fn *amm_x1_for(size_t d)
{
    return zmm ? ctbn_ifma_amm_x1_zmm_for(d) : ctbn_ifma_amm_x1_for(d);
}

static ctbn_ifma_amm_x2_fn *amm_x2_for(size_t d)
{
    return zmm ? ctbn_ifma_amm_x2_zmm_for(d) : ctbn_ifma_amm_x2_for(d);
}

static ctbn_ifma_ams_x1_fn *ams_x1_for(size_t d)
{
    return zmm ? ctbn_ifma_ams_x1_zmm_for(d) : ctbn_ifma_ams_x1_for(d);
}

static ctbn_ifma_ams_x2_fn *ams_x2_for(size_t d)
{
    return zmm ? ctbn_ifma_ams_x2_zmm_for(d) : ctbn_ifma_ams_x2_for(d);
}

/* The hooks of the backend under test, called directly (ctbn_modexp_ct would quietly fall
 * back to the generic path if a hook declined a size it should take). */
static int hook_modexp(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                       const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)
{
    return zmm ? ctbn_ifmaz_modexp_ct(ctx, r, b, e, e_bits, scratch)
               : ctbn_ifma_modexp_ct(ctx, r, b, e, e_bits, scratch);
}

static int hook_modexp2(const ctbn_mont *c1, ctbn_limb *r1, const ctbn_limb *b1,
                        const ctbn_limb *e1, size_t e1_bits, const ctbn_mont *c2,
                        ctbn_limb *r2, const ctbn_limb *b2, const ctbn_limb *e2,
                        size_t e2_bits, ctbn_limb *scratch)
{
    return zmm ? ctbn_ifmaz_modexp2_ct(c1, r1, b1, e1, e1_bits, c2, r2, b2, e2, e2_bits, scratch)
               : ctbn_ifma_modexp2_ct(c1, r1, b1, e1, e1_bits, c2, r2, b2, e2, e2_bits, scratch);
}

static int hook_takes(size_t n)
{
    return ctbn_ifma_digits(n) != 0;
}

/* The hooks under test as a set (struct hooks, backend_fixtures.h; main names the backend):
 * hook_takes' sizes privately, the public hook (ifma's on both backends) every e, no
 * ungated form. */
static struct hooks hooks = { "ifma", hook_modexp, hook_modexp2, ctbn_ifma_modexp_public_vartime,
                              NULL, hook_takes };

/* The two instances differ exactly at 10 and 20 digits: the zmm selectors give other
 * kernels there, the same ones at 30 and 40 (so a selector that handed ifmaz the 256-bit
 * kernels fails here, although its results would be right). */
static void test_widths(void **state)
{
    (void)state;
    static const size_t differ[] = { 10, 20 }, same[] = { 30, 40 };
    for (size_t i = 0; i < 2; i++) {
        assert_ptr_not_equal(ctbn_ifma_amm_x1_zmm_for(differ[i]), ctbn_ifma_amm_x1_for(differ[i]));
        assert_ptr_not_equal(ctbn_ifma_amm_x2_zmm_for(differ[i]), ctbn_ifma_amm_x2_for(differ[i]));
        assert_ptr_not_equal(ctbn_ifma_ams_x1_zmm_for(differ[i]), ctbn_ifma_ams_x1_for(differ[i]));
        assert_ptr_not_equal(ctbn_ifma_ams_x2_zmm_for(differ[i]), ctbn_ifma_ams_x2_for(differ[i]));
        assert_ptr_equal(ctbn_ifma_amm_x2_zmm_for(same[i]), ctbn_ifma_amm_x2_for(same[i]));
    }
    assert_null(ctbn_ifma_amm_x2_zmm_for(16));
}

/* A public exponent length: the edges of every window width, short ones, full ones. */
static size_t rand_e_bits(size_t mod_bits)
{
    static const size_t edges[] = { 0, 1, 2, 5, 7, 8, 31, 32, 64, 127, 128, 511, 512, 513 };
    if (rng_below(2))
        return edges[rng_below(ARRAY_LEN(edges))];
    return mod_bits - rng_below(3);
}

/* ---- radix conversion ---- */

static void test_convert(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(ifma_bits); s++) {
        size_t n = CTBN_LIMBS(ifma_bits[s]), digits = ctbn_ifma_digits(n);
        assert_int_equal(digits, (64 * n + 51) / 52);
        for (int it = 0; it < 200; it++) {
            ctbn_limb x[CTBN_MAX_LIMBS], y[CTBN_MAX_LIMBS];
            _Alignas(64) uint64_t d[CTBN_IFMA_MAX_LANES];
            memset(d, 0xA5, sizeof(d));
            if (it < 2)
                memset(x, it ? 0xFF : 0, n * sizeof(ctbn_limb)); /* carries everywhere */
            else
                rand_pattern(x, n, 64 * n);
            ctbn_ifma_from_radix64(d, digits, x, n);
            /* every digit is the 52 bits at its place, pad lanes zero */
            for (size_t j = 0; j < CTBN_IFMA_LANES(digits); j++) {
                uint64_t want = 0;
                for (size_t k = 0; k < 52; k++) {
                    size_t bit = 52 * j + k;
                    if (bit < 64 * n && ((x[bit / 64] >> (bit % 64)) & 1))
                        want |= (uint64_t)1 << k;
                }
                if (d[j] != want)
                    fail_msg("n=%zu digit %zu: %016llx, want %016llx", n, j,
                             (unsigned long long)d[j], (unsigned long long)want);
            }
            ctbn_ifma_to_radix64(y, n, d, digits);
            report_begin("radix 2^52 round trip, n=%zu", n);
            report_operand("x", x, n);
            expect_limbs_eq("to_radix64(from_radix64(x))", y, x, n);
        }
    }
}

/* ---- AMM kernels ---- */

/* x (radix 2^52, digits) as a BIGNUM. */
static BIGNUM *bn_from_digits(const uint64_t *d, size_t digits)
{
    return bn_from_radix(d, 52, digits);
}

/* d := a random value below 2m in radix 2^52: a pattern reduced by the oracle, sometimes
 * plus m, or the edges 0, 1, m-1, m, 2m-1. */
static void rand_below_2m(uint64_t *d, const struct modulus *md, size_t digits)
{
    BIGNUM *v = bn_rand_below_2m(md);
    ctbn_limb y[CTBN_MAX_LIMBS + 1];
    limbs_from_bn(y, md->n + 1, v);
    /* 2m < 2^(64n+1) <= 2^(52 digits): the conversion of n+1 limbs fits */
    ctbn_ifma_from_radix64(d, digits, y, md->n + 1);
    BN_free(v);
}

/* Check r = AMM(a, b): r normalized, pad lanes zero, r < 2m, r R' = a b mod m. */
static void expect_amm(const char *what, const uint64_t *r, const uint64_t *a, const uint64_t *b,
                       const struct modulus *md, size_t digits)
{
    for (size_t j = 0; j < CTBN_IFMA_LANES(digits); j++) {
        if (r[j] >> 52 || (j >= digits && r[j] != 0))
            fail_msg("%s: lane %zu = %016llx not a normalized digit", what, j,
                     (unsigned long long)r[j]);
    }
    expect_amm_value(what, r, a, b, md, 52, digits);
}

static void test_amm(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    for (size_t s = 0; s < ARRAY_LEN(ifma_bits); s++) {
        size_t n = CTBN_LIMBS(ifma_bits[s]), digits = ctbn_ifma_digits(n);
        ctbn_ifma_amm_x1_fn *x1 = amm_x1_for(digits);
        ctbn_ifma_amm_x2_fn *x2 = amm_x2_for(digits);
        assert_non_null(x1);
        assert_non_null(x2);
        for (int it = 0; it < 60; it++) {
            struct modulus m1, m2;
            modulus_random(&m1, ifma_bits[s]);
            modulus_random(&m2, ifma_bits[s]);
            if (it % 6 == 5) { /* a modulus whose top digits are all zero, either half */
                struct modulus *short_m = it % 12 == 5 ? &m1 : &m2;
                modulus_free(short_m);
                modulus_make(short_m, n, 2 + rng_below(64 * n - 64), MOD_RANDOM);
            }
            ctbn_ifma_mod *mod1 = aligned_alloc(64, sizeof(ctbn_ifma_mod));
            ctbn_ifma_mod *mod2 = aligned_alloc(64, sizeof(ctbn_ifma_mod));
            assert_non_null(mod1);
            assert_non_null(mod2);
            ctbn_ifma_mod_init(mod1, m1.ctx, tmp);
            ctbn_ifma_mod_init(mod2, m2.ctx, tmp);
            /* R'^2 mod m is exactly that */
            BIGNUM *rr = bn_from_digits(mod1->rr, digits), *want = BN_new();
            BN_set_bit(want, (int)(104 * digits));
            BN_mod(want, want, m1.bm, oracle_bn_ctx());
            assert_int_equal(BN_cmp(rr, want), 0);
            BN_free(rr);
            BN_free(want);

            _Alignas(64) uint64_t a1[CTBN_IFMA_MAX_LANES], b1[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t a2[CTBN_IFMA_MAX_LANES], b2[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t r1[CTBN_IFMA_MAX_LANES], r2[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t s1[CTBN_IFMA_MAX_LANES];
            for (int k = 0; k < 10; k++) {
                rand_below_2m(a1, &m1, digits);
                rand_below_2m(b1, &m1, digits);
                rand_below_2m(a2, &m2, digits);
                rand_below_2m(b2, &m2, digits);
                x1(r1, a1, b1, mod1);
                expect_amm("amm_x1", r1, a1, b1, &m1, digits);
                x2(s1, a1, b1, mod1, r2, a2, b2, mod2);
                expect_amm("amm_x2 first", s1, a1, b1, &m1, digits);
                expect_amm("amm_x2 second", r2, a2, b2, &m2, digits);
                if (memcmp(s1, r1, CTBN_IFMA_LANES(digits) * sizeof(uint64_t)) != 0)
                    fail_msg("amm_x2 first half differs from amm_x1");
                /* squaring in place, both halves */
                memcpy(s1, a1, sizeof(s1));
                memcpy(r2, a2, sizeof(r2));
                x2(s1, s1, s1, mod1, r2, r2, r2, mod2);
                expect_amm("amm_x2 in-place square", s1, a1, a1, &m1, digits);
                expect_amm("amm_x2 in-place square (2)", r2, a2, a2, &m2, digits);
            }
            free(mod1);
            free(mod2);
            modulus_free(&m1);
            modulus_free(&m2);
        }
    }
}

/*
 * d := an edge value below 2m for carries at digit boundary k (0 < k <= digits): the low k
 * digits all ones (2^(52k) - 1) when that is below 2m, else 2m - 1 - (2^(52(digits-k))-1)
 * i.e. a value whose top digits are those of 2m-1 and whose low digits are cleared, or
 * 2m - 2^(52(k-1)) (all ones from the top down to digit k-1 for a modulus with all-ones top).
 */
static void edge_below_2m(uint64_t *d, const struct modulus *md, size_t digits, size_t k,
                          int variant)
{
    BIGNUM *v = BN_new(), *m2 = BN_new(), *t = BN_new();
    assert_non_null(v);
    BN_lshift1(m2, md->bm);
    switch (variant) {
    case 0: /* 2^(52k) - 1, reduced below 2m */
        BN_set_bit(v, (int)(52 * k));
        BN_sub_word(v, 1);
        BN_mod(v, v, m2, oracle_bn_ctx());
        break;
    case 1: /* 2m - 2^(52(k-1)): the digits below k-1 zero, a borrow across every digit */
        BN_set_bit(t, (int)(52 * (k - 1)));
        BN_sub(v, m2, t);
        if (BN_is_negative(v))
            BN_zero(v);
        break;
    default: /* 2m - 1 with its low k digits all ones: (2m-1) | (2^(52k)-1), if below 2m */
        BN_sub(v, m2, BN_value_one());
        for (size_t j = 0; j < 52 * k && j < (size_t)BN_num_bits(m2); j++)
            BN_set_bit(v, (int)j);
        if (BN_cmp(v, m2) >= 0)
            BN_sub(v, m2, BN_value_one());
        break;
    }
    ctbn_limb y[CTBN_MAX_LIMBS + 1];
    limbs_from_bn(y, md->n + 1, v);
    ctbn_ifma_from_radix64(d, digits, y, md->n + 1);
    BN_free(v);
    BN_free(m2);
    BN_free(t);
}

/*
 * The squaring kernels: r = AMM(a, a) against BN, and bit-identical to the multiplication
 * kernel (both compute (a^2 + Q m) / R' with the unique Q < R'), one and two at a time, in
 * place and not, on random values below 2m and on the carry edges at every digit boundary.
 */
static void test_ams(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    for (size_t s = 0; s < ARRAY_LEN(ifma_bits); s++) {
        size_t n = CTBN_LIMBS(ifma_bits[s]), digits = ctbn_ifma_digits(n);
        size_t bytes = CTBN_IFMA_LANES(digits) * sizeof(uint64_t);
        ctbn_ifma_amm_x1_fn *m1x = amm_x1_for(digits);
        ctbn_ifma_ams_x1_fn *x1 = ams_x1_for(digits);
        ctbn_ifma_ams_x2_fn *x2 = ams_x2_for(digits);
        assert_non_null(x1);
        assert_non_null(x2);
        for (int it = 0; it < 40; it++) {
            struct modulus m1, m2;
            modulus_random(&m1, ifma_bits[s]);
            modulus_random(&m2, ifma_bits[s]);
            ctbn_ifma_mod *mod1 = aligned_alloc(64, sizeof(ctbn_ifma_mod));
            ctbn_ifma_mod *mod2 = aligned_alloc(64, sizeof(ctbn_ifma_mod));
            assert_non_null(mod1);
            assert_non_null(mod2);
            ctbn_ifma_mod_init(mod1, m1.ctx, tmp);
            ctbn_ifma_mod_init(mod2, m2.ctx, tmp);
            _Alignas(64) uint64_t a1[CTBN_IFMA_MAX_LANES], a2[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t r1[CTBN_IFMA_MAX_LANES], r2[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t w1[CTBN_IFMA_MAX_LANES], w2[CTBN_IFMA_MAX_LANES];
            /* random values, then every digit boundary's edges (three kinds) */
            size_t rounds = 12 + (it < 3 ? 3 * digits : 0);
            for (size_t k = 0; k < rounds; k++) {
                if (k < 12) {
                    rand_below_2m(a1, &m1, digits);
                    rand_below_2m(a2, &m2, digits);
                } else {
                    size_t kk = (k - 12) / 3 + 1;
                    edge_below_2m(a1, &m1, digits, kk, (int)((k - 12) % 3));
                    edge_below_2m(a2, &m2, digits, digits + 1 - kk, (int)((k - 11) % 3));
                }
                m1x(w1, a1, a1, mod1);
                m1x(w2, a2, a2, mod2);
                x1(r1, a1, mod1);
                expect_amm("ams_x1", r1, a1, a1, &m1, digits);
                if (memcmp(r1, w1, bytes) != 0)
                    fail_msg("ams_x1 differs from amm_x1 (digits %zu, round %zu)", digits, k);
                x2(r1, a1, mod1, r2, a2, mod2);
                expect_amm("ams_x2 first", r1, a1, a1, &m1, digits);
                expect_amm("ams_x2 second", r2, a2, a2, &m2, digits);
                if (memcmp(r1, w1, bytes) != 0 || memcmp(r2, w2, bytes) != 0)
                    fail_msg("ams_x2 differs from amm_x1 (digits %zu, round %zu)", digits, k);
                /* in place */
                memcpy(r1, a1, bytes);
                memcpy(r2, a2, bytes);
                x2(r1, r1, mod1, r2, r2, mod2);
                if (memcmp(r1, w1, bytes) != 0 || memcmp(r2, w2, bytes) != 0)
                    fail_msg("ams_x2 in place differs (digits %zu, round %zu)", digits, k);
                memcpy(r1, a1, bytes);
                x1(r1, r1, mod1);
                if (memcmp(r1, w1, bytes) != 0)
                    fail_msg("ams_x1 in place differs (digits %zu, round %zu)", digits, k);
            }
            /* a chain of squarings stays below 2m and agrees with the multiplication */
            rand_below_2m(a1, &m1, digits);
            memcpy(w1, a1, bytes);
            for (int q = 0; q < 50; q++) {
                x1(a1, a1, mod1);
                m1x(w1, w1, w1, mod1);
            }
            if (memcmp(a1, w1, bytes) != 0)
                fail_msg("50 squarings differ from 50 multiplications (digits %zu)", digits);
            free(mod1);
            free(mod2);
            modulus_free(&m1);
            modulus_free(&m2);
        }
    }
}

/* ---- the modexp hooks through the seam ---- */

/* b^e mod m, e of public length e_bits, a random base (check_modexp, backend_fixtures.h). */
static void check_modexp_random(const struct modulus *md, size_t e_bits)
{
    check_modexp(&hooks, md, e_bits, BASE_RANDOM);
}

static void test_modexp(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(ifma_bits); s++) {
        /* every modulus kind at full length, with the edge exponent lengths */
        for (int kind = 0; kind < MOD_KINDS; kind++) {
            struct modulus md;
            size_t n = CTBN_LIMBS(ifma_bits[s]);
            modulus_make(&md, n, ifma_bits[s], (enum mod_kind)kind);
            static const size_t lens[] = { 0, 1, 2, 8, 64, 513 };
            for (size_t l = 0; l < ARRAY_LEN(lens); l++)
                check_modexp_random(&md, lens[l]);
            check_modexp_random(&md, md.bits);
            modulus_free(&md);
        }
        for (int it = 0; it < 12; it++) {
            struct modulus md;
            modulus_random(&md, ifma_bits[s]);
            check_modexp_random(&md, rand_e_bits(md.bits));
            modulus_free(&md);
        }
    }
}

/* Two halves of the same limb count, their own e_bits (which may differ), random bases. */
static void check_modexp2_random(const struct modulus *m1, const struct modulus *m2,
                                 size_t e1_bits, size_t e2_bits)
{
    check_modexp2(&hooks, m1, m2, e1_bits, e2_bits, BASE_RANDOM, BASE_RANDOM);
}

/*
 * 512-bit moduli (8 limbs, 10 digits: RSA-1024's CRT halves) of exactly 512 bits, every
 * kind (all-ones top digits among them), with every edge base and every edge exponent
 * length, one half and two halves of different exponent lengths and bases; the hook itself
 * must take the size.
 */
static void test_modexp_512_edges(void **state)
{
    (void)state;
    SEED_TEST();
    assert_int_equal(ctbn_ifma_digits(8), 10);
    static const size_t lens[] = { 0, 1, 2, 8, 64, 511, 512 };
    for (int kind = 0; kind < MOD_KINDS; kind++) {
        struct modulus m1, m2;
        modulus_make(&m1, 8, 512, (enum mod_kind)kind);
        modulus_make(&m2, 8, 512, (enum mod_kind)((kind + 1) % MOD_KINDS));
        for (int bk = 0; bk < BASE_KINDS; bk++) {
            for (size_t l = 0; l < ARRAY_LEN(lens); l++) {
                check_modexp(&hooks, &m1, lens[l], (enum base_kind)bk);
                /* the other half: another kind, base and exponent length */
                size_t l2 = (l + 3) % ARRAY_LEN(lens);
                check_modexp2(&hooks, &m1, &m2, lens[l], lens[l2], (enum base_kind)bk,
                              (enum base_kind)((bk + 1 + l) % BASE_KINDS));
                check_modexp2(&hooks, &m1, &m2, lens[l], 512, (enum base_kind)bk, BASE_RANDOM);
            }
        }
        modulus_free(&m1);
        modulus_free(&m2);
    }
    /* random 512-bit moduli, CRT-like pairs with random full-length exponents */
    for (int it = 0; it < 24; it++) {
        struct modulus m1, m2;
        modulus_make(&m1, 8, 512, MOD_RANDOM);
        modulus_make(&m2, 8, 512, MOD_RANDOM);
        check_modexp2_random(&m1, &m2, 512 - rng_below(2), 512 - rng_below(2));
        check_modexp_random(&m1, 512);
        modulus_free(&m1);
        modulus_free(&m2);
    }
}

/* Moduli with leading zero limbs (2 and 40 bits, around 4n bits, one limb short of n): the
 * modexp hooks, whose R'^2 comes from doublings of the context's R^2, against BN. */
static void test_modexp_short_moduli(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t limbs[] = { 8, 16, 24, 32 };
    for (size_t s = 0; s < ARRAY_LEN(limbs); s++) {
        size_t n = limbs[s];
        const size_t bits[] = { 2, 40, 4 * n - 1, 4 * n, 4 * n + 1, 4 * n + 3, 64 * n - 64 };
        for (size_t b = 0; b < ARRAY_LEN(bits); b++) {
            struct modulus m1, m2;
            modulus_make(&m1, n, bits[b], MOD_RANDOM);
            modulus_make(&m2, n, bits[ARRAY_LEN(bits) - 1 - b], MOD_RANDOM);
            check_modexp_random(&m1, bits[b]);
            check_modexp2_random(&m1, &m2, bits[b], 64);
            modulus_free(&m1);
            modulus_free(&m2);
        }
    }
}

static void test_modexp2(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(ifma_bits); s++) {
        for (int it = 0; it < 16; it++) {
            struct modulus m1, m2;
            modulus_random(&m1, ifma_bits[s]);
            modulus_random(&m2, ifma_bits[s]);
            size_t e1_bits, e2_bits;
            switch (it % 4) {
            case 0: /* CRT-like: exponents as long as their moduli */
                e1_bits = m1.bits;
                e2_bits = m2.bits;
                break;
            case 1: /* different lengths, different window widths */
                e1_bits = rand_e_bits(m1.bits);
                e2_bits = rand_e_bits(m2.bits);
                break;
            case 2:
                e1_bits = 0;
                e2_bits = m2.bits;
                break;
            default:
                e1_bits = 1;
                e2_bits = 1;
                break;
            }
            check_modexp2_random(&m1, &m2, e1_bits, e2_bits);
            modulus_free(&m1);
            modulus_free(&m2);
        }
    }
}

/* Other sizes are refused (return 0) without touching r, and still computed right through
 * the seam (generic code on the backend's scalar kernels). */
static void test_other_sizes(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 256, 768, 1000 + 64, 3072, 4096 };
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        struct modulus md;
        modulus_random(&md, sizes[s]);
        check_refused(&hooks, &md);
        modulus_free(&md);
    }
    /* two halves of different limb counts are refused too */
    struct modulus m1, m2;
    modulus_random(&m1, 1024);
    modulus_random(&m2, 2048);
    check_halves_refused(&hooks, &m1, &m2);
    modulus_free(&m1);
    modulus_free(&m2);
}

/* ---- the public-exponent path (ifma_exp_public.c) ---- */

/* The sizes the public hook handles: those of the modexp hooks and 3072, 4096 bits. */
static const size_t public_bits[] = { 512, 1024, 1536, 2048, 3072, 4096 };

/* mod := m and k0 of md in radix 2^52 (all the AMM kernels read), for any digit count. */
static void mod_for_kernel(ctbn_ifma_mod *mod, const struct modulus *md, size_t digits)
{
    memset(mod, 0, sizeof(*mod));
    mod->digits = digits;
    mod->k0 = md->ctx->m0inv & CTBN_IFMA_MASK52;
    ctbn_ifma_from_radix64(mod->m, digits, md->m, md->n);
}

/* The single AMM at 60 and 80 digits (3072, 4096-bit moduli; public path only), with the
 * edge values below 2m, in place and against the contract, like test_amm. */
static void test_amm_public_sizes(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 3072, 4096 };
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        size_t n = CTBN_LIMBS(sizes[s]), digits = ctbn_ifma_public_digits(n);
        assert_int_equal(digits, 65 * n / 52);
        assert_int_equal(ctbn_ifma_digits(n), 0); /* the private modexp hooks refuse it */
        ctbn_ifma_amm_x1_fn *x1 = amm_x1_for(digits);
        assert_non_null(x1);
        for (int it = 0; it < 40; it++) {
            struct modulus md;
            if (it < MOD_KINDS)
                modulus_make(&md, n, sizes[s], (enum mod_kind)it);
            else
                modulus_random(&md, sizes[s]);
            ctbn_ifma_mod *mod = aligned_alloc(64, sizeof(ctbn_ifma_mod));
            assert_non_null(mod);
            mod_for_kernel(mod, &md, digits);
            _Alignas(64) uint64_t a[CTBN_IFMA_MAX_LANES], b[CTBN_IFMA_MAX_LANES];
            _Alignas(64) uint64_t r[CTBN_IFMA_MAX_LANES], t[CTBN_IFMA_MAX_LANES];
            for (int k = 0; k < 10; k++) {
                rand_below_2m(a, &md, digits);
                rand_below_2m(b, &md, digits);
                memset(r, 0xA5, sizeof(r));
                x1(r, a, b, mod);
                expect_amm("amm_x1 (60/80 digits)", r, a, b, &md, digits);
                memcpy(t, a, sizeof(t));
                x1(t, t, b, mod);
                if (memcmp(t, r, CTBN_IFMA_LANES(digits) * sizeof(uint64_t)) != 0)
                    fail_msg("amm_x1 with r = a differs");
                memcpy(t, a, sizeof(t));
                x1(t, t, t, mod);
                expect_amm("amm_x1 in-place square (60/80 digits)", t, a, a, &md, digits);
            }
            free(mod);
            modulus_free(&md);
        }
    }
}

/* b^e mod m by the IFMA public hook itself (which takes every e at these sizes), through the
 * seam on the backend under test (also with r = b), and through the portable backend: all
 * equal to BN's answer (check_public, backend_fixtures.h). */
static void check_ifma_public(const struct modulus *md, const ctbn_limb *b, const ctbn_limb *e,
                              size_t en)
{
    assert_int_equal(check_public(&hooks, md, b, e, en), 1);
}

/* The exponents of the brief: 0, 1, 2, 3, 65537 (also with zero limbs on top), a 256-bit
 * odd e, an even e, multi-limb ones of random density. */
static void check_public_exponents(const struct modulus *md, const ctbn_limb *b)
{
    static const uint64_t small[] = { 0, 1, 2, 3, 65537, 65536, 17, 0x8000000000000001ull };
    for (size_t i = 0; i < ARRAY_LEN(small); i++) {
        ctbn_limb e[3] = { small[i], 0, 0 };
        check_ifma_public(md, b, e, 1);
    }
    ctbn_limb e[4] = { 65537, 0, 0, 0 };
    check_ifma_public(md, b, e, 4); /* public zero limbs on top */
    rand_pattern(e, 4, 256);
    e[3] |= (ctbn_limb)1 << 63;
    e[0] |= 1;
    check_ifma_public(md, b, e, 4); /* a 256-bit odd e */
    e[0] &= ~(ctbn_limb)1;
    check_ifma_public(md, b, e, 4); /* even */
    memset(e, 0, sizeof(e));
    e[1] = 1; /* 2^64: one bit in the second limb, 64 squarings and the multiplication by 1 */
    check_ifma_public(md, b, e, 2);
    rand_pattern(e, 3, 64 * 2 + 1 + rng_below(63));
    check_ifma_public(md, b, e, 3);
}

static void test_public_hook(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
        size_t n = CTBN_LIMBS(public_bits[s]);
        ctbn_limb *b = limbs_alloc(n);
        /* every modulus kind (all-ones top digits among them), edge and random bases */
        for (int kind = 0; kind < MOD_KINDS; kind++) {
            struct modulus md;
            modulus_make(&md, n, public_bits[s], (enum mod_kind)kind);
            static const enum base_kind bases[] = { BASE_ZERO, BASE_ONE, BASE_M_MINUS_1,
                                                    BASE_RANDOM };
            for (size_t v = 0; v < ARRAY_LEN(bases); v++) {
                base_make(b, &md, bases[v]);
                check_public_exponents(&md, b);
            }
            modulus_free(&md);
        }
        /* random moduli, some shorter in the same limb count */
        for (int it = 0; it < 6; it++) {
            struct modulus md;
            modulus_random(&md, public_bits[s]);
            rand_below(b, md.m, n);
            check_public_exponents(&md, b);
            modulus_free(&md);
        }
        free(b);
    }
}

/*
 * The final conditional subtraction's carry: the last AMM of an odd e leaves a value below
 * 2m that can reach 2^(64 n) when m is close to it, the case in which the bit 64 n of the
 * radix 2^52 result must become the carry of the subtraction. Rare for random bases (about
 * 2^-16 at 1024 bits with m = 2^1024 - 1), so the test retraces the hook's steps for e = 3
 * with the kernel (same operations, so the same representatives), finds bases that land
 * there, and checks the hook on them.
 */
static void test_public_top_carry(void **state)
{
    (void)state;
    SEED_TEST();
    size_t n = 16, digits = ctbn_ifma_public_digits(n);
    ctbn_ifma_amm_x1_fn *x1 = amm_x1_for(digits);
    struct modulus md;
    modulus_make(&md, n, 64 * n, MOD_ALL_ONES);
    ctbn_ifma_mod *mod = aligned_alloc(64, sizeof(ctbn_ifma_mod));
    assert_non_null(mod);
    mod_for_kernel(mod, &md, digits);
    _Alignas(64) uint64_t x[CTBN_IFMA_MAX_LANES], k[CTBN_IFMA_MAX_LANES] = { 0 };
    _Alignas(64) uint64_t b52[CTBN_IFMA_MAX_LANES], u[CTBN_IFMA_MAX_LANES];
    _Alignas(64) uint64_t t[CTBN_IFMA_MAX_LANES], acc[CTBN_IFMA_MAX_LANES];
    ctbn_ifma_from_radix64(x, digits, md.ctx->rr, n);
    k[4 * n / 52] = (uint64_t)1 << (4 * n % 52);
    x1(t, x, k, mod); /* T = 2^(67 n) */
    ctbn_limb b[16], e[1] = { 3 };
    int found = 0;
    for (long tries = 0; tries < (1L << 22) && found < 3; tries++) {
        for (size_t i = 0; i < n; i++)
            b[i] = rng_u64();
        b[0] &= ~(ctbn_limb)1; /* b < m = 2^1024 - 1 */
        ctbn_ifma_from_radix64(b52, digits, b, n);
        x1(u, b52, x, mod);
        x1(acc, u, t, mod);     /* b R' */
        x1(acc, acc, acc, mod); /* b^2 R' */
        x1(acc, acc, b52, mod); /* b^3 */
        if (!((acc[64 * n / 52] >> (64 * n % 52)) & 1))
            continue;
        found++;
        check_ifma_public(&md, b, e, 1);
    }
    if (found == 0)
        fail_msg("no base found whose result reaches 2^(64 n): the search needs more tries");
    free(mod);
    modulus_free(&md);
}

/* Other sizes are refused (0) without touching r, and still right through the seam. */
static void test_public_other_sizes(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 256, 768, 1024 + 64, 2048 - 64, 2048 + 64, 8192 };
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        struct modulus md;
        modulus_random(&md, sizes[s]);
        assert_int_equal(ctbn_ifma_public_digits(md.n), 0);
        check_public_refused(&hooks, &md);
        modulus_free(&md);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ifmaz") == 0) {
        backend = "ifmaz";
        zmm = 1;
        hooks.backend = backend;
    } else if (argc > 1) {
        fprintf(stderr, "usage: test_ifma [ifmaz]\n");
        return 2;
    }
    if (ctbn_backend_select(backend) != 0) {
        printf("SKIP: the %s backend is not usable here (CPU or OS lacks AVX-512 IFMA, "
               "or it is not built)\n", backend);
        return 77;
    }
    fprintf(stderr, "testing the %s backend's kernels and hooks\n", backend);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_amm),
        cmocka_unit_test(test_ams),
        cmocka_unit_test(test_modexp),
        cmocka_unit_test(test_modexp2),
        cmocka_unit_test(test_modexp_512_edges),
        cmocka_unit_test(test_modexp_short_moduli),
        cmocka_unit_test(test_other_sizes),
        cmocka_unit_test(test_amm_public_sizes),
        cmocka_unit_test(test_public_hook),
        cmocka_unit_test(test_public_top_carry),
        cmocka_unit_test(test_public_other_sizes),
    };
    return cmocka_run_group_tests_name(backend, tests, NULL, NULL);
}
