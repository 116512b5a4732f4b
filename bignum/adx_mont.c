/*
 * The "adx" backend's kernels: Montgomery multiplication and squaring for any limb count
 * with MULX (BMI2) and ADCX/ADOX (ADX). Built with -mbmi2 -madx (bignum/meson.build); only
 * called when the CPU has both (backend.c checks). Contracts: ctbn_mont_mul / ctbn_mont_sqr
 * in bignum.h, ctbn_adx_mont_mul / ctbn_adx_mont_sqr in backend.h. R = 2^(64n).
 *
 * The building block is one row, t[0..len) += x * y[0..len), written in inline assembly so
 * that the two halves of each 128-bit product ride two independent carry chains: MULX does
 * not touch the flags, ADCX adds the low halves through CF and ADOX the high halves of the
 * previous limb through OF. The loops step with LEA and JRCXZ, which leave both flags alone,
 * so one chain runs unbroken across the whole row.
 *
 * Multiplication is CIOS on a sliding window: row i adds a[i]*b and then q*m into t[i..],
 * which zeroes t[i], so the running value moves up one limb per row without a copy.
 * Squaring computes the off-diagonal products once, doubles them, adds the diagonal and then
 * reduces (n rows of q*m), about a quarter fewer multiplications than a general product.
 *
 * CT: every loop bound and address depends on n only; the one value-dependent step, the
 * final subtraction, is masked (final_sub). The carries are flags and ADC/ADD results,
 * never branches.
 */
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <x86intrin.h>

/*
 * t[0..len) += x * y[0..len); returns the carry limb c such that the true sum is
 * t'[0..len) + c * 2^(64 len) (it always fits: c <= 2^64 - 1). len >= 0.
 * CT: only len leaks.
 */
static inline __attribute__((always_inline)) uint64_t
row_muladd(uint64_t *t, const uint64_t *y, uint64_t x, size_t len)
{
    uint64_t hi_a, hi_b, lo;
    size_t rem = len & 3, quads = len >> 2;
    __asm__ volatile(
        "xor %k[ha], %k[ha]\n\t"        /* previous high half = 0; CF = OF = 0 */
        "mov %[rem], %%rcx\n\t"
        "1:\n\t"
        "jrcxz 2f\n\t"
        "mulx (%[y]), %[lo], %[hb]\n\t"
        "adcx (%[t]), %[lo]\n\t"
        "adox %[ha], %[lo]\n\t"
        "mov %[lo], (%[t])\n\t"
        "mov %[hb], %[ha]\n\t"
        "lea 8(%[y]), %[y]\n\t"
        "lea 8(%[t]), %[t]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        "mov %[quads], %%rcx\n\t"
        "3:\n\t"
        "jrcxz 4f\n\t"
        "mulx (%[y]), %[lo], %[hb]\n\t"
        "adcx (%[t]), %[lo]\n\t"
        "adox %[ha], %[lo]\n\t"
        "mov %[lo], (%[t])\n\t"
        "mulx 8(%[y]), %[lo], %[ha]\n\t"
        "adcx 8(%[t]), %[lo]\n\t"
        "adox %[hb], %[lo]\n\t"
        "mov %[lo], 8(%[t])\n\t"
        "mulx 16(%[y]), %[lo], %[hb]\n\t"
        "adcx 16(%[t]), %[lo]\n\t"
        "adox %[ha], %[lo]\n\t"
        "mov %[lo], 16(%[t])\n\t"
        "mulx 24(%[y]), %[lo], %[ha]\n\t"
        "adcx 24(%[t]), %[lo]\n\t"
        "adox %[hb], %[lo]\n\t"
        "mov %[lo], 24(%[t])\n\t"
        "lea 32(%[y]), %[y]\n\t"
        "lea 32(%[t]), %[t]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jmp 3b\n\t"
        "4:\n\t"
        "mov $0, %k[lo]\n\t"             /* mov leaves the flags alone */
        "adcx %[lo], %[ha]\n\t"
        "adox %[lo], %[ha]\n\t"
        : [ha] "=&r"(hi_a), [hb] "=&r"(hi_b), [lo] "=&r"(lo), [t] "+r"(t), [y] "+r"(y)
        : [rem] "r"(rem), [quads] "r"(quads), "d"(x)
        : "rcx", "cc", "memory");
    return hi_a;
}

/*
 * row_muladd for a length of 4*Q limbs known at compile time: the same chains, fully
 * unrolled (no loop instructions). CT: only the length leaks.
 */
#define ROW_QUAD(OFF, HI_NEW, HI_PREV)                                                     \
    "mulx " #OFF "(%[y]), %[lo], %[" #HI_NEW "]\n\t"                                     \
    "adcx " #OFF "(%[t]), %[lo]\n\t"                                                      \
    "adox %[" #HI_PREV "], %[lo]\n\t"                                                     \
    "mov %[lo], " #OFF "(%[t])\n\t"
#define DEFINE_ROW_FIXED(Q)                                                                \
    static inline __attribute__((always_inline)) uint64_t                                   \
    row_muladd_q##Q(uint64_t *t, const uint64_t *y, uint64_t x)                            \
    {                                                                                      \
        uint64_t hi_a, hi_b, lo;                                                           \
        __asm__ volatile(                                                                  \
            "xor %k[ha], %k[ha]\n\t"                                                      \
            ".rept " #Q "\n\t"                                                            \
            ROW_QUAD(0, hb, ha) ROW_QUAD(8, ha, hb) ROW_QUAD(16, hb, ha) ROW_QUAD(24, ha, hb) \
            "lea 32(%[y]), %[y]\n\t"                                                      \
            "lea 32(%[t]), %[t]\n\t"                                                      \
            ".endr\n\t"                                                                   \
            "mov $0, %k[lo]\n\t"                                                          \
            "adcx %[lo], %[ha]\n\t"                                                       \
            "adox %[lo], %[ha]\n\t"                                                       \
            : [ha] "=&r"(hi_a), [hb] "=&r"(hi_b), [lo] "=&r"(lo), [t] "+r"(t), [y] "+r"(y) \
            : "d"(x)                                                                       \
            : "cc", "memory");                                                             \
        return hi_a;                                                                       \
    }
DEFINE_ROW_FIXED(2)
DEFINE_ROW_FIXED(3)
DEFINE_ROW_FIXED(4)
DEFINE_ROW_FIXED(6)
DEFINE_ROW_FIXED(8)
DEFINE_ROW_FIXED(12)
DEFINE_ROW_FIXED(16)

/* A full-length row: unrolled for the fixed sizes (n is a constant there), else the loop. */
static inline __attribute__((always_inline)) uint64_t
row_n(uint64_t *t, const uint64_t *y, uint64_t x, size_t n)
{
    switch (n) {
    case 8: return row_muladd_q2(t, y, x);
    case 12: return row_muladd_q3(t, y, x);
    case 16: return row_muladd_q4(t, y, x);
    case 24: return row_muladd_q6(t, y, x);
    case 32: return row_muladd_q8(t, y, x);
    case 48: return row_muladd_q12(t, y, x);
    case 64: return row_muladd_q16(t, y, x);
    default: return row_muladd(t, y, x, n);
    }
}

/* (hi:lo) := a + b + c, returns lo; *carry_out = the carry (0..2 folded into a word). */
static inline __attribute__((always_inline)) uint64_t add3(uint64_t a, uint64_t b, uint64_t c,
                                                         uint64_t *carry_out)
{
    unsigned long long s;
    unsigned char k1 = _addcarry_u64(0, a, b, &s);
    unsigned char k2 = _addcarry_u64(0, s, c, &s);
    *carry_out = (uint64_t)k1 + k2;
    return s;
}

/*
 * r[0..n) := (top:t[0..n)) - m if that is >= 0, else t[0..n), for (top:t) < 2m, top <= 1:
 * the final subtraction of both kernels, in one SBB pass writing the difference to r and one
 * masked select pass (no copy, no second subtraction). r MUST NOT alias t (t is the kernel's
 * local accumulator); r MAY alias the kernel's inputs, which are fully read by now.
 * CT: only n leaks: the borrow becomes a mask (SBB), never a branch; LEA and JRCXZ keep CF.
 */
static inline __attribute__((always_inline)) void
final_sub(uint64_t *r, const uint64_t *t, uint64_t top, const uint64_t *m, size_t n)
{
    uint64_t x, mask;
    const uint64_t *tp = t, *mp = m;
    uint64_t *rp = r;
    __asm__ volatile(
        "xor %k[x], %k[x]\n\t"         /* CF = 0 */
        "mov %[n], %%rcx\n\t"
        "1:\n\t"
        "jrcxz 2f\n\t"
        "mov (%[tp]), %[x]\n\t"
        "sbb (%[mp]), %[x]\n\t"
        "mov %[x], (%[rp])\n\t"
        "lea 8(%[tp]), %[tp]\n\t"
        "lea 8(%[mp]), %[mp]\n\t"
        "lea 8(%[rp]), %[rp]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        "sbb $0, %[top]\n\t"          /* CF: (top:t) < m, keep t */
        "sbb %[mask], %[mask]\n\t"
        : [x] "=&r"(x), [mask] "=&r"(mask), [top] "+r"(top), [tp] "+r"(tp), [mp] "+r"(mp),
          [rp] "+r"(rp)
        : [n] "r"(n)
        : "rcx", "cc", "memory");
    for (size_t j = 0; j < n; j++)
        r[j] ^= (r[j] ^ t[j]) & mask;
}

/* r := a * b * R^-1 mod m, fully reduced; r MAY alias a or b. CT: only n leaks. */
static inline __attribute__((always_inline)) void
mont_mul_adx_n(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
               uint64_t m0inv, size_t n)
{
    uint64_t t[2 * CTBN_MAX_LIMBS + 1];
    uint64_t top = 0;
    for (size_t j = 0; j <= 2 * n; j++)
        t[j] = 0;
    for (size_t i = 0; i < n; i++) {
        /* value so far: t[i..i+n) + top * 2^(64n), relative to limb i; t[i+n] is still 0 */
        uint64_t k1, k2;
        uint64_t c = row_n(t + i, b, a[i], n);
        t[i + n] = add3(c, top, 0, &k1);
        uint64_t q = t[i] * m0inv;
        c = row_n(t + i, m, q, n);                   /* t[i] becomes 0 */
        t[i + n] = add3(t[i + n], c, 0, &k2);
        top = k1 + k2;                               /* the value is < 2m: top <= 1 */
    }
    final_sub(r, t + n, top, m, n);
}

/* r := a^2 * R^-1 mod m, fully reduced; r MAY alias a. CT: only n leaks. */
static inline __attribute__((always_inline)) void
mont_sqr_adx_n(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t m0inv, size_t n)
{
    uint64_t t[2 * CTBN_MAX_LIMBS];
    for (size_t j = 0; j < 2 * n; j++)
        t[j] = 0;
    /* off-diagonal products: row i adds a[i] * a[i+1..n) at t[2i+1..]; its carry is t[i+n] */
    for (size_t i = 0; i + 1 < n; i++)
        t[i + n] = row_muladd(t + 2 * i + 1, a + i + 1, a[i], n - i - 1);
    /* double them and add the diagonal a[i]^2 */
    unsigned char cf = 0;
    uint64_t shift_in = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long lo, hi;
        lo = _mulx_u64(a[i], a[i], &hi);
        uint64_t t0 = t[2 * i], t1 = t[2 * i + 1];
        uint64_t d0 = (t0 << 1) | shift_in, d1 = (t1 << 1) | (t0 >> 63);
        shift_in = t1 >> 63;
        unsigned long long s0, s1;
        cf = _addcarry_u64(cf, d0, lo, &s0);
        cf = _addcarry_u64(cf, d1, hi, &s1);
        t[2 * i] = s0;
        t[2 * i + 1] = s1;
    }
    /* reduce: n rows of q * m; the carry out of limb i+n waits in top for the next row */
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t q = t[i] * m0inv;
        uint64_t c = row_n(t + i, m, q, n);
        t[i + n] = add3(t[i + n], c, top, &top);
    }
    final_sub(r, t + n, top, m, n);
}

/* The 8-limb kernel with the accumulator in registers (adx_mont8.c, contract there). */
void ctbn_adx_mont_mul8(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                        uint64_t m0inv);

static void adx_mul_8(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                      uint64_t m0inv)
{
    ctbn_adx_mont_mul8(r, a, b, m, m0inv);
}

static void adx_sqr_8(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t m0inv)
{
    ctbn_adx_mont_mul8(r, a, a, m, m0inv);
}

/* Copies with a constant limb count for RSA-1024..8192 moduli and their CRT halves. */
#define ADX_FIXED_SIZES(X) X(8) X(12) X(16) X(24) X(32) X(48) X(64)

#define DEFINE_FIXED(N)                                                                    \
    static void adx_mul_##N(uint64_t *r, const uint64_t *a, const uint64_t *b,             \
                            const uint64_t *m, uint64_t m0inv)                             \
    {                                                                                      \
        mont_mul_adx_n(r, a, b, m, m0inv, N);                                              \
    }                                                                                      \
    static void adx_sqr_##N(uint64_t *r, const uint64_t *a, const uint64_t *m,             \
                            uint64_t m0inv)                                                \
    {                                                                                      \
        mont_sqr_adx_n(r, a, m, m0inv, N);                                                 \
    }
#define ADX_GENERATED_SIZES(X) X(12) X(16) X(24) X(32) X(48) X(64)
ADX_GENERATED_SIZES(DEFINE_FIXED)

void ctbn_adx_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a,
                       const ctbn_limb *b)
{
    switch (ctx->n) {
#define CASE_MUL(N)                                                                        \
    case N:                                                                                \
        adx_mul_##N(r, a, b, ctx->m, ctx->m0inv);                                          \
        return;
        ADX_FIXED_SIZES(CASE_MUL)
    default:
        mont_mul_adx_n(r, a, b, ctx->m, ctx->m0inv, ctx->n);
    }
}

void ctbn_adx_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a)
{
    switch (ctx->n) {
#define CASE_SQR(N)                                                                        \
    case N:                                                                                \
        adx_sqr_##N(r, a, ctx->m, ctx->m0inv);                                             \
        return;
        ADX_FIXED_SIZES(CASE_SQR)
    default:
        mont_sqr_adx_n(r, a, ctx->m, ctx->m0inv, ctx->n);
    }
}

#endif /* x86-64 */
