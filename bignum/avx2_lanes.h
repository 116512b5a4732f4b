/*
 * Lane helpers shared by the AVX2 kernels (avx2_amm.c, avx2_sqr.c): the carry pass over
 * 64-bit lanes and the end of an almost-Montgomery product. Private to those two files;
 * compiled with their flags (-mavx2).
 *
 * CT: every trip count and address depends on W, D and nb (public); the lanes' values are
 * secret and only meet shifts, masks, permutes, blends and additions.
 */
#ifndef CTRSA_AVX2_LANES_H
#define CTRSA_AVX2_LANES_H

#include <immintrin.h>

#include "avx2.h"

/*
 * One carry pass over nb vectors x[]: each lane keeps its low W bits and gets the bits
 * above W of the lane below (the first lane nothing). Returns the top lane's high bits in
 * lane 0 of a vector (zero elsewhere).
 */
static inline __attribute__((always_inline)) __m256i ctbn_avx2_carry_pass(const unsigned W,
                                                                          const size_t nb,
                                                                          __m256i *x)
{
    const __m256i mask = _mm256_set1_epi64x((long long)(((uint64_t)1 << W) - 1));
    __m256i prev = _mm256_setzero_si256();
#pragma GCC unroll 40
    for (size_t v = 0; v < nb; v++) {
        __m256i h = _mm256_srli_epi64(x[v], (int)W);
        /* (h3, h0, h1, h2): lane 0 then takes the previous vector's h3 */
        __m256i p = _mm256_permute4x64_epi64(h, _MM_SHUFFLE(2, 1, 0, 3));
        __m256i s = _mm256_blend_epi32(p, prev, 0x03);
        prev = p;
        x[v] = _mm256_add_epi64(_mm256_and_si256(x[v], mask), s);
    }
    return _mm256_blend_epi32(_mm256_setzero_si256(), prev, 0x03);
}

/*
 * The end of an AMM of D digits: after the last block, lanes D..2D-1 of T (the first
 * vector of them in low, c still to add to its lane 0) hold the result, < 2m; two carry
 * passes bring every digit under 2^W + 2^9 (the top carry is zero: the value is below
 * 2^(W D)), and span r gets the digits and zero pads. The caller has read its operands
 * (r MAY alias them).
 */
static inline __attribute__((always_inline)) void ctbn_avx2_finish(const unsigned W,
                                                                   const size_t D, uint64_t *r,
                                                                   const uint64_t *T,
                                                                   __m256i low, uint64_t c)
{
    const size_t nb = D / 4;
    __m256i x[CTBN_AVX2_MAX_DIGITS / 4];
    x[0] = _mm256_add_epi64(low, _mm256_set_epi64x(0, 0, 0, (long long)c));
#pragma GCC unroll 40
    for (size_t v = 1; v < nb; v++)
        x[v] = _mm256_load_si256((const __m256i *)(T + D + 4 * v));
    ctbn_avx2_carry_pass(W, nb, x);
    ctbn_avx2_carry_pass(W, nb, x);
    _mm256_store_si256((__m256i *)r, _mm256_setzero_si256());
#pragma GCC unroll 40
    for (size_t v = 0; v < nb; v++)
        _mm256_store_si256((__m256i *)(r + CTBN_AVX2_PAD + 4 * v), x[v]);
    _mm256_store_si256((__m256i *)(r + CTBN_AVX2_PAD + D), _mm256_setzero_si256());
}

#endif /* CTRSA_AVX2_LANES_H */
