/*
 * Radix 2^64 <-> 2^52 conversion and the radix 2^52 modulus set-up for the IFMA backend.
 * Contracts in ifma.h. Plain scalar C: these run a few times per exponentiation.
 *
 * CT: every loop runs a count fixed by n and the digit count; bit positions (limb index and
 * shift) are functions of the loop counter only, never of the values.
 */
#include "ifma.h"

size_t ctbn_ifma_digits(size_t n)
{
    switch (n) {
    case 8:
        return 10;
    case 16:
        return 20;
    case 24:
        return 30;
    case 32:
        return 40;
    default:
        return 0;
    }
}

size_t ctbn_ifma_public_digits(size_t n)
{
    switch (n) {
    case 48:
        return 60;
    case 64:
        return 80;
    default:
        return ctbn_ifma_digits(n);
    }
}

/* Limb i of x, or 0 past its n limbs (i is public). */
static uint64_t limb_or_zero(const ctbn_limb *x, size_t n, size_t i)
{
    return i < n ? x[i] : 0;
}

void ctbn_ifma_from_radix64(uint64_t *d, size_t digits, const ctbn_limb *x, size_t n)
{
    size_t lanes = CTBN_IFMA_LANES(digits);
    for (size_t j = 0; j < lanes; j++) {
        size_t bit = 52 * j, limb = bit / 64, sh = bit % 64;
        uint64_t v = limb_or_zero(x, n, limb) >> sh;
        /* the digit straddles two limbs when sh > 12; sh == 0 needs no second limb */
        if (sh > 12)
            v |= limb_or_zero(x, n, limb + 1) << (64 - sh);
        d[j] = j < digits ? (v & CTBN_IFMA_MASK52) : 0;
    }
}

void ctbn_ifma_to_radix64(ctbn_limb *x, size_t n, const uint64_t *d, size_t digits)
{
    for (size_t i = 0; i < n; i++) {
        size_t bit = 64 * i, j = bit / 52, sh = bit % 52;
        /* limb i takes bits [64i, 64i+64): from digit j (upper 52 - sh bits), j+1, j+2 */
        uint64_t v = j < digits ? d[j] >> sh : 0;
        if (j + 1 < digits)
            v |= d[j + 1] << (52 - sh);
        if (j + 2 < digits && 104 - sh < 64)
            v |= d[j + 2] << (104 - sh);
        x[i] = v;
    }
}

void ctbn_ifma_mod_init(ctbn_ifma_mod *mod, const ctbn_mont *ctx, ctbn_limb *scratch)
{
    size_t n = ctx->n, digits = ctbn_ifma_digits(n);
    mod->digits = digits;
    mod->k0 = ctx->m0inv & CTBN_IFMA_MASK52; /* -m^-1 mod 2^64, reduced mod 2^52 */
    ctbn_ifma_from_radix64(mod->m, digits, ctx->m, n);

    /* R'^2 = 2^(104 D) = 2^(128 n) * 2^(2 n) mod m: 2n doublings of rr (< m) modulo m. */
    ctbn_copy(scratch, ctx->rr, n);
    for (size_t k = 0; k < 2 * n; k++) {
        ctbn_limb carry = ctbn_add(scratch, scratch, scratch, n);
        ctbn_csub_mod(scratch, carry, ctx->m, n);
    }
    ctbn_ifma_from_radix64(mod->rr, digits, scratch, n);
}
