/*
 * The fast verify path: left-to-right square-and-multiply over the bits of a PUBLIC
 * exponent, leading zeros skipped. Contract in bignum.h (ctbn_modexp_public_vartime) and
 * backend.h (the modexp_public_vartime hook, ctbn_modexp_public_vartime_generic).
 *
 * The call is offered first to the active backend's modexp_public_vartime hook; when the
 * backend has none or declines, the generic code below runs on that backend's kernels.
 *
 * One conversion instead of two. acc holds b^k R mod m (Montgomery form) after
 * base = MontMul(b, R^2 mod m) = b R. Squaring keeps the form (MontSqr(b^k R) = b^2k R) and
 * so does multiplying by base. But the multiplication for the LAST bit of e, when that bit is
 * set (always, for odd RSA exponents), takes b itself in normal form:
 *     MontMul(b^k R, b) = b^k R * b * R^-1 = b^(k+1) mod m,
 * fully reduced by the kernel's contract (b < m, acc < m < R): the result leaves Montgomery
 * form in the same multiplication, and the separate from_mont (a multiplication by 1) is
 * gone. For e = 65537: 1 + 16 squarings + 1 multiplication, against 3 + 16 before. Only an
 * even e needs the multiplication by 1 at the end; e = 1 is b itself (b < m).
 *
 * CT: branches on the bits of e (public). The base b may be secret (a blinding value, an
 * encryption block): it only enters Montgomery multiplications, which are constant-time.
 */
#include "backend.h"

void ctbn_modexp_public_vartime_generic(const ctbn_backend *be, const ctbn_mont *ctx,
                                        ctbn_limb *r, const ctbn_limb *b, const ctbn_limb *e,
                                        size_t en, ctbn_limb *scratch)
{
    size_t n = ctx->n;
    ctbn_limb *base = scratch;     /* b in Montgomery form */
    ctbn_limb *acc = scratch + n;  /* b^k in Montgomery form */
    size_t ebits = ctbn_bitlen_vartime(e, en);

    if (ebits == 0) {
        ctbn_set_u64(r, n, 1);     /* 1 mod m: m > 1 (ctbn_mont_init) */
        return;
    }
    if (ebits == 1) {
        ctbn_copy(r, b, n);        /* b^1, already reduced (b < m) */
        return;
    }
    be->mont_mul(ctx, base, b, ctx->rr);
    const ctbn_limb *src = base;
    for (size_t i = ebits - 1; i-- > 0;) {
        be->mont_sqr(ctx, acc, src);
        src = acc;
        if ((e[i / 64] >> (i % 64)) & 1) {
            if (i == 0) {
                be->mont_mul(ctx, r, acc, b);  /* leaves Montgomery form (see above) */
                return;
            }
            be->mont_mul(ctx, acc, acc, base);
        }
    }
    /* e even: out of Montgomery form by a multiplication by 1 (base is free now) */
    ctbn_set_u64(base, n, 1);
    be->mont_mul(ctx, r, acc, base);
}

void ctbn_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    const ctbn_backend *be = ctbn_backend_active();
    /* the hook's decision depends only on public values (backend.h) */
    if (be->modexp_public_vartime == NULL ||
        !be->modexp_public_vartime(ctx, r, b, e, en, scratch))
        ctbn_modexp_public_vartime_generic(be, ctx, r, b, e, en, scratch);
    ctbn_clear_vector_regs(); /* b may be secret */
}
