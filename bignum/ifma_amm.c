/*
 * Almost-Montgomery multiplication in radix 2^52 with AVX-512 IFMA (vpmadd52luq/huq) on
 * 512-bit registers, for 20, 30 and 40 digits, one or two (interleaved) at a time.
 * Contracts in ifma.h.
 *
 * The algorithm (operand scanning, one digit a_i of a per step, D steps):
 *
 *   X := 0                                   X: NV registers of 8 lanes, lane j = digit j,
 *   for i in 0..D-1:                            digits unnormalized (up to ~2^60)
 *     q  := (X_0 + a_i b_0) * k0 mod 2^52    k0 = -m^-1 mod 2^52
 *     X  += lo52(a_i * B) + lo52(q * M)      now X_0 = c * 2^52 exactly
 *     X  := X >> one lane  (+ c into lane 0)
 *     X  += hi52(a_i * B) + hi52(q * M)      the high halves belong one digit up: after
 *                                            the shift, in the same lane
 *   normalize X to 52-bit digits
 *
 * Latency is what limits one chain, so the chain through q is kept short:
 *  - q is computed in the vector unit from X_0 as it stands after the previous step,
 *    q = lo52(X_0 * k0) + lo52(a_i * lo52(b_0 k0)) (mod 2^52, by linearity): the term in
 *    a_i is ready early, and vpmadd52luq ignores the bits of q above 52 when q is used.
 *  - the high halves of step i go into a fresh register H (started from hi52(a_i B),
 *    computed early) and are added after the shift, so the accumulator sees one dependent
 *    vpmadd52luq per step on the q path.
 * The chain per step is then vpmadd52luq (q) -> vpbroadcastq -> vpmadd52luq (q M) ->
 * valignq -> vpaddq -> masked vpaddq. The _x2 kernels run two such chains (two moduli)
 * in the same loop so that one's latency hides behind the other's multiplications.
 *
 * Lane bounds: each step adds less than 4 * 2^52 + 2^12 to a lane, a lane lives at most D
 * steps, so lanes stay below 160 * 2^52 + D * 2^12 < 2^60: no 64-bit overflow.
 *
 * CT: only D (and so the trip counts) leaks. No branch or memory index depends on a, b or
 * m: the carries of the final normalization are computed with compare masks and integer
 * arithmetic on those masks, and applied with masked additions.
 */
#include <immintrin.h>

#include "ifma.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/*
 * Normalize the nv registers x[] (unnormalized digits, value < 2^(52 * 8 nv)) to digits
 * < 2^52. Pass 1 moves every lane's bits above 52 one lane up: lanes become < 2^52 + 2^12,
 * so each lane now carries at most 1. Pass 2 resolves those carries at once like a carry
 * look-ahead adder whose "bits" are lanes: generate = lane > 2^52-1, propagate = lane ==
 * 2^52-1; the lanes receiving a carry are ((g << 1) + p) ^ p.
 * CT: the carry masks are data; they only feed integer arithmetic and masked adds.
 */
ALWAYS_INLINE void normalize(__m512i *x, int nv)
{
    const __m512i mask = _mm512_set1_epi64((long long)CTBN_IFMA_MASK52);
    const __m512i zero = _mm512_setzero_si512();
    __m512i hi[5];
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
        hi[v] = _mm512_srli_epi64(x[v], 52);
        x[v] = _mm512_and_si512(x[v], mask);
    }
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++)
        x[v] = _mm512_add_epi64(x[v], _mm512_alignr_epi64(hi[v], v ? hi[v - 1] : zero, 7));

    uint64_t g = 0, p = 0;
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
        g |= (uint64_t)_mm512_cmpgt_epu64_mask(x[v], mask) << (8 * v);
        p |= (uint64_t)_mm512_cmpeq_epu64_mask(x[v], mask) << (8 * v);
    }
    uint64_t cin = ((g << 1) + p) ^ p;
    const __m512i one = _mm512_set1_epi64(1);
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
        __mmask8 k = (__mmask8)(cin >> (8 * v));
        x[v] = _mm512_and_si512(_mm512_mask_add_epi64(x[v], k, x[v], one), mask);
    }
}

/*
 * The AMM body for nc (1 or 2) independent products of nd digits in nv registers each.
 * Inlined into the six kernels below with constant nc, nd, nv so that every register array
 * is fully unrolled.
 */
ALWAYS_INLINE void amm_body(int nc, int nd, int nv, uint64_t *const r[2],
                            const uint64_t *const a[2], const uint64_t *const b[2],
                            const ctbn_ifma_mod *const mod[2])
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i x[2][5], bv[2][5], mv[2][5], k0v[2], b0k0[2];

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
        k0v[c] = _mm512_set1_epi64((long long)mod[c]->k0);
        b0k0[c] = _mm512_set1_epi64((long long)((b[c][0] * mod[c]->k0) & CTBN_IFMA_MASK52));
#pragma GCC unroll 8
        for (int v = 0; v < nv; v++) {
            x[c][v] = zero;
            bv[c][v] = _mm512_load_si512((const void *)(b[c] + 8 * v));
            mv[c][v] = _mm512_load_si512((const void *)(mod[c]->m + 8 * v));
        }
    }

    for (int i = 0; i < nd; i++) {
        __m512i av[2], q[2], h[2][5], carry[2];
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            av[c] = _mm512_set1_epi64((long long)a[c][i]);
            /* q = lo52(X_0 k0) + lo52(a_i lo52(b_0 k0)), lane 0, then broadcast */
            __m512i t = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(zero, av[c], b0k0[c]),
                                              x[c][0], k0v[c]);
            q[c] = _mm512_broadcastq_epi64(_mm512_castsi512_si128(t));
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
#pragma GCC unroll 8
            for (int v = 0; v < nv; v++) {
                x[c][v] = _mm512_madd52lo_epu64(x[c][v], av[c], bv[c][v]);
                h[c][v] = _mm512_madd52hi_epu64(zero, av[c], bv[c][v]);
            }
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
#pragma GCC unroll 8
            for (int v = 0; v < nv; v++) {
                x[c][v] = _mm512_madd52lo_epu64(x[c][v], q[c], mv[c][v]);
                h[c][v] = _mm512_madd52hi_epu64(h[c][v], q[c], mv[c][v]);
            }
            /* lane 0 is now c * 2^52: its carry goes to the new lane 0 */
            carry[c] = _mm512_srli_epi64(x[c][0], 52);
#pragma GCC unroll 8
            for (int v = 0; v < nv; v++) {
                __m512i up = v + 1 < nv ? x[c][v + 1] : zero;
                x[c][v] = _mm512_add_epi64(_mm512_alignr_epi64(up, x[c][v], 1), h[c][v]);
            }
            x[c][0] = _mm512_mask_add_epi64(x[c][0], 1, x[c][0], carry[c]);
        }
    }

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
        normalize(x[c], nv);
#pragma GCC unroll 8
        for (int v = 0; v < nv; v++)
            _mm512_store_si512((void *)(r[c] + 8 * v), x[c][v]);
    }
}

#define DEFINE_AMM(nd, nv)                                                                 \
    void ctbn_ifma_amm##nd##_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,         \
                                const ctbn_ifma_mod *mod)                                  \
    {                                                                                      \
        uint64_t *const rs[2] = {r, r};                                                    \
        const uint64_t *const as[2] = {a, a}, *const bs[2] = {b, b};                       \
        const ctbn_ifma_mod *const ms[2] = {mod, mod};                                     \
        amm_body(1, nd, nv, rs, as, bs, ms);                                               \
    }                                                                                      \
    void ctbn_ifma_amm##nd##_x2(uint64_t *r1, const uint64_t *a1, const uint64_t *b1,      \
                                const ctbn_ifma_mod *mod1, uint64_t *r2,                   \
                                const uint64_t *a2, const uint64_t *b2,                    \
                                const ctbn_ifma_mod *mod2)                                 \
    {                                                                                      \
        uint64_t *const rs[2] = {r1, r2};                                                  \
        const uint64_t *const as[2] = {a1, a2}, *const bs[2] = {b1, b2};                   \
        const ctbn_ifma_mod *const ms[2] = {mod1, mod2};                                   \
        amm_body(2, nd, nv, rs, as, bs, ms);                                               \
    }

DEFINE_AMM(20, 3)
DEFINE_AMM(30, 4)
DEFINE_AMM(40, 5)

ctbn_ifma_amm_x1_fn *ctbn_ifma_amm_x1_for(size_t digits)
{
    switch (digits) {
    case 20:
        return ctbn_ifma_amm20_x1;
    case 30:
        return ctbn_ifma_amm30_x1;
    case 40:
        return ctbn_ifma_amm40_x1;
    default:
        return NULL;
    }
}

ctbn_ifma_amm_x2_fn *ctbn_ifma_amm_x2_for(size_t digits)
{
    switch (digits) {
    case 20:
        return ctbn_ifma_amm20_x2;
    case 30:
        return ctbn_ifma_amm30_x2;
    case 40:
        return ctbn_ifma_amm40_x2;
    default:
        return NULL;
    }
}
