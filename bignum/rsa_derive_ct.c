/*
 * The RSA private numbers from the primes, constant-time: e^-1 modulo secret even numbers,
 * lambda(n) = lcm(p_i - 1), the CRT exponents and coefficients; and the CRT numbers of an
 * imported key (two primes, or two to five) from d. Contracts in prime.h.
 *
 * No step branches on or indexes memory by a secret; loop counts depend on limb counts
 * (public) only. The only results a caller branches on are the ok masks, which are all
 * ones for any valid set of primes.
 */
#include "prime.h"

ctbn_mask ctbn_inv_public_ct(ctbn_limb *r, const ctbn_limb *e, size_t en, const ctbn_limb *m,
                             size_t mn, ctbn_limb *scratch)
{
    /*
     * CT: m mod e by ctbn_mod_any_ct (bit-serial, 64*mn steps), the inverse mod the odd e
     * by ctbn_mod_inverse_ct (fixed iteration count), then a schoolbook product, +1, and
     * the exact division by e as a product with e^-1 mod 2^(64 mn) (Newton, fixed steps).
     * Nothing depends on m's value; e is public but is not branched on either.
     */
    ctbn_limb *u = scratch, *v = u + en, *w = v + en;
    ctbn_limb *inv_ws = scratch + 4 * en;
    ctbn_limb *x = inv_ws + CTBN_INVERSE_SCRATCH(en);      /* mn + en */
    ctbn_limb *epad = x + mn + en;                          /* mn */
    ctbn_limb *einv = epad + mn;                            /* mn */
    ctbn_limb *prod = einv + mn;                            /* 2 mn */
    ctbn_limb *ws = prod + 2 * mn;                          /* CTBN_INV_POW2_SCRATCH(mn) */

    ctbn_mod_any_ct(u, m, mn, e, en);
    ctbn_mask ok = ctbn_mod_inverse_ct(v, u, e, en, inv_ws);
    ctbn_sub(w, e, v, en);                                  /* e - v, in [1, e - 1] */
    ctbn_mul(x, m, mn, w, en);                              /* m * (e - v) */
    ctbn_limb carry = 1;                                    /* + 1 */
    for (size_t i = 0; i < mn + en; i++) {
        x[i] += carry;
        carry = ctbn_mask_lt(x[i], carry) & 1;
    }
    ctbn_zero(epad, mn);
    ctbn_copy(epad, e, en);
    ctbn_inv_pow2_ct(einv, epad, mn, ws);
    ctbn_mul(prod, x, mn, einv, mn);                        /* exact: (1 + m(e - v)) / e */
    ctbn_copy(r, prod, mn);
    return ok;
}

void ctbn_lcm_ct(ctbn_limb *l, const ctbn_limb *a, const ctbn_limb *b, size_t n,
                 ctbn_limb *scratch)
{
    /*
     * CT: the product (schoolbook), the gcd (fixed-count binary gcd), its power of two
     * 2^k taken off both the gcd and the product by secret shifts, then an exact division
     * by the odd part of the gcd (a product with its inverse mod 2^(64n)).
     */
    ctbn_limb *prod = scratch, *g = prod + 2 * n, *godd = g + n, *lo = godd + n;
    ctbn_limb *ws = scratch + 6 * n;

    ctbn_mul(prod, a, n, b, n);                 /* a*b < 2^(64n) by the contract */
    ctbn_gcd_ct(g, a, b, n, ws);
    ctbn_limb k = ctbn_ctz_ct(g, n);
    ctbn_rshift_ct(godd, g, n, k);
    ctbn_rshift_ct(lo, prod, n, k);
    ctbn_divexact_ct(l, lo, godd, n, ws);
}

ctbn_mask ctbn_diff_exceeds_ct(const ctbn_limb *a, const ctbn_limb *b, size_t n, size_t t)
{
    /* CT: both differences computed, one selected by the borrow mask; t is public. */
    ctbn_limb d1[CTBN_MAX_LIMBS], d2[CTBN_MAX_LIMBS], pow[CTBN_MAX_LIMBS];
    ctbn_mask neg = (ctbn_mask)0 - ctbn_sub(d1, a, b, n);
    ctbn_sub(d2, b, a, n);
    ctbn_cmov(neg, d1, d2, n);
    ctbn_zero(pow, n);
    pow[t / 64] = (ctbn_limb)1 << (t % 64);
    ctbn_mask r = ctbn_lt(pow, d1, n);
    ctbn_zero(d1, n);
    ctbn_zero(d2, n);
    return r;
}

/* x (xn limbs) := p - 1 (pn limbs, p odd) padded with zeros. */
static void minus_one_padded(ctbn_limb *x, size_t xn, const ctbn_limb *p, size_t pn)
{
    ctbn_zero(x, xn);
    ctbn_copy(x, p, pn);
    x[0] &= ~(ctbn_limb)1;
}

ctbn_mask ctbn_rsa_derive_ct(const ctbn_limb *const primes[], const size_t plimbs[], size_t k,
                             const ctbn_limb *e, size_t en, size_t nl, ctbn_limb *d,
                             ctbn_limb *const exps[], ctbn_limb *const coeffs[],
                             ctbn_limb *scratch)
{
    /*
     * CT: lambda by successive ctbn_lcm_ct, each inverse by ctbn_inv_public_ct or
     * ctbn_mod_inverse_ct, each reduction by ctbn_mod_any_ct; the ok masks are combined,
     * never branched on.
     */
    ctbn_limb *lam = scratch, *pm1 = lam + nl, *tmp = pm1 + nl;
    ctbn_limb *prod = tmp + nl, *prod2 = prod + 2 * nl;   /* 2 nl + 2 nl: product of primes */
    ctbn_limb *ws = scratch + 8 * nl;
    ctbn_mask ok = ~(ctbn_mask)0;

    /* lambda(n) = lcm(p_1 - 1, ..., p_k - 1), at nl limbs (every partial product < n). */
    minus_one_padded(lam, nl, primes[0], plimbs[0]);
    for (size_t i = 1; i < k; i++) {
        minus_one_padded(pm1, nl, primes[i], plimbs[i]);
        ctbn_lcm_ct(tmp, lam, pm1, nl, ws);
        ctbn_copy(lam, tmp, nl);
    }
    ok &= ctbn_inv_public_ct(d, e, en, lam, nl, ws);

    /* d_i = e^-1 mod (p_i - 1): the same route, directly (cheaper than d mod (p_i - 1)). */
    for (size_t i = 0; i < k; i++) {
        minus_one_padded(pm1, plimbs[i], primes[i], plimbs[i]);
        ok &= ctbn_inv_public_ct(exps[i], e, en, pm1, plimbs[i], ws);
    }

    /* qInv = p_2^-1 mod p_1; t_i = (p_1 ... p_(i-1))^-1 mod p_i for i >= 3 (RFC 8017). */
    size_t prod_limbs = plimbs[0];
    ctbn_copy(prod, primes[0], plimbs[0]);
    for (size_t i = 1; i < k; i++) {
        size_t c = i == 1 ? 0 : i;
        if (i == 1)
            ctbn_mod_any_ct(tmp, primes[1], plimbs[1], primes[0], plimbs[0]);
        else
            ctbn_mod_any_ct(tmp, prod, prod_limbs, primes[c], plimbs[c]);
        ok &= ctbn_mod_inverse_ct(coeffs[i - 1], tmp, primes[c], plimbs[c], ws);
        ctbn_mul(prod2, prod, prod_limbs, primes[i], plimbs[i]);
        prod_limbs += plimbs[i];
        ctbn_copy(prod, prod2, prod_limbs);
    }
    ctbn_zero(scratch, 8 * nl);
    return ok;
}

ctbn_mask ctbn_rsa_crt_from_d_ct(const ctbn_limb *p, size_t pn, const ctbn_limb *q, size_t qn,
                                 const ctbn_limb *d, size_t dn, ctbn_limb *dp, ctbn_limb *dq,
                                 ctbn_limb *qinv, ctbn_limb *scratch)
{
    /*
     * CT: p - 1 and q - 1 by clearing the low bit (odd primes: no borrow), each reduction by
     * ctbn_mod_any_ct (64 dn steps whatever the values), q mod p likewise, the inverse by
     * ctbn_mod_inverse_ct (fixed count). The mask is returned, never branched on.
     */
    ctbn_limb *pm1 = scratch, *qm1 = pm1 + pn, *qmodp = qm1 + qn;   /* pn, qn, pn */
    ctbn_limb *ws = qmodp + pn;                                      /* CTBN_INVERSE_SCRATCH(pn) */

    minus_one_padded(pm1, pn, p, pn);
    minus_one_padded(qm1, qn, q, qn);
    ctbn_mod_any_ct(dp, d, dn, pm1, pn);
    ctbn_mod_any_ct(dq, d, dn, qm1, qn);
    ctbn_mod_any_ct(qmodp, q, qn, p, pn);
    ctbn_mask ok = ctbn_mod_inverse_ct(qinv, qmodp, p, pn, ws);
    ctbn_zero(scratch, CTBN_RSA_CRT_FROM_D_SCRATCH(pn, qn));
    return ok;
}

ctbn_mask ctbn_rsa_crt_from_d_multi_ct(const ctbn_limb *const primes[], const size_t plimbs[],
                                       size_t k, const ctbn_limb *d, size_t dn,
                                       ctbn_limb *const exps[], ctbn_limb *const coeffs[],
                                       ctbn_limb *scratch)
{
    /*
     * CT: each p_i - 1 by clearing the low bit (odd primes: no borrow), each reduction by
     * ctbn_mod_any_ct, each inverse by ctbn_mod_inverse_ct (fixed count), the running
     * product by schoolbook multiplication; the ok masks are combined, never branched on.
     */
    size_t sum = 0;
    for (size_t i = 0; i < k; i++)
        sum += plimbs[i];
    ctbn_limb *pm1 = scratch, *tmp = pm1 + sum, *prod = tmp + sum, *prod2 = prod + sum;
    ctbn_limb *ws = prod2 + sum;                                  /* 4 sum >= any inverse's */
    ctbn_mask ok = ~(ctbn_mask)0;

    for (size_t i = 0; i < k; i++) {
        minus_one_padded(pm1, plimbs[i], primes[i], plimbs[i]);
        ctbn_mod_any_ct(exps[i], d, dn, pm1, plimbs[i]);
    }

    /* qInv = p_2^-1 mod p_1; t_i = (p_1 ... p_(i-1))^-1 mod p_i for i >= 3; prod holds
     * p_1 ... p_i (prod_limbs <= sum) */
    size_t prod_limbs = plimbs[0];
    ctbn_copy(prod, primes[0], plimbs[0]);
    for (size_t i = 1; i < k; i++) {
        size_t c = i == 1 ? 0 : i;
        if (i == 1)
            ctbn_mod_any_ct(tmp, primes[1], plimbs[1], primes[0], plimbs[0]);
        else
            ctbn_mod_any_ct(tmp, prod, prod_limbs, primes[c], plimbs[c]);
        ok &= ctbn_mod_inverse_ct(coeffs[i - 1], tmp, primes[c], plimbs[c], ws);
        ctbn_mul(prod2, prod, prod_limbs, primes[i], plimbs[i]);
        prod_limbs += plimbs[i];
        ctbn_copy(prod, prod2, prod_limbs);
    }
    ctbn_zero(scratch, CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum));
    return ok;
}
