/*
 * Constant-time modular inverse for an odd modulus: the binary extended Euclidean algorithm
 * with every step done unconditionally under masks. Contract in bignum.h.
 *
 * Invariants: a = u*x (mod m) and b = v*x (mod m); b is odd; u, v < m. Each iteration, if a
 * is odd, (a, u) and (b, v) are swapped when a < b, then a -= b and u -= v (mod m); then a
 * is halved and u is halved mod m (u + m when u is odd; m is odd). The product a*b at least
 * halves every iteration, so after 2*64*n iterations a = 0 and b = gcd(x, m); then v is the
 * inverse when b = 1.
 *
 * Cost: 128*n iterations of about eight n-limb passes: about 1 ms for a 2048-bit modulus on
 * a 3 GHz core with the portable code. It is used for blinding refreshes (amortised over many
 * private operations) and key generation, never per operation.
 *
 * CT: loop counts depend on n only; swaps, subtractions and halvings are masked.
 */
#include "bignum.h"

/* x := x >> 1 over n limbs, with `top` shifted into the high bit. */
static void shift_right1(ctbn_limb *x, uint64_t top, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    x[n - 1] = (x[n - 1] >> 1) | (top << 63);
}

ctbn_mask ctbn_mod_inverse_ct(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *m, size_t n,
                              ctbn_limb *scratch)
{
    ctbn_limb *a = scratch, *b = scratch + n, *u = scratch + 2 * n, *v = scratch + 3 * n;
    ctbn_copy(a, x, n);
    ctbn_copy(b, m, n);
    ctbn_set_u64(u, n, 1);
    ctbn_zero(v, n);

    for (size_t it = 0; it < 2 * 64 * n; it++) {
        ctbn_mask odd = (ctbn_mask)0 - (a[0] & 1);
        ctbn_mask swap = odd & ctbn_lt(a, b, n);
        ctbn_cswap(swap, a, b, n);
        ctbn_cswap(swap, u, v, n);

        /* a -= b and u -= v (mod m), when a is odd. a >= b here, so a does not borrow. */
        uint64_t borrow = 0, borrow_u = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 d = (unsigned __int128)a[i] - (b[i] & odd) - borrow;
            a[i] = (uint64_t)d;
            borrow = (uint64_t)(d >> 64) & 1;
            unsigned __int128 du = (unsigned __int128)u[i] - (v[i] & odd) - borrow_u;
            u[i] = (uint64_t)du;
            borrow_u = (uint64_t)(du >> 64) & 1;
        }
        ctbn_cadd((ctbn_mask)0 - borrow_u, u, m, n);

        /* a /= 2; u /= 2 (mod m). */
        shift_right1(a, 0, n);
        ctbn_limb carry = ctbn_cadd((ctbn_mask)0 - (u[0] & 1), u, m, n);
        shift_right1(u, carry, n);
    }

    uint64_t one[CTBN_MAX_LIMBS];
    ctbn_set_u64(one, n, 1);
    ctbn_mask ok = ctbn_eq(b, one, n);
    for (size_t i = 0; i < n; i++)
        r[i] = v[i] & ok;
    return ok;
}
