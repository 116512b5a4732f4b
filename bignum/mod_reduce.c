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
    ctbn_limb *one = scratch + n; /* 1, for chunk R / R: only without the top bit */
    /* m with its top bit set (every RSA prime and modulus of a whole number of limbs):
     * a chunk is below 2^(64 n) < 2m, so one conditional subtraction reduces it; otherwise
     * chunk R / R, two Montgomery multiplications. Public: the bit length of m. */
    const int top_bit_set = ctx->bits == 64 * n;
    if (!top_bit_set)
        ctbn_set_u64(one, n, 1);
    ctbn_zero(r, n);

    size_t chunks = (xn + n - 1) / n;
    for (size_t k = chunks; k-- > 0;) {
        /* chunk := x[k*n .. k*n+n) mod m */
        for (size_t j = 0; j < n; j++) {
            size_t idx = k * n + j;
            chunk[j] = idx < xn ? x[idx] : 0; /* public index */
        }
        if (top_bit_set) {
            ctbn_csub_mod(chunk, 0, ctx->m, n);
        } else {
            ctbn_mont_mul(ctx, chunk, chunk, ctx->rr);
            ctbn_mont_mul(ctx, chunk, chunk, one);
        }
        if (k + 1 == chunks) { /* the top chunk: r = 0 so far (public: the loop counter) */
            ctbn_copy(r, chunk, n);
            continue;
        }
        /* r := r * R mod m (r < m, and MontMul(r, R^2) = r * R), plus the chunk */
        ctbn_mont_mul(ctx, r, r, ctx->rr);
        ctbn_mod_add(r, r, chunk, ctx->m, n);
    }
}
