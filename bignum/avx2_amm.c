/*
 * Almost-Montgomery multiplication in radix 2^28 on AVX2 (VPMULUDQ: four 32x32->64 products
 * per instruction). Contracts in avx2.h.
 *
 * Operand scanning by blocks of four digits of b. The accumulator T holds 64-bit lanes, one
 * per digit position, never carried until the end (avx2.h bounds them below 2^63.3). For
 * block k (digits b[4k..4k+3]):
 *
 *  - scalar: the four Montgomery quotient digits y_j = t_j k0 mod 2^28, where t_j is lane
 *    4k+j with everything the block adds to it below j (a[i] b_j' and m[i] y_j' with
 *    i + j' = j) and the carry out of the lanes below; lanes 4k..4k+3 are then done, their
 *    sum is 0 mod 2^112 and only its carry c goes on (into lane 4k+4);
 *  - vector: lanes 4k+4 .. 4k+D+3 += a b_j + m y_j for j = 0..3, the digits of a and m read
 *    shifted by j lanes (unaligned loads over the span's zero pads), one vector of 4 lanes
 *    at a time; lanes 4k..4k+3 are not computed again (the scalar step has them).
 *
 * After D/4 blocks, lanes D..2D-1 plus c are (a b + y m) / R', < 2m; two passes of "keep
 * 28 bits, add the bits above to the next lane" bring every digit under 2^28 + 2^9.
 *
 * The lane holding 4k..4k+3 for the next block stays in a register (low); the others go
 * through a 32-byte aligned stack array.
 *
 * amm_body can interleave two AMMs (nc = 2) but that form measured slower than two x1
 * calls in a row on Zen 4 (1024 bits: 1494 TSC ticks against 2 x 586), so only x1 is
 * built; the modexp runs the two CRT halves' x1 calls back to back.
 *
 * CT: trip counts and addresses depend on D only; the digits of a, b, m and the quotients
 * y_j are secret and only enter multiplications, additions, shifts and masks.
 */
#include <immintrin.h>

#include "avx2.h"

#define M28 CTBN_AVX2_MASK
#define PAD CTBN_AVX2_PAD

/*
 * The scalar step of block k for one AMM: y[0..3] := the quotient digits, *c := the carry
 * into lane 4k+4. low holds lanes 4k..4k+3 as accumulated by the blocks before; bk the four
 * digits of b. CT: all values secret; straight-line code.
 */
static inline __attribute__((always_inline)) void quotients(const uint64_t *ad,
                                                            const uint64_t *md, uint64_t k0,
                                                            const uint64_t *bk, __m256i low,
                                                            uint64_t *c, uint64_t y[4])
{
    uint64_t a0 = ad[0], a1 = ad[1], a2 = ad[2], a3 = ad[3];
    uint64_t m0 = md[0], m1 = md[1], m2 = md[2], m3 = md[3];
    uint64_t b0 = bk[0], b1 = bk[1], b2 = bk[2], b3 = bk[3];
    __m128i lo = _mm256_castsi256_si128(low), hi = _mm256_extracti128_si256(low, 1);
    uint64_t l0 = (uint64_t)_mm_cvtsi128_si64(lo), l1 = (uint64_t)_mm_extract_epi64(lo, 1);
    uint64_t l2 = (uint64_t)_mm_cvtsi128_si64(hi), l3 = (uint64_t)_mm_extract_epi64(hi, 1);

    uint64_t t = l0 + *c + a0 * b0;
    uint64_t y0 = (t * k0) & M28;
    uint64_t cc = (t + m0 * y0) >> 28;
    t = l1 + cc + a1 * b0 + a0 * b1 + m1 * y0;
    uint64_t y1 = (t * k0) & M28;
    cc = (t + m0 * y1) >> 28;
    t = l2 + cc + a2 * b0 + a1 * b1 + a0 * b2 + m2 * y0 + m1 * y1;
    uint64_t y2 = (t * k0) & M28;
    cc = (t + m0 * y2) >> 28;
    t = l3 + cc + a3 * b0 + a2 * b1 + a1 * b2 + a0 * b3 + m3 * y0 + m2 * y1 + m1 * y2;
    uint64_t y3 = (t * k0) & M28;
    *c = (t + m0 * y3) >> 28;
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
static inline __attribute__((always_inline)) void accumulate(const size_t D, const size_t v0,
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
        __m256i acc = v < nb ? _mm256_load_si256((const __m256i *)(Tk + 4 * v))
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
 * One carry pass over nb vectors x[]: each lane keeps its low 28 bits and gets the bits
 * above 28 of the lane below; the top lane's high bits are dropped (zero: see the file
 * comment of avx2.h, the value is < 2^(28 D)). CT: values secret, no branches.
 */
static inline __attribute__((always_inline)) void carry_pass(const size_t nb, __m256i *x)
{
    const __m256i mask = _mm256_set1_epi64x((long long)M28);
    __m256i prev = _mm256_setzero_si256();
#pragma GCC unroll 20
    for (size_t v = 0; v < nb; v++) {
        __m256i h = _mm256_srli_epi64(x[v], 28);
        /* (h3, h0, h1, h2): lane 0 then takes the previous vector's h3 */
        __m256i p = _mm256_permute4x64_epi64(h, _MM_SHUFFLE(2, 1, 0, 3));
        __m256i s = _mm256_blend_epi32(p, prev, 0x03);
        prev = p;
        x[v] = _mm256_add_epi64(_mm256_and_si256(x[v], mask), s);
    }
}

/*
 * nc (1 or 2, public) AMMs of D digits: r[h] := AMM(a[h], b[h]) modulo mod[h].
 * CT: see the file comment.
 */
static inline __attribute__((always_inline)) void amm_body(const int nc, const size_t D,
                                                           uint64_t *const r[2],
                                                           const uint64_t *const a[2],
                                                           const uint64_t *const b[2],
                                                           const ctbn_avx2_mod *const mod[2])
{
    const size_t nb = D / 4;
    _Alignas(32) uint64_t T[2][2 * CTBN_AVX2_MAX_DIGITS];
    __m256i low[2];
    uint64_t c[2];
    _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++) {
        /* lanes 4..D-1 are read before written (block 0); the rest is written first */
        for (size_t v = 1; v < nb; v++)
            _mm256_store_si256((__m256i *)(T[h] + 4 * v), _mm256_setzero_si256());
        low[h] = _mm256_setzero_si256();
        c[h] = 0;
    }
    /*
     * Software-pipelined: the quotients of block k+1 need only the vector v = 1 of block k,
     * so they are computed right after it, before the other vectors of block k, and the
     * scalar chain overlaps the bulk of the vector work.
     */
    uint64_t y[2][4];
    _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++)
        quotients(a[h] + PAD, mod[h]->m + PAD, mod[h]->k0, b[h] + PAD, low[h], &c[h], y[h]);
    for (size_t k = 0; k < nb; k++) {
        _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++)
            accumulate(D, 1, 1, T[h], k, a[h] + PAD, mod[h]->m + PAD, b[h] + PAD + 4 * k,
                       y[h], &low[h]);
        uint64_t ynext[2][4];
        if (k + 1 < nb)
            _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++)
                quotients(a[h] + PAD, mod[h]->m + PAD, mod[h]->k0, b[h] + PAD + 4 * (k + 1),
                          low[h], &c[h], ynext[h]);
        _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++)
            accumulate(D, 2, nb, T[h], k, a[h] + PAD, mod[h]->m + PAD, b[h] + PAD + 4 * k,
                       y[h], &low[h]);
        if (k + 1 < nb)
            _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++)
                for (int j = 0; j < 4; j++)
                    y[h][j] = ynext[h][j];
    }
    _Pragma("GCC unroll 2") for (int h = 0; h < nc; h++) {
        __m256i x[CTBN_AVX2_MAX_DIGITS / 4];
        x[0] = _mm256_add_epi64(low[h], _mm256_set_epi64x(0, 0, 0, (long long)c[h]));
#pragma GCC unroll 20
        for (size_t v = 1; v < nb; v++)
            x[v] = _mm256_load_si256((const __m256i *)(T[h] + D + 4 * v));
        carry_pass(nb, x);
        carry_pass(nb, x);
        /* a and b are fully read: r may now overwrite them */
        uint64_t *rd = r[h];
        _mm256_store_si256((__m256i *)rd, _mm256_setzero_si256());
#pragma GCC unroll 20
        for (size_t v = 0; v < nb; v++)
            _mm256_store_si256((__m256i *)(rd + PAD + 4 * v), x[v]);
        _mm256_store_si256((__m256i *)(rd + PAD + D), _mm256_setzero_si256());
    }
}

#define AMM_KERNELS(D)                                                                       \
    void ctbn_avx2_amm##D##_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,            \
                               const ctbn_avx2_mod *mod)                                     \
    {                                                                                        \
        uint64_t *const rs[2] = {r, NULL};                                                   \
        const uint64_t *const as[2] = {a, NULL}, *const bs[2] = {b, NULL};                   \
        const ctbn_avx2_mod *const ms[2] = {mod, NULL};                                      \
        amm_body(1, D, rs, as, bs, ms);                                                      \
    }

AMM_KERNELS(40)
AMM_KERNELS(56)
AMM_KERNELS(76)

ctbn_avx2_amm_x1_fn *ctbn_avx2_amm_x1_for(size_t digits)
{
    switch (digits) {
    case 40:
        return ctbn_avx2_amm40_x1;
    case 56:
        return ctbn_avx2_amm56_x1;
    case 76:
        return ctbn_avx2_amm76_x1;
    default:
        return NULL;
    }
}
