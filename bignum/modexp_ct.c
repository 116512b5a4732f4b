/*
 * Constant-time fixed-window modular exponentiation, and the two-at-once call used for the
 * CRT halves. Contracts in bignum.h and backend.h. The public calls are offered first to the
 * active backend's whole-modexp hooks (backend.h); when a backend does not take the call,
 * the generic fixed-window code below runs on that backend's mont_mul / mont_sqr. With the
 * portable backend this is the reference the others are tested against.
 *
 * CT: the sequence of squarings and multiplications is a function of (n, e_bits) only; the
 * exponent's bits are read at public positions and become a table index that is only ever
 * compared, as a mask, against every entry (ct_table_gather reads all 2^w entries).
 */
#include "backend.h"

unsigned ctbn_modexp_window(size_t exp_bits)
{
    if (exp_bits >= 512)
        return 5;
    if (exp_bits >= 128)
        return 4;
    if (exp_bits >= 32)
        return 3;
    if (exp_bits >= 8)
        return 2;
    return 1;
}


/*
 * out := table[idx] where table holds `count` entries of n limbs. idx is secret: every entry
 * is read and combined under a mask, so the memory access pattern is fixed.
 */
static void ct_table_gather(ctbn_limb *out, const ctbn_limb *table, size_t count, size_t n,
                            uint64_t idx)
{
    ctbn_zero(out, n);
    for (size_t i = 0; i < count; i++) {
        ctbn_mask hit = ctbn_mask_eq(i, idx);
        const ctbn_limb *entry = table + i * n;
        for (size_t j = 0; j < n; j++)
            out[j] |= entry[j] & hit;
    }
}

void ctbn_modexp_ct_generic(const ctbn_backend *be, const ctbn_mont *ctx, ctbn_limb *r,
                            const ctbn_limb *b, const ctbn_limb *e, size_t e_bits,
                            ctbn_limb *scratch)
{
    size_t n = ctx->n;
    unsigned w = ctbn_modexp_window(e_bits);
    size_t count = (size_t)1 << w;
    ctbn_limb *table = scratch;              /* count * n limbs, Montgomery form */
    ctbn_limb *acc = table + count * n;      /* n limbs */
    ctbn_limb *entry = acc + n;              /* n limbs */
    size_t elimbs = CTBN_LIMBS(e_bits);

    /* table[i] = b^i in Montgomery form. */
    ctbn_mont_one(ctx, table);
    be->mont_mul(ctx, table + n, b, ctx->rr);
    for (size_t i = 2; i < count; i++) {
        if (i % 2 == 0)
            be->mont_sqr(ctx, table + i * n, table + (i / 2) * n);
        else
            be->mont_mul(ctx, table + i * n, table + (i - 1) * n, table + n);
    }

    size_t windows = (e_bits + w - 1) / w;
    if (windows == 0) {
        ctbn_copy(acc, table, n);
    } else {
        ct_table_gather(acc, table, count, n, ctbn_exp_window(e, elimbs, (windows - 1) * w, w));
        for (size_t k = windows - 1; k-- > 0;) {
            for (unsigned s = 0; s < w; s++)
                be->mont_sqr(ctx, acc, acc);
            ct_table_gather(entry, table, count, n, ctbn_exp_window(e, elimbs, k * w, w));
            be->mont_mul(ctx, acc, acc, entry);
        }
    }
    /* out of Montgomery form: multiply by 1 (entry is free scratch now) */
    ctbn_set_u64(entry, n, 1);
    be->mont_mul(ctx, r, acc, entry);
}

void ctbn_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                    const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)
{
    const ctbn_backend *be = ctbn_backend_active();
    /* the hook's decision depends only on public sizes (backend.h) */
    if (be->modexp_ct == NULL || !be->modexp_ct(ctx, r, b, e, e_bits, scratch))
        ctbn_modexp_ct_generic(be, ctx, r, b, e, e_bits, scratch);
    ctbn_clear_vector_regs();
}

void ctbn_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                     const ctbn_limb *e1, size_t e1_bits,
                     const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                     const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch)
{
    const ctbn_backend *be = ctbn_backend_active();
    if (be->modexp2_ct != NULL &&
        be->modexp2_ct(ctx1, r1, b1, e1, e1_bits, ctx2, r2, b2, e2, e2_bits, scratch)) {
        ctbn_clear_vector_regs();
        return;
    }
    /* each call clears the registers */
    ctbn_modexp_ct(ctx1, r1, b1, e1, e1_bits, scratch);
    ctbn_modexp_ct(ctx2, r2, b2, e2, e2_bits, scratch + CTBN_MODEXP_SCRATCH(ctx1->n));
}
