/*
 * The fast verify path: left-to-right square-and-multiply over the bits of a PUBLIC
 * exponent, leading zeros skipped. Contract in bignum.h.
 *
 * CT: branches on the bits of e (public). The base b may be secret (a blinding value): it
 * only enters Montgomery multiplications, which are constant-time.
 */
#include "bignum.h"

void ctbn_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    size_t n = ctx->n;
    ctbn_limb *base = scratch;     /* b in Montgomery form */
    ctbn_limb *acc = scratch + n;
    size_t ebits = ctbn_bitlen_vartime(e, en);

    if (ebits == 0) {
        ctbn_from_mont(ctx, r, ctx->one); /* 1 mod m */
        return;
    }
    ctbn_to_mont(ctx, base, b);
    ctbn_copy(acc, base, n);
    for (size_t i = ebits - 1; i-- > 0;) {
        ctbn_mont_sqr(ctx, acc, acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            ctbn_mont_mul(ctx, acc, acc, base);
    }
    ctbn_from_mont(ctx, r, acc);
}
