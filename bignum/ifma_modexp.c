/*
 * The constant-time fixed-window modexp on the IFMA kernels, one exponentiation or both CRT
 * halves in one interleaved pass. Contracts in ifma.h (hooks of backend.h).
 *
 * Per half: the base goes to radix 2^52 and into the Montgomery domain of R' = 2^(52 D)
 * (one AMM by R'^2), the table holds b^i R' for i < 2^w (each < 2m), the exponent is
 * consumed by windows of w bits from the top at public positions: w squarings, one
 * constant-time gather, one multiplication, whatever the window's value. An AMM by 1 leaves
 * the domain (result <= m), one masked subtraction in radix 2^64 makes it < m.
 *
 * Squarings use the AMM kernel too: the dedicated squaring (ifma.h) measured no faster.
 * After the result is out, each half's state (modulus, base, powers, accumulator) and its
 * table are wiped.
 *
 * With two halves, every step is one _x2 kernel call doing the same operation on both
 * halves. Both use the window width and window count of the longer exponent: a shorter
 * exponent simply has zero windows on top (e < 2^e_bits < 2^max), same result.
 *
 * CT: the operation sequence depends only on n and the exponent bit lengths. Exponent bits
 * are read at public positions and become a table index that is only compared (as a mask)
 * against every entry index; every entry is loaded in full for every lookup.
 */
#include <immintrin.h>
#include <string.h>

#include "backend.h"
#include "ifma.h"

/* Per-half state: the modulus in radix 2^52, the accumulator and a gathered entry. */
struct half {
    ctbn_ifma_mod mod;
    _Alignas(64) uint64_t acc[CTBN_IFMA_MAX_LANES];
    _Alignas(64) uint64_t ent[CTBN_IFMA_MAX_LANES];
    _Alignas(64) uint64_t b52[CTBN_IFMA_MAX_LANES];
    uint64_t *table;            /* count * lanes digits, 64-byte aligned, in the scratch */
    const ctbn_limb *e;
    size_t elimbs;
};

/* The kernels for one call: one or two halves of D digits. */
struct kern {
    int nc;
    size_t digits, lanes;
    ctbn_ifma_amm_x1_fn *x1;
    ctbn_ifma_amm_x2_fn *x2;
};

static const _Alignas(64) uint64_t one52[CTBN_IFMA_MAX_LANES] = {1};

/* Operands named for every half at once: a table entry (>= 0) or a buffer. */
enum { OP_ACC = -1, OP_ENT = -2, OP_B = -3, OP_RR = -4, OP_ONE = -5 };

static uint64_t *operand(struct half *h, const struct kern *k, long op)
{
    switch (op) {
    case OP_ACC:
        return h->acc;
    case OP_ENT:
        return h->ent;
    case OP_B:
        return h->b52;
    case OP_RR:
        return h->mod.rr;
    case OP_ONE:
        return (uint64_t *)one52; /* only ever read */
    default:
        return h->table + (size_t)op * k->lanes;
    }
}

/* For every half: R := AMM(A, B). The operand names are public. CT: only D leaks. */
static void amm(const struct kern *k, struct half *h, long r, long a, long b)
{
    if (k->nc == 2)
        k->x2(operand(&h[0], k, r), operand(&h[0], k, a), operand(&h[0], k, b), &h[0].mod,
              operand(&h[1], k, r), operand(&h[1], k, a), operand(&h[1], k, b), &h[1].mod);
    else
        k->x1(operand(&h[0], k, r), operand(&h[0], k, a), operand(&h[0], k, b), &h[0].mod);
}


/*
 * out := table[idx] (count entries of nv registers). idx is secret.
 * CT: all count entries are loaded in full, in order, by plain (unmasked) loads; idx only
 * enters a vector compare against the running entry number, whose mask register then
 * selects with a register-to-register blend. The empty asm on each loaded register keeps
 * the compiler from folding the load into the blend: a merge-masked load might skip the
 * memory access for masked-off entries, which would show the index to a cache probe.
 * (One blend per register instead of AND and OR with a broadcast mask: on Sapphire Rapids
 * the gather went from 5.0% to 4.2% of an RSA-2048 signature's samples under perf.)
 */
static inline __attribute__((always_inline)) void gather_nv(uint64_t *out,
                                                            const uint64_t *table,
                                                            size_t count, uint64_t idx,
                                                            const int nv)
{
    __m512i acc[5];
    const __m512i want = _mm512_set1_epi64((long long)idx), one = _mm512_set1_epi64(1);
    __m512i at = _mm512_setzero_si512(); /* i in every lane */
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++)
        acc[v] = _mm512_setzero_si512();
    for (size_t i = 0; i < count; i++) {
        const __mmask8 sel = _mm512_cmpeq_epi64_mask(at, want);
        at = _mm512_add_epi64(at, one);
        const uint64_t *entry = table + i * 8 * (size_t)nv;
#pragma GCC unroll 8
        for (int v = 0; v < nv; v++) {
            __m512i e = _mm512_load_si512((const void *)(entry + 8 * v));
            __asm__("" : "+v"(e));
            acc[v] = _mm512_mask_blend_epi64(sel, acc[v], e);
        }
    }
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++)
        _mm512_store_si512((void *)(out + 8 * v), acc[v]);
}

/* CT: see gather_nv; nv (public) picks the unrolled copy. */
static void gather(uint64_t *out, const uint64_t *table, size_t count, size_t lanes,
                   uint64_t idx)
{
    switch (lanes) {
    case 16:
        gather_nv(out, table, count, idx, 2);
        break;
    case 24:
        gather_nv(out, table, count, idx, 3);
        break;
    case 32:
        gather_nv(out, table, count, idx, 4);
        break;
    default:
        gather_nv(out, table, count, idx, 5);
        break;
    }
}

/* The first 64-byte boundary at or after p. CT: public (an address). */
static uint64_t *align64(ctbn_limb *p)
{
    return (uint64_t *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

/*
 * The exponentiation proper for k->nc halves whose mod, b52, table, e and elimbs are set.
 * On return h[c].acc holds b^e R'^0 = b^e mod m, normalized, <= m.
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
            amm(k, h, (long)i, (long)(i / 2), (long)(i / 2));
        else
            amm(k, h, (long)i, (long)(i - 1), 1);
    }

    size_t windows = (e_bits + w - 1) / w;
    if (windows == 0) {
        for (int c = 0; c < k->nc; c++)
            gather(h[c].acc, h[c].table, count, k->lanes, 0);
    } else {
        for (int c = 0; c < k->nc; c++)
            gather(h[c].acc, h[c].table, count, k->lanes,
                   ctbn_exp_window(h[c].e, h[c].elimbs, (windows - 1) * w, w));
        for (size_t win = windows - 1; win-- > 0;) {
            for (unsigned s = 0; s < w; s++)
                amm(k, h, OP_ACC, OP_ACC, OP_ACC);
            for (int c = 0; c < k->nc; c++)
                gather(h[c].ent, h[c].table, count, k->lanes,
                       ctbn_exp_window(h[c].e, h[c].elimbs, win * w, w));
            amm(k, h, OP_ACC, OP_ACC, OP_ENT);
        }
    }
    /* out of the domain: AMM(x, 1) = (x + q m) / R' <= m for x < 2m */
    amm(k, h, OP_ACC, OP_ACC, OP_ONE);
}

/* Zero n bytes at p; the empty asm with p as input and a memory clobber keeps the compiler
 * from dropping the stores as dead. CT: n is public. */
static void wipe(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Set up half h for ctx, base b, exponent e; its table at tab. CT: only n and e_bits leak. */
static void half_init(struct half *h, const ctbn_mont *ctx, const ctbn_limb *b,
                      const ctbn_limb *e, size_t e_bits, uint64_t *tab)
{
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    ctbn_ifma_mod_init(&h->mod, ctx, tmp);
    wipe(tmp, sizeof(tmp)); /* R'^2 mod m on the way: derived from the (secret) prime */
    ctbn_ifma_from_radix64(h->b52, h->mod.digits, b, ctx->n);
    h->table = tab;
    h->e = e;
    h->elimbs = CTBN_LIMBS(e_bits);
}

/*
 * r := h->acc (<= m) fully reduced in radix 2^64, then h and its table wiped: the modulus
 * (a prime factor), the base, the powers and the accumulator are all secret-derived.
 * count: the table's entries. CT: only n and count leak.
 */
static void half_finish(struct half *h, const struct kern *k, size_t count,
                        const ctbn_mont *ctx, ctbn_limb *r)
{
    ctbn_ifma_to_radix64(r, ctx->n, h->acc, h->mod.digits);
    ctbn_csub_mod(r, 0, ctx->m, ctx->n);
    wipe(h->table, count * k->lanes * sizeof(uint64_t));
    wipe(h, sizeof(*h));
}

/* One half, on the 256-bit kernels at 10 and 20 digits (zmm = 0) or the 512-bit ones. */
static int modexp_one(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                      const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch, int zmm)
{
    size_t digits = ctbn_ifma_digits(ctx->n);
    if (digits == 0)
        return 0;
    struct kern k = {1, digits, CTBN_IFMA_LANES(digits),
                     zmm ? ctbn_ifma_amm_x1_zmm_for(digits) : ctbn_ifma_amm_x1_for(digits),
                     NULL};
    struct half h[1];
    half_init(&h[0], ctx, b, e, e_bits, align64(scratch));
    run(&k, h, e_bits);
    half_finish(&h[0], &k, (size_t)1 << ctbn_modexp_window(e_bits), ctx, r);
    return 1;
}

/* Both halves, interleaved, on the kernels of that width. */
static int modexp_two(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                      const ctbn_limb *e1, size_t e1_bits,
                      const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                      const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch, int zmm)
{
    size_t digits = ctbn_ifma_digits(ctx1->n);
    if (digits == 0 || ctx2->n != ctx1->n)
        return 0;
    struct kern k = {2, digits, CTBN_IFMA_LANES(digits), NULL,
                     zmm ? ctbn_ifma_amm_x2_zmm_for(digits) : ctbn_ifma_amm_x2_for(digits)};
    struct half h[2];
    /* both bases are read before either result is written (r1 MAY alias b1, r2 b2) */
    half_init(&h[0], ctx1, b1, e1, e1_bits, align64(scratch));
    half_init(&h[1], ctx2, b2, e2, e2_bits,
              align64(scratch + CTBN_MODEXP_SCRATCH(ctx1->n)));
    size_t e_bits = e1_bits > e2_bits ? e1_bits : e2_bits;
    run(&k, h, e_bits);
    size_t count = (size_t)1 << ctbn_modexp_window(e_bits);
    half_finish(&h[0], &k, count, ctx1, r1);
    half_finish(&h[1], &k, count, ctx2, r2);
    return 1;
}

int ctbn_ifma_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                        const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)
{
    return modexp_one(ctx, r, b, e, e_bits, scratch, 0);
}

int ctbn_ifma_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                         const ctbn_limb *e1, size_t e1_bits,
                         const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                         const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch)
{
    return modexp_two(ctx1, r1, b1, e1, e1_bits, ctx2, r2, b2, e2, e2_bits, scratch, 0);
}

int ctbn_ifmaz_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                         const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch)
{
    return modexp_one(ctx, r, b, e, e_bits, scratch, 1);
}

int ctbn_ifmaz_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                          const ctbn_limb *e1, size_t e1_bits,
                          const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                          const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch)
{
    return modexp_two(ctx1, r1, b1, e1, e1_bits, ctx2, r2, b2, e2, e2_bits, scratch, 1);
}
