/*
 * Miller-Rabin rounds (FIPS 186-5 B.3.1 steps 1-4.7) on the Montgomery arithmetic, constant
 * time for the candidate. Contract in prime.h.
 *
 * A round: z := b^m (w - 1 = 2^a * m, m odd); w passes if z = 1, or z^(2^j) = -1 for some
 * 0 <= j < a. Here the squarings run max_twos - 1 times whatever a is, and "j < a" is a
 * mask; z = 1 and z = -1 are compared in Montgomery form against R mod w and w - (R mod w).
 */
#include "prime.h"

void ctbn_mr_init(ctbn_mr *mr, const ctbn_mont *mont, size_t max_twos)
{
    /* CT: a by a masked trailing-zero count, m by a secret shift; only n, bits and the
     * public bound leak. */
    size_t n = mont->n;
    ctbn_limb *wm1 = mr->minus_one;     /* borrowed as a temporary */

    mr->mont = mont;
    mr->max_twos = max_twos < 1 ? 1 : max_twos;
    ctbn_copy(wm1, mont->m, n);
    wm1[0] &= ~(ctbn_limb)1;            /* w is odd: w - 1 clears bit 0 */
    mr->a = ctbn_ctz_ct(wm1, n);
    ctbn_rshift_ct(mr->m, wm1, n, mr->a);
    ctbn_mont_one(mont, mr->one);
    ctbn_sub(mr->minus_one, mont->m, mr->one, n);
}

/* The squaring tail of a round, from z = b^m in Montgomery form (z is overwritten). */
static ctbn_mask round_tail(const ctbn_mr *mr, ctbn_limb *z)
{
    /* CT: max_twos - 1 squarings; each comparison is a mask, "j < a" too. */
    const ctbn_mont *mont = mr->mont;
    size_t n = mont->n;
    ctbn_mask pass = ctbn_eq(z, mr->one, n) | ctbn_eq(z, mr->minus_one, n);

    for (size_t j = 1; j < mr->max_twos; j++) {
        ctbn_mont_sqr(mont, z, z);
        pass |= ctbn_eq(z, mr->minus_one, n) & ctbn_mask_lt(j, mr->a);
    }
    return pass;
}

ctbn_mask ctbn_mr_round_base2(const ctbn_mr *mr, ctbn_limb *scratch)
{
    /*
     * CT: 2^m left to right over all `bits` bit positions of m (leading zeros included):
     * square, then double modulo w and keep the doubled value under the mask of the bit.
     * Doubling in Montgomery form is the same modular addition as in normal form.
     */
    const ctbn_mont *mont = mr->mont;
    size_t n = mont->n, bits = mont->bits;
    ctbn_limb *z = scratch, *t = scratch + n;

    ctbn_copy(z, mr->one, n);
    for (size_t i = bits; i-- > 0;) {
        ctbn_mont_sqr(mont, z, z);
        ctbn_mod_add(t, z, z, mont->m, n);
        ctbn_cmov((ctbn_mask)0 - ((mr->m[i / 64] >> (i % 64)) & 1), z, t, n);
    }
    return round_tail(mr, z);
}

ctbn_mask ctbn_mr_round(const ctbn_mr *mr, const ctbn_limb *b, ctbn_limb *scratch)
{
    /* CT: ctbn_modexp_ct with the public exponent length bits (m < 2^bits), then the tail. */
    const ctbn_mont *mont = mr->mont;
    size_t n = mont->n;
    ctbn_limb *z = scratch, *ws = scratch + 4 * n;

    ctbn_modexp_ct(mont, z, b, mr->m, mont->bits, ws);
    ctbn_to_mont(mont, z, z);
    return round_tail(mr, z);
}
