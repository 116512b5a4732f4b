/*
 * The constant-time fixed-window modexp on the AVX2 kernels, one exponentiation or both CRT
 * halves in one interleaved pass. Contracts in avx2.h (hooks of backend.h).
 *
 * The same plan as the IFMA backend's (ifma_modexp.c), in radix 2^W: per half, the base
 * goes into the Montgomery domain of R' = 2^(W D) by one AMM with R'^2, the table holds
 * b^i R' for i < 2^w (each < 2m, lazy digits), the exponent is consumed by windows of w bits
 * from the top at public positions: w squarings (the squaring kernel, avx2_sqr.c, where
 * sqr_kernel takes it, else AMMs of acc by itself), one constant-time gather, one
 * multiplication, whatever the window's value. An AMM by 1 leaves the domain
 * (result <= m); the carries are propagated in the conversion to radix 2^64 and one masked
 * subtraction makes the result < m. Each half's state and table are wiped afterwards.
 *
 * The table is in the caller's scratch, 32-byte aligned there, one per half (each half's
 * CTBN_MODEXP_SCRATCH(n) limbs hold 2^5 entries of CTBN_AVX2_SPAN(D) lanes: bignum.h sizes
 * it so), like the IFMA backend's; the rest of a half (a few spans) is on the stack.
 *
 * CT: the operation sequence depends only on n and the exponent bit lengths. Exponent bits
 * are read at public positions and become a table index that is only compared (as a mask)
 * against every entry index; every entry is loaded in full for every lookup.
 */
#include <immintrin.h>
#include <string.h>

#include "avx2.h"
#include "backend.h"

/* The largest window (ctbn_modexp_window) and so the table's entries. */
#define MAX_COUNT 32

struct half {
    ctbn_avx2_mod mod;
    _Alignas(32) uint64_t acc[CTBN_AVX2_MAX_SPAN];
    _Alignas(32) uint64_t ent[CTBN_AVX2_MAX_SPAN];
    _Alignas(32) uint64_t bw[CTBN_AVX2_MAX_SPAN];
    uint64_t *table;   /* MAX_COUNT spans, 32-byte aligned, in the caller's scratch */
    const ctbn_limb *e;
    size_t elimbs;
};

struct kern {
    int nc;
    size_t digits, span;
    unsigned bits;
    ctbn_avx2_amm_x1_fn *x1;
    ctbn_avx2_sqr_fn *sq; /* the squaring kernel where it measured faster, else NULL */
    int friendly; /* the halves work modulo m~ = k0 m (avx2.h); public, from n */
};

/* The span of 1: digit 0 is 1, everything else zero. */
static const _Alignas(32) uint64_t one_span[CTBN_AVX2_MAX_SPAN] = {[CTBN_AVX2_PAD] = 1};

enum { OP_ACC = -1, OP_ENT = -2, OP_B = -3, OP_RR = -4, OP_ONE = -5 };

static uint64_t *operand(struct half *h, const struct kern *k, long op)
{
    switch (op) {
    case OP_ACC:
        return h->acc;
    case OP_ENT:
        return h->ent;
    case OP_B:
        return h->bw;
    case OP_RR:
        return h->mod.rr;
    case OP_ONE:
        return (uint64_t *)one_span; /* only ever read */
    default:
        return h->table + (size_t)op * k->span;
    }
}

/* For every half in turn: R := AMM(A, B) (two x1 calls back to back measured faster than an
 * interleaved x2 kernel: avx2_amm.c). The operand names are public. CT: only D leaks. */
static void amm(const struct kern *k, struct half *h, long r, long a, long b)
{
    for (int c = 0; c < k->nc; c++)
        k->x1(operand(&h[c], k, r), operand(&h[c], k, a), operand(&h[c], k, b), &h[c].mod);
}

/* For every half in turn: R := AMM(A, A), by the squaring kernel where the size takes it
 * (sqr_kernel), else by the AMM kernel; both give the same value. The operand names are
 * public. CT: only D leaks. */
static void sqr(const struct kern *k, struct half *h, long r, long a)
{
    for (int c = 0; c < k->nc; c++) {
        if (k->sq != NULL)
            k->sq(operand(&h[c], k, r), operand(&h[c], k, a), &h[c].mod);
        else
            k->x1(operand(&h[c], k, r), operand(&h[c], k, a), operand(&h[c], k, a),
                  &h[c].mod);
    }
}

/*
 * Vectors [v0, v0 + nv) of out's digits := those of table[idx] (count spans of span lanes,
 * digits from lane CTBN_AVX2_PAD). nv is a compile-time constant in every call, so that the
 * nv accumulators live in registers and each entry is read once per part.
 * CT: all count entries are loaded (these lanes), in order; idx only meets the entry counter
 * in a vector compare (VPCMPEQQ, data-independent) whose all-ones/zero lanes select with
 * AND/OR. count, span, v0 and nv are public.
 */
static inline __attribute__((always_inline)) void gather_part(uint64_t *out,
                                                              const uint64_t *table,
                                                              size_t count, size_t span,
                                                              __m256i idxv, size_t v0,
                                                              const size_t nv)
{
    __m256i acc[CTBN_AVX2_MAX_DIGITS / 4];
    for (size_t v = 0; v < nv; v++)
        acc[v] = _mm256_setzero_si256();
    const __m256i one = _mm256_set1_epi64x(1);
    __m256i cnt = _mm256_setzero_si256();
    const uint64_t *entry = table + CTBN_AVX2_PAD + 4 * v0;
    for (size_t i = 0; i < count; i++, entry += span) {
        __m256i sel = _mm256_cmpeq_epi64(cnt, idxv);
        cnt = _mm256_add_epi64(cnt, one);
        for (size_t v = 0; v < nv; v++)
            acc[v] = _mm256_or_si256(
                acc[v], _mm256_and_si256(sel, _mm256_load_si256((const __m256i *)(entry + 4 * v))));
    }
    for (size_t v = 0; v < nv; v++)
        _mm256_store_si256((__m256i *)(out + CTBN_AVX2_PAD + 4 * (v0 + v)), acc[v]);
}

/*
 * out := table[idx] (count spans of span lanes, pads zero). idx is secret.
 * The digits go in parts of at most 9 vectors (D = 36: 9; 56: 7 + 7; 72: 9 + 9), the pads
 * are written zero: on Zen 3 this took a third of the time of a loop of 4-vector parts
 * with a scalar mask per entry and part, which was about 9% of an RSA-2048 signature.
 * CT: see gather_part; the split depends on span only.
 */
static void gather(uint64_t *out, const uint64_t *table, size_t count, size_t span,
                   uint64_t idx)
{
    size_t nb = (span - 2 * CTBN_AVX2_PAD) / 4;
    const __m256i idxv = _mm256_set1_epi64x((long long)idx);
    _mm256_store_si256((__m256i *)out, _mm256_setzero_si256());
    _mm256_store_si256((__m256i *)(out + span - CTBN_AVX2_PAD), _mm256_setzero_si256());
    switch (nb) {
    case 9:
        gather_part(out, table, count, span, idxv, 0, 9);
        break;
    case 10: /* D = 40: the avx512 backend's 1024-bit plan (avx512.h) */
        gather_part(out, table, count, span, idxv, 0, 5);
        gather_part(out, table, count, span, idxv, 5, 5);
        break;
    case 14:
        gather_part(out, table, count, span, idxv, 0, 7);
        gather_part(out, table, count, span, idxv, 7, 7);
        break;
    case 18:
        gather_part(out, table, count, span, idxv, 0, 9);
        gather_part(out, table, count, span, idxv, 9, 9);
        break;
    default:
        for (size_t v = 0; v < nb; v++)
            gather_part(out, table, count, span, idxv, v, 1);
        break;
    }
}

/*
 * The exponentiation for k->nc halves whose mod, bw, e and elimbs are set. On return
 * h[c].acc holds b^e mod m, lazy digits, <= m.
 * CT: the sequence of kernel calls depends only on e_bits (public) and D; window values
 * only become gather indices.
 */
static void run(const struct kern *k, struct half *h, size_t e_bits)
{
    unsigned w = ctbn_modexp_window(e_bits);
    size_t count = (size_t)1 << w;

    /* table[i] = b^i R' (almost reduced): table[0] = R', table[1] = b R' */
    amm(k, h, 0, OP_RR, OP_ONE);
    amm(k, h, 1, OP_B, OP_RR);
    for (size_t i = 2; i < count; i++) {
        if (i % 2 == 0)
            sqr(k, h, (long)i, (long)(i / 2));
        else
            amm(k, h, (long)i, (long)(i - 1), 1);
    }

    size_t windows = (e_bits + w - 1) / w;
    if (windows == 0) {
        for (int c = 0; c < k->nc; c++)
            gather(h[c].acc, h[c].table, count, k->span, 0);
    } else {
        for (int c = 0; c < k->nc; c++)
            gather(h[c].acc, h[c].table, count, k->span,
                   ctbn_exp_window(h[c].e, h[c].elimbs, (windows - 1) * w, w));
        for (size_t win = windows - 1; win-- > 0;) {
            for (unsigned s = 0; s < w; s++)
                sqr(k, h, OP_ACC, OP_ACC);
            for (int c = 0; c < k->nc; c++)
                gather(h[c].ent, h[c].table, count, k->span,
                       ctbn_exp_window(h[c].e, h[c].elimbs, win * w, w));
            amm(k, h, OP_ACC, OP_ACC, OP_ENT);
        }
    }
    /* out of the domain: AMM(x, 1) = (x + q m) / R' <= m for x < 2m */
    amm(k, h, OP_ACC, OP_ACC, OP_ONE);
}

/* Zero n bytes at p, not dropped as dead stores. CT: n is public. */
static void wipe(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Set up half h for ctx, base b, exponent e. CT: only n and e_bits leak. */
static void half_init(struct half *h, const struct kern *k, const ctbn_mont *ctx,
                      const ctbn_limb *b, const ctbn_limb *e, size_t e_bits, uint64_t *table)
{
    h->table = table;
    ctbn_limb tmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS)];
    if (k->friendly)
        ctbn_avx2_mod_init_friendly_with(&h->mod, ctx, k->digits, k->bits, k->x1, tmp);
    else
        ctbn_avx2_mod_init_dw(&h->mod, ctx, k->digits, k->bits, tmp);
    wipe(tmp, sizeof(tmp)); /* R'^2 mod m on the way: derived from the (secret) prime */
    ctbn_avx2_from_radix64(h->bw, h->mod.bits, h->mod.digits, b, ctx->n);
    /* the spans the kernels never write must have zero pads */
    memset(h->ent, 0, sizeof(h->ent));
    h->e = e;
    h->elimbs = CTBN_LIMBS(e_bits);
}

/* r := h->acc (<= m) fully reduced in radix 2^64, then h wiped (the modulus, the base, the
 * powers and the accumulator are all secret-derived). CT: only n leaks. */
static void half_finish(struct half *h, const struct kern *k, const ctbn_mont *ctx,
                        ctbn_limb *r)
{
    if (k->friendly) {
        /* h->acc <= m~ = k0 m: one reduction modulo m (m divides m~) */
        ctbn_limb tmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS) +
                      CTBN_REDUCE_SCRATCH(CTBN_MAX_LIMBS)];
        ctbn_avx2_friendly_reduce(r, ctx, h->acc, h->mod.bits, h->mod.digits, tmp);
        wipe(tmp, sizeof(tmp));
    } else {
        ctbn_avx2_to_radix64(r, ctx->n, h->acc, h->mod.bits, h->mod.digits);
        ctbn_csub_mod(r, 0, ctx->m, ctx->n);
    }
    wipe(h->table, MAX_COUNT * CTBN_AVX2_SPAN(h->mod.digits) * sizeof(uint64_t));
    wipe(h, sizeof(*h));
}

/* The first 32-byte boundary in scratch (8-byte aligned): where a half's table starts. */
static uint64_t *align32(ctbn_limb *scratch)
{
    return (uint64_t *)(((uintptr_t)scratch + 31) & ~(uintptr_t)31);
}

/* Whether n-limb halves' tables of D-digit spans fit their CTBN_MODEXP_SCRATCH(n) limbs,
 * aligned. Public. */
static int table_fits(size_t n, size_t digits)
{
    return MAX_COUNT * CTBN_AVX2_SPAN(digits) + 3 <= CTBN_MODEXP_SCRATCH(n);
}

/*
 * Whether the hooks take n-limb moduli: the sizes where the AVX2 modexp measured faster than
 * the generic modexp on the ADX kernels, the backend's fallback (docs/kernels.md, "Path per
 * size and CPU class"). `bench_avx2_ct modexp2`, CPU microseconds per modexp2 of two halves with
 * full-length exponents, minimum of 21 interleaved rounds:
 *
 *   bits   W   D   Zen 4 (AMM only)        Zen 3 (AMM, squaring, friendly moduli)   taken
 *                  avx2   adx  adx/avx2    avx2   adx  adx/avx2
 *    512   -   -     -    106     -          -    121     -      no (no kernel: ADX's
 *                                                                   8-limb kernel keeps it)
 *   1024  29  36    618   730   1.18       551   830   1.51      yes
 *   1536  28  56   1704  2114   1.24      1624  2437   1.50      yes
 *   2048  29  72   3660  4572   1.25      3560  5269   1.48      yes
 *
 * Every size with a kernel wins, so the table is the kernel list. CT: public.
 */
static int takes(size_t n)
{
    return ctbn_avx2_digits(n) != 0;
}

/*
 * The squaring kernel (avx2_sqr.c) for D digits where it measured faster than the AMM
 * kernel's AMM(a, a), else NULL. AMD EPYC (Zen 3), shared machine; kernel: `bench_avx2_ct
 * cycles`, TSC ticks per call, minimum of 41 batches of 500 (squaring chains, AMM(a, a) for
 * the AMM); modexp2: `bench_avx2_ct modexp2`, microseconds of CPU time, minimum of 21
 * rounds, this build against the same tree without the squaring kernel, run alternately
 * twice:
 *
 *   bits   D   AMM(a,a)   sqr    sqr/AMM   modexp2 before   after    taken
 *   1024  36   646-648   483-494  0.75-0.76     757-768     609-610    yes
 *   1536  56  1193-1210  938-970  0.79-0.80    2047-2086   1745-1748   yes
 *   2048  72  1955-1956 1565-1597 0.80-0.82    4349-4430   3747-3779   yes
 *
 * (the adx column of the same modexp2 runs moved by +2 to +3% between them: the machine
 * was busier during the "after" runs, if anything.)
 *
 * On the friendly sizes (D = 56, 72) the friendly squaring (avx2_sqr.c: one dependent
 * product per quotient digit), measured faster there: 0.93-0.94 and about 0.97 of the
 * generic squaring's ticks on the same modulus.
 *
 * CT: public.
 */
static ctbn_avx2_sqr_fn *sqr_kernel(size_t digits, int friendly)
{
    return friendly ? ctbn_avx2_sqrf_for(digits) : ctbn_avx2_sqr_for(digits);
}

/* The AVX2 backend's private plan (contract in avx2.h): the kernel list, which is the
 * measured table of takes(). CT: public. */
ctbn_avx2_plan ctbn_avx2_plan_private(size_t n)
{
    ctbn_avx2_plan p = {0, 0, 0, NULL, NULL};
    if (!takes(n))
        return p;
    p.digits = ctbn_avx2_digits(n);
    p.bits = ctbn_avx2_digit_bits(n);
    p.friendly = ctbn_avx2_friendly(n);
    p.amm = p.friendly ? ctbn_avx2_ammf_x1_for(p.digits) : ctbn_avx2_amm_x1_for(p.digits);
    p.sqr = sqr_kernel(p.digits, p.friendly);
    return p;
}

/* ctbn_avx2_plan_fits (contract in avx2.h). CT: public. */
int ctbn_avx2_plan_fits(const ctbn_avx2_plan *p, size_t n)
{
    size_t need = 64 * n + 2 + (p->friendly ? p->bits : 0);
    return p->amm != NULL && (p->bits == 28 || p->bits == 29) && p->digits % 4 == 0 &&
           p->digits <= CTBN_AVX2_MAX_DIGITS && p->bits * p->digits >= need;
}

/* The kernel plan for nc halves on plan p. CT: public. */
static struct kern kern_for(int nc, const ctbn_avx2_plan *p)
{
    struct kern k = {nc, p->digits, CTBN_AVX2_SPAN(p->digits), p->bits, p->amm, p->sqr,
                     p->friendly};
    return k;
}

int ctbn_avx2_modexp_ct_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx, ctbn_limb *r,
                             const ctbn_limb *b, const ctbn_limb *e, size_t e_bits,
                             ctbn_limb *scratch)
{
    if (p->digits == 0 || !ctbn_avx2_plan_fits(p, ctx->n) || !table_fits(ctx->n, p->digits))
        return 0;
    struct kern k = kern_for(1, p);
    struct half h[1];
    half_init(&h[0], &k, ctx, b, e, e_bits, align32(scratch));
    run(&k, h, e_bits);
    half_finish(&h[0], &k, ctx, r);
    return 1;
}

int ctbn_avx2_modexp2_ct_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx1, ctbn_limb *r1,
                              const ctbn_limb *b1, const ctbn_limb *e1, size_t e1_bits,
                              const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                              const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch)
{
    if (p->digits == 0 || !ctbn_avx2_plan_fits(p, ctx1->n) || ctx2->n != ctx1->n ||
        !table_fits(ctx1->n, p->digits))
        return 0;
    struct kern k = kern_for(2, p);
    struct half h[2];
    /* both bases are read before either result is written (r1 MAY alias b1, r2 b2) */
    half_init(&h[0], &k, ctx1, b1, e1, e1_bits, align32(scratch));
    half_init(&h[1], &k, ctx2, b2, e2, e2_bits,
              align32(scratch + CTBN_MODEXP_SCRATCH(ctx1->n)));
    run(&k, h, e1_bits > e2_bits ? e1_bits : e2_bits);
    half_finish(&h[0], &k, ctx1, r1);
    half_finish(&h[1], &k, ctx2, r2);
    return 1;
}

int ctbn_avx2_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                        const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)
{
    ctbn_avx2_plan p = ctbn_avx2_plan_private(ctx->n);
    return ctbn_avx2_modexp_ct_with(&p, ctx, r, b, e, e_bits, scratch);
}

int ctbn_avx2_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                         const ctbn_limb *e1, size_t e1_bits,
                         const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                         const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch)
{
    ctbn_avx2_plan p = ctbn_avx2_plan_private(ctx1->n);
    return ctbn_avx2_modexp2_ct_with(&p, ctx1, r1, b1, e1, e1_bits, ctx2, r2, b2, e2, e2_bits,
                                     scratch);
}
