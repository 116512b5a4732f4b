/*
 * x mod m for a value of any limb count (the CRT input c mod p), by Horner's rule over
 * chunks of n limbs in Montgomery arithmetic: no division, no value-dependent step.
 * Contract in bignum.h.
 */
#include "bignum.h"

void ctbn_mod_reduce(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *x, size_t xn,
                     ctbn_limb *scratch)
{
    size_t n = ctx->n;
    ctbn_limb *chunk = scratch;
    ctbn_limb *one = scratch + n;
    ctbn_set_u64(one, n, 1);
    ctbn_zero(r, n);

    size_t chunks = (xn + n - 1) / n;
    for (size_t k = chunks; k-- > 0;) {
        /* r := r * R mod m (r < m, and MontMul(r, R^2) = r * R). */
        ctbn_mont_mul(ctx, r, r, ctx->rr);
        /* chunk := x[k*n .. k*n+n) mod m, via MontMul(chunk, R^2) = chunk*R, then /R. */
        for (size_t j = 0; j < n; j++) {
            size_t idx = k * n + j;
            chunk[j] = idx < xn ? x[idx] : 0; /* public index */
        }
        ctbn_mont_mul(ctx, chunk, chunk, ctx->rr);
        ctbn_mont_mul(ctx, chunk, chunk, one);
        ctbn_mod_add(r, r, chunk, ctx->m, n);
    }
}
