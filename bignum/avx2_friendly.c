/*
 * Montgomery-friendly moduli for the AVX2 private modexp: set-up of m~ = k0 m with
 * R'^2 mod m~, and the reduction that brings a result modulo m~ back modulo m. Contracts and
 * the reason in avx2.h ("Montgomery-friendly moduli").
 *
 * CT: every loop runs a count fixed by n, ctx->bits (public: the modulus' announced length),
 * W and D; the values (m, k0, m~, the powers of two modulo m~) only enter additions,
 * multiplications and masked subtractions.
 */
#include "avx2.h"

int ctbn_avx2_friendly(size_t n)
{
    return n == 24 || n == 32;
}

/* x (nn limbs) := 2^(bits - 1) with bits <= 64 nn. CT: bits and nn are public. */
static void set_pow2(ctbn_limb *x, size_t nn, size_t bits)
{
    ctbn_zero(x, nn);
    x[(bits - 1) / 64] = (ctbn_limb)1 << ((bits - 1) % 64);
}

void ctbn_avx2_mod_init_friendly(ctbn_avx2_mod *mod, const ctbn_mont *ctx,
                                 ctbn_limb *scratch)
{
    size_t digits = ctbn_avx2_digits(ctx->n);
    ctbn_avx2_mod_init_friendly_with(mod, ctx, digits, ctbn_avx2_digit_bits(ctx->n),
                                     ctbn_avx2_ammf_x1_for(digits), scratch);
}

void ctbn_avx2_mod_init_friendly_with(ctbn_avx2_mod *mod, const ctbn_mont *ctx,
                                      size_t digits, unsigned w,
                                      ctbn_avx2_amm_x1_fn *amm, ctbn_limb *scratch)
{
    size_t n = ctx->n, nn = n + 1;
    ctbn_limb *mt = scratch, *x = scratch + nn;

    /* m~ = k0 m, k0 = -m^-1 mod 2^W: m~ = -m m^-1 = -1 mod 2^W, and m~ < 2^(64 n + W) */
    uint64_t k0 = ctx->m0inv & (((uint64_t)1 << w) - 1);
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 p = (unsigned __int128)ctx->m[i] * k0 + carry;
        mt[i] = (uint64_t)p;
        carry = (uint64_t)(p >> 64);
    }
    mt[n] = carry;
    mod->digits = digits;
    mod->bits = w;
    /* -m~^-1 mod 2^(2W), for the generic kernels (the friendly ones do not read it): Newton
     * from m~^-1 = -1 mod 2^W, one step doubles the bits */
    uint64_t mlow = mt[0], inv = (uint64_t)0 - 1;
    inv *= 2 - mlow * inv;
    mod->k2 = ((uint64_t)0 - inv) & (((uint64_t)1 << (2 * w)) - 1);
    ctbn_avx2_from_radix64(mod->m, w, digits, mt, nn);

    /*
     * R'^2 mod m~ with R' = 2^(W D) = 2^(s 2^k), s odd: X = 2^s R' mod m~ by doublings of
     * 2^(bits - 1) (< m <= m~), then k AMM squarings: AMM(2^a R', 2^a R') = 2^(2a) R', so
     * after them X = 2^(W D) R' = R'^2 (almost reduced, as the AMM leaves it).
     * D = 72: 2088 = 261 * 2^3, 302 doublings at 2048 bits; D = 56: 1568 = 49 * 2^5.
     */
    size_t wd = (size_t)w * digits, s = wd, k = 0;
    while (s % 2 == 0) {
        s /= 2;
        k++;
    }
    set_pow2(x, nn, ctx->bits);
    for (size_t i = 0; i < wd + s - (ctx->bits - 1); i++) {
        ctbn_limb c = ctbn_add(x, x, x, nn);
        ctbn_csub_mod(x, c, mt, nn);
    }
    ctbn_avx2_from_radix64(mod->rr, w, digits, x, nn);
    for (size_t i = 0; i < k; i++)
        amm(mod->rr, mod->rr, mod->rr, mod);
}

void ctbn_avx2_friendly_reduce(ctbn_limb *r, const ctbn_mont *ctx, const uint64_t *d,
                               unsigned w, size_t digits, ctbn_limb *scratch)
{
    size_t nn = ctx->n + 1;
    ctbn_avx2_to_radix64(scratch, nn, d, w, digits);
    ctbn_mod_reduce(ctx, r, scratch, nn, scratch + nn);
}
