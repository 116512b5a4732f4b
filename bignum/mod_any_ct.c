/*
 * x mod m for any nonzero modulus, even ones included, by bit-serial shift-and-subtract.
 * Contract in bignum.h.
 *
 * Invariant: r < m. Each step r := 2r + bit, which is < 2m, then one masked subtraction.
 * CT: 64*xn steps of mn-limb passes; x's bits enter only as data.
 */
#include "bignum.h"

void ctbn_mod_any_ct(ctbn_limb *r, const ctbn_limb *x, size_t xn, const ctbn_limb *m,
                     size_t mn)
{
    ctbn_zero(r, mn);
    for (size_t i = 64 * xn; i-- > 0;) {
        uint64_t bit = (x[i / 64] >> (i % 64)) & 1;
        uint64_t carry = r[mn - 1] >> 63;
        for (size_t j = mn; j-- > 1;)
            r[j] = (r[j] << 1) | (r[j - 1] >> 63);
        r[0] = (r[0] << 1) | bit;
        ctbn_csub_mod(r, carry, m, mn);
    }
}
