/*
 * The AVX2 backend (bignum/avx2*.c) against OpenSSL BN and the portable reference: radix
 * 2^29 / 2^28 conversion (lazy digits in, every digit boundary carrying), the
 * almost-Montgomery kernels on operands whose lazy digits sit at their bound (the
 * shape that carries at every digit boundary and loads the lane accumulators the most),
 * edge values below 2m and moduli of every kind (all-ones, all-ones top limb, 2^(b-1) + 1,
 * shorter in the same limb count), long chains of squarings, and the whole-modexp hooks
 * (one half and the two CRT halves) at 1024, 1536 and 2048 bits with bases 0, 1, m-1 and
 * random, exponents of every window-edge length including 0 and 1 bit; other sizes refused.
 * The public-exponent hook at 1024 to 4096 bits (conversions and kernels there too): every
 * modulus kind, edge bases, e = 0, 1, 2, 3, 65537, random odd and even 64-bit e and longer
 * ones, in place, gated and ungated; sizes without a kernel refused.
 * The avx512 backend's kernels (bignum/avx512*.c) work on the same spans and are checked
 * here too, at both register widths (256: always; 512: where the CPU has AVX-512F), against
 * BN and against each other, on the same operands (test_avx512_amm); and so are its
 * whole-modexp and public-exponent hooks at both widths, with every edge case above (the
 * hook tests run once per set of hooks: hook_sets).
 *
 * Skipped (exit 77, with the reason) when the CPU or OS lacks AVX2 (or BMI2/ADX).
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

#include "avx2.h"
#include "avx512.h"
#include "backend.h"
#include "backend_fixtures.h"

/* The sizes the AVX2 hooks handle (the CRT halves of RSA-2048, 3072, 4096). */
static const size_t avx2_bits[] = { 1024, 1536, 2048 };
/* The sizes with an AMM kernel: the public-exponent path (RSA moduli of 1024 to 4096 bits). */
static const size_t public_bits[] = { 1024, 1536, 2048, 3072, 4096 };

/* ---- radix conversion ---- */

/* A span's value (digits lazy, w bits each) as a BIGNUM. */
static BIGNUM *bn_from_span(const uint64_t *d, unsigned w, size_t digits)
{
    return bn_from_radix(d + CTBN_AVX2_PAD, w, digits);
}

/*
 * Make span d's digits (w bits) lazy without changing its value: digit j gains 2^w (up to
 * the kernel bound) where digit j+1 can give 1, at random places or (all = 1) everywhere
 * it can.
 */
static void make_lazy(uint64_t *d, unsigned w, size_t digits, int all)
{
    uint64_t *dd = d + CTBN_AVX2_PAD;
    for (size_t j = digits - 1; j-- > 0;) {
        if ((all || rng_below(2)) && dd[j + 1] >= 1 &&
            dd[j] + ((uint64_t)1 << w) < CTBN_AVX2_DIGIT_MAX(w)) {
            dd[j + 1] -= 1;
            dd[j] += (uint64_t)1 << w;
        }
    }
}

static void test_convert(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
        size_t n = CTBN_LIMBS(public_bits[s]), digits = ctbn_avx2_public_digits(n);
        unsigned w = ctbn_avx2_public_digit_bits(n);
        assert_true(digits % 4 == 0 && w * digits >= 64 * n + 2 && (w == 28 || w == 29));
        /* the private hooks' sizes are a subset, with the same digits */
        if (ctbn_avx2_digits(n) != 0)
            assert_true(ctbn_avx2_digits(n) == digits && ctbn_avx2_digit_bits(n) == w);
        for (int it = 0; it < 200; it++) {
            ctbn_limb x[CTBN_MAX_LIMBS], y[CTBN_MAX_LIMBS];
            _Alignas(32) uint64_t d[CTBN_AVX2_MAX_SPAN];
            memset(d, 0xA5, sizeof(d));
            if (it < 2)
                memset(x, it ? 0xFF : 0, n * sizeof(ctbn_limb)); /* carries everywhere */
            else
                rand_pattern(x, n, 64 * n);
            ctbn_avx2_from_radix64(d, w, digits, x, n);
            for (size_t j = 0; j < CTBN_AVX2_SPAN(digits); j++) {
                uint64_t want = 0;
                if (j >= CTBN_AVX2_PAD && j < CTBN_AVX2_PAD + digits) {
                    for (size_t k = 0; k < w; k++) {
                        size_t bit = w * (j - CTBN_AVX2_PAD) + k;
                        if (bit < 64 * n && ((x[bit / 64] >> (bit % 64)) & 1))
                            want |= (uint64_t)1 << k;
                    }
                }
                if (d[j] != want)
                    fail_msg("n=%zu lane %zu: %016llx, want %016llx", n, j,
                             (unsigned long long)d[j], (unsigned long long)want);
            }
            /* lazy digits convert back to the same value */
            make_lazy(d, w, digits, it % 2);
            ctbn_avx2_to_radix64(y, n, d, w, digits);
            report_begin("radix 2^%u round trip with lazy digits, n=%zu", w, n);
            report_operand("x", x, n);
            expect_limbs_eq("to_radix64(lazy(from_radix64(x)))", y, x, n);
        }
    }
}

/* ---- the AMM kernel ---- */

/* d := a value below 2m in radix 2^w: the edges 0, 1, m-1, m, 2m-1 or a random pattern
 * (sometimes plus m), its digits made lazy at random, everywhere, or not at all. */
static void rand_below_2m(uint64_t *d, const struct modulus *md, unsigned w, size_t digits)
{
    BIGNUM *v = bn_rand_below_2m(md);
    ctbn_limb y[CTBN_MAX_LIMBS + 1];
    limbs_from_bn(y, md->n + 1, v);
    ctbn_avx2_from_radix64(d, w, digits, y, md->n + 1);
    switch (rng_below(3)) {
    case 0:
        make_lazy(d, w, digits, 1);
        break;
    case 1:
        make_lazy(d, w, digits, 0);
        break;
    default:
        break;
    }
    BN_free(v);
}

/* Check r = AMM(a, b): digits below the bound, pads zero, r < 2m, r R' = a b mod m. */
static void expect_amm(const char *what, const uint64_t *r, const uint64_t *a,
                       const uint64_t *b, const struct modulus *md, unsigned w, size_t digits)
{
    for (size_t j = 0; j < CTBN_AVX2_SPAN(digits); j++) {
        int pad = j < CTBN_AVX2_PAD || j >= CTBN_AVX2_PAD + digits;
        if (r[j] >= CTBN_AVX2_DIGIT_MAX(w) || (pad && r[j] != 0))
            fail_msg("%s: lane %zu = %016llx not a lazy digit or zero pad", what, j,
                     (unsigned long long)r[j]);
    }
    expect_amm_value(what, r + CTBN_AVX2_PAD, a + CTBN_AVX2_PAD, b + CTBN_AVX2_PAD, md, w,
                     digits);
}

/*
 * a := the value 2m - 1 (or m - 1), with every digit but the top one pushed above 2^w,
 * up to the lazy bound, where the value allows: the largest products in every lane.
 */
static void max_lazy(uint64_t *d, const struct modulus *md, unsigned w, size_t digits,
                     int two_m)
{
    BIGNUM *v = BN_dup(md->bm);
    if (two_m)
        BN_lshift1(v, v);
    BN_sub_word(v, 1);
    ctbn_limb y[CTBN_MAX_LIMBS + 1];
    limbs_from_bn(y, md->n + 1, v);
    ctbn_avx2_from_radix64(d, w, digits, y, md->n + 1);
    make_lazy(d, w, digits, 1);
    BN_free(v);
}

static void test_amm(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_avx2_mod *mod = aligned_alloc(32, sizeof(*mod));
    assert_non_null(mod);
    for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
        size_t n = CTBN_LIMBS(public_bits[s]), digits = ctbn_avx2_public_digits(n);
        unsigned w = ctbn_avx2_public_digit_bits(n);
        ctbn_avx2_amm_x1_fn *amm = ctbn_avx2_amm_x1_for(digits);
        assert_non_null(amm);
        for (int it = 0; it < (n > 32 ? 20 : 60); it++) {
            struct modulus md;
            if (it < MOD_KINDS)
                modulus_make(&md, n, public_bits[s], (enum mod_kind)it);
            else
                modulus_random(&md, public_bits[s]);
            ctbn_limb tmp[CTBN_MAX_LIMBS];
            ctbn_avx2_mod_init(mod, md.ctx, tmp);
            /* R'^2 mod m, checked against BN */
            assert_int_equal(mod->bits, w);
            BIGNUM *rr = bn_from_span(mod->rr, w, digits), *want = BN_new();
            BN_set_bit(want, (int)(2 * w * digits));
            BN_mod(want, want, md.bm, oracle_bn_ctx());
            assert_int_equal(BN_cmp(rr, want), 0);
            BN_free(rr);
            BN_free(want);

            _Alignas(32) uint64_t a[CTBN_AVX2_MAX_SPAN], b[CTBN_AVX2_MAX_SPAN],
                r[CTBN_AVX2_MAX_SPAN], a0[CTBN_AVX2_MAX_SPAN];
            for (int k = 0; k < 6; k++) {
                if (k == 0) {
                    max_lazy(a, &md, w, digits, 1);
                    max_lazy(b, &md, w, digits, 1);
                } else if (k == 1) {
                    max_lazy(a, &md, w, digits, 1);
                    max_lazy(b, &md, w, digits, 0);
                } else {
                    rand_below_2m(a, &md, w, digits);
                    rand_below_2m(b, &md, w, digits);
                }
                memset(r, 0x5A, sizeof(r));
                amm(r, a, b, mod);
                expect_amm("amm", r, a, b, &md, w, digits);
                /* in place: r = a, and the squaring r = a = b */
                memcpy(a0, a, sizeof(a));
                amm(a, a, b, mod);
                if (memcmp(a, r, sizeof(uint64_t) * CTBN_AVX2_SPAN(digits)) != 0)
                    fail_msg("amm in place (r = a) differs (digits %zu)", digits);
                memcpy(r, a0, sizeof(a0));
                amm(r, r, r, mod);
                expect_amm("amm square in place", r, a0, a0, &md, w, digits);
            }
            /* a chain of 300 squarings from the heaviest operand stays within the contract */
            max_lazy(a, &md, w, digits, 1);
            for (int q = 0; q < 300; q++) {
                memcpy(a0, a, sizeof(a));
                amm(a, a, a, mod);
                if (q % 50 == 0)
                    expect_amm("squaring chain", a, a0, a0, &md, w, digits);
            }
            expect_amm("squaring chain end", a, a0, a0, &md, w, digits);
            modulus_free(&md);
        }
    }
    free(mod);
}

/* ---- the avx512 backend's kernels (bignum/avx512.h) ---- */

static void expect_same_value(const char *what, const uint64_t *x, const uint64_t *y,
                              unsigned w, size_t digits);

/* The avx512 plans' sizes: the CRT halves of RSA-2048, 3072, 4096. */
static const size_t avx512_bits[] = { 1024, 1536, 2048 };

/*
 * The avx512 AMM kernels at both widths, generic and Montgomery-friendly moduli, 1024 to
 * 2048 bits: the AMM contract against BN (r R' = a b mod m, r < 2m, lazy digits, zero
 * pads) on the operands of test_amm (every lazy digit at its bound with values 2m - 1 and
 * m - 1: the heaviest lanes; 0, 1, m - 1, m, 2m - 1, random below 2m), in place, and
 * along chains of squarings fed by the kernel's own output; the 512-bit kernel gives the
 * 256-bit one's value (where the CPU has AVX-512F); the squaring kernels the same
 * contract and the AMM's value, in place and in chains. Moduli of every kind.
 */
static void test_avx512_amm(void **state)
{
    (void)state;
    SEED_TEST();
    int wide = (ctbn_cpu_features() & CTBN_CPU_AVX512F) != 0;
    if (!wide)
        print_message("no AVX-512F: the 512-bit avx512 kernels are not run here\n");
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_avx2_mod *mod = aligned_alloc(32, sizeof(*mod));
    assert_non_null(mod);
    for (size_t s = 0; s < ARRAY_LEN(avx512_bits); s++) {
        size_t n = CTBN_LIMBS(avx512_bits[s]);
        unsigned w;
        size_t digits = ctbn_avx512_kernel_digits(n, &w);
        assert_true(digits % 8 == 0 && w * digits >= 64 * n + w + 2);
        /* the plans: these kernels, friendly, at 1536 and 2048 bits; at 1024 the AVX2 plan */
        for (int z = 0; z <= wide; z++) { /* the 512-bit selectors only after the CPU check */
            ctbn_avx2_plan p = ctbn_avx512_plan_private(z, n), q = ctbn_avx2_plan_private(n);
            if (n == 16) {
                assert_true(p.digits == q.digits && p.amm == q.amm && p.sqr == q.sqr);
                continue;
            }
            assert_true(p.digits == digits && p.bits == w && p.friendly);
            assert_true(p.amm == (z ? ctbn_avx512_amm_for_z : ctbn_avx512_amm_for_y)(digits, 1));
            assert_true(p.sqr == (z ? ctbn_avx512_sqr_for_z : ctbn_avx512_sqr_for_y)(digits, 1));
        }
        for (int it = 0; it < 2 * (MOD_KINDS + 8); it++) {
            int friendly = it % 2;
            ctbn_avx2_amm_x1_fn *ky = ctbn_avx512_amm_for_y(digits, friendly);
            ctbn_avx2_amm_x1_fn *kz = wide ? ctbn_avx512_amm_for_z(digits, friendly) : NULL;
            assert_non_null(ky);
            assert_true(kz != NULL || !wide);
            ctbn_avx2_sqr_fn *sy = ctbn_avx512_sqr_for_y(digits, friendly);
            ctbn_avx2_sqr_fn *sz = wide ? ctbn_avx512_sqr_for_z(digits, friendly) : NULL;
            assert_non_null(sy);
            assert_true(sz != NULL || !wide);
            struct modulus md;
            if (it / 2 < MOD_KINDS)
                modulus_make(&md, n, avx512_bits[s], (enum mod_kind)(it / 2));
            else
                modulus_random(&md, avx512_bits[s]);
            ctbn_limb tmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS)];
            struct modulus mdt = md; /* the modulus the kernel works with: m or m~ */
            BIGNUM *mt = NULL;
            if (friendly) {
                ctbn_avx2_mod_init_friendly_with(mod, md.ctx, digits, w, ky, tmp);
                mt = bn_from_span(mod->m, w, digits);
                mdt.bm = mt;
            } else {
                ctbn_avx2_mod_init_dw(mod, md.ctx, digits, w, tmp);
            }
            /* R'^2 mod m (or m~, up to one m~) */
            BIGNUM *rr = bn_from_span(mod->rr, w, digits), *want = BN_new();
            BN_set_bit(want, (int)(2 * w * digits));
            BN_mod(want, want, mdt.bm, bctx);
            BN_mod(rr, rr, mdt.bm, bctx);
            assert_int_equal(BN_cmp(rr, want), 0);
            BN_free(rr);
            BN_free(want);

            _Alignas(32) uint64_t a[CTBN_AVX2_MAX_SPAN], b[CTBN_AVX2_MAX_SPAN],
                r[CTBN_AVX2_MAX_SPAN], rz[CTBN_AVX2_MAX_SPAN], a0[CTBN_AVX2_MAX_SPAN];
            for (int k = 0; k < 10; k++) {
                if (k < 2) {
                    max_lazy(a, &mdt, w, digits, 1);
                    max_lazy(b, &mdt, w, digits, k == 0);
                } else {
                    rand_below_2m(a, &mdt, w, digits);
                    rand_below_2m(b, &mdt, w, digits);
                }
                memset(r, 0x5A, sizeof(r));
                ky(r, a, b, mod);
                expect_amm("avx512 amm (256)", r, a, b, &mdt, w, digits);
                if (wide) {
                    memset(rz, 0xA5, sizeof(rz));
                    kz(rz, a, b, mod);
                    expect_amm("avx512 amm (512)", rz, a, b, &mdt, w, digits);
                    expect_same_value("avx512 amm 512 vs 256", rz, r, w, digits);
                }
                /* in place: r = a, and the square r = a = b */
                memcpy(a0, a, sizeof(a));
                ky(a, a, b, mod);
                if (memcmp(a, r, sizeof(uint64_t) * CTBN_AVX2_SPAN(digits)) != 0)
                    fail_msg("avx512 amm (256) in place (r = a) differs (digits %zu)", digits);
                if (wide) {
                    memcpy(a, a0, sizeof(a));
                    kz(a, a, b, mod);
                    if (memcmp(a, rz, sizeof(uint64_t) * CTBN_AVX2_SPAN(digits)) != 0)
                        fail_msg("avx512 amm (512) in place (r = a) differs (digits %zu)",
                                 digits);
                    memcpy(rz, a0, sizeof(a0));
                    kz(rz, rz, rz, mod);
                    expect_amm("avx512 amm (512) square in place", rz, a0, a0, &mdt, w, digits);
                }
                memcpy(r, a0, sizeof(a0));
                ky(r, r, r, mod);
                expect_amm("avx512 amm (256) square in place", r, a0, a0, &mdt, w, digits);
                /* the squaring kernels: the AMM contract, the AMM's value, in place */
                for (int z = 0; z <= wide; z++) {
                    ctbn_avx2_sqr_fn *sq = z ? sz : sy;
                    _Alignas(32) uint64_t rs[CTBN_AVX2_MAX_SPAN];
                    memset(rs, 0x5A, sizeof(rs));
                    sq(rs, a0, mod);
                    expect_amm(z ? "avx512 sqr (512)" : "avx512 sqr (256)", rs, a0, a0, &mdt, w,
                               digits);
                    expect_same_value("avx512 sqr vs amm", rs, r, w, digits);
                    memcpy(rs, a0, sizeof(a0));
                    sq(rs, rs, mod);
                    expect_amm(z ? "avx512 sqr (512) in place" : "avx512 sqr (256) in place", rs,
                               a0, a0, &mdt, w, digits);
                }
            }
            /* chains of 200 squarings from the heaviest operand, each width and kernel on
             * its own (the AMM's AMM(a, a) and the squaring kernel) */
            for (int z = 0; z < 2 * (1 + wide); z++) {
                ctbn_avx2_amm_x1_fn *kk = z / 2 ? kz : ky;
                ctbn_avx2_sqr_fn *sq = z % 2 ? (z / 2 ? sz : sy) : NULL;
                max_lazy(a, &mdt, w, digits, 1);
                for (int q = 0; q < 200; q++) {
                    memcpy(a0, a, sizeof(a));
                    if (sq != NULL)
                        sq(a, a, mod);
                    else
                        kk(a, a, a, mod);
                    if (q % 50 == 0)
                        expect_amm("avx512 squaring chain", a, a0, a0, &mdt, w, digits);
                }
                expect_amm("avx512 squaring chain end", a, a0, a0, &mdt, w, digits);
            }
            BN_free(mt);
            modulus_free(&md);
        }
    }
    free(mod);
}

/* ---- the squaring kernel ---- */

/* Fail unless spans x and y (lazy digits) have the same value. */
static void expect_same_value(const char *what, const uint64_t *x, const uint64_t *y,
                              unsigned w, size_t digits)
{
    BIGNUM *bx = bn_from_span(x, w, digits), *by = bn_from_span(y, w, digits);
    if (BN_cmp(bx, by) != 0) {
        char *sx = BN_bn2hex(bx), *sy = BN_bn2hex(by);
        fail_msg("%s: value %s, the AMM kernel's %s (digits %zu)", what, sx, sy, digits);
    }
    BN_free(bx);
    BN_free(by);
}

/*
 * ctbn_avx2_sqr*: against BN (r R' = a^2 mod m, r < 2m, lazy digits, zero pads) and against
 * the AMM kernel (the same value: the quotient is unique), on operands at the lazy-digit
 * bound, edge values below 2m, moduli of every kind, in place, and along chains of
 * squarings fed by the squaring kernel's own output.
 */
static void test_sqr(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_avx2_mod *mod = aligned_alloc(32, sizeof(*mod));
    assert_non_null(mod);
    assert_null(ctbn_avx2_sqr_for(40));
    /* the private halves' sizes and the public path's 3072/4096-bit moduli */
    for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
        size_t n = CTBN_LIMBS(public_bits[s]), digits = ctbn_avx2_public_digits(n);
        unsigned w = ctbn_avx2_public_digit_bits(n);
        ctbn_avx2_amm_x1_fn *amm = ctbn_avx2_amm_x1_for(digits);
        ctbn_avx2_sqr_fn *sqr = ctbn_avx2_sqr_for(digits);
        assert_non_null(amm);
        assert_non_null(sqr);
        for (int it = 0; it < (n > 32 ? 20 : 60); it++) {
            struct modulus md;
            if (it < MOD_KINDS)
                modulus_make(&md, n, public_bits[s], (enum mod_kind)it);
            else
                modulus_random(&md, public_bits[s]);
            ctbn_limb tmp[CTBN_MAX_LIMBS];
            ctbn_avx2_mod_init(mod, md.ctx, tmp);
            _Alignas(32) uint64_t a[CTBN_AVX2_MAX_SPAN], r[CTBN_AVX2_MAX_SPAN],
                ra[CTBN_AVX2_MAX_SPAN], a0[CTBN_AVX2_MAX_SPAN];
            for (int k = 0; k < 10; k++) {
                if (k < 2)
                    max_lazy(a, &md, w, digits, k == 0);
                else
                    rand_below_2m(a, &md, w, digits);
                memset(r, 0x5A, sizeof(r));
                sqr(r, a, mod);
                expect_amm("sqr", r, a, a, &md, w, digits);
                amm(ra, a, a, mod);
                expect_same_value("sqr vs amm", r, ra, w, digits);
                /* in place */
                memcpy(a0, a, sizeof(a));
                sqr(a, a, mod);
                if (memcmp(a, r, sizeof(uint64_t) * CTBN_AVX2_SPAN(digits)) != 0)
                    fail_msg("sqr in place (r = a) differs (digits %zu)", digits);
            }
            /* chains: 300 squarings from the heaviest operands, each step checked against
             * the AMM kernel on the same input, some against BN */
            for (int start = 0; start < 2; start++) {
                max_lazy(a, &md, w, digits, start == 0);
                for (int q = 0; q < 300; q++) {
                    memcpy(a0, a, sizeof(a));
                    amm(ra, a0, a0, mod);
                    sqr(a, a, mod);
                    expect_same_value("sqr chain vs amm", a, ra, w, digits);
                    if (q % 50 == 0 || q == 299)
                        expect_amm("sqr chain", a, a0, a0, &md, w, digits);
                }
            }
            modulus_free(&md);
        }
    }
    free(mod);
}

/* ---- Montgomery-friendly moduli (avx2_friendly.c) ---- */

/*
 * For the friendly sizes: ctbn_avx2_mod_init_friendly gives m~ = k0 m with k0 = -m^-1 mod
 * 2^W (so m~ = -1 mod 2^W and 4 m~ < R'), R'^2 mod m~ up to one m~; the friendly kernel
 * meets the AMM contract modulo m~ on the operands test_amm uses; ctbn_avx2_friendly_reduce
 * gives x mod m for x up to m~. All against BN.
 */
static void test_friendly(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_avx2_mod *mod = aligned_alloc(32, sizeof(*mod));
    assert_non_null(mod);
    for (size_t s = 0; s < ARRAY_LEN(avx2_bits); s++) {
        size_t n = CTBN_LIMBS(avx2_bits[s]), digits = ctbn_avx2_digits(n);
        unsigned w = ctbn_avx2_digit_bits(n);
        if (!ctbn_avx2_friendly(n)) {
            /* 1024 bits: 36 digits of 29 bits cannot hold 4 m~ (avx2.h) */
            assert_null(ctbn_avx2_sqrf_for(digits));
            assert_true(w * digits < 64 * n + w + 2);
            continue;
        }
        assert_true(w * digits >= 64 * n + w + 2);
        ctbn_avx2_amm_x1_fn *amm = ctbn_avx2_ammf_x1_for(digits);
        assert_non_null(amm);
        ctbn_avx2_sqr_fn *sqrf = ctbn_avx2_sqrf_for(digits), *sqrg = ctbn_avx2_sqr_for(digits);
        assert_non_null(sqrf);
        for (int it = 0; it < 24; it++) {
            struct modulus md;
            if (it < MOD_KINDS)
                modulus_make(&md, n, avx2_bits[s], (enum mod_kind)it);
            else
                modulus_random(&md, avx2_bits[s]);
            ctbn_limb tmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS) +
                          CTBN_REDUCE_SCRATCH(CTBN_MAX_LIMBS)];
            ctbn_avx2_mod_init_friendly(mod, md.ctx, tmp);
            assert_int_equal(mod->bits, w);
            assert_int_equal(mod->digits, digits);

            /* m~ = k0 m, k0 = -m^-1 mod 2^W, m~ = -1 mod 2^W, 4 m~ < R' */
            BIGNUM *mt = bn_from_span(mod->m, w, digits), *want = BN_new(), *two_w = BN_new();
            BIGNUM *k0 = BN_new(), *rp = BN_new();
            BN_set_bit(two_w, (int)w);
            BN_mod_inverse(k0, md.bm, two_w, bctx);
            BN_sub(k0, two_w, k0);
            BN_mul(want, k0, md.bm, bctx);
            assert_int_equal(BN_cmp(mt, want), 0);
            BN_add_word(want, 1);
            BN_mod(want, want, two_w, bctx);
            assert_true(BN_is_zero(want));
            BN_set_bit(rp, (int)(w * digits));
            BN_lshift(want, mt, 2);
            assert_true(BN_cmp(want, rp) < 0);

            /* R'^2 mod m~, up to one m~ */
            BIGNUM *rr = bn_from_span(mod->rr, w, digits);
            BN_lshift1(want, mt);
            assert_true(BN_cmp(rr, want) < 0);
            BN_set_bit(want, 0);
            BN_zero(want);
            BN_set_bit(want, (int)(2 * w * digits));
            BN_mod(want, want, mt, bctx);
            BN_mod(rr, rr, mt, bctx);
            assert_int_equal(BN_cmp(rr, want), 0);

            /* the kernel, modulo m~: the operands of test_amm */
            struct modulus mdt = md;
            mdt.bm = mt;
            _Alignas(32) uint64_t a[CTBN_AVX2_MAX_SPAN], b[CTBN_AVX2_MAX_SPAN],
                r[CTBN_AVX2_MAX_SPAN], a0[CTBN_AVX2_MAX_SPAN];
            for (int k = 0; k < 6; k++) {
                max_lazy(a, &mdt, w, digits, k < 2);
                if (k >= 2)
                    rand_below_2m(a, &mdt, w, digits);
                if (k == 0)
                    max_lazy(b, &mdt, w, digits, 1);
                else
                    rand_below_2m(b, &mdt, w, digits);
                memset(r, 0x5A, sizeof(r));
                amm(r, a, b, mod);
                expect_amm("friendly amm", r, a, b, &mdt, w, digits);
                /* the friendly squaring: the AMM contract, and digit for digit the
                 * generic squaring's result on the same modulus */
                _Alignas(32) uint64_t rs[CTBN_AVX2_MAX_SPAN], rg[CTBN_AVX2_MAX_SPAN];
                memset(rs, 0x5A, sizeof(rs));
                sqrf(rs, a, mod);
                expect_amm("friendly sqr", rs, a, a, &mdt, w, digits);
                sqrg(rg, a, mod);
                expect_amm("generic sqr, friendly modulus", rg, a, a, &mdt, w, digits);
                assert_memory_equal(rs, rg, CTBN_AVX2_SPAN(digits) * sizeof(uint64_t));
                memcpy(a0, a, sizeof(a));
                amm(a, a, a, mod);
                expect_amm("friendly square in place", a, a0, a0, &mdt, w, digits);
                memcpy(rs, a0, sizeof(rs));
                sqrf(rs, rs, mod);
                expect_amm("friendly sqr in place", rs, a0, a0, &mdt, w, digits);
                assert_memory_equal(rs, rg, CTBN_AVX2_SPAN(digits) * sizeof(uint64_t));
            }
            max_lazy(a, &mdt, w, digits, 1);
            for (int q = 0; q < 200; q++) {
                memcpy(a0, a, sizeof(a));
                amm(a, a, a, mod);
            }
            expect_amm("friendly squaring chain end", a, a0, a0, &mdt, w, digits);
            /* a chain of friendly squarings, every step digit for digit the generic one's */
            max_lazy(a, &mdt, w, digits, 1);
            for (int q = 0; q < 200; q++) {
                memcpy(a0, a, sizeof(a));
                sqrf(a, a, mod);
                sqrg(r, a0, mod);
                assert_memory_equal(a, r, CTBN_AVX2_SPAN(digits) * sizeof(uint64_t));
            }
            expect_amm("friendly sqr chain end", a, a0, a0, &mdt, w, digits);

            /* back modulo m: x = 0, m, m~, m~ - 1 and random below m~, lazy digits */
            for (int k = 0; k < 8; k++) {
                BIGNUM *x = BN_new();
                switch (k) {
                case 0:
                    BN_zero(x);
                    break;
                case 1:
                    BN_copy(x, md.bm);
                    break;
                case 2:
                    BN_copy(x, mt);
                    break;
                case 3:
                    BN_copy(x, mt);
                    BN_sub_word(x, 1);
                    break;
                default:
                    BN_rand_range(x, mt);
                    break;
                }
                ctbn_limb y[CTBN_MAX_LIMBS + 1], got[CTBN_MAX_LIMBS];
                limbs_from_bn(y, n + 1, x);
                ctbn_avx2_from_radix64(a, w, digits, y, n + 1);
                make_lazy(a, w, digits, k % 2);
                ctbn_avx2_friendly_reduce(got, md.ctx, a, w, digits, tmp);
                BN_mod(x, x, md.bm, bctx);
                BIGNUM *bg = bn_from_limbs(got, n);
                assert_int_equal(BN_cmp(bg, x), 0);
                BN_free(bg);
                BN_free(x);
            }
            BN_free(mt);
            BN_free(want);
            BN_free(two_w);
            BN_free(k0);
            BN_free(rp);
            BN_free(rr);
            modulus_free(&md);
        }
    }
    free(mod);
}

/* ---- the modexp hooks ---- */

/* The hook sets under test (struct hooks, backend_fixtures.h): the AVX2 backend's, and the
 * avx512 backend's at each register width. */
static int avx2_takes(size_t n)
{
    return ctbn_avx2_digits(n) != 0;
}

static int avx512_takes(size_t n)
{
    return n == 16 || n == 24 || n == 32;
}

static const struct hooks avx2_hooks = { "avx2", ctbn_avx2_modexp_ct, ctbn_avx2_modexp2_ct,
                                         ctbn_avx2_modexp_public_vartime,
                                         ctbn_avx2_exp_public_any, avx2_takes };
static const struct hooks avx512y_hooks = { "avx512y", ctbn_avx512_modexp_ct_y,
                                            ctbn_avx512_modexp2_ct_y,
                                            ctbn_avx512_exp_public_y, NULL, avx512_takes };
static const struct hooks avx512z_hooks = { "avx512", ctbn_avx512_modexp_ct_z,
                                            ctbn_avx512_modexp2_ct_z,
                                            ctbn_avx512_exp_public_z, NULL, avx512_takes };

/* The hook sets this CPU runs (the 512-bit one where it has AVX-512F): *sets, their count. */
static size_t hook_sets(const struct hooks **sets)
{
    size_t c = 0;
    sets[c++] = &avx2_hooks;
    sets[c++] = &avx512y_hooks;
    if (ctbn_cpu_features() & CTBN_CPU_AVX512F)
        sets[c++] = &avx512z_hooks;
    return c;
}

/* Every modulus kind at every size, every edge base with the window-edge exponent lengths
 * (0, 1 bit, each change of window width, full), one half and two halves; for each set of
 * hooks (hook_sets: AVX2, avx512 at 256 bits and, with AVX-512F, at 512 bits). */
static void test_modexp_edges(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t lens[] = { 0, 1, 2, 7, 8, 31, 32, 127, 128, 511, 512 };
    const struct hooks *sets[3];
    size_t nsets = hook_sets(sets);
    for (size_t h = 0; h < nsets; h++) {
        for (size_t s = 0; s < ARRAY_LEN(avx2_bits); s++) {
            size_t n = CTBN_LIMBS(avx2_bits[s]);
            for (int kind = 0; kind < MOD_KINDS; kind++) {
                struct modulus m1, m2;
                modulus_make(&m1, n, avx2_bits[s], (enum mod_kind)kind);
                modulus_make(&m2, n, avx2_bits[s], (enum mod_kind)((kind + 1) % MOD_KINDS));
                for (int bk = 0; bk < BASE_KINDS; bk++) {
                    size_t l = rng_below(ARRAY_LEN(lens)), l2 = rng_below(ARRAY_LEN(lens));
                    check_modexp(sets[h], &m1, lens[l], (enum base_kind)bk);
                    check_modexp(sets[h], &m1, m1.bits, (enum base_kind)bk);
                    check_modexp2(sets[h], &m1, &m2, lens[l], lens[l2], (enum base_kind)bk,
                                  (enum base_kind)((bk + 1) % BASE_KINDS));
                    check_modexp2(sets[h], &m1, &m2, m1.bits, m2.bits, (enum base_kind)bk,
                                  BASE_RANDOM);
                }
                modulus_free(&m1);
                modulus_free(&m2);
            }
        }
    }
}

/* Random moduli (shorter ones too) in CRT-like pairs with full-length exponents, for each
 * set of hooks. */
static void test_modexp_random(void **state)
{
    (void)state;
    SEED_TEST();
    const struct hooks *sets[3];
    size_t nsets = hook_sets(sets);
    for (size_t h = 0; h < nsets; h++) {
        for (size_t s = 0; s < ARRAY_LEN(avx2_bits); s++) {
            for (int it = 0; it < 8; it++) {
                struct modulus m1, m2;
                modulus_random(&m1, avx2_bits[s]);
                modulus_random(&m2, avx2_bits[s]);
                check_modexp2(sets[h], &m1, &m2, m1.bits, m2.bits - rng_below(2), BASE_RANDOM,
                              BASE_RANDOM);
                check_modexp(sets[h], &m1, m1.bits, BASE_RANDOM);
                modulus_free(&m1);
                modulus_free(&m2);
            }
        }
    }
}

/* Other sizes are refused (return 0) without touching r; so are halves of different sizes. */
static void test_other_sizes(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 512, 768, 1000 + 64, 3072, 4096 };
    const struct hooks *sets[3];
    size_t nsets = hook_sets(sets);
    for (size_t h = 0; h < nsets; h++) {
        for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
            struct modulus md;
            modulus_random(&md, sizes[s]);
            check_refused(sets[h], &md);
            modulus_free(&md);
        }
    }
    struct modulus m1, m2;
    modulus_random(&m1, 1024);
    modulus_random(&m2, 2048);
    for (size_t h = 0; h < nsets; h++)
        check_halves_refused(sets[h], &m1, &m2);
    modulus_free(&m1);
    modulus_free(&m2);
}

/*
 * Plans that do not fit their moduli are refused by the drivers (0, r untouched) rather than
 * run: no kernel; 56 digits for a 2048-bit modulus (W D = 1568 < 64 n + 2); a friendly plan
 * without the room m~ needs (D = 36, W = 29 at 1024 bits: 1044 < 64 n + W + 2); a radix the
 * kernels do not have; a friendly plan on the public path. Each also with a fitting twin
 * that is taken, so the refusals are the plan's, not the size's.
 */
static void test_plan_refused(void **state)
{
    (void)state;
    SEED_TEST();
    struct {
        size_t bits;
        ctbn_avx2_plan p;
        int fits;
    } cases[] = {
        { 2048, { 72, 29, 1, NULL, NULL }, 0 },
        { 2048, { 72, 29, 1, ctbn_avx2_amm72f_x1, NULL }, 1 },
        { 2048, { 56, 28, 1, ctbn_avx2_amm56f_x1, NULL }, 0 },
        { 1536, { 56, 28, 1, ctbn_avx2_amm56f_x1, NULL }, 1 },
        { 1024, { 36, 29, 1, ctbn_avx2_amm36f_x1, NULL }, 0 },
        { 1024, { 36, 29, 0, ctbn_avx2_amm36_x1, NULL }, 1 },
        { 1024, { 36, 30, 0, ctbn_avx2_amm36_x1, NULL }, 0 },
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        struct modulus md;
        modulus_random(&md, cases[c].bits);
        size_t n = md.n;
        report_begin("plan %zu: D=%zu W=%u friendly=%d on a %zu-bit modulus", c,
                     cases[c].p.digits, cases[c].p.bits, cases[c].p.friendly, md.bits);
        assert_int_equal(ctbn_avx2_plan_fits(&cases[c].p, n), cases[c].fits);
        ctbn_limb *r = limbs_alloc(n), *r2 = limbs_alloc(n), *b = limbs_alloc(n);
        ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP2_SCRATCH(n, n));
        ctbn_limb e[1] = { 65537 };
        rand_below(b, md.m, n);
        BIGNUM *want = bn_modexp_want(&md, b, e, 1);
        fill_untouched(r, n);
        fill_untouched(r2, n);
        int t1 = ctbn_avx2_modexp_ct_with(&cases[c].p, md.ctx, r, b, e, 17, scratch);
        int t2 = ctbn_avx2_modexp2_ct_with(&cases[c].p, md.ctx, r, b, e, 17, md.ctx, r2, b, e,
                                           17, scratch);
        assert_int_equal(t1, cases[c].fits);
        assert_int_equal(t2, cases[c].fits);
        if (cases[c].fits) {
            expect_limbs_bn("fitting plan", r, n, want);
            expect_limbs_bn("fitting plan (second half)", r2, n, want);
        } else {
            expect_untouched("refused plan", r, n);
            expect_untouched("refused plan (second half)", r2, n);
        }
        /* the public path takes no friendly plan; the others as they fit */
        fill_untouched(r, n);
        int t3 = ctbn_avx2_exp_public_with(&cases[c].p, md.ctx, r, b, e, 1, scratch);
        assert_int_equal(t3, cases[c].fits && !cases[c].p.friendly);
        if (t3)
            expect_limbs_bn("fitting plan, public path", r, n, want);
        else
            expect_untouched("refused plan, public path", r, n);
        BN_free(want);
        free(r);
        free(r2);
        free(b);
        free(scratch);
        modulus_free(&md);
    }
}

/* ---- the public-exponent hook ---- */

/* An exponent of en limbs for the public path: kind 0: e = 0, 1: 1, 2: 2, 3: 3, 4: 65537,
 * 5: a random odd 64-bit e (top bit set), 6: a random even one, 7: random of up to
 * 64 en bits (true length random, sometimes all ones). */
static void public_exponent(ctbn_limb *e, size_t en, int kind)
{
    memset(e, 0, en * sizeof(ctbn_limb));
    switch (kind) {
    case 0:
        break;
    case 1:
    case 2:
    case 3:
        e[0] = (ctbn_limb)kind;
        break;
    case 4:
        e[0] = 65537;
        break;
    case 5:
    case 6:
        rand_pattern(e, 1, 64);
        e[0] |= (ctbn_limb)1 << 63;
        e[0] = kind == 5 ? e[0] | 1 : e[0] & ~(ctbn_limb)1;
        break;
    default:
        if (rng_below(4) == 0) {
            for (size_t i = 0; i < en; i++)
                e[i] = ~(ctbn_limb)0;
            e[en - 1] >>= rng_below(64);
        } else
            rand_pattern(e, en, 1 + rng_below(64 * en));
        break;
    }
}

/* check_public (backend_fixtures.h) on a base of kind bk; returns whether the hook computed. */
static int check_public_base(const struct hooks *H, const struct modulus *md,
                             const ctbn_limb *e, size_t en, enum base_kind bk)
{
    ctbn_limb *b = limbs_alloc(md->n);
    base_make(b, md, bk);
    int taken = check_public(H, md, b, e, en);
    free(b);
    return taken;
}

/* Every size with a kernel, every modulus kind (and shorter moduli in the same limb count),
 * every edge base, the exponents of public_exponent: one, 2 and (for up to 2048 bits) n
 * limbs, the lengths of a key check's exponent; for each set of hooks, each of which must
 * take some of them at every size. */
static void test_public(void **state)
{
    (void)state;
    SEED_TEST();
    const struct hooks *sets[3];
    size_t nsets = hook_sets(sets);
    for (size_t h = 0; h < nsets; h++) {
        for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
            size_t n = CTBN_LIMBS(public_bits[s]);
            size_t taken = 0;
            for (int it = 0; it < MOD_KINDS + 4; it++) {
                struct modulus md;
                if (it < MOD_KINDS)
                    modulus_make(&md, n, public_bits[s], (enum mod_kind)it);
                else
                    modulus_random(&md, public_bits[s]);
                for (int bk = 0; bk < BASE_KINDS; bk++) {
                    ctbn_limb e[CTBN_MAX_LIMBS];
                    for (int ek = 0; ek < 8; ek++) {
                        public_exponent(e, 1, ek);
                        taken += check_public_base(sets[h], &md, e, 1, (enum base_kind)bk);
                    }
                    public_exponent(e, 2, 7);
                    taken += check_public_base(sets[h], &md, e, 2, (enum base_kind)bk);
                    if (n <= 32 && bk == BASE_RANDOM) {
                        public_exponent(e, n, 7);
                        taken += check_public_base(sets[h], &md, e, n, (enum base_kind)bk);
                    }
                }
                modulus_free(&md);
            }
            if (taken == 0)
                fail_msg("%s: the public hook took no %zu-bit case", sets[h]->backend,
                         public_bits[s]);
        }
    }
}

/*
 * Moduli whose top limb is small against the rest, 2^63 (or 2^(bits-1) for a shorter one)
 * followed by ones: the quotient digit the public path estimates from the top limbs alone
 * (R'^2 by shift-and-reduce, avx2_exp_public.c) is then often above the true one, the case
 * its correction exists for. Plus 2^(bits-1) + 2^(bits-65) + 1 and the all-ones top limb
 * over zeros.
 */
static void test_public_quotient_edges(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t s = 0; s < ARRAY_LEN(public_bits); s++) {
        size_t n = CTBN_LIMBS(public_bits[s]);
        for (int shape = 0; shape < 4; shape++) {
            for (int shorter = 0; shorter < 2; shorter++) {
                /* M normalized (64 n bits), then shifted down to m of 64 n - sh bits */
                ctbn_limb M[CTBN_MAX_LIMBS], m[CTBN_MAX_LIMBS];
                size_t sh = shorter ? 1 + rng_below(40) : 0;
                rand_pattern(M, n, 64 * n);
                switch (shape) {
                case 0: /* 2^63, then all ones */
                    memset(M, 0xFF, n * sizeof(ctbn_limb));
                    M[n - 1] = (ctbn_limb)1 << 63;
                    break;
                case 1: /* 2^63, all ones, then random */
                    M[n - 1] = (ctbn_limb)1 << 63;
                    M[n - 2] = ~(ctbn_limb)0;
                    break;
                case 2: /* 2^63 + 1, then random */
                    M[n - 1] = ((ctbn_limb)1 << 63) + 1;
                    break;
                default: /* all ones, then zeros */
                    memset(M, 0, n * sizeof(ctbn_limb));
                    M[n - 1] = ~(ctbn_limb)0;
                    break;
                }
                for (size_t i = 0; i < n; i++)
                    m[i] = sh == 0 ? M[i]
                                   : (M[i] >> sh) | (i + 1 < n ? M[i + 1] << (64 - sh) : 0);
                m[0] |= 1;
                struct modulus md;
                md.n = n;
                md.m = limbs_alloc(n);
                memcpy(md.m, m, n * sizeof(ctbn_limb));
                md.ctx = malloc(sizeof(ctbn_mont_max));
                assert_non_null(md.ctx);
                assert_int_equal(ctbn_mont_init(md.ctx, md.m, n), 0);
                md.bits = md.ctx->bits;
                assert_int_equal(md.bits, 64 * n - sh);
                md.bm = bn_from_limbs(md.m, n);
                ctbn_limb e[2];
                static const int kinds[] = { 3, 4, 5, 7 };
                const struct hooks *sets[3];
                size_t nsets = hook_sets(sets);
                for (size_t h = 0; h < nsets; h++)
                    for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
                        public_exponent(e, kinds[k] == 7 ? 2 : 1, kinds[k]);
                        check_public_base(sets[h], &md, e, kinds[k] == 7 ? 2 : 1,
                                          k % 2 ? BASE_M_MINUS_1 : BASE_RANDOM);
                    }
                modulus_free(&md);
            }
        }
    }
}

/*
 * One shift-and-reduce step of the R'^2 set-up against BN: x 2^s mod M up to 3M, for x at
 * the edges of its domain (0, M - 1, 3M - 1, random below 3M) and every s in 1..60, on
 * normalized moduli whose top limb is small against the rest (2^63 then ones: there
 * x = 3M - 1 makes the estimated quotient digit exceed the true one) and random ones.
 */
static void test_mul_pow2_mod(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    static const size_t sizes[] = { 2, 3, 16, 32, 64 };
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        for (int shape = 0; shape < 3; shape++) {
            ctbn_limb M[CTBN_MAX_LIMBS];
            rand_pattern(M, n, 64 * n);
            if (shape == 0) {
                memset(M, 0xFF, n * sizeof(ctbn_limb));
                M[n - 1] = (ctbn_limb)1 << 63;
            } else if (shape == 1) {
                M[n - 1] = ((ctbn_limb)1 << 63) | M[n - 1] >> 40;
            }
            M[n - 1] |= (ctbn_limb)1 << 63;
            BIGNUM *bm = bn_from_limbs(M, n), *m3 = BN_new(), *v = BN_new(), *want = BN_new();
            BIGNUM *got = NULL, *lim = BN_new();
            BN_mul_word(BN_copy(m3, bm), 3);
            for (unsigned s = 1; s <= 60; s++) {
                for (int xk = 0; xk < 4; xk++) {
                    ctbn_limb x[CTBN_MAX_LIMBS + 1], x0[CTBN_MAX_LIMBS + 1];
                    switch (xk) {
                    case 0:
                        BN_zero(v);
                        break;
                    case 1:
                        BN_copy(v, bm);
                        BN_sub_word(v, 1);
                        break;
                    case 2:
                        BN_copy(v, m3);
                        BN_sub_word(v, 1);
                        break;
                    default:
                        BN_rand_range(v, m3);
                        break;
                    }
                    limbs_from_bn(x, n + 1, v);
                    memcpy(x0, x, sizeof(x));
                    report_begin("ctbn_avx2_mul_pow2_mod n=%zu s=%u", n, s);
                    report_operand("M", M, n);
                    report_operand("x", x0, n + 1);
                    ctbn_avx2_mul_pow2_mod(x, M, n, s);
                    BN_lshift(want, v, (int)s);
                    BN_mod(want, want, bm, bctx);
                    BN_free(got);
                    got = bn_from_limbs(x, n + 1);
                    if (BN_cmp(got, m3) >= 0)
                        fail_msg("mul_pow2_mod n=%zu s=%u: result not below 3M", n, s);
                    BN_mod(lim, got, bm, bctx);
                    if (BN_cmp(lim, want) != 0)
                        fail_msg("mul_pow2_mod n=%zu s=%u: result not x 2^s mod M", n, s);
                }
            }
            BN_free(bm);
            BN_free(m3);
            BN_free(v);
            BN_free(want);
            BN_free(got);
            BN_free(lim);
        }
    }
}

/* Sizes without a kernel: for each set of hooks, the public hook and its ungated form return
 * 0 without writing, and the seam still computes. */
static void test_public_other_sizes(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 512, 768, 1000 + 64, 2560, 3072 + 64, 4096 - 64 };
    const struct hooks *sets[3];
    size_t nsets = hook_sets(sets);
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        struct modulus md;
        modulus_random(&md, sizes[s]);
        assert_int_equal(ctbn_avx2_public_digits(md.n), 0);
        for (size_t h = 0; h < nsets; h++)
            check_public_refused(sets[h], &md);
        check_modexp(&avx2_hooks, &md, 17, BASE_RANDOM); /* the private seam too */
        modulus_free(&md);
    }
}

int main(void)
{
    if (ctbn_backend_select("avx2") != 0) {
        printf("SKIP: the avx2 backend is not usable here (CPU or OS lacks AVX2, BMI2 or "
               "ADX, or it is not built)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_amm),
        cmocka_unit_test(test_avx512_amm),
        cmocka_unit_test(test_friendly),
        cmocka_unit_test(test_sqr),
        cmocka_unit_test(test_modexp_edges),
        cmocka_unit_test(test_modexp_random),
        cmocka_unit_test(test_other_sizes),
        cmocka_unit_test(test_plan_refused),
        cmocka_unit_test(test_public),
        cmocka_unit_test(test_public_quotient_edges),
        cmocka_unit_test(test_mul_pow2_mod),
        cmocka_unit_test(test_public_other_sizes),
    };
    return cmocka_run_group_tests_name("avx2", tests, NULL, NULL);
}
