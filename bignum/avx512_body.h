/*
 * The avx512 backend's AMM body, written once for two register widths (the algorithm, its
 * lane bounds and its carry schedule are in avx512.h). Included by avx512_amm_z.c with
 * AVX512_V_BITS 512 (8 lanes, -mavx512f) and by avx512_amm_y.c with 256 (4 lanes, AVX2
 * instructions only, so that valgrind runs it). Not a header of its own: no include guard,
 * every name gets the width suffix.
 *
 * Everything is always_inline with compile-time W, D and friendly: the register loops
 * unroll, every shift, lane offset and load mask is a constant.
 *
 * CT: only W, D and friendly (public) steer loops, branches, addresses and load masks; the
 * values flow through vector multiplications, additions, shifts and ANDs, and through
 * straight-line scalar arithmetic in the quotient step.
 */

#if AVX512_V_BITS == 512
#define V __m512i
#define VL 8
#define SFX(name) name##_z
#define V_ZERO() _mm512_setzero_si512()
#define V_SET1(x) _mm512_set1_epi64((long long)(x))
#define V_LANE0(x) _mm512_maskz_set1_epi64(1, (long long)(x))
#define V_LOAD(p) _mm512_load_si512((const void *)(p))
#define V_LOADU(p) _mm512_loadu_si512((const void *)(p))
/* lanes outside k read as zero and are not accessed */
#define V_LOADU_MASKZ(k, p) _mm512_maskz_loadu_epi64((__mmask8)(k), (const void *)(p))
#define V_STORE(p, x) _mm512_store_si512((void *)(p), (x))
#define V_STOREU(p, x) _mm512_storeu_si512((void *)(p), (x))
#define V_ADD(a, b) _mm512_add_epi64((a), (b))
#define V_MUL(a, b) _mm512_mul_epu32((a), (b))
#define V_AND(a, b) _mm512_and_si512((a), (b))
#define V_SRL(a, n) _mm512_srli_epi64((a), (n))
/* lane 0: prev's top lane; lane t >= 1: h's lane t - 1 */
#define V_SHIFT_IN(h, prev) _mm512_alignr_epi64((h), (prev), 7)
/* lane 0: h's top lane; the others zero */
#define V_TOP(h) _mm512_alignr_epi64(_mm512_setzero_si512(), (h), 7)
/* the even lanes of x, the odd ones zero */
#define V_EVEN(x) _mm512_maskz_mov_epi64(0x55, (x))
/* (a0, a0, a1, a1, a2, a2, a3, a3) and the same of lanes 4..7 */
#define V_SPREAD_LO(a) _mm512_permutexvar_epi64(_mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), (a))
#define V_SPREAD_HI(a) _mm512_permutexvar_epi64(_mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4), (a))
/* a * b in the lanes of the constant mask k, zero elsewhere */
#define V_MUL_MASKZ(k, a, b) _mm512_maskz_mul_epu32((__mmask8)(k), (a), (b))
#define V_FULL 0xFFu
#elif AVX512_V_BITS == 256
#define V __m256i
#define VL 4
#define SFX(name) name##_y
#define V_ZERO() _mm256_setzero_si256()
#define V_SET1(x) _mm256_set1_epi64x((long long)(x))
#define V_LANE0(x) _mm256_set_epi64x(0, 0, 0, (long long)(x))
#define V_LOAD(p) _mm256_load_si256((const __m256i *)(p))
#define V_LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
/* never needed at 4 lanes: a read shifted by at most 3 lanes stays inside the 4-lane pads
 * (the body only asks for a mask where a read would leave them; see load_shifted) */
#define V_LOADU_MASKZ(k, p) _mm256_loadu_si256((const __m256i *)(p))
#define V_STORE(p, x) _mm256_store_si256((__m256i *)(p), (x))
#define V_STOREU(p, x) _mm256_storeu_si256((__m256i *)(p), (x))
#define V_ADD(a, b) _mm256_add_epi64((a), (b))
#define V_MUL(a, b) _mm256_mul_epu32((a), (b))
#define V_AND(a, b) _mm256_and_si256((a), (b))
#define V_SRL(a, n) _mm256_srli_epi64((a), (n))
#define V_SHIFT_IN(h, prev)                                                                \
    _mm256_blend_epi32(_mm256_permute4x64_epi64((h), _MM_SHUFFLE(2, 1, 0, 3)),            \
                       _mm256_permute4x64_epi64((prev), _MM_SHUFFLE(2, 1, 0, 3)), 0x03)
#define V_TOP(h)                                                                           \
    _mm256_blend_epi32(_mm256_setzero_si256(),                                             \
                       _mm256_permute4x64_epi64((h), _MM_SHUFFLE(2, 1, 0, 3)), 0x03)
#define V_EVEN(x) _mm256_blend_epi32(_mm256_setzero_si256(), (x), 0x33)
#define V_SPREAD_LO(a) _mm256_permute4x64_epi64((a), _MM_SHUFFLE(1, 1, 0, 0))
#define V_SPREAD_HI(a) _mm256_permute4x64_epi64((a), _MM_SHUFFLE(3, 3, 2, 2))
/* the 4-bit lane mask k as a vector of all-ones / zero lanes (a constant after inlining) */
#define V_MUL_MASKZ(k, a, b)                                                               \
    _mm256_and_si256(_mm256_mul_epu32((a), (b)),                                           \
                     _mm256_set_epi64x(((k) >> 3 & 1) ? -1 : 0, ((k) >> 2 & 1) ? -1 : 0,   \
                                       ((k) >> 1 & 1) ? -1 : 0, ((k) & 1) ? -1 : 0))
#define V_FULL 0x0Fu
#else
#error "AVX512_V_BITS must be 512 or 256"
#endif

#define NV_MAX (CTBN_AVX2_MAX_DIGITS / VL)
#define PAD CTBN_AVX2_PAD

/*
 * The VL digits of span data d (digit 0 at d[0]) from digit off (public, may be negative)
 * up: digits outside [-PAD, D + PAD) (past the span's zero pads) read as zero through a
 * constant load mask, without touching memory. With VL = 4 the mask is always full (the
 * kernel's offsets stay within -3 .. D + 3).
 * CT: off and D public; the mask is a constant after inlining.
 */
ALWAYS_INLINE V SFX(load_shifted)(const uint64_t *d, long off, const size_t D)
{
    unsigned k = 0;
    for (int t = 0; t < VL; t++)
        if (off + t >= -(long)PAD && off + t < (long)(D + PAD))
            k |= 1u << t;
    if (k == V_FULL)
        return V_LOADU(d + off);
    return V_LOADU_MASKZ(k, d + off);
}

/*
 * One carry pass over nv registers x[]: each lane keeps its low W bits and gets the bits
 * above W of the lane below (the first lane nothing). Returns the top lane's high bits in
 * lane 0 of a register (zero elsewhere). CT: nv and W public; values secret.
 */
ALWAYS_INLINE V SFX(carry_pass)(const unsigned W, const size_t nv, V *x)
{
    const V mask = V_SET1(((uint64_t)1 << W) - 1);
    V prev = V_ZERO();
#pragma GCC unroll 36
    for (size_t v = 0; v < nv; v++) {
        V h = V_SRL(x[v], W);
        x[v] = V_ADD(V_AND(x[v], mask), V_SHIFT_IN(h, prev));
        prev = h;
    }
    return V_TOP(prev);
}

/*
 * The quotient step of a block: y[0..VL-1] := the quotient digits (< 2^W), *c := the carry
 * into the lane above the block. low holds the block's VL lanes with every product a_i b_j
 * of this and earlier blocks and every m_i y_j of earlier blocks; *c on entry is the carry
 * into the block's lane 0. md: digit 0 of the modulus' span. k2 = -m^-1 mod 2^(2W)
 * (generic moduli; a friendly one, m = -1 mod 2^W, does not read it).
 * CT: all values secret; straight-line code (VL and friendly public).
 */
ALWAYS_INLINE void SFX(quotients)(const unsigned W, const int friendly, V low,
                                  const uint64_t *md, uint64_t k2, uint64_t *c, uint64_t *y)
{
    _Alignas(64) uint64_t l[VL];
    V_STORE(l, low);
    const uint64_t mask = ((uint64_t)1 << W) - 1;
    uint64_t cc = *c;
    if (friendly) {
        /* y_t = s_t mod 2^W; s_t + m_0 y_t = s_t - y_t + y_t 2^W carries (s_t >> W) + y_t */
        (void)k2;
#pragma GCC unroll 8
        for (int t = 0; t < VL; t++) {
            uint64_t s = l[t] + cc;
#pragma GCC unroll 8
            for (int j = 0; j < t; j++)
                s += md[t - j] * y[j];
            y[t] = s & mask;
            cc = (s >> W) + y[t];
        }
    } else {
        /* two digits per multiplication by k2: y_t + y_(t+1) 2^W = -(s_t + s_(t+1) 2^W)
         * m^-1 mod 2^(2W), s_(t+1) taken without the carry out of lane t (it is part of
         * s_t's value); 64-bit arithmetic that may wrap (only the low 2W bits count) */
        const uint64_t mask2 = ((uint64_t)1 << (2 * W)) - 1;
#pragma GCC unroll 4
        for (int t = 0; t < VL; t += 2) {
            uint64_t s0 = l[t] + cc, s1 = l[t + 1];
#pragma GCC unroll 8
            for (int j = 0; j < t; j++) {
                s0 += md[t - j] * y[j];
                s1 += md[t + 1 - j] * y[j];
            }
            uint64_t q = ((s0 + (s1 << W)) * k2) & mask2;
            y[t] = q & mask;
            y[t + 1] = q >> W;
            cc = (s0 + md[0] * y[t]) >> W;
            cc = (s1 + cc + md[1] * y[t] + md[0] * y[t + 1]) >> W;
        }
    }
    *c = cc;
}

/*
 * The block's own products a_i b_j (i + j < VL) added to low: a read shifted by j lanes,
 * its digits below 0 zero. ad: digit 0 of a's span; B[j] = b_j broadcast.
 * CT: D public; values secret.
 */
ALWAYS_INLINE V SFX(low_products)(const size_t D, V low, const uint64_t *ad, const V *B)
{
#pragma GCC unroll 8
    for (int j = 0; j < VL; j++)
        low = V_ADD(low, V_MUL(SFX(load_shifted)(ad, -(long)j, D), B[j]));
    return low;
}

/*
 * The vector step of block k for registers v in [v0, v1]: lanes VL (k + v) .. + VL - 1 of
 * T += a b_j + m y_j (j < VL; only m y_j when ab is 0: the squaring), a and m read shifted
 * by j lanes; v = 1 (the next block's low lanes) goes to *low instead of T.
 * CT: D, ab, k, v0, v1 fix every address; values secret.
 */
ALWAYS_INLINE void SFX(accumulate)(const size_t D, const int ab, const size_t v0,
                                   const size_t v1, uint64_t *T, size_t k,
                                   const uint64_t *ad, const uint64_t *md, const V *B,
                                   const uint64_t *y, V *low)
{
    V Y[VL];
#pragma GCC unroll 8
    for (int j = 0; j < VL; j++)
        Y[j] = V_SET1(y[j]);
    uint64_t *Tk = T + VL * k;
#pragma GCC unroll 36
    for (size_t v = v0; v <= v1; v++) {
        V acc = V_LOAD(Tk + VL * v);
        V p[VL];
#pragma GCC unroll 8
        for (int j = 0; j < VL; j++) {
            p[j] = V_MUL(SFX(load_shifted)(md, (long)(VL * v) - j, D), Y[j]);
            if (ab) /* public: the AMM; the squaring has its a a products in T already */
                p[j] = V_ADD(p[j], V_MUL(SFX(load_shifted)(ad, (long)(VL * v) - j, D), B[j]));
        }
#pragma GCC unroll 8
        for (int s = VL / 2; s > 0; s /= 2)
            for (int j = 0; j < s; j++)
                p[j] = V_ADD(p[j], p[j + s]);
        acc = V_ADD(acc, p[0]);
        if (v == 1)
            *low = acc;
        else
            V_STORE(Tk + VL * v, acc);
    }
}

/*
 * The carry pass after block k (W = 29, avx512.h): lanes VL (k + 2) .. VL (k + 1) + D - 1
 * of T, its top carry added to lane VL (k + 1) + D. The lanes VL (k + 1) .. + VL - 1 (the
 * next block's low register) are left alone: its quotients have taken them.
 * CT: D and k public; values secret.
 */
ALWAYS_INLINE void SFX(mid_pass)(const unsigned W, const size_t D, uint64_t *T, size_t k)
{
    const size_t nv = D / VL - 1;
    uint64_t *Tk = T + VL * (k + 2);
    V x[NV_MAX];
#pragma GCC unroll 36
    for (size_t v = 0; v < nv; v++)
        x[v] = V_LOAD(Tk + VL * v);
    V top = SFX(carry_pass)(W, nv, x);
#pragma GCC unroll 36
    for (size_t v = 0; v < nv; v++)
        V_STORE(Tk + VL * v, x[v]);
    V_STORE(Tk + VL * nv, V_ADD(V_LOAD(Tk + VL * nv), top));
}

/* Whether the carry pass follows block k (of D / VL): every second block with W = 29, while
 * another block follows: after the odd blocks in the AMM, after the even ones in the
 * squaring (whose first window also holds the squares and row block 0; avx512.h).
 * CT: public. */
ALWAYS_INLINE int SFX(pass_after)(const unsigned W, const size_t D, const int sq, size_t k)
{
    return W == 29 && k % 2 == (sq ? 0u : 1u) && k + 1 < D / VL;
}

/*
 * The squaring's products of a with itself, each a_i a_j (i < j) once and doubled (2 a_j
 * < 2^32 still fits VPMULUDQ's 32-bit inputs), plus the a_i^2 (avx512.h).
 *
 * sq_start: S[j][x] = a_(x - j) (VL rows of D + VL lanes, zero outside a's digits, aligned:
 * the rows' loads need no mask), and T lanes 0 .. 2D := the squares a_i^2 at lanes 2i,
 * zero elsewhere. CT: D public; values secret.
 */
ALWAYS_INLINE void SFX(sq_start)(const size_t D, uint64_t *T, const uint64_t *ad,
                                 uint64_t *S)
{
    const size_t nb = D / VL, row = D + VL;
#pragma GCC unroll 8
    for (int j = 0; j < VL; j++)
#pragma GCC unroll 20
        for (size_t u = 0; u <= nb; u++)
            V_STORE(S + row * (size_t)j + VL * u,
                    SFX(load_shifted)(ad, (long)(VL * u) - j, D));
#pragma GCC unroll 20
    for (size_t u = 0; u < nb; u++) {
        V av = V_LOAD(S + VL * u);
        V lo = V_SPREAD_LO(av), hi = V_SPREAD_HI(av);
        V_STORE(T + 2 * VL * u, V_EVEN(V_MUL(lo, lo)));
        V_STORE(T + 2 * VL * u + VL, V_EVEN(V_MUL(hi, hi)));
    }
    V_STORE(T + 2 * D, V_ZERO());
}

/*
 * Row block k of the square: the digits a_j, j = VL k .. VL k + VL - 1, doubled, times the
 * shifted copies S[j], into the registers A = 2k .. k + D/VL of T (absolute register
 * index: lanes VL A ..); the pairs i <= j are cut off by constant masks in registers 2k
 * and 2k + 1 (i > j there means VL (A - 2k) + t > 2 (j - VL k) for lane t), and no
 * register below 2k has any. CT: D public, k the public block counter (trip counts and
 * addresses); values secret.
 */
ALWAYS_INLINE void SFX(sq_row_block)(const size_t D, uint64_t *T, const uint64_t *ad,
                                     const uint64_t *S, size_t k)
{
    const size_t nb = D / VL, row = D + VL;
    V B2[VL];
#pragma GCC unroll 8
    for (int j = 0; j < VL; j++)
        B2[j] = V_SET1(2 * ad[VL * k + (size_t)j]);
#pragma GCC unroll 2
    for (int e = 0; e < 2; e++) {
        size_t A = 2 * k + (size_t)e;
        V acc = V_LOAD(T + VL * A);
#pragma GCC unroll 8
        for (int j = 0; j < VL; j++) {
            unsigned msk = 0;
            for (int t = 0; t < VL; t++)
                if (VL * e + t > 2 * j)
                    msk |= 1u << t;
            if (msk != 0) /* public: a constant */
                acc = V_ADD(acc, V_MUL_MASKZ(msk, V_LOAD(S + row * (size_t)j + VL * (A - k)),
                                             B2[j]));
        }
        V_STORE(T + VL * A, acc);
    }
    for (size_t A = 2 * k + 2; A <= k + nb; A++) {
        V p[VL];
#pragma GCC unroll 8
        for (int j = 0; j < VL; j++)
            p[j] = V_MUL(V_LOAD(S + row * (size_t)j + VL * (A - k)), B2[j]);
#pragma GCC unroll 8
        for (int s = VL / 2; s > 0; s /= 2)
            for (int j = 0; j < s; j++)
                p[j] = V_ADD(p[j], p[j + s]);
        V_STORE(T + VL * A, V_ADD(V_LOAD(T + VL * A), p[0]));
    }
}

/*
 * r := AMM(a, b) modulo mod (sq = 0), or AMM(a, a) (sq = 1: b not read; the products of a
 * with itself come from sq_start and one sq_row_block per block, the blocks add only
 * m y), D digits of W bits; friendly: mod is Montgomery-friendly. CT: see avx512.h.
 */
ALWAYS_INLINE void SFX(amm_body)(const unsigned W, const size_t D, const int friendly,
                                 const int sq, uint64_t *r, const uint64_t *a,
                                 const uint64_t *b, const ctbn_avx2_mod *mod)
{
    const size_t nb = D / VL;
    const uint64_t *ad = a + PAD, *md = mod->m + PAD, *bd = sq ? ad : b + PAD;
    const uint64_t k2 = mod->k2;
    _Alignas(64) uint64_t T[2 * CTBN_AVX2_MAX_DIGITS + 2 * VL];
    V B[VL];
    uint64_t c = 0, y[VL];
    V low;
    _Alignas(64) uint64_t S[sq ? VL * (CTBN_AVX512_SQR_MAX_DIGITS + VL) : 1];
    if (sq) {
        SFX(sq_start)(D, T, ad, S);
        SFX(sq_row_block)(D, T, ad, S, 0);
        low = V_LOAD(T);
    } else {
        /* lanes VL .. 2D - 1 are read (block k reads VL (k + 1) .. VL k + D + VL - 1) */
#pragma GCC unroll 36
        for (size_t v = 1; v < 2 * nb; v++)
            V_STORE(T + VL * v, V_ZERO());
#pragma GCC unroll 8
        for (int j = 0; j < VL; j++)
            B[j] = V_SET1(bd[j]);
        low = SFX(low_products)(D, V_ZERO(), ad, B);
    }
    SFX(quotients)(W, friendly, low, md, k2, &c, y);
    for (size_t k = 0; k < nb; k++) {
        SFX(accumulate)(D, !sq, 1, 1, T, k, ad, md, B, y, &low);
        /* set below when k + 1 < nb and read only then; zeroed first because GCC at -O2
         * (Debian's package flags) cannot see that and warns (-Werror) */
        uint64_t ynext[VL] = {0};
        V Bnext[VL];
#pragma GCC unroll 8
        for (int j = 0; j < VL; j++)
            Bnext[j] = V_ZERO();
        if (k + 1 < nb) {
            if (!sq) {
#pragma GCC unroll 8
                for (int j = 0; j < VL; j++)
                    Bnext[j] = V_SET1(bd[VL * (k + 1) + (size_t)j]);
                low = SFX(low_products)(D, low, ad, Bnext);
            }
            SFX(quotients)(W, friendly, low, md, k2, &c, ynext);
            /* the squaring's next row block: registers 2k + 2 and up, which no quotient
             * step before block 2k + 2 reads; vector work beside the scalar chain */
            if (sq)
                SFX(sq_row_block)(D, T, ad, S, k + 1);
        }
        SFX(accumulate)(D, !sq, 2, nb, T, k, ad, md, B, y, &low);
        if (k + 1 < nb) {
            if (SFX(pass_after)(W, D, sq, k))
                SFX(mid_pass)(W, D, T, k);
#pragma GCC unroll 8
            for (int j = 0; j < VL; j++) {
                y[j] = ynext[j];
                if (!sq)
                    B[j] = Bnext[j];
            }
        }
    }

    /* lanes D .. 2D - 1: low (with c into its lane 0), then T; a and b are fully read, so
     * r may now overwrite them */
    V x[NV_MAX];
    x[0] = V_ADD(low, V_LANE0(c));
#pragma GCC unroll 36
    for (size_t v = 1; v < nb; v++)
        x[v] = V_LOAD(T + D + VL * v);
    SFX(carry_pass)(W, nb, x);
    SFX(carry_pass)(W, nb, x);
    for (size_t i = 0; i < PAD; i++)
        r[i] = r[PAD + D + i] = 0;
#pragma GCC unroll 36
    for (size_t v = 0; v < nb; v++)
        V_STOREU(r + PAD + VL * v, x[v]);
}

/*
 * The kernels of one width, instantiated once by the file that includes this body
 * (AVX512_KERNELS(_z) in avx512_amm_z.c, AVX512_KERNELS(_y) in avx512_amm_y.c): for each
 * (W, D) of the table in avx512.h an AMM and a squaring, for a plain and a friendly
 * modulus, and the selectors ctbn_avx512_amm_for##sfx / ctbn_avx512_sqr_for##sfx
 * (contracts in avx512.h). CT: the selectors see only D and friendly (public).
 */
#define AVX512_AMM(W, D, sfx)                                                              \
    static void amm##D##sfx(uint64_t *r, const uint64_t *a, const uint64_t *b,             \
                            const ctbn_avx2_mod *mod)                                      \
    {                                                                                      \
        amm_body##sfx(W, D, 0, 0, r, a, b, mod);                                           \
    }                                                                                      \
    static void amm##D##f##sfx(uint64_t *r, const uint64_t *a, const uint64_t *b,          \
                               const ctbn_avx2_mod *mod)                                   \
    {                                                                                      \
        amm_body##sfx(W, D, 1, 0, r, a, b, mod);                                           \
    }
#define AVX512_SQR(W, D, sfx)                                                              \
    static void sqr##D##sfx(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)      \
    {                                                                                      \
        amm_body##sfx(W, D, 0, 1, r, a, a, mod);                                           \
    }                                                                                      \
    static void sqr##D##f##sfx(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)   \
    {                                                                                      \
        amm_body##sfx(W, D, 1, 1, r, a, a, mod);                                           \
    }
/* The body of a selector: the kernel of that kind (amm, sqr) for D digits, friendly or not;
 * NULL for any other D. */
#define AVX512_SELECT(kind, sfx)                                                           \
    switch (digits) {                                                                      \
    case 40:                                                                               \
        return friendly ? kind##40f##sfx : kind##40##sfx;                                  \
    case 56:                                                                               \
        return friendly ? kind##56f##sfx : kind##56##sfx;                                  \
    case 72:                                                                               \
        return friendly ? kind##72f##sfx : kind##72##sfx;                                  \
    default:                                                                               \
        return NULL;                                                                       \
    }
#define AVX512_KERNELS(sfx)                                                                \
    AVX512_AMM(28, 40, sfx)                                                                \
    AVX512_AMM(28, 56, sfx)                                                                \
    AVX512_AMM(29, 72, sfx)                                                                \
    AVX512_SQR(28, 40, sfx)                                                                \
    AVX512_SQR(28, 56, sfx)                                                                \
    AVX512_SQR(29, 72, sfx)                                                                \
                                                                                           \
    ctbn_avx2_amm_x1_fn *ctbn_avx512_amm_for##sfx(size_t digits, int friendly)             \
    {                                                                                      \
        AVX512_SELECT(amm, sfx)                                                            \
    }                                                                                      \
                                                                                           \
    ctbn_avx2_sqr_fn *ctbn_avx512_sqr_for##sfx(size_t digits, int friendly)                \
    {                                                                                      \
        AVX512_SELECT(sqr, sfx)                                                            \
    }

#undef V
#undef VL
#undef SFX
#undef V_ZERO
#undef V_SET1
#undef V_LANE0
#undef V_LOAD
#undef V_LOADU
#undef V_LOADU_MASKZ
#undef V_STORE
#undef V_STOREU
#undef V_ADD
#undef V_MUL
#undef V_AND
#undef V_SRL
#undef V_SHIFT_IN
#undef V_TOP
#undef V_FULL
#undef V_MUL_MASKZ
#undef V_SPREAD_HI
#undef V_SPREAD_LO
#undef V_EVEN
#undef NV_MAX
#undef PAD
