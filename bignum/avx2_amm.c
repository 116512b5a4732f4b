/*
 * Almost-Montgomery multiplication in radix 2^W (W = 28 or 29, avx2.h) on AVX2 (VPMULUDQ:
 * four 32x32->64 products per instruction). Contracts in avx2.h.
 *
 * Operand scanning by blocks of four digits of b. The accumulator T holds 64-bit lanes, one
 * per digit position, carried only at the end and, with W = 29, every 24 steps (avx2.h
 * bounds the lanes below 2^63.6). For block k (digits b[4k..4k+3]):
 *
 *  - scalar: the four Montgomery quotient digits y_j, in two pairs: y_j + y_(j+1) 2^W =
 *    -(t_j + t_(j+1) 2^W) m^-1 mod 2^(2W), one multiplication by k2 = -m^-1 mod 2^(2W)
 *    per pair, where t_j is lane 4k+j with everything the block adds to it below j
 *    (a[i] b_j' and m[i] y_j' with i + j' = j) and the carry out of the lanes below;
 *    lanes 4k..4k+3 are then done, their sum is 0 mod 2^(4W) and only its carry c goes
 *    on (into lane 4k+4). One digit at a time (y_j = t_j k0 mod 2^W, four dependent
 *    steps of three multiplications) was 4-5% slower at every D: `bench` A/B of the two
 *    forms in one process, Zen 3, 572 / 597, 1154 / 1219, 1831 / 1919 TSC ticks at
 *    D = 36 / 56 / 72 (the same digits out);
 *  - vector: lanes 4k+4 .. 4k+D+3 += a b_j + m y_j for j = 0..3, the digits of a and m read
 *    shifted by j lanes (unaligned loads over the span's zero pads), one vector of 4 lanes
 *    at a time; lanes 4k..4k+3 are not computed again (the scalar step has them).
 *
 * After D/4 blocks, lanes D..2D-1 plus c are (a b + y m) / R', < 2m; two passes of "keep
 * W bits, add the bits above to the next lane" bring every digit under 2^W + 2^9.
 *
 * With W = 29 a lane can take only about 30 steps of two products before it could
 * overflow, so every 6 blocks (24 steps) the live lanes get one such carry pass too (its
 * top carry goes to the next fresh lane); with W = 28 the 56 steps of 1536 bits fit.
 *
 * The lane holding 4k..4k+3 for the next block stays in a register (low); the others go
 * through a 32-byte aligned stack array.
 *
 * An interleaved form doing two AMMs (the CRT halves) per call measured slower than two
 * calls in a row on Zen 4 (1024 bits: 1494 TSC ticks against 2 x 586) and on Zen 3 (1508
 * against 2 x 650; with one half's quotient chain placed to overlap the other's vector
 * work, 1776), so there is none;
 * the modexp runs the two halves' calls back to back.
 *
 * An earlier variant took the four quotient digits from one 4W-bit quotient (a 128-bit
 * multiplication instead of four dependent steps): no faster (its 128-bit arithmetic spilled
 * registers), while the pairs above, which shorten the same chain with 64-bit arithmetic,
 * gained 4-5%: the chain counts, next to the vector instruction count (one VPMULUDQ and one
 * VPADDQ per four products).
 *
 * Each kernel has a second form for Montgomery-friendly moduli (m = -1 mod 2^W, avx2.h):
 * the quotient step then takes y = t mod 2^W and carries (t >> W) + y, which removes two of
 * the three multiplications per digit from the scalar chain (TSC ticks per AMM on AMD EPYC
 * Zen 3, minimum of 41 batches of 500, generic / friendly kernel on a friendly modulus:
 * D = 56 1213 / 1006, D = 72 1911 / 1627; at D = 40, the smallest that would hold a
 * friendly 1024-bit modulus, 591 against 589 for the generic D = 36, so 1024 bits stay
 * generic).
 *
 * CT: trip counts, addresses and the carry passes depend on D, W and the block counter
 * only; the digits of a, b, m and the quotients y_j are secret and only enter
 * multiplications, additions, shifts and masks.
 */
#include <immintrin.h>

#include "avx2.h"
#include "avx2_lanes.h"

#define PAD CTBN_AVX2_PAD

/*
 * The scalar step of block k for one AMM: y[0..3] := the quotient digits (W bits each),
 * *c := the carry into lane 4k+4. low holds lanes 4k..4k+3 as accumulated by the blocks
 * before; bk the four digits of b; k2 = -m^-1 mod 2^(2W) (generic moduli; not read for a
 * friendly one). CT: all values secret; straight-line code.
 */
static inline __attribute__((always_inline)) void quotients(const unsigned W,
                                                            const int friendly,
                                                            const uint64_t *ad,
                                                            const uint64_t *md, uint64_t k2,
                                                            const uint64_t *bk, __m256i low,
                                                            uint64_t *c, uint64_t y[4])
{
    uint64_t a0 = ad[0], a1 = ad[1], a2 = ad[2], a3 = ad[3];
    uint64_t m0 = md[0], m1 = md[1], m2 = md[2], m3 = md[3];
    uint64_t b0 = bk[0], b1 = bk[1], b2 = bk[2], b3 = bk[3];
    __m128i lo = _mm256_castsi256_si128(low), hi = _mm256_extracti128_si256(low, 1);
    uint64_t l0 = (uint64_t)_mm_cvtsi128_si64(lo), l1 = (uint64_t)_mm_extract_epi64(lo, 1);
    uint64_t l2 = (uint64_t)_mm_cvtsi128_si64(hi), l3 = (uint64_t)_mm_extract_epi64(hi, 1);

    const uint64_t mask = ((uint64_t)1 << W) - 1;
    if (friendly) {
        /*
         * m = -1 mod 2^W (m0 = 2^W - 1, k2 not read): y = t mod 2^W, and
         * t + m0 y = t - y + y 2^W with t - y a multiple of 2^W, so the carry is
         * (t >> W) + y: no multiplication on the chain from one digit to the next but m1 y.
         */
        (void)k2;
        (void)m0;
        uint64_t t = l0 + *c + a0 * b0;
        uint64_t y0 = t & mask;
        uint64_t cc = (t >> W) + y0;
        t = l1 + cc + a1 * b0 + a0 * b1 + m1 * y0;
        uint64_t y1 = t & mask;
        cc = (t >> W) + y1;
        t = l2 + cc + a2 * b0 + a1 * b1 + a0 * b2 + m2 * y0 + m1 * y1;
        uint64_t y2 = t & mask;
        cc = (t >> W) + y2;
        t = l3 + cc + a3 * b0 + a2 * b1 + a1 * b2 + a0 * b3 + m3 * y0 + m2 * y1 + m1 * y2;
        uint64_t y3 = t & mask;
        *c = (t >> W) + y3;
        y[0] = y0;
        y[1] = y1;
        y[2] = y2;
        y[3] = y3;
        return;
    }
    /* two digits per multiplication, by k2 = -m^-1 mod 2^(2W) (the squaring's quotients,
     * avx2_sqr.c): y0 + y1 2^W = -(lane 0 + lane 1 2^W) m^-1 mod 2^(2W), where lane 1 is
     * taken before the carry from lane 0 (that carry is part of lane 0's value), in 64-bit
     * arithmetic that may wrap (only the low 2W bits count) */
    const uint64_t mask2 = ((uint64_t)1 << (2 * W)) - 1;
    uint64_t t0 = l0 + *c + a0 * b0;
    uint64_t t1 = l1 + a1 * b0 + a0 * b1;
    uint64_t q = ((t0 + (t1 << W)) * k2) & mask2;
    uint64_t y0 = q & mask, y1 = q >> W;
    uint64_t cc = (t0 + m0 * y0) >> W;
    cc = (t1 + cc + m1 * y0 + m0 * y1) >> W;
    uint64_t t2 = l2 + cc + a2 * b0 + a1 * b1 + a0 * b2 + m2 * y0 + m1 * y1;
    uint64_t t3 = l3 + a3 * b0 + a2 * b1 + a1 * b2 + a0 * b3 + m3 * y0 + m2 * y1;
    q = ((t2 + (t3 << W)) * k2) & mask2;
    uint64_t y2 = q & mask, y3 = q >> W;
    cc = (t2 + m0 * y2) >> W;
    *c = (t3 + cc + m1 * y2 + m0 * y3) >> W;
    y[0] = y0;
    y[1] = y1;
    y[2] = y2;
    y[3] = y3;
}

/*
 * Part of the vector step of block k: lanes 4k+4v .. 4k+4v+3 of T += a b_j + m y_j
 * (j = 0..3) for v in [v0, v1]; the vector v = 1 (lanes 4k+4..4k+7, the next block's low
 * lanes) goes to *low instead of T. ad, md: digit 0 of the spans.
 * CT: D, v0, v1 (public) fix every address; values secret.
 */
static inline __attribute__((always_inline)) void accumulate(const unsigned W,
                                                             const size_t D, const size_t v0,
                                                             const size_t v1, uint64_t *T,
                                                             size_t k, const uint64_t *ad,
                                                             const uint64_t *md,
                                                             const uint64_t *bk,
                                                             const uint64_t y[4], __m256i *low)
{
    const size_t nb = D / 4;
    __m256i B[4], Y[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        B[j] = _mm256_set1_epi64x((long long)bk[j]);
        Y[j] = _mm256_set1_epi64x((long long)y[j]);
    }
    uint64_t *Tk = T + 4 * k;
#pragma GCC unroll 20
    for (size_t v = v0; v <= v1; v++) {
        /* the top vector is fresh: zero, or (W = 29) a carry a pass may have left there */
        __m256i acc = v < nb || W == 29 ? _mm256_load_si256((const __m256i *)(Tk + 4 * v))
                                        : _mm256_setzero_si256();
        __m256i p[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            p[j] = _mm256_add_epi64(
                _mm256_mul_epu32(
                    _mm256_loadu_si256((const __m256i *)(ad + 4 * v - (size_t)j)), B[j]),
                _mm256_mul_epu32(
                    _mm256_loadu_si256((const __m256i *)(md + 4 * v - (size_t)j)), Y[j]));
        acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_add_epi64(p[0], p[1]),
                                                     _mm256_add_epi64(p[2], p[3])));
        if (v == 1)
            *low = acc;
        else
            _mm256_store_si256((__m256i *)(Tk + 4 * v), acc);
    }
}

/*
 * The carry pass in the middle of an AMM (W = 29), after block k and the quotients of block
 * k+1: over lanes 4k+8 .. 4k+D+3 of T, the top carry stored in the fresh lanes 4k+D+4..
 * (zero until now). Lanes 4k+4..4k+7 are left alone: the quotients of block k+1 have
 * already taken them (their carry is c). CT: D and k public; values secret.
 */
static inline __attribute__((always_inline)) void mid_pass(const unsigned W, const size_t D,
                                                           uint64_t *T, size_t k)
{
    const size_t nb = D / 4;
    uint64_t *Tk = T + 4 * k + 8;
    __m256i x[CTBN_AVX2_MAX_DIGITS / 4];
#pragma GCC unroll 20
    for (size_t v = 0; v + 1 < nb; v++)
        x[v] = _mm256_load_si256((const __m256i *)(Tk + 4 * v));
    __m256i top = ctbn_avx2_carry_pass(W, nb - 1, x);
#pragma GCC unroll 20
    for (size_t v = 0; v + 1 < nb; v++)
        _mm256_store_si256((__m256i *)(Tk + 4 * v), x[v]);
    _mm256_store_si256((__m256i *)(Tk + 4 * (nb - 1)), top);
}

/*
 * r := AMM(a, b) modulo mod, D digits of W bits (public). CT: see the file comment.
 */
static inline __attribute__((always_inline)) void amm_body(const unsigned W, const size_t D,
                                                           const int friendly,
                                                           uint64_t *r, const uint64_t *a,
                                                           const uint64_t *b,
                                                           const ctbn_avx2_mod *mod)
{
    const size_t nb = D / 4;
    const uint64_t *ad = a + PAD, *md = mod->m + PAD, *bd = b + PAD;
    _Alignas(32) uint64_t T[2 * CTBN_AVX2_MAX_DIGITS + 4];
    /* lanes 4..D-1 are read before written (block 0); with W = 29 also every block's
     * fresh top vector, D..2D-1 */
    for (size_t v = 1; v < (W == 29 ? 2 * nb : nb); v++)
        _mm256_store_si256((__m256i *)(T + 4 * v), _mm256_setzero_si256());
    __m256i low = _mm256_setzero_si256();
    uint64_t c = 0;
    /*
     * Software-pipelined: the quotients of block k+1 need only the vector v = 1 of block k,
     * so they are computed right after it, before the other vectors of block k, and the
     * scalar chain overlaps the bulk of the vector work.
     */
    uint64_t y[4];
    const uint64_t k2 = mod->k2;
    quotients(W, friendly, ad, md, k2, bd, low, &c, y);
    for (size_t k = 0; k < nb; k++) {
        accumulate(W, D, 1, 1, T, k, ad, md, bd + 4 * k, y, &low);
        uint64_t ynext[4];
        if (k + 1 < nb)
            quotients(W, friendly, ad, md, k2, bd + 4 * (k + 1), low, &c, ynext);
        accumulate(W, D, 2, nb, T, k, ad, md, bd + 4 * k, y, &low);
        if (W == 29 && (k + 1) % 6 == 0 && k + 1 < nb)
            mid_pass(W, D, T, k);
        if (k + 1 < nb)
            for (int j = 0; j < 4; j++)
                y[j] = ynext[j];
    }
    /* a and b are fully read: r may now overwrite them */
    ctbn_avx2_finish(W, D, r, T, low, c);
}

#define AMM_KERNEL(W, D)                                                                     \
    void ctbn_avx2_amm##D##_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,            \
                               const ctbn_avx2_mod *mod)                                     \
    {                                                                                        \
        amm_body(W, D, 0, r, a, b, mod);                                                     \
    }                                                                                        \
    void ctbn_avx2_amm##D##f_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,           \
                                const ctbn_avx2_mod *mod)                                    \
    {                                                                                        \
        amm_body(W, D, 1, r, a, b, mod);                                                     \
    }

AMM_KERNEL(29, 36)
AMM_KERNEL(28, 56)
AMM_KERNEL(29, 72)
/* the public path's 3072 and 4096-bit kernels (avx2.h: the lane bounds hold for any D) */
AMM_KERNEL(29, 108)
AMM_KERNEL(29, 144)

ctbn_avx2_amm_x1_fn *ctbn_avx2_ammf_x1_for(size_t digits)
{
    /* not 36: 36 digits of 29 bits cannot hold 4 m~ for a 1024-bit m (avx2.h) */
    switch (digits) {
    case 56:
        return ctbn_avx2_amm56f_x1;
    case 72:
        return ctbn_avx2_amm72f_x1;
    default:
        return NULL;
    }
}

ctbn_avx2_amm_x1_fn *ctbn_avx2_amm_x1_for(size_t digits)
{
    switch (digits) {
    case 36:
        return ctbn_avx2_amm36_x1;
    case 56:
        return ctbn_avx2_amm56_x1;
    case 72:
        return ctbn_avx2_amm72_x1;
    case 108:
        return ctbn_avx2_amm108_x1;
    case 144:
        return ctbn_avx2_amm144_x1;
    default:
        return NULL;
    }
}
