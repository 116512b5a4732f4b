/*
 * Radix 2^64 <-> 2^W conversion and the radix 2^W modulus set-up for the AVX2 backend.
 * Contracts in avx2.h. Plain scalar C: these run a few times per exponentiation.
 *
 * CT: every loop runs a count fixed by n and the digit count; bit positions (limb index and
 * shift) are functions of the loop counter only, never of the values.
 */
#include "avx2.h"

size_t ctbn_avx2_digits(size_t n)
{
    switch (n) {
    case 16:
        return 36;
    case 24:
        return 56;
    case 32:
        return 72;
    default:
        return 0;
    }
}

unsigned ctbn_avx2_digit_bits(size_t n)
{
    switch (n) {
    case 16:
    case 32:
        return 29;
    case 24:
        return 28;
    default:
        return 0;
    }
}

size_t ctbn_avx2_public_digits(size_t n)
{
    switch (n) {
    case 48:
        return 108; /* 29 * 108 = 3132 >= 64 * 48 + 2 */
    case 64:
        return 144; /* 29 * 144 = 4176 >= 64 * 64 + 2 */
    default:
        return ctbn_avx2_digits(n);
    }
}

unsigned ctbn_avx2_public_digit_bits(size_t n)
{
    switch (n) {
    case 48:
    case 64:
        return 29;
    default:
        return ctbn_avx2_digit_bits(n);
    }
}

/*
 * Both conversions visit digit j at bit w j of the radix 2^64 value: limb w j / 64, shift
 * w j % 64, and the next limb when the digit straddles two. While that next limb is inside
 * x, from_radix64 takes the straddling part without a test: (v << 1) << (63 - sh) is
 * v << (64 - sh) for sh >= 1 and 0 for sh = 0 (likewise the right shifts), so no shift
 * reaches 64; the last few digits take the bounds-checked path.
 */

/* Limb i of x, or 0 past its n limbs (i is public). */
static uint64_t limb_or_zero(const ctbn_limb *x, size_t n, size_t i)
{
    return i < n ? x[i] : 0;
}

/* The digits j < this have limb w j / 64 + 1 < n: no bounds check. Public. */
static size_t inner_digits(unsigned w, size_t digits, size_t n)
{
    size_t j = n >= 2 ? (64 * (n - 1) + w - 1) / w : 0; /* first j with w j >= 64 (n - 1) */
    return j < digits ? j : digits;
}

void ctbn_avx2_from_radix64(uint64_t *d, unsigned w, size_t digits, const ctbn_limb *x,
                            size_t n)
{
    const uint64_t mask = ((uint64_t)1 << w) - 1;
    for (size_t j = 0; j < CTBN_AVX2_PAD; j++)
        d[j] = d[CTBN_AVX2_PAD + digits + j] = 0;
    uint64_t *dd = d + CTBN_AVX2_PAD;
    size_t inner = inner_digits(w, digits, n), j = 0;
    for (; j < inner; j++) {
        size_t bit = w * j, limb = bit / 64, sh = bit % 64;
        dd[j] = ((x[limb] >> sh) | ((x[limb + 1] << 1) << (63 - sh))) & mask;
    }
    for (; j < digits; j++) {
        size_t bit = w * j, limb = bit / 64, sh = bit % 64;
        uint64_t v = limb_or_zero(x, n, limb) >> sh;
        /* the digit straddles two limbs when sh > 64 - w */
        if (sh > 64 - w)
            v |= limb_or_zero(x, n, limb + 1) << (64 - sh);
        dd[j] = v & mask;
    }
}

void ctbn_avx2_to_radix64(ctbn_limb *x, size_t n, const uint64_t *d, unsigned w,
                          size_t digits)
{
    /* each limb is gathered in a register and stored once, when its last digit is in */
    const uint64_t mask = ((uint64_t)1 << w) - 1;
    const uint64_t *dd = d + CTBN_AVX2_PAD;
    uint64_t carry = 0, cur = 0;
    size_t limb = 0; /* the limb digit j starts in: w j / 64 */
    for (size_t j = 0; j < digits; j++) {
        uint64_t v = dd[j] + carry; /* < 2^32 + 2^36 */
        carry = v >> w;
        v &= mask;
        size_t sh = (w * j) % 64;
        cur |= v << sh;
        if (sh + w >= 64) { /* limb complete (public: j and w) */
            if (limb < n)
                x[limb] = cur;
            limb++;
            cur = (v >> 1) >> (63 - sh); /* the bits of v above it */
        }
    }
    for (; limb < n; limb++) {
        x[limb] = cur;
        cur = 0;
    }
}

void ctbn_avx2_mod_init(ctbn_avx2_mod *mod, const ctbn_mont *ctx, ctbn_limb *scratch)
{
    ctbn_avx2_mod_init_dw(mod, ctx, ctbn_avx2_public_digits(ctx->n),
                          ctbn_avx2_public_digit_bits(ctx->n), scratch);
}

void ctbn_avx2_mod_init_dw(ctbn_avx2_mod *mod, const ctbn_mont *ctx, size_t digits,
                           unsigned w, ctbn_limb *scratch)
{
    size_t n = ctx->n;
    mod->digits = digits;
    mod->bits = w;
    mod->k2 = ctx->m0inv & (((uint64_t)1 << (2 * w)) - 1); /* -m^-1 mod 2^64, mod 2^(2w) */
    ctbn_avx2_from_radix64(mod->m, w, digits, ctx->m, n);

    /* R'^2 = 2^(2 w D) = 2^(128 n) * 2^(2 w D - 128 n) mod m: doublings of rr (< m). */
    ctbn_copy(scratch, ctx->rr, n);
    for (size_t k = 0; k < 2 * w * digits - 128 * n; k++) {
        ctbn_limb carry = ctbn_add(scratch, scratch, scratch, n);
        ctbn_csub_mod(scratch, carry, ctx->m, n);
    }
    ctbn_avx2_from_radix64(mod->rr, w, digits, scratch, n);
}
