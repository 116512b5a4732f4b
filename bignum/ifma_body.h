/*
 * The IFMA kernel bodies, written once for two register widths: ifma_amm.c includes this
 * file twice, with IFMA_V_BITS 512 (zmm, 8 digits per register) and 256 (ymm, 4 digits per
 * register). Not a header of its own: no include guard, every name gets the width suffix.
 *
 * Why two widths: on this CPU (AMD Zen 4) a 512-bit vpmadd52luq/huq issues once per cycle
 * and a 256-bit one twice per cycle (measured: 0.71 vs 0.35 TSC ticks per independent
 * instruction, latency 4 cycles for both), so the digit-products per cycle are the same and
 * only the lanes wasted on padding differ: 20 digits fill 5 ymm registers exactly but 3 zmm
 * registers hold 24 lanes (20% of the multiplications are on zero padding). 30 and 40
 * digits pad to 32 and 40 lanes either way and use zmm (half the instructions to issue).
 * The "ifmaz" backend also instantiates 10 and 20 digits on zmm (2 and 3 registers, 6 and
 * 4 padding lanes), for cores whose zmm IFMA issues at the ymm rate (ifma_amm.c).
 *
 * Everything here is always_inline and called with compile-time nc, nd, nv: every register
 * array is unrolled into registers, every mask and lane shift is a constant.
 *
 * CT: only nc, nd, nv (public sizes) steer loops and branches; the values only flow through
 * vector arithmetic, compare masks used as data, and masked additions.
 */

#if IFMA_V_BITS == 512
#define V __m512i
#define VL 8
#define SFX(name) name##_z
#define V_ZERO() _mm512_setzero_si512()
#define V_SET1(x) _mm512_set1_epi64((long long)(x))
#define V_LOAD(p) _mm512_load_si512((const void *)(p))
#define V_STORE(p, x) _mm512_store_si512((void *)(p), (x))
#define V_LO(acc, a, b) _mm512_madd52lo_epu64((acc), (a), (b))
#define V_HI(acc, a, b) _mm512_madd52hi_epu64((acc), (a), (b))
#define V_MLO(acc, k, a, b) _mm512_mask_madd52lo_epu64((acc), (k), (a), (b))
#define V_MHI(acc, k, a, b) _mm512_mask_madd52hi_epu64((acc), (k), (a), (b))
#define V_ADD(a, b) _mm512_add_epi64((a), (b))
#define V_MADD(src, k, a, b) _mm512_mask_add_epi64((src), (k), (a), (b))
#define V_AND(a, b) _mm512_and_si512((a), (b))
#define V_SRL(a, n) _mm512_srli_epi64((a), (n))
#define V_SLL(a, n) _mm512_slli_epi64((a), (n))
#define V_ALIGNR(hi, lo, n) _mm512_alignr_epi64((hi), (lo), (n))
#define V_GT(a, b) ((uint64_t)_mm512_cmpgt_epu64_mask((a), (b)))
#define V_EQ(a, b) ((uint64_t)_mm512_cmpeq_epu64_mask((a), (b)))
#define V_BCAST0(a) _mm512_broadcastq_epi64(_mm512_castsi512_si128(a))
#define V_BCAST128(x) _mm512_broadcastq_epi64(x)
#define V_TO128(a) _mm512_castsi512_si128(a)
#define V_FROM128(x) _mm512_zextsi128_si512(x)
#define V_PERM2(a, idx, b) _mm512_permutex2var_epi64((a), (idx), (b))
/* lanes (lo0, hi0, lo1, hi1, ...) of the low and high half of two registers */
#define V_IDX_EVEN() _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0)
#define V_IDX_ODD() _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4)
#define V_FULL 0xFF
#elif IFMA_V_BITS == 256
#define V __m256i
#define VL 4
#define SFX(name) name##_y
#define V_ZERO() _mm256_setzero_si256()
#define V_SET1(x) _mm256_set1_epi64x((long long)(x))
#define V_LOAD(p) _mm256_load_si256((const void *)(p))
#define V_STORE(p, x) _mm256_store_si256((void *)(p), (x))
#define V_LO(acc, a, b) _mm256_madd52lo_epu64((acc), (a), (b))
#define V_HI(acc, a, b) _mm256_madd52hi_epu64((acc), (a), (b))
#define V_MLO(acc, k, a, b) _mm256_mask_madd52lo_epu64((acc), (k), (a), (b))
#define V_MHI(acc, k, a, b) _mm256_mask_madd52hi_epu64((acc), (k), (a), (b))
#define V_ADD(a, b) _mm256_add_epi64((a), (b))
#define V_MADD(src, k, a, b) _mm256_mask_add_epi64((src), (k), (a), (b))
#define V_AND(a, b) _mm256_and_si256((a), (b))
#define V_SRL(a, n) _mm256_srli_epi64((a), (n))
#define V_SLL(a, n) _mm256_slli_epi64((a), (n))
#define V_ALIGNR(hi, lo, n) _mm256_alignr_epi64((hi), (lo), (n))
#define V_GT(a, b) ((uint64_t)_mm256_cmpgt_epu64_mask((a), (b)))
#define V_EQ(a, b) ((uint64_t)_mm256_cmpeq_epu64_mask((a), (b)))
#define V_BCAST0(a) _mm256_broadcastq_epi64(_mm256_castsi256_si128(a))
#define V_BCAST128(x) _mm256_broadcastq_epi64(x)
#define V_TO128(a) _mm256_castsi256_si128(a)
#define V_FROM128(x) _mm256_zextsi128_si256(x)
#define V_PERM2(a, idx, b) _mm256_permutex2var_epi64((a), (idx), (b))
#define V_IDX_EVEN() _mm256_set_epi64x(5, 1, 4, 0)
#define V_IDX_ODD() _mm256_set_epi64x(7, 3, 6, 2)
#define V_FULL 0x0F
#else
#error "IFMA_V_BITS must be 512 or 256"
#endif

/* The most registers a kernel uses: 40 digits in 4-lane registers, 80 in 8-lane ones. */
#define NV_MAX 10

/*
 * Normalize the nv registers x[] (unnormalized digits below 2^63, value < 2^(52 VL nv)) to
 * digits < 2^52. Pass 1 moves every lane's bits above 52 one lane up: lanes become
 * < 2^52 + 2^11, so each lane now carries at most 1. Pass 2 resolves those carries at once
 * like a carry look-ahead adder whose "bits" are lanes: generate = lane > 2^52-1,
 * propagate = lane == 2^52-1; the lanes receiving a carry are ((g << 1) + p) ^ p
 * (in 64 bits up to 64 lanes, in 128 bits for the 64 and 80 lanes of 60 and 80 digits).
 * CT: the carry masks are data; they only feed integer arithmetic and masked adds.
 */
ALWAYS_INLINE void SFX(normalize)(V *x, int nv)
{
    const V mask = V_SET1(CTBN_IFMA_MASK52);
    const V zero = V_ZERO();
    V hi[NV_MAX];
#pragma GCC unroll 10
    for (int v = 0; v < nv; v++) {
        hi[v] = V_SRL(x[v], 52);
        x[v] = V_AND(x[v], mask);
    }
#pragma GCC unroll 10
    for (int v = 0; v < nv; v++)
        x[v] = V_ADD(x[v], V_ALIGNR(hi[v], v ? hi[v - 1] : zero, VL - 1));

    const V one = V_SET1(1);
    if (VL * nv <= 64) { /* public: one 64-bit word holds a bit per lane */
        uint64_t g = 0, p = 0;
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            g |= V_GT(x[v], mask) << (VL * v);
            p |= V_EQ(x[v], mask) << (VL * v);
        }
        uint64_t cin = ((g << 1) + p) ^ p;
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            __mmask8 k = (__mmask8)((cin >> (VL * v)) & V_FULL);
            x[v] = V_AND(V_MADD(x[v], k, x[v], one), mask);
        }
    } else { /* 60 and 80 digits: up to 128 lanes, the same look-ahead on 128 bits */
        unsigned __int128 g = 0, p = 0;
#pragma GCC unroll 16
        for (int v = 0; v < nv; v++) {
            g |= (unsigned __int128)V_GT(x[v], mask) << (VL * v);
            p |= (unsigned __int128)V_EQ(x[v], mask) << (VL * v);
        }
        unsigned __int128 cin = ((g << 1) + p) ^ p;
#pragma GCC unroll 16
        for (int v = 0; v < nv; v++) {
            __mmask8 k = (__mmask8)((uint64_t)(cin >> (VL * v)) & V_FULL);
            x[v] = V_AND(V_MADD(x[v], k, x[v], one), mask);
        }
    }
}

/* Zero the pad lanes of r past the nv registers, up to CTBN_IFMA_LANES(nd) (ymm: 20 digits
 * fill 5 registers, the contract's 24 lanes want 4 more zeros). CT: public sizes only. */
ALWAYS_INLINE void SFX(store_pad)(uint64_t *r, int nd, int nv)
{
#pragma GCC unroll 2
    for (int v = nv; v < (int)CTBN_IFMA_LANES(nd) / VL; v++)
        V_STORE(r + VL * v, V_ZERO());
}

/* r := x (nv registers, unnormalized digits below 2^63) normalized, with the pad lanes up
 * to CTBN_IFMA_LANES(nd) zero. CT: public sizes only steer. */
ALWAYS_INLINE void SFX(store_result)(uint64_t *r, V *x, int nd, int nv)
{
    SFX(normalize)(x, nv);
#pragma GCC unroll 10
    for (int v = 0; v < nv; v++)
        V_STORE(r + VL * v, x[v]);
    SFX(store_pad)(r, nd, nv);
}

/*
 * One Montgomery reduction step on the accumulator x (nv registers, lane j = digit i + j):
 * q := lo52(x_0 k0), x += q M (lo halves in place, hi halves one digit up), then x shifts
 * down one lane; lane 0 was c 2^52 exactly and c goes into the new lane 0.
 * h holds high halves already made for the same step (zero for the squaring's reduction,
 * its only caller: the AMM has its own step), added after the shift.
 * CT: data only.
 */
ALWAYS_INLINE void SFX(reduce_step)(V *x, V *h, V q, const V *mv, int nv)
{
    const V zero = V_ZERO();
#pragma GCC unroll 10
    for (int v = 0; v < nv; v++) {
        x[v] = V_LO(x[v], q, mv[v]);
        h[v] = V_HI(h[v], q, mv[v]);
    }
    V carry = V_SRL(x[0], 52);
#pragma GCC unroll 10
    for (int v = 0; v < nv; v++)
        x[v] = V_ADD(V_ALIGNR(v + 1 < nv ? x[v + 1] : zero, x[v], 1), h[v]);
    x[0] = V_MADD(x[0], 1, x[0], carry);
}

/*
 * AMM for nc (1 or 2) independent products of nd digits in nv registers each, in the
 * textbook order (the fewest instructions; amm_short_body below has the shorter chains).
 *
 * Operand scanning, one digit a_i of a per step, nd steps:
 *   q  := (X_0 + a_i b_0) k0 mod 2^52        k0 = -m^-1 mod 2^52
 *   X  += lo52(a_i B) + lo52(q M)            now X_0 = c 2^52 exactly
 *   X  := X >> one lane (+ c into lane 0)
 *   X  += hi52(a_i B) + hi52(q M)            the high halves belong one digit up
 * q is computed as lo52(X_0 k0) + lo52(a_i lo52(b_0 k0)) (mod 2^52, by linearity): the
 * second term does not depend on X, so all nd of them are made before the loop (nv
 * multiplications instead of one per step, kept in a stack array that the stack scrub of
 * private operations and key generation covers), and vpmadd52luq ignores the bits of q
 * above 52 when q is used.
 *
 * The high halves of registers 1 .. nv - 1 go straight into the shifted accumulator; those
 * of register 0, whose lane 0 feeds the next q, go into a fresh register added after the
 * shift, so that the q path waits for one vpmadd52luq, the lane shift and one addition per
 * step instead of two dependent vpmadd52huq. Two chains (nc = 2) run in the same loop so
 * that one's latency hides behind the other's multiplications. (The earlier form sent every
 * high half through a fresh register: nv more additions per step, and more live registers
 * than the 32 there are; on Sapphire Rapids its x2 kernels took 397 / 666 / 1085 TSC ticks
 * at nd = 20 / 30 / 40 against 380 / 662 / 948 for this one.)
 *
 * Lane bounds: each step adds less than 4 * 2^52 + 2^12 to a lane, a lane lives at most nd
 * steps (nd <= 80), so lanes stay below 320 * 2^52 + 80 * 2^12 < 2^61: no 64-bit overflow.
 */
ALWAYS_INLINE void SFX(amm_body)(int nc, int nd, int nv, uint64_t *const r[2],
                                 const uint64_t *const a[2], const uint64_t *const b[2],
                                 const ctbn_ifma_mod *const mod[2])
{
    const V zero = V_ZERO();
    V x[2][NV_MAX], bv[2][NV_MAX], mv[2][NV_MAX], k0v[2];
    /* ak[c][i] = lo52(a_i lo52(b_0 k0)): the part of each q that a and b fix in advance */
    _Alignas(64) uint64_t ak[2][CTBN_IFMA_MAX_LANES];

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
        k0v[c] = V_SET1(mod[c]->k0);
        const V b0k0 = V_SET1((b[c][0] * mod[c]->k0) & CTBN_IFMA_MASK52);
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            x[c][v] = zero;
            bv[c][v] = V_LOAD(b[c] + VL * v);
            mv[c][v] = V_LOAD(mod[c]->m + VL * v);
            V_STORE(ak[c] + VL * v, V_LO(zero, V_LOAD(a[c] + VL * v), b0k0));
        }
    }

    for (int i = 0; i < nd; i++) {
        V av[2], q[2], h0[2];
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            av[c] = V_SET1(a[c][i]);
            q[c] = V_BCAST0(V_LO(V_SET1(ak[c][i]), x[c][0], k0v[c]));
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                x[c][v] = V_LO(x[c][v], av[c], bv[c][v]);
            h0[c] = V_HI(zero, av[c], bv[c][0]);
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                x[c][v] = V_LO(x[c][v], q[c], mv[c][v]);
            h0[c] = V_HI(h0[c], q[c], mv[c][0]);
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            V carry = V_SRL(x[c][0], 52); /* lane 0 is c 2^52 exactly */
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                x[c][v] = V_ALIGNR(v + 1 < nv ? x[c][v + 1] : zero, x[c][v], 1);
            x[c][0] = V_ADD(x[c][0], h0[c]);
            x[c][0] = V_MADD(x[c][0], 1, x[c][0], carry);
#pragma GCC unroll 10
            for (int v = 1; v < nv; v++)
                x[c][v] = V_HI(V_HI(x[c][v], av[c], bv[c][v]), q[c], mv[c][v]);
        }
    }

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++)
        SFX(store_result)(r[c], x[c], nd, nv);
}

/*
 * AMM for nc (1 or 2) independent products of nd digits in nv registers each.
 *
 * Operand scanning, one digit a_i of a per step, nd steps, with the same quotients and
 * result as amm_body (above). There every register passes through four dependent vpmadd52
 * and a lane shift per step, and the quotient waits for all of them, which bounds a kernel
 * wherever it waits on latency rather than issue (every single product on Zen 4; the
 * two-half ones on Zen 5: docs/kernels.md). Here each step is instead
 *
 *   Y := X + lo52(q_i M)                                 one vpmadd52 on the chain
 *   H := lo52(a_(i+1) B) + hi52(a_i B) + hi52(q_i M)     a fresh register per lane group
 *   X := (Y >> one lane) + H + c_i (lane 0)              lane shift and one addition
 *
 * so a register's chain per step is vpmadd52, lane shift, addition; the products of a
 * that do not wait for q are made in H beside it. X already holds lo52(a_i B) when step i
 * starts (X of step 0 is lo52(a_0 B)).
 *
 * The quotient chain is shortened twice:
 * - the carry c_i out of digit i is ceil(X_0 / 2^52), taken before q_i is known: X_0 +
 *   lo52(q_i m_0) is a multiple of 2^52 for the right q_i and lo52(.) < 2^52;
 * - digit i + 1, from which q_(i+1) comes, is lane 1 of Y_0 plus lane 0 of H_0 plus c_i,
 *   read with an in-lane 128-bit unpack of the unshifted Y_0 instead of through the lane
 *   shift; q_(i+1) = lo52(that k0), in a 128-bit vpmadd52luq, then broadcast. Only the low
 *   52 bits of a quotient matter: vpmadd52 ignores the rest, and lo52(x k0) depends on
 *   x mod 2^52 only.
 * Two chains (nc = 2) run in the same loop so that one's latency hides behind the other's
 * multiplications.
 *
 * Lane bounds: each step adds less than 4 * 2^52 + 2^12 to a lane, a lane lives at most nd
 * steps (nd <= 80), so lanes stay below 320 * 2^52 + 80 * 2^12 < 2^61: no 64-bit overflow,
 * and ceil's x + 2^52 - 1 cannot overflow either. Lane 0 of Y_0, which holds c_i 2^52,
 * is shifted out unread.
 * CT: only nc, nd, nv steer; a, b, q, the carries and m flow through vector arithmetic.
 */
ALWAYS_INLINE void SFX(amm_short_body)(int nc, int nd, int nv, uint64_t *const r[2],
                                 const uint64_t *const a[2], const uint64_t *const b[2],
                                 const ctbn_ifma_mod *const mod[2])
{
    const V zero = V_ZERO();
    const __m128i zero128 = _mm_setzero_si128();
    const __m128i ceil_bias = _mm_set1_epi64x((long long)CTBN_IFMA_MASK52);
    V x[2][NV_MAX], bv[2][NV_MAX], mv[2][NV_MAX];
    __m128i k0v[2], d[2]; /* d: lane 0 is the digit the next quotient is made from */

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
        k0v[c] = _mm_set1_epi64x((long long)mod[c]->k0);
        const V a0 = V_SET1(a[c][0]);
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            bv[c][v] = V_LOAD(b[c] + VL * v);
            mv[c][v] = V_LOAD(mod[c]->m + VL * v);
            x[c][v] = V_LO(zero, a0, bv[c][v]);
        }
        d[c] = V_TO128(x[c][0]);
    }

    for (int i = 0; i < nd; i++) {
        const int more = i + 1 < nd; /* public: the last step has no a_(i+1) */
        V q[2], ai[2], an[2];
        __m128i carry[2];
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            q[c] = V_BCAST128(_mm_madd52lo_epu64(zero128, d[c], k0v[c]));
            carry[c] = _mm_srli_epi64(_mm_add_epi64(d[c], ceil_bias), 52);
            ai[c] = V_SET1(a[c][i]);
            an[c] = V_SET1(a[c][i + more]);
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                x[c][v] = V_LO(x[c][v], q[c], mv[c][v]);
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            V h[NV_MAX];
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++) {
                const V lo_next = more ? V_LO(zero, an[c], bv[c][v]) : zero;
                h[v] = V_HI(V_HI(lo_next, ai[c], bv[c][v]), q[c], mv[c][v]);
            }
            const __m128i y01 = V_TO128(x[c][0]);
            d[c] = _mm_add_epi64(_mm_add_epi64(_mm_unpackhi_epi64(y01, y01), V_TO128(h[0])),
                                 carry[c]);
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                x[c][v] = V_ADD(V_ALIGNR(v + 1 < nv ? x[c][v + 1] : zero, x[c][v], 1), h[v]);
            x[c][0] = V_MADD(x[c][0], 1, x[c][0], V_FROM128(carry[c]));
        }
    }

#pragma GCC unroll 2
    for (int c = 0; c < nc; c++)
        SFX(store_result)(r[c], x[c], nd, nv);
}

/* (hi : lo) >> (VL - l) lanes, i.e. lo's last l lanes then hi's first VL - l: the digits
 * of a register pair moved up by l lanes. l public, 0 < l < VL; literal immediates. */
ALWAYS_INLINE V SFX(shift_up)(V hi, V lo, int l)
{
    switch (VL - l) {
    case 1:
        return V_ALIGNR(hi, lo, 1);
    case 2:
        return V_ALIGNR(hi, lo, 2);
    case 3:
        return V_ALIGNR(hi, lo, 3);
    case 4:
        return V_ALIGNR(hi, lo, 4);
    case 5:
        return V_ALIGNR(hi, lo, 5);
    case 6:
        return V_ALIGNR(hi, lo, 6);
    default:
        return V_ALIGNR(hi, lo, 7);
    }
}

/* The write mask of register w for digit positions >= from: lanes VL w + t >= from. */
ALWAYS_INLINE __mmask8 SFX(mask_from)(int w, int from)
{
    int sh = from - VL * w;
    return (__mmask8)(sh <= 0 ? V_FULL : sh >= VL ? 0 : (V_FULL << sh) & V_FULL);
}

/*
 * Off-diagonal half of a square: t (2 nv registers, absolute digit positions, lane t of
 * register w = digit VL w + t) := sum over i < j of a_i a_j 2^(52 (i + j)), unnormalized.
 *
 * Rows at absolute positions, no shifting accumulator: s[l] is a moved up by l lanes
 * (nv + 1 registers), made once with VL (nv + 1) lane shifts; row i (l = i mod VL, base
 * register i / VL) multiplies a_i by s[l] for the lo halves (digit i + j) and by s[l + 1]
 * for the hi halves (digit i + j + 1), so both land in t directly. j > i is the constant
 * write mask "position > 2i" (lo) or "> 2i + 1" (hi); registers with no such lane, or past
 * the row's last digit, are skipped (public decisions).
 * Each t lane receives at most nd lo and nd hi halves: < 2 nd 2^52 <= 80 * 2^52.
 * CT: public sizes only steer; the digits flow through vpmadd52 and lane shifts.
 */
ALWAYS_INLINE void SFX(sqr_offdiag)(V *t, const V *av, const uint64_t *a, int nd, int nv)
{
    const V zero = V_ZERO();
    V s[VL][NV_MAX + 1];
#pragma GCC unroll 11
    for (int u = 0; u <= nv; u++) {
        V hi = u < nv ? av[u] : zero, lo = u ? av[u - 1] : zero;
        s[0][u] = hi;
#pragma GCC unroll 8
        for (int l = 1; l < VL; l++)
            s[l][u] = SFX(shift_up)(hi, lo, l);
    }
#pragma GCC unroll 20
    for (int w = 0; w < 2 * nv; w++)
        t[w] = zero;
#pragma GCC unroll 40
    for (int i = 0; i < nd; i++) {
        const int l = i % VL, b = i / VL;
        const V ai = V_SET1(a[i]);
#pragma GCC unroll 11
        for (int u = 0; u <= nv; u++) {
            const int w = b + u; /* lo: s[l][u] at register w */
            const __mmask8 k = SFX(mask_from)(w, 2 * i + 1);
            if (k != 0 && VL * w <= i + nd - 1 && w < 2 * nv) /* public */
                t[w] = V_MLO(t[w], k, ai, s[l][u]);
        }
#pragma GCC unroll 11
        for (int u = 0; u <= nv; u++) {
            /* hi: a moved up by l + 1 lanes: s[l + 1][u] at w = b + u, or s[0][u] one
             * register further when l + 1 == VL */
            const int w = l + 1 < VL ? b + u : b + 1 + u;
            const V m = l + 1 < VL ? s[(l + 1) % VL][u] : s[0][u];
            const __mmask8 k = SFX(mask_from)(w, 2 * i + 2);
            if (k != 0 && VL * w <= i + nd && w < 2 * nv) /* public */
                t[w] = V_MHI(t[w], k, ai, m);
        }
    }
}

/*
 * Almost-Montgomery squaring (AMS) for nc (1 or 2) independent squares: the same result
 * contract as the AMM with b = a, with about a fifth fewer vpmadd52 instructions.
 *
 * 1. T' := the off-diagonal products, each once (sqr_offdiag), into 2 nv registers at
 *    absolute digit positions: T_lo = registers 0 .. nv - 1, T_hi = nv .. 2 nv - 1.
 * 2. T := 2 T' + sum a_j^2 2^(104 j): every register doubled, then the diagonal products,
 *    computed for all lanes at once (lo52 and hi52 of a_j a_j) and interleaved into digit
 *    2j (lo) and 2j + 1 (hi) with two lane permutations per register of a.
 * 3. Montgomery reduction of T_lo alone by nd steps of reduce_step (q from lane 0, zeros
 *    shifted in at the top), which leaves lane j = digit nd + j of (T_lo + Q m) / R'; then
 *    T_hi, whose digit VL nv + k belongs at lane VL nv - nd + k, is added with a constant
 *    lane shift. The reduction is linear, so the sum is (T + Q m) / R' with Q < R' the
 *    unique value making T + Q m divisible by R' (the same Q, hence the same result, as the
 *    AMM's): for a < 2m, T < 4 m^2 and the result is < 4 m^2 / R' + m < 2m as R' > 4m
 *    (ifma.h). The digits T_lo holds above nd (lanes nd .. VL nv - 1) simply ride along.
 * 4. normalize.
 *
 * Lane bounds: after step 1 a lane is < 80 * 2^52; doubled, < 160 * 2^52, plus 2 * 2^52
 * for the diagonal; the reduction adds at most 2 nd * 2^52 + 2^12 to a lane it touches
 * (< 80 * 2^52 + 2^12), and T_hi adds < 162 * 2^52: every lane stays below 410 * 2^52 <
 * 2^61, far from 64-bit overflow and within normalize's 2^63.
 */
ALWAYS_INLINE void SFX(ams_body)(int nc, int nd, int nv, uint64_t *const r[2],
                                 const uint64_t *const a[2], const ctbn_ifma_mod *const mod[2])
{
    const V zero = V_ZERO();
    V t[2][2 * NV_MAX];

    /* 1, 2: T for each square in turn (no dependency chain to hide: rows are independent) */
    const V idx_even = V_IDX_EVEN(), idx_odd = V_IDX_ODD();
#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
        V av[NV_MAX];
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++)
            av[v] = V_LOAD(a[c] + VL * v);
        SFX(sqr_offdiag)(t[c], av, a[c], nd, nv);
#pragma GCC unroll 20
        for (int w = 0; w < 2 * nv; w++)
            t[c][w] = V_ADD(t[c][w], t[c][w]);
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            V dlo = V_LO(zero, av[v], av[v]);
            V dhi = V_HI(zero, av[v], av[v]);
            /* digits 2 VL v .. 2 VL v + 2 VL - 1: registers 2v and 2v + 1 of T */
            t[c][2 * v] = V_ADD(t[c][2 * v], V_PERM2(dlo, idx_even, dhi));
            t[c][2 * v + 1] = V_ADD(t[c][2 * v + 1], V_PERM2(dlo, idx_odd, dhi));
        }
    }

    /* 3. reduce T_lo by nd steps, then add T_hi shifted up by s lanes */
    V mv[2][NV_MAX];
#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++)
            mv[c][v] = V_LOAD(mod[c]->m + VL * v);
    }
    V k0v[2];
#pragma GCC unroll 2
    for (int c = 0; c < nc; c++)
        k0v[c] = V_SET1(mod[c]->k0);
    for (int i = 0; i < nd; i++) {
        V q[2], h[2][NV_MAX];
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++) {
            q[c] = V_BCAST0(V_LO(zero, t[c][0], k0v[c]));
#pragma GCC unroll 10
            for (int v = 0; v < nv; v++)
                h[c][v] = zero;
        }
#pragma GCC unroll 2
        for (int c = 0; c < nc; c++)
            SFX(reduce_step)(t[c], h[c], q[c], mv[c], nv);
    }
    const int s = VL * nv - nd; /* 0, 2, 4 or 6 (10 digits on zmm): public */
#pragma GCC unroll 2
    for (int c = 0; c < nc; c++) {
#pragma GCC unroll 10
        for (int v = 0; v < nv; v++) {
            /* lane t of the result register v: T_hi digit VL v + t - s */
            V th = t[c][nv + v], prev = v ? t[c][nv + v - 1] : zero;
            t[c][v] = V_ADD(t[c][v], s == 0 ? th : SFX(shift_up)(th, prev, s));
        }
        SFX(store_result)(r[c], t[c], nd, nv);
    }
}

#undef V
#undef VL
#undef SFX
#undef V_ZERO
#undef V_SET1
#undef V_LOAD
#undef V_STORE
#undef V_LO
#undef V_HI
#undef V_MLO
#undef V_MHI
#undef V_ADD
#undef V_MADD
#undef V_AND
#undef V_SRL
#undef V_SLL
#undef V_ALIGNR
#undef V_GT
#undef V_EQ
#undef V_BCAST0
#undef V_BCAST128
#undef V_TO128
#undef V_FROM128
#undef V_PERM2
#undef V_IDX_EVEN
#undef V_IDX_ODD
#undef V_FULL
#undef NV_MAX
