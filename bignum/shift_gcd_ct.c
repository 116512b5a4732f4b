/*
 * Secret shifts, trailing-zero count, binary gcd and exact division, all constant-time.
 * Contracts in prime.h. Key generation needs them for lambda(n) = lcm(p - 1, q - 1), whose
 * operands are secret and even (ctbn_mod_inverse_ct needs an odd modulus).
 */
#include "prime.h"

ctbn_limb ctbn_ctz_ct(const ctbn_limb *x, size_t n)
{
    /* CT: every bit is visited; "seen a one yet" is a mask, the count adds 1 & ~seen. */
    ctbn_limb count = 0;
    ctbn_mask seen = 0;
    for (size_t i = 0; i < n; i++) {
        for (unsigned b = 0; b < 64; b++) {
            seen |= (ctbn_mask)0 - ((x[i] >> b) & 1);
            count += 1 & ~seen;
        }
    }
    return count;
}

/* Public shift by sh bits to the right (in place), selected by mask. */
static void rshift_stage(ctbn_limb *r, size_t n, size_t sh, ctbn_mask mask)
{
    size_t ls = sh / 64, bs = sh % 64;  /* public */
    for (size_t i = 0; i < n; i++) {
        ctbn_limb lo = i + ls < n ? r[i + ls] : 0;
        ctbn_limb hi = i + ls + 1 < n ? r[i + ls + 1] : 0;
        ctbn_limb v = bs == 0 ? lo : (lo >> bs) | (hi << (64 - bs));
        r[i] = ctbn_select(mask, v, r[i]);
    }
}

/* Public shift by sh bits to the left (in place), selected by mask. */
static void lshift_stage(ctbn_limb *r, size_t n, size_t sh, ctbn_mask mask)
{
    size_t ls = sh / 64, bs = sh % 64;  /* public */
    for (size_t i = n; i-- > 0;) {
        ctbn_limb hi = i >= ls ? r[i - ls] : 0;
        ctbn_limb lo = i >= ls + 1 ? r[i - ls - 1] : 0;
        ctbn_limb v = bs == 0 ? hi : (hi << bs) | (lo >> (64 - bs));
        r[i] = ctbn_select(mask, v, r[i]);
    }
}

void ctbn_rshift_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb s)
{
    /* CT: one stage per bit of the largest shift, each stage always computed and selected
     * by the mask of that bit of s. */
    ctbn_copy(r, x, n);
    for (size_t k = 0; ((size_t)1 << k) < 64 * n; k++)
        rshift_stage(r, n, (size_t)1 << k, (ctbn_mask)0 - ((s >> k) & 1));
}

void ctbn_lshift_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb s)
{
    /* CT: as ctbn_rshift_ct. */
    ctbn_copy(r, x, n);
    for (size_t k = 0; ((size_t)1 << k) < 64 * n; k++)
        lshift_stage(r, n, (size_t)1 << k, (ctbn_mask)0 - ((s >> k) & 1));
}

void ctbn_gcd_ct(ctbn_limb *g, const ctbn_limb *a, const ctbn_limb *b, size_t n,
                 ctbn_limb *scratch)
{
    /*
     * CT: the common power of two 2^k (k = trailing zeros of a | b) leaves through a secret
     * shift. Then u is made odd by a masked swap, and each of the 2*64*n iterations does,
     * under masks: if v is odd, swap so that v >= u, then v -= u; then v /= 2. u stays odd,
     * gcd(u, v) is unchanged, and bitlen(u) + bitlen(v) drops by at least one per iteration
     * while v != 0, so v ends at 0 and u at the odd part of the gcd.
     */
    ctbn_limb *u = scratch, *v = scratch + n;
    for (size_t i = 0; i < n; i++)
        u[i] = a[i] | b[i];
    ctbn_limb k = ctbn_ctz_ct(u, n);
    ctbn_rshift_ct(u, a, n, k);
    ctbn_rshift_ct(v, b, n, k);
    ctbn_cswap(~((ctbn_mask)0 - (u[0] & 1)), u, v, n);

    for (size_t it = 0; it < 2 * 64 * n; it++) {
        ctbn_mask vodd = (ctbn_mask)0 - (v[0] & 1);
        ctbn_cswap(vodd & ctbn_lt(v, u, n), u, v, n);
        uint64_t borrow = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 d = (unsigned __int128)v[i] - (u[i] & vodd) - borrow;
            v[i] = (uint64_t)d;
            borrow = (uint64_t)(d >> 64) & 1;
        }
        for (size_t i = 0; i + 1 < n; i++)
            v[i] = (v[i] >> 1) | (v[i + 1] << 63);
        v[n - 1] >>= 1;
    }
    ctbn_lshift_ct(g, u, n, k);
}

void ctbn_inv_pow2_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb *scratch)
{
    /*
     * CT: Newton's iteration r := r * (2 - x*r) mod 2^(64n), which doubles the number of
     * correct low bits. One word first (5 bits from (3x) ^ 2, then 10, 20, 40, 80), then
     * full-width steps: 64 -> 128 -> ... bits, a count that depends on n only. Each step
     * is two schoolbook products (ctbn_mul: loop bounds on n only) truncated to n limbs.
     */
    ctbn_limb *prod = scratch, *t = scratch + 2 * n;
    uint64_t w = (x[0] * 3) ^ 2;
    for (int i = 0; i < 4; i++)
        w *= 2 - x[0] * w;
    ctbn_set_u64(r, n, w);
    for (size_t good = 64; good < 64 * n; good *= 2) {
        ctbn_mul(prod, x, n, r, n);
        /* t := 2 - x*r mod 2^(64n) */
        uint64_t borrow = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 d = (unsigned __int128)(i == 0 ? 2 : 0) - prod[i] - borrow;
            t[i] = (uint64_t)d;
            borrow = (uint64_t)(d >> 64) & 1;
        }
        ctbn_mul(prod, r, n, t, n);
        ctbn_copy(r, prod, n);
    }
}

void ctbn_divexact_ct(ctbn_limb *q, const ctbn_limb *x, const ctbn_limb *y, size_t n,
                      ctbn_limb *scratch)
{
    /* CT: y^-1 mod 2^(64n) by Newton, then one truncated product. */
    ctbn_limb *yinv = scratch, *prod = scratch + n, *ws = scratch + 3 * n;
    ctbn_inv_pow2_ct(yinv, y, n, ws);
    ctbn_mul(prod, x, n, yinv, n);
    ctbn_copy(q, prod, n);
}
