/*
 * The avx512 backend's plans and hooks (contracts in avx512.h): which kernel runs for which
 * modulus size, handed to the AVX2 backend's drivers (avx2_modexp.c, avx2_exp_public.c),
 * which work on any plan's spans. One set of hooks per register width: _z for the "avx512"
 * backend, _y for its valgrind instance "avx512y".
 *
 * Every plan squares with a squaring kernel (measured faster than AMM(a, a): the table
 * below).
 *
 * CT: public (sizes and exponent lengths only); the drivers' own CT notes hold.
 */
#include "avx512.h"

size_t ctbn_avx512_kernel_digits(size_t n, unsigned *w)
{
    switch (n) {
    case 16:
        *w = 28;
        return 40;
    case 24:
        *w = 28;
        return 56;
    case 32:
        *w = 29;
        return 72;
    default:
        *w = 0;
        return 0;
    }
}

static ctbn_avx2_amm_x1_fn *amm_for(int wide, size_t digits, int friendly)
{
    return wide ? ctbn_avx512_amm_for_z(digits, friendly)
                : ctbn_avx512_amm_for_y(digits, friendly);
}

static ctbn_avx2_sqr_fn *sqr_for(int wide, size_t digits, int friendly)
{
    return wide ? ctbn_avx512_sqr_for_z(digits, friendly)
                : ctbn_avx512_sqr_for_y(digits, friendly);
}

/*
 * Which sizes take this backend's kernels: measured against the AVX2 backend's on an Intel
 * Xeon (Sapphire Rapids class, AVX-512 IFMA present but not used), shared machine,
 * `bench_avx512_ct cycles` (TSC ticks per call, minimum of 41 batches of 500, friendly
 * moduli) and `bench_avx512_ct modexp2` (thread CPU microseconds per two-half modexp,
 * minimum / median of 21 interleaved rounds), two runs at load 6-9:
 *
 *   bits  avx512 D  zmm AMM  zmm sqr  avx2 D  avx2 AMM  avx2 sqr   modexp2 avx2 / avx512
 *   1024     40       620      546-560   36      575      562        0.98, 0.98 (medians 0.94, 1.02)
 *   1536     56      1045      892-907   56     1132     1048-1050   1.13, 1.02
 *   2048     72      1620     1403       72     1872     1745        1.24, 1.25
 *
 * At 1024 bits the 512-bit registers need 40 digits where the AVX2 kernels have 36 (36 is
 * not a multiple of 8): 23% more products eat the gain, so 1024-bit moduli keep the AVX2
 * plan (kernels, squaring, generic modulus) on this backend too; the 40-digit kernels stay
 * built and tested for a CPU where they would measure faster. 3072 and 4096-bit moduli
 * (public path only) run the AVX2 plan as well (avx512.h).
 * CT: public.
 */
ctbn_avx2_plan ctbn_avx512_plan_private(int wide, size_t n)
{
    if (n == 16)
        return ctbn_avx2_plan_private(n);
    ctbn_avx2_plan p = {0, 0, 0, NULL, NULL};
    p.digits = ctbn_avx512_kernel_digits(n, &p.bits);
    if (p.digits == 0)
        return p;
    p.friendly = 1; /* every private size has room for m~ (avx512.h) */
    p.amm = amm_for(wide, p.digits, 1);
    p.sqr = sqr_for(wide, p.digits, 1);
    return p;
}

ctbn_avx2_plan ctbn_avx512_plan_public(int wide, size_t n)
{
    if (n == 16 || n == 48 || n == 64)
        return ctbn_avx2_plan_public(n); /* the AVX2 kernels and squaring (above) */
    ctbn_avx2_plan p = {0, 0, 0, NULL, NULL};
    p.digits = ctbn_avx512_kernel_digits(n, &p.bits);
    if (p.digits != 0) {
        p.amm = amm_for(wide, p.digits, 0);
        p.sqr = sqr_for(wide, p.digits, 0);
    }
    return p;
}

#define HOOKS(w, wide)                                                                     \
    int ctbn_avx512_modexp_ct_##w(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,  \
                                  const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)   \
    {                                                                                      \
        ctbn_avx2_plan p = ctbn_avx512_plan_private(wide, ctx->n);                         \
        return ctbn_avx2_modexp_ct_with(&p, ctx, r, b, e, e_bits, scratch);                \
    }                                                                                      \
    int ctbn_avx512_modexp2_ct_##w(const ctbn_mont *ctx1, ctbn_limb *r1,                   \
                                   const ctbn_limb *b1, const ctbn_limb *e1,               \
                                   size_t e1_bits, const ctbn_mont *ctx2, ctbn_limb *r2,   \
                                   const ctbn_limb *b2, const ctbn_limb *e2,               \
                                   size_t e2_bits, ctbn_limb *scratch)                     \
    {                                                                                      \
        ctbn_avx2_plan p = ctbn_avx512_plan_private(wide, ctx1->n);                        \
        return ctbn_avx2_modexp2_ct_with(&p, ctx1, r1, b1, e1, e1_bits, ctx2, r2, b2, e2,  \
                                         e2_bits, scratch);                                \
    }                                                                                      \
    int ctbn_avx512_exp_public_##w(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b, \
                                   const ctbn_limb *e, size_t en, ctbn_limb *scratch)      \
    {                                                                                      \
        if (!ctbn_avx2_public_takes(ctx->n, ctbn_bitlen_vartime(e, en)))                   \
            return 0; /* public: n and e */                                                \
        ctbn_avx2_plan p = ctbn_avx512_plan_public(wide, ctx->n);                          \
        return ctbn_avx2_exp_public_with(&p, ctx, r, b, e, en, scratch);                   \
    }

HOOKS(z, 1)
HOOKS(y, 0)
