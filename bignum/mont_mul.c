/*
 * Montgomery multiplication and squaring, portable C with 128-bit products: the reference
 * backend ("portable", backend.h), and the public ctbn_mont_mul / ctbn_mont_sqr, which run
 * the active backend's kernels. Contracts in bignum.h. R = 2^(64n).
 *
 * Multiplication is CIOS with the product and reduction passes merged into one inner loop.
 * Squaring computes the full 2n-limb square once (off-diagonal products doubled, then the
 * diagonal), then reduces it (separated operand scanning), which saves about a quarter of the
 * word multiplications.
 *
 * The common RSA limb counts get copies compiled with a constant n so the compiler can unroll
 * and schedule the inner loops; the choice depends only on the public n.
 *
 * CT: every loop bound is n; the only value-dependent decision, the final subtraction, is a
 * mask (ctbn_csub_mod).
 */
#include "backend.h"

typedef unsigned __int128 u128;

/*
 * Unroll the inner loops of the fixed-size copies (a no-op where n is not a constant).
 * Measured at 1024-2048-bit moduli: 15-25% faster modexp than without.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define CTBN_UNROLL _Pragma("GCC unroll 32")
#else
#define CTBN_UNROLL
#endif

/*
 * (hi:lo) := a*b + c + d. Written with 64-bit additions and carries rather than 128-bit
 * additions, which GCC compiles to stack spills; the compares become carry flags (setc/adc),
 * not branches.
 */
static inline __attribute__((always_inline)) uint64_t
mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi)
{
    u128 p = (u128)a * b;
    uint64_t lo = (uint64_t)p, h = (uint64_t)(p >> 64);
    lo += c;
    h += lo < c;
    lo += d;
    h += lo < d;
    *hi = h;
    return lo;
}

/*
 * t[0..n] := a * b * R^-1 mod m, not yet fully reduced: (t[n]:t[0..n-1]) < 2m.
 * t has n + 2 limbs. CIOS with the product and reduction passes as two inner loops, which
 * GCC schedules better than one merged loop (measured: about 30% faster at n = 16).
 */
static inline __attribute__((always_inline)) void
mont_mul_core(uint64_t *restrict t, const uint64_t *a, const uint64_t *b, const uint64_t *m,
              uint64_t m0inv, size_t n)
{
    for (size_t j = 0; j < n + 2; j++)
        t[j] = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t c = 0, ai = a[i];
        CTBN_UNROLL
        for (size_t j = 0; j < n; j++)
            t[j] = mac(ai, b[j], t[j], c, &c);
        uint64_t s = t[n] + c;
        t[n + 1] = s < c;
        t[n] = s;

        uint64_t q = t[0] * m0inv;
        mac(q, m[0], t[0], 0, &c);
        CTBN_UNROLL
        for (size_t j = 1; j < n; j++)
            t[j - 1] = mac(q, m[j], t[j], c, &c);
        s = t[n] + c;
        t[n - 1] = s;
        t[n] = t[n + 1] + (s < c);
    }
}

/* t[0..2n) := a^2. */
static inline __attribute__((always_inline)) void
square_core(uint64_t *restrict t, const uint64_t *a, size_t n)
{
    for (size_t j = 0; j < 2 * n; j++)
        t[j] = 0;
    /* Off-diagonal products a[i]*a[j], i < j. */
    CTBN_UNROLL
    for (size_t i = 0; i + 1 < n; i++) {
        uint64_t c = 0;
        CTBN_UNROLL
        for (size_t j = i + 1; j < n; j++)
            t[i + j] = mac(a[i], a[j], t[i + j], c, &c);
        t[i + n] = c;
    }
    /* Double them and add the diagonal a[i]^2. */
    uint64_t shift_in = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t dhi;
        uint64_t dlo = mac(a[i], a[i], 0, 0, &dhi);
        uint64_t lo = t[2 * i], hi = t[2 * i + 1];
        uint64_t lo2 = (lo << 1) | shift_in;
        uint64_t hi2 = (hi << 1) | (lo >> 63);
        shift_in = hi >> 63;
        uint64_t c0;
        t[2 * i] = mac(1, lo2, dlo, carry, &c0);
        t[2 * i + 1] = mac(1, hi2, dhi, c0, &carry);
    }
}

/*
 * Montgomery reduction of t[0..2n) (t < m*R): result in t[n..2n) with the extra top bit
 * returned; (top:t[n..2n)) < 2m.
 */
static inline __attribute__((always_inline)) uint64_t
redc_core(uint64_t *restrict t, const uint64_t *m, uint64_t m0inv, size_t n)
{
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t q = t[i] * m0inv;
        uint64_t c = 0;
        CTBN_UNROLL
        for (size_t j = 0; j < n; j++)
            t[i + j] = mac(q, m[j], t[i + j], c, &c);
        t[i + n] = mac(1, t[i + n], c, top, &top);
    }
    return top;
}

static inline __attribute__((always_inline)) void
mont_mul_n(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
           uint64_t m0inv, size_t n)
{
    uint64_t t[CTBN_MAX_LIMBS + 2];
    mont_mul_core(t, a, b, m, m0inv, n);
    ctbn_csub_mod(t, t[n], m, n);
    for (size_t j = 0; j < n; j++)
        r[j] = t[j];
}

static inline __attribute__((always_inline)) void
mont_sqr_n(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t m0inv, size_t n)
{
    uint64_t t[2 * CTBN_MAX_LIMBS];
    square_core(t, a, n);
    uint64_t top = redc_core(t, m, m0inv, n);
    ctbn_csub_mod(t + n, top, m, n);
    for (size_t j = 0; j < n; j++)
        r[j] = t[n + j];
}

/* Copies with a constant limb count for RSA-1024..8192 moduli and their CRT halves. */
#define CTBN_FIXED_SIZES(X) X(8) X(12) X(16) X(24) X(32) X(48) X(64)

#define DEFINE_FIXED(N)                                                                    \
    static void mont_mul_##N(uint64_t *r, const uint64_t *a, const uint64_t *b,            \
                             const uint64_t *m, uint64_t m0inv)                            \
    {                                                                                      \
        mont_mul_n(r, a, b, m, m0inv, N);                                                  \
    }                                                                                      \
    static void mont_sqr_##N(uint64_t *r, const uint64_t *a, const uint64_t *m,            \
                             uint64_t m0inv)                                               \
    {                                                                                      \
        mont_sqr_n(r, a, m, m0inv, N);                                                     \
    }
CTBN_FIXED_SIZES(DEFINE_FIXED)

static void mont_mul_any(uint64_t *r, const uint64_t *a, const uint64_t *b,
                         const uint64_t *m, uint64_t m0inv, size_t n)
{
    mont_mul_n(r, a, b, m, m0inv, n);
}

static void mont_sqr_any(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t m0inv,
                         size_t n)
{
    mont_sqr_n(r, a, m, m0inv, n);
}

void ctbn_portable_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a,
                            const ctbn_limb *b)
{
    switch (ctx->n) {
#define CASE_MUL(N)                                                                        \
    case N:                                                                                \
        mont_mul_##N(r, a, b, ctx->m, ctx->m0inv);                                         \
        return;
        CTBN_FIXED_SIZES(CASE_MUL)
    default:
        mont_mul_any(r, a, b, ctx->m, ctx->m0inv, ctx->n);
    }
}

void ctbn_portable_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a)
{
    switch (ctx->n) {
#define CASE_SQR(N)                                                                        \
    case N:                                                                                \
        mont_sqr_##N(r, a, ctx->m, ctx->m0inv);                                            \
        return;
        CTBN_FIXED_SIZES(CASE_SQR)
    default:
        mont_sqr_any(r, a, ctx->m, ctx->m0inv, ctx->n);
    }
}

static const ctbn_backend portable_backend = {
    .name = "portable",
    .cpu_needs = 0,
    .mont_mul = ctbn_portable_mont_mul,
    .mont_sqr = ctbn_portable_mont_sqr,
    .modexp_ct = NULL,  /* the generic fixed-window modexp in modexp_ct.c */
    .modexp2_ct = NULL, /* one half after the other */
};

const ctbn_backend *ctbn_backend_portable(void)
{
    return &portable_backend;
}

/* The public entry points: the active backend's kernels (backend.h). */
void ctbn_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a, const ctbn_limb *b)
{
    ctbn_backend_active()->mont_mul(ctx, r, a, b);
    ctbn_clear_vector_regs();
}

void ctbn_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a)
{
    ctbn_backend_active()->mont_sqr(ctx, r, a);
    ctbn_clear_vector_regs();
}

void ctbn_to_mont(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a)
{
    ctbn_mont_mul(ctx, r, a, ctx->rr);
}

void ctbn_from_mont(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a)
{
    uint64_t one[CTBN_MAX_LIMBS];
    ctbn_set_u64(one, ctx->n, 1);
    ctbn_mont_mul(ctx, r, a, one);
}
