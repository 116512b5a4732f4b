/*
 * Almost-Montgomery squaring in radix 2^W (W = 28 or 29, avx2.h) on AVX2: r := AMM(a, a)
 * with about three quarters of the AMM kernel's VPMULUDQ. Contracts in avx2.h.
 *
 * a^2 = sum_i a_i^2 2^(2Wi) + sum_{i<j} 2 a_i a_j 2^(W(i+j)): D(D+1)/2 products instead of
 * D^2, plus the D^2 of the reduction (m y). Everything is accumulated in one array T of
 * 64-bit lanes, one per digit position, on the stack, 32-byte aligned.
 *
 * Layout for this CPU (Zen 3: VPMULUDQ 2/cycle, aligned 256-bit loads 2/cycle, a load
 * crossing a 32-byte boundary only 1/cycle): the kernel first writes three shifted copies
 * of a and of m to aligned stack arrays (SA[s][L] = a_(L-s), SM[s][L] = m_(L-s) for
 * s = 1..3, zero outside the digits; s = 0 is the span itself), so that every load of the
 * inner loops is aligned; building them costs 2 x 3 x (D/4 + 1) loads, against the D^2 / 2
 * loads the AMM makes.
 *
 *  - square block k' (digits j = 4k'..4k'+3 of a): lanes 8k'.. 4k'+D+2 of T += 2a_j
 *    SA[j-4k'] (the digit doubled, < 2^32, broadcast; the row read aligned at 4k' + lane
 *    offset); the two vectors
 *    at 8k' (the "edge", where i <= j) have the operand lanes with i <= j blended to zero,
 *    and the diagonal a_j^2 (lane 2j) is added there from one VPMULUDQ of a's digits spread
 *    to even lanes;
 *  - reduce block k: the four quotient digits y_j from lanes 4k..4k+3 in scalar code, two
 *    digits per multiplication by -m^-1 mod 2^(2W) (the AMM now does the same; one digit
 *    per step makes the chain of dependent multiplications twice as long), then lanes
 *    4k+4 .. 4k+D+3 += SM[s] y_(4k+s).
 *
 * Block k of the reduction needs lanes 4k..4k+3 complete: square block k' reaches them
 * only if 8k' <= 4k+3, so k' <= k/2. The loop does, for k = 0..D/4-1: square block k+1
 * (ahead of need, lanes from 8k+8: independent work for the core while the quotients
 * wait), the reduction's vector at 4k+4 (the next quotients' lanes, kept in a register;
 * the first two of them also in scalar code, so that the first quotient pair does not wait
 * for the vector's round trip), the next quotients (scalar, two dependent steps of a pair
 * each), then the rest of the reduction. Square block 0 comes first.
 *
 * Lane bounds (a's digits < 2^W + 2^9, so a doubled product < 2^(2W+1.000003); m's and
 * y's digits < 2^W, so m_i y_j < 2^2W): a lane of T takes up to D/2 doubled products and
 * D reduction products. With W = 28, D = 56 that is < 28 * 2^57.000003 + 56 * 2^56 =
 * 2^62.81: no overflow, no carry before the end. With W = 29 it could reach 2^64.17 (D = 36)
 * and 2^65.17 (D = 72), so after some blocks the live lanes 4k+8 .. 4k+D+7 get one carry
 * pass (each lane keeps W bits and takes the bits above W of the lane below; the top carry
 * goes to lane 4k+D+8, zero until then), which brings every lane below 2^W + 2^35. A
 * per-lane simulation of the worst case (every digit at its bound, every product and the
 * scalar step's carry, under 2^40) placed the passes greedily, just before a lane could
 * reach 2^64: after block 5 for D = 36 (worst lane then 2^63.91), after blocks 3, 8 and 16
 * for D = 72, after 3, 8, 13, 18 (D = 108) and also 23, 28 (D = 144) (worst 2^63.91);
 * none for D = 56 (worst 2^62.81). The simulation is bench/avx2_sqr_bounds.py. The scalar quotient step
 * adds the lanes 4k..4k+3, the reduction products of its block and a carry < 2^36 in
 * 64 bits: those are inside the simulated lanes.
 *
 * The value: all lanes are non-negative and T's value never exceeds a^2 + m y <
 * 4m^2 + m R' < 2^(2WD - 1) (R' > 4m), so no lane at 2D or above ever holds anything
 * and lane 2D-1 never carries out. After D/4 blocks lanes D..2D-1 plus the last carry hold
 * (a^2 + m y) / R' < 2m, the same value as AMM(a, a) (the quotient y = -a^2 m^-1 mod R' is
 * the same); two carry passes bring every digit under 2^W + 2^9.
 *
 * Measured (`bench_avx2_ct cycles`, Zen 3, shared machine, TSC ticks per call, two runs):
 * 483-494 / 938-970 / 1565-1597 at D = 36 / 56 / 72, against 646-648 / 1193-1210 /
 * 1955-1956 for the AMM kernel's AMM(a, a) (0.75 / 0.79 / 0.80; the AMM then took its
 * quotients one digit at a time). With the quotients one digit at a time here too, and the
 * lanes only from the vector: 0.87 to 0.90. Less
 * than the product count promises (0.75) at D = 56 and 72: the kernel does one VPADDQ per
 * VPMULUDQ and about as many vector loads, and the core does not hide all of the quotient
 * chain (about 25-30 cycles per block) behind the vector work: with the chain cut (wrong
 * results, timing only) the kernel ran 15-20% faster. Tried and dropped: sweeping two
 * blocks (and two square rows) per pass over T, each loaded vector of SM or SA multiplied
 * by both blocks' digits (6 vector memory accesses per 8 VPMULUDQ instead of 12, the
 * products in inline assembly so that the compiler could not split the loads again):
 * slower, 605-690 ticks at D = 36 and 1766-1940 at D = 72 against 513-531 and 1603-1632
 * for this design (then with the vector-only lanes) in the same interleaved runs; per
 * VPMULUDQ its sweeps were no faster than the single-block ones, so loads are not what
 * bounds them.
 *
 * Montgomery-friendly moduli (m = -1 mod 2^W, the private 1536/2048-bit halves: avx2.h)
 * take quotients_friendly, whose chain has one dependent product per digit: on such a
 * modulus, generic / friendly kernel, TSC ticks per call (same machine, two runs):
 * 975-984 / 911-923 at D = 56, 1599-1651 / 1550-1615 at D = 72; `bench_avx2_ct modexp2`'s
 * adx/avx2 ratio went from 1.50-1.54 to 1.58-1.64 (1536-bit halves) and from 1.32-1.47 to
 * 1.37-1.53 (2048), main and this build run alternately.
 *
 * Also tried, on Zen 3, and dropped (nothing gained): both CRT halves' squarings in one call,
 * block by block in turn (so that each quotient chain runs under the other half's vector
 * work): 570-586 ticks per squaring against 493-508 one at a time at D = 36, and no better at
 * 56 or 72; and one half on this kernel with the other half's ADX multiplication (CIOS, full
 * rows) interleaved between its blocks, to use the scalar multiplier while the vector unit
 * works: 1295-1323 ticks for the pair against 493 + 758 apart. Neither overlap shows, so
 * the kernel is bound by a resource both share (on this VM no counter says which: the
 * load/store units are the likely one), not by the quotient chain's latency alone.
 *
 * CT: trip counts, addresses, the carry passes and the blends depend on D, W and the block
 * counters only; the digits of a and m and the quotients y_j are secret and only enter
 * multiplications, additions, shifts, masks and blends with constant masks.
 */
#include <immintrin.h>

#include "avx2.h"
#include "avx2_lanes.h"

#define PAD CTBN_AVX2_PAD
/* One shifted copy: D + 4 lanes (digits shifted by up to 3, zero above). */
#define SHIFT_LANES (CTBN_AVX2_MAX_DIGITS + 4)

#define INLINE static inline __attribute__((always_inline))

/*
 * S[s-1][4v..4v+3] := the digits d[4v-s .. 4v-s+3] for v = 0..D/4, s = 1..3: S[s-1][L] =
 * d_(L-s), zero outside the digits (d is digit 0 of a span: the pads supply the zeros).
 * Shift 0 needs no copy: it is the span itself. CT: D public.
 */
INLINE void build_shifts(const size_t D, uint64_t S[3][SHIFT_LANES], const uint64_t *d)
{
#pragma GCC unroll 3
    for (size_t s = 1; s < 4; s++)
#pragma GCC unroll 20
        for (size_t v = 0; v <= D / 4; v++)
            _mm256_store_si256((__m256i *)(S[s - 1] + 4 * v),
                               _mm256_loadu_si256((const __m256i *)(d + 4 * v - s)));
}

/*
 * The scalar step of reduction block k: y[0..3] := the quotient digits (W bits each), *c :=
 * the carry into lane 4k+4. l0, l1 and the upper half of low hold lanes 4k..4k+3 with
 * everything added by the square blocks and the reduction blocks before (*c, the carry
 * into lane 4k, not yet). k2 = -m^-1 mod 2^(2W).
 *
 * Two digits at a time: y0 + y1 2^W = -(lanes 4k, 4k+1 and c) m^-1 mod 2^(2W), one
 * multiplication by k2 in 64-bit arithmetic (only the low 2W bits of the lane sum count,
 * so it may wrap); the same digits as one at a time (the quotient mod 2^(2W) is unique),
 * with half the dependent multiplications. The exact carries out of each lane (their
 * sums stay below 2^64: file comment) then give the lanes of the second pair and c.
 * CT: all values secret; straight-line code.
 */
INLINE void quotients(const unsigned W, const uint64_t *md, uint64_t k2, uint64_t l0,
                      uint64_t l1, __m256i low, uint64_t *c, uint64_t y[4])
{
    uint64_t m0 = md[0], m1 = md[1], m2 = md[2], m3 = md[3];
    __m128i hi = _mm256_extracti128_si256(low, 1);
    uint64_t l2 = (uint64_t)_mm_cvtsi128_si64(hi), l3 = (uint64_t)_mm_extract_epi64(hi, 1);

    const uint64_t mask = ((uint64_t)1 << W) - 1, mask2 = ((uint64_t)1 << (2 * W)) - 1;
    uint64_t t0 = l0 + *c;
    uint64_t q = ((t0 + (l1 << W)) * k2) & mask2;
    uint64_t y0 = q & mask, y1 = q >> W;
    uint64_t cc = (t0 + m0 * y0) >> W;
    cc = (l1 + cc + m1 * y0 + m0 * y1) >> W;
    uint64_t t2 = l2 + cc + m2 * y0 + m1 * y1;
    uint64_t t3 = l3 + m3 * y0 + m2 * y1;
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
 * quotients for a Montgomery-friendly modulus (m = -1 mod 2^W: digit 0 is 2^W - 1, avx2.h):
 * the same y and *c with no multiplication by k2 and none by m_0. A lane total t whose
 * digit is y = t mod 2^W carries (t + (2^W - 1) y) / 2^W = (t >> W) + y out exactly (t - y
 * is t with its low W bits cleared), and the digit above then adds m_1 y + y = (m_1 + 1) y:
 * each digit waits for one product of the digit below instead of the pair's three
 * (lane sum, times k2, then m_0 y for the carry). The lane totals are the same sums as in
 * quotients, so the same bounds hold. CT: all values secret; straight-line code.
 */
INLINE void quotients_friendly(const unsigned W, const uint64_t *md, uint64_t l0,
                               uint64_t l1, __m256i low, uint64_t *c, uint64_t y[4])
{
    uint64_t m1p = md[1] + 1, m2 = md[2], m3 = md[3]; /* m_1 + 1 <= 2^W */
    __m128i hi = _mm256_extracti128_si256(low, 1);
    uint64_t l2 = (uint64_t)_mm_cvtsi128_si64(hi), l3 = (uint64_t)_mm_extract_epi64(hi, 1);
    const uint64_t mask = ((uint64_t)1 << W) - 1;
    uint64_t t0 = l0 + *c;
    uint64_t y0 = t0 & mask;
    uint64_t t1 = l1 + (t0 >> W) + m1p * y0;
    uint64_t y1 = t1 & mask;
    uint64_t t2 = l2 + m2 * y0 + (t1 >> W) + m1p * y1;
    uint64_t y2 = t2 & mask;
    uint64_t t3 = l3 + m3 * y0 + m2 * y1 + (t2 >> W) + m1p * y2;
    uint64_t y3 = t3 & mask;
    *c = (t3 >> W) + y3;
    y[0] = y0;
    y[1] = y1;
    y[2] = y2;
    y[3] = y3;
}

/*
 * Part of reduction block k: lanes 4k+4v .. 4k+4v+3 of T += sum_s SM[s][4v..] y_s for v in
 * [v0, v1]; v = 1 (the next block's quotient lanes) goes to *low instead of T.
 * CT: D, k, v0, v1 (public) fix every address; values secret.
 */
INLINE void reduce(const size_t v0, const size_t v1, uint64_t *T, size_t k,
                   const uint64_t *const SM[4], const uint64_t y[4], __m256i *low)
{
    __m256i Y[4];
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++)
        Y[s] = _mm256_set1_epi64x((long long)y[s]);
    uint64_t *Tk = T + 4 * k;
#pragma GCC unroll 20
    for (size_t v = v0; v <= v1; v++) {
        __m256i acc = _mm256_load_si256((const __m256i *)(Tk + 4 * v));
        __m256i p[4];
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++)
            p[s] = _mm256_mul_epu32(_mm256_load_si256((const __m256i *)(SM[s] + 4 * v)), Y[s]);
        acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_add_epi64(p[0], p[1]),
                                                     _mm256_add_epi64(p[2], p[3])));
        if (v == 1)
            *low = acc;
        else
            _mm256_store_si256((__m256i *)(Tk + 4 * v), acc);
    }
}

/*
 * Square block kb: lanes 8kb .. 4kb+D+2 of T += the products a_j a_i (j = 4kb..4kb+3, i > j,
 * doubled) and a_j^2. ad: digit 0 of a's span; SA the shifted copies of a.
 * CT: D and kb public (the trip count is D/4 - kb); values secret.
 */
INLINE void square_block(const size_t D, uint64_t *T, size_t kb, const uint64_t *ad,
                         const uint64_t *const SA[4])
{
    const size_t nb = D / 4;
    const __m256i zero = _mm256_setzero_si256();
    __m256i B[4];
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++)
        B[s] = _mm256_set1_epi64x((long long)(2 * ad[4 * kb + (size_t)s]));
    uint64_t *Tq = T + 8 * kb;
    const size_t o = 4 * kb; /* lane 8kb + l reads SA[s][o + l] */

    /* the diagonal: a_j^2 at lanes 8kb, +2, +4, +6 */
    __m256i av = _mm256_load_si256((const __m256i *)(ad + 4 * kb));
    __m256i dl = _mm256_permute4x64_epi64(av, _MM_SHUFFLE(1, 1, 0, 0));
    __m256i dh = _mm256_permute4x64_epi64(av, _MM_SHUFFLE(3, 3, 2, 2));
    dl = _mm256_blend_epi32(zero, _mm256_mul_epu32(dl, dl), 0x33);
    dh = _mm256_blend_epi32(zero, _mm256_mul_epu32(dh, dh), 0x33);

    /* edge vector 0 (lanes 8kb..8kb+3): s = 0 keeps lanes 1..3 (i > j), s = 1 lane 3,
     * s = 2 and 3 have none */
    __m256i op0 = _mm256_blend_epi32(zero, _mm256_load_si256((const __m256i *)(SA[0] + o)), 0xFC);
    __m256i op1 = _mm256_blend_epi32(zero, _mm256_load_si256((const __m256i *)(SA[1] + o)), 0xC0);
    __m256i acc = _mm256_load_si256((const __m256i *)Tq);
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(dl, _mm256_add_epi64(
                                                         _mm256_mul_epu32(op0, B[0]),
                                                         _mm256_mul_epu32(op1, B[1]))));
    _mm256_store_si256((__m256i *)Tq, acc);

    /* edge vector 1 (lanes 8kb+4..8kb+7): s = 0, 1 whole, s = 2 lanes 1..3, s = 3 lane 3 */
    __m256i op2 = _mm256_blend_epi32(zero, _mm256_load_si256((const __m256i *)(SA[2] + o + 4)), 0xFC);
    __m256i op3 = _mm256_blend_epi32(zero, _mm256_load_si256((const __m256i *)(SA[3] + o + 4)), 0xC0);
    acc = _mm256_load_si256((const __m256i *)(Tq + 4));
    __m256i p0 = _mm256_mul_epu32(_mm256_load_si256((const __m256i *)(SA[0] + o + 4)), B[0]);
    __m256i p1 = _mm256_mul_epu32(_mm256_load_si256((const __m256i *)(SA[1] + o + 4)), B[1]);
    __m256i p2 = _mm256_mul_epu32(op2, B[2]);
    __m256i p3 = _mm256_mul_epu32(op3, B[3]);
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_add_epi64(dh, p0),
                                                 _mm256_add_epi64(_mm256_add_epi64(p1, p2), p3)));
    _mm256_store_si256((__m256i *)(Tq + 4), acc);

    /* the rest: i > j in every lane; the last vector (lanes 4kb+D..4kb+D+3) takes the
     * rows shifted by s >= 1 only (SA's zeros do the rest) */
    for (size_t u = 2; u <= nb - kb; u++) {
        acc = _mm256_load_si256((const __m256i *)(Tq + 4 * u));
        __m256i q[4];
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++)
            q[s] = _mm256_mul_epu32(_mm256_load_si256((const __m256i *)(SA[s] + o + 4 * u)),
                                    B[s]);
        acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_add_epi64(q[0], q[1]),
                                                     _mm256_add_epi64(q[2], q[3])));
        _mm256_store_si256((__m256i *)(Tq + 4 * u), acc);
    }
}

/*
 * The carry pass after block k (W = 29): lanes 4k+8 .. 4k+D+7 of T, the top carry added to
 * lane 4k+D+8. Lanes 4k+4..4k+7 are left alone: the quotients of block k+1 have taken
 * them. CT: D and k public; values secret.
 */
INLINE void mid_pass(const unsigned W, const size_t D, uint64_t *T, size_t k)
{
    const size_t nb = D / 4;
    uint64_t *Tk = T + 4 * k + 8;
    __m256i x[CTBN_AVX2_MAX_DIGITS / 4];
#pragma GCC unroll 20
    for (size_t v = 0; v < nb; v++)
        x[v] = _mm256_load_si256((const __m256i *)(Tk + 4 * v));
    __m256i top = ctbn_avx2_carry_pass(W, nb, x);
#pragma GCC unroll 20
    for (size_t v = 0; v < nb; v++)
        _mm256_store_si256((__m256i *)(Tk + 4 * v), x[v]);
    __m256i t = _mm256_load_si256((const __m256i *)(Tk + 4 * nb));
    _mm256_store_si256((__m256i *)(Tk + 4 * nb), _mm256_add_epi64(t, top));
}

/* Whether the carry pass follows block k: the greedy schedule of the file comment.
 * CT: public. */
INLINE int pass_after(const unsigned W, const size_t D, size_t k)
{
    if (W != 29)
        return 0;
    if (D == 36)
        return k == 5;
    if (D == 72)
        return k == 3 || k == 8 || k == 16;
    /* D = 108, 144 (the public path's 3072/4096-bit moduli): every 5 blocks from block 3,
     * up to 18 (D = 108) or 28 (D = 144), worst lane 2^63.91 (bench/avx2_sqr_bounds.py) */
    return k >= 3 && k <= (D == 108 ? 18u : 28u) && (k - 3) % 5 == 0;
}

/*
 * r := AMM(a, a) modulo mod, D digits of W bits (public); friendly (public): mod is
 * Montgomery-friendly (m = -1 mod 2^W) and the quotients take quotients_friendly.
 * CT: see the file comment.
 */
INLINE void sqr_body(const unsigned W, const size_t D, const int friendly, uint64_t *r,
                     const uint64_t *a, const ctbn_avx2_mod *mod)
{
    const size_t nb = D / 4;
    const uint64_t *ad = a + PAD, *md = mod->m + PAD;
    _Alignas(32) uint64_t T[2 * CTBN_AVX2_MAX_DIGITS + 8];
    _Alignas(32) uint64_t SAc[3][SHIFT_LANES];
    _Alignas(32) uint64_t SMc[3][SHIFT_LANES];
    const uint64_t *const SA[4] = { ad, SAc[0], SAc[1], SAc[2] };
    const uint64_t *const SM[4] = { md, SMc[0], SMc[1], SMc[2] };
#pragma GCC unroll 40
    for (size_t v = 0; v < 2 * nb + 2; v++)
        _mm256_store_si256((__m256i *)(T + 4 * v), _mm256_setzero_si256());
    build_shifts(D, SAc, ad);
    build_shifts(D, SMc, md);

    square_block(D, T, 0, ad, SA);
    __m256i low = _mm256_load_si256((const __m256i *)T);
    const uint64_t k2 = mod->k2;
    uint64_t c = 0, y[4];
    if (friendly)
        quotients_friendly(W, md, (uint64_t)_mm256_extract_epi64(low, 0),
                           (uint64_t)_mm256_extract_epi64(low, 1), low, &c, y);
    else
        quotients(W, md, k2, (uint64_t)_mm256_extract_epi64(low, 0),
                  (uint64_t)_mm256_extract_epi64(low, 1), low, &c, y);
    for (size_t k = 0; k < nb; k++) {
        /* first in program order: work that does not wait for the quotients */
        if (k + 1 < nb)
            square_block(D, T, k + 1, ad, SA);
        /* the next block's first two lanes also in scalar code: the first quotient pair
         * then does not wait for the vector's round trip (broadcast, VPMULUDQ, sums,
         * extraction), which only the second pair needs */
        uint64_t l0 = T[4 * k + 4] + md[4] * y[0] + md[3] * y[1] + md[2] * y[2] + md[1] * y[3];
        uint64_t l1 = T[4 * k + 5] + md[5] * y[0] + md[4] * y[1] + md[3] * y[2] + md[2] * y[3];
        reduce(1, 1, T, k, SM, y, &low);
        uint64_t ynext[4] = { 0, 0, 0, 0 };
        if (k + 1 < nb && friendly)
            quotients_friendly(W, md, l0, l1, low, &c, ynext);
        else if (k + 1 < nb)
            quotients(W, md, k2, l0, l1, low, &c, ynext);
        reduce(2, nb, T, k, SM, y, &low);
        if (k + 1 < nb) {
            if (pass_after(W, D, k))
                mid_pass(W, D, T, k);
            for (int j = 0; j < 4; j++)
                y[j] = ynext[j];
        }
    }
    /* a is fully read: r may now overwrite it */
    ctbn_avx2_finish(W, D, r, T, low, c);
}

#define SQR_KERNEL(W, D)                                                                     \
    void ctbn_avx2_sqr##D(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)          \
    {                                                                                        \
        sqr_body(W, D, 0, r, a, mod);                                                        \
    }

SQR_KERNEL(29, 36)
SQR_KERNEL(28, 56)
SQR_KERNEL(29, 72)
SQR_KERNEL(29, 108)
SQR_KERNEL(29, 144)

#define SQRF_KERNEL(W, D)                                                                    \
    void ctbn_avx2_sqr##D##f(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)       \
    {                                                                                        \
        sqr_body(W, D, 1, r, a, mod);                                                        \
    }

SQRF_KERNEL(28, 56)
SQRF_KERNEL(29, 72)

ctbn_avx2_sqr_fn *ctbn_avx2_sqr_for(size_t digits)
{
    switch (digits) {
    case 36:
        return ctbn_avx2_sqr36;
    case 56:
        return ctbn_avx2_sqr56;
    case 72:
        return ctbn_avx2_sqr72;
    case 108:
        return ctbn_avx2_sqr108;
    case 144:
        return ctbn_avx2_sqr144;
    default:
        return NULL;
    }
}

ctbn_avx2_sqr_fn *ctbn_avx2_sqrf_for(size_t digits)
{
    switch (digits) {
    case 56:
        return ctbn_avx2_sqr56f;
    case 72:
        return ctbn_avx2_sqr72f;
    default:
        return NULL; /* 36: no friendly form (avx2.h); 108, 144: public moduli only */
    }
}
