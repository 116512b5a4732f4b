/*
 * The public-exponent path on the AVX2 kernels (the modexp_public_vartime hook of
 * backend.h; contract in avx2.h): verify, encrypt, the private operation's fault check and
 * the blinding set-up, by left-to-right square-and-multiply over the bits of a PUBLIC
 * exponent with the almost-Montgomery kernels (ctbn_avx2_amm*_x1, radix 2^W, D digits).
 * The structure is the IFMA backend's (ifma_exp_public.c).
 *
 * Into the domain of R' = 2^(W D) by one AMM with R'^2 mod m, which the context does not
 * hold: it holds X = R^2 mod m = 2^(128 n) mod m (radix 2^64). R'^2 = X 2^(2 W D - 128 n)
 * mod m, 40 to 160 doublings of X (ctbn_avx2_mod_init does them one by one, which measured
 * slower than the whole exponentiation's gain: table below; so did the IFMA path's entry
 * by three AMMs, AMM(AMM(b, X), AMM(X, 2^(4 W D - 256 n))). Here they go by steps of up
 * to 60 bits (ctbn_avx2_mul_pow2_mod: shift, one quotient digit by a constant-time
 * division, one multiply-subtract), one to three steps, and two conditional subtractions
 * at the end.
 *
 * Out of it in the last multiplication, as the generic path does (exp_public_vartime.c):
 * when the last bit of e is set (always, for odd RSA exponents) it multiplies by b in
 * normal form, AMM(b^k R', b) = b^(k+1) mod m, below 1.5 m (b^k R' b / R' + m with
 * b^k R' < 2m, b < m, R' > 4m); an even e ends with an AMM by 1 (<= m). The carries are
 * propagated into n + 1 limbs: limb n (0 or 1) is the bit above r's limbs, the carry handed
 * to ctbn_csub_mod, so the result is fully reduced, identical to the generic path.
 * For e = 65537: 1 AMM in, 16 squarings, 1 multiplication out (18 AMMs, against 18 ADX
 * Montgomery multiplications on the generic path).
 *
 * The values derived from b (which may be secret: an encryption block, a blinding value,
 * the private result under its fault check) live on this stack frame and are wiped.
 *
 * CT: branches and the operation sequence depend on the bits of e and en (public) and on
 * n; b and m only flow through the conversions (fixed trip counts) and the AMM kernels
 * (constant time in the data, avx2_amm.c), the carry of the last step through
 * ctbn_csub_mod.
 */
#include <immintrin.h>
#include <string.h>

#include "avx2.h"

/* Zero len bytes at p, not dropped as dead stores. CT: len is public. */
static void wipe(void *p, size_t len)
{
    memset(p, 0, len);
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Bit i of e (public). */
static int ebit(const ctbn_limb *e, size_t i)
{
    return (int)((e[i / 64] >> (i % 64)) & 1);
}

/* The span of 1 (digit 0 is 1): the multiplier that leaves the domain for an even e. */
static const _Alignas(32) uint64_t one_span[CTBN_AVX2_MAX_SPAN] = {[CTBN_AVX2_PAD] = 1};

/*
 * floor((hi 2^64 + lo) / d) for d >= 2^63 and hi < 2^s (s <= 62, public: the quotient is
 * below 2^(s+1)), by restoring division over the s + 1 low bits of lo, one at a time.
 * CT: all values secret; s + 1 fixed steps, the comparisons are masks.
 */
static uint64_t div_ct(uint64_t hi, uint64_t lo, uint64_t d, unsigned s)
{
    uint64_t q = 0, r = (hi << (63 - s)) | (lo >> (s + 1)); /* < 2^63 <= d */
    for (int i = (int)s; i >= 0; i--) {
        /* t = 2r + bit - d, in (-2^64, 2^64) as r < d: its high half is the all-ones mask
         * of "below d" (keep 2r + bit = t + d) or zero (take t) */
        unsigned __int128 t = ((unsigned __int128)r << 1 | ((lo >> i) & 1)) - d;
        ctbn_mask below = (ctbn_mask)(t >> 64);
        r = (uint64_t)t + (d & below);
        q |= (~below & 1) << i;
    }
    return q;
}

/*
 * ctbn_avx2_mul_pow2_mod (contract in avx2.h). The quotient of x 2^s by M is estimated from
 * the top two limbs and M's top limb; the estimate q is at most 2 above the true one (Knuth,
 * TAOCP 4.3.1, Theorem B), so x 2^s - max(q - 2, 0) M lies in [0, 3M).
 */
void ctbn_avx2_mul_pow2_mod(ctbn_limb *x, const ctbn_limb *M, size_t n, unsigned s)
{
    for (size_t i = n; i > 0; i--)
        x[i] = (x[i] << s) | (x[i - 1] >> (64 - s));
    x[0] <<= s;
    uint64_t q = div_ct(x[n], x[n - 1], M[n - 1], s + 2); /* x[n] < 2^(s+2) */
    q = (q - 2) & ctbn_mask_nonzero(q >> 1); /* max(q - 2, 0) */
    uint64_t mc = 0;
    unsigned char br = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 p = (unsigned __int128)q * M[i] + mc;
        mc = (uint64_t)(p >> 64);
        unsigned long long d;
        br = _subborrow_u64(br, x[i], (uint64_t)p, &d);
        x[i] = d;
    }
    x[n] = x[n] - mc - br;
}

/*
 * x := x - M if x >= M, for x in n + 1 limbs and M in n (the borrow first, then the
 * subtraction under its mask). CT: only n leaks.
 */
static void csub_wide(ctbn_limb *x, const ctbn_limb *M, size_t n)
{
    unsigned char br = 0;
    unsigned long long d;
    for (size_t i = 0; i < n; i++)
        br = _subborrow_u64(br, x[i], M[i], &d);
    br = _subborrow_u64(br, x[n], 0, &d);
    ctbn_mask sub = (ctbn_mask)0 - (uint64_t)(br ^ 1); /* no borrow: x >= M */
    br = 0;
    for (size_t i = 0; i < n; i++) {
        br = _subborrow_u64(br, x[i], M[i] & sub, &d);
        x[i] = d;
    }
    x[n] -= br;
}

/*
 * rr := R'^2 mod m = 2^(2 W D) mod m (n limbs, fully reduced) from ctx->rr = 2^(128 n) mod m
 * by ctbn_avx2_mul_pow2_mod steps of at most 60 bits (2 W D - 128 n = 40 to 160 bits: one
 * to three steps) and two conditional subtractions, on m and rr shifted up to a normalized modulus
 * and shifted back. scratch: 2 n + 1 limbs, left holding secret-derived values (the caller
 * wipes it). CT: only n and ctx->bits leak.
 */
static void rr_prime(const ctbn_mont *ctx, size_t digits, unsigned w, ctbn_limb *rr,
                     ctbn_limb *scratch)
{
    size_t n = ctx->n, sh = 64 * n - ctx->bits; /* public */
    ctbn_limb *M = scratch, *x = scratch + n;
    for (size_t i = 0; i < n; i++) {
        M[i] = ctx->m[i] << sh;
        x[i] = ctx->rr[i] << sh;
        if (sh != 0 && i > 0) {
            M[i] |= ctx->m[i - 1] >> (64 - sh);
            x[i] |= ctx->rr[i - 1] >> (64 - sh);
        }
    }
    x[n] = 0;
    size_t left = 2 * w * digits - 128 * n, steps = (left + 59) / 60;
    for (size_t k = 0; k < steps; k++) {
        unsigned s = (unsigned)(left / (steps - k)); /* even split, each <= 60 */
        ctbn_avx2_mul_pow2_mod(x, M, n, s);
        left -= s;
    }
    csub_wide(x, M, n); /* < 3M to < 2M */
    csub_wide(x, M, n); /* < M: x[n] = 0 */
    for (size_t i = 0; i < n; i++) {
        rr[i] = x[i] >> sh;
        if (sh != 0 && i + 1 < n)
            rr[i] |= x[i + 1] << (64 - sh);
    }
}

/*
 * Whether the public hooks take n-limb moduli with an exponent of ebits bits (contract in
 * avx2.h): from the shortest exponent measured faster than the generic square-and-multiply
 * on the ADX kernels (the backend's fallback) up; the gain grows with the exponent, as the
 * set-up is fixed and every AMM beats an ADX multiplication. `bench_avx2_ct public`, AMD EPYC Zen 3
 * (shared machine, 2 cores), TSC ticks per call, min of 21 interleaved rounds of 20 calls,
 * adx generic over avx2, two runs of this code (the second in brackets); the medians agree
 * within 0.03 but where another process took the core (64-bit e at 3072 and 4096 bits):
 *
 *   bits  D    e = 3        e = 5        e = 17       e = 257      e = 65537    64-bit e
 *   1024  36   0.78 (0.76)  0.85 (0.83)  0.92 (0.91)  0.99 (0.98)  1.04 (1.03)  1.14 (1.14)
 *   1536  56   0.86 (0.86)  0.94 (0.93)  1.00 (1.01)  1.08 (1.08)  1.15 (1.14)  1.23 (1.22)
 *   2048  72   0.98 (0.96)  1.02 (1.02)  1.07 (1.07)  1.12 (1.12)  1.18 (1.16)  1.28 (1.26)
 *   3072  108  1.01 (0.99)  1.02 (1.01)  1.04 (1.03)  1.06 (1.05)  1.07 (1.08)  1.16 (1.12)
 *   4096  144  1.07 (1.06)  1.07 (1.07)  1.07 (1.07)  1.06 (1.08)  1.08 (1.08)  1.15 (1.17)
 *
 * (2048 bits, e = 65537: 38043 ticks against 44857.) The set-up by doublings
 * (ctbn_avx2_mod_init) measured 5160 / 11775 / 19073 / 46472 / 73661 ticks at 1024..4096,
 * the two extra AMMs of an entry by three AMMs (the IFMA path's) 1325 / 2456 / 3970 / 9834
 * / 16029; with that entry e = 65537 measured 0.94 / 1.05 / 1.07 / 0.99 / 0.99.
 *
 * Then the squarings went to the squaring kernel (avx2_sqr.c, every D); measured again
 * the same way, two runs:
 *
 *   bits  D    e = 3        e = 5        e = 17       e = 257      e = 65537    64-bit e
 *   1024  36   0.78 (0.78)  0.89 (0.89)  1.02 (1.03)  1.15 (1.16)  1.27 (1.29)  1.38 (1.39)
 *   1536  56   0.85 (0.85)  0.97 (0.95)  1.09 (1.09)  1.24 (1.23)  1.37 (1.36)  1.35 (1.36)
 *   2048  72   0.95 (0.95)  1.05 (1.05)  1.16 (1.16)  1.29 (1.29)  1.39 (1.39)  1.35 (1.39)
 *   3072  108  1.08 (1.07)  1.13 (1.13)  1.22 (1.24)  1.35 (1.34)  1.43 (1.42)  1.41 (1.39)
 *   4096  144  1.12 (1.12)  1.19 (1.19)  1.29 (1.30)  1.37 (1.36)  1.43 (1.43)  1.43 (1.42)
 *
 * Taken: from 9 bits at 1024 (e = 17, at 1.02-1.03, stays on ADX), 5 at 1536, 3 at 2048,
 * 2 at 3072 and 4096. CT: public.
 */
int ctbn_avx2_public_takes(size_t n, size_t ebits)
{
    switch (n) {
    case 16:
        return ebits >= 9;
    case 24:
        return ebits >= 5;
    case 32:
        return ebits >= 3;
    case 48:
    case 64:
        return ebits >= 2;
    default:
        return 0;
    }
}

int ctbn_avx2_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                    const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    if (!ctbn_avx2_public_takes(ctx->n, ctbn_bitlen_vartime(e, en)))
        return 0; /* public: n and e */
    return ctbn_avx2_exp_public_any(ctx, r, b, e, en, scratch);
}

/* The AVX2 backend's public plan (contract in avx2.h): every n with a kernel, the squaring
 * kernel where there is one (every D: 0.79-0.83 of an AMM's ticks at 36, 56, 72,
 * avx2_sqr.c; same value as AMM(a, a)). CT: public. */
ctbn_avx2_plan ctbn_avx2_plan_public(size_t n)
{
    ctbn_avx2_plan p = {0, 0, 0, NULL, NULL};
    size_t digits = ctbn_avx2_public_digits(n);
    if (digits == 0 || ctbn_avx2_amm_x1_for(digits) == NULL)
        return p;
    p.digits = digits;
    p.bits = ctbn_avx2_public_digit_bits(n);
    p.amm = ctbn_avx2_amm_x1_for(digits);
    p.sqr = ctbn_avx2_sqr_for(digits);
    return p;
}

int ctbn_avx2_exp_public_any(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                             const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    ctbn_avx2_plan p = ctbn_avx2_plan_public(ctx->n);
    return ctbn_avx2_exp_public_with(&p, ctx, r, b, e, en, scratch);
}

int ctbn_avx2_exp_public_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx, ctbn_limb *r,
                              const ctbn_limb *b, const ctbn_limb *e, size_t en,
                              ctbn_limb *scratch)
{
    (void)scratch; /* the spans need 32-byte alignment: on the stack */
    size_t n = ctx->n;
    size_t ebits = ctbn_bitlen_vartime(e, en);
    size_t digits = p->digits;
    unsigned w = p->bits;
    ctbn_avx2_amm_x1_fn *amm = p->amm;
    if (digits == 0 || p->friendly || !ctbn_avx2_plan_fits(p, n))
        return 0; /* public: n and the plan */
    ctbn_avx2_sqr_fn *sqr = p->sqr;
    size_t span = CTBN_AVX2_SPAN(digits);

    if (ebits == 0) {
        ctbn_set_u64(r, n, 1); /* 1 mod m: m > 1 (ctbn_mont_init) */
        return 1;
    }
    if (ebits == 1) {
        ctbn_copy(r, b, n); /* b^1, already reduced (b < m) */
        return 1;
    }

    /* only the first span lanes of each are used, and wiped */
    struct {
        ctbn_avx2_mod mod; /* m, R'^2 mod m, k2 */
        _Alignas(32) uint64_t bw[CTBN_AVX2_MAX_SPAN];
        _Alignas(32) uint64_t base[CTBN_AVX2_MAX_SPAN];
        _Alignas(32) uint64_t acc[CTBN_AVX2_MAX_SPAN];
        ctbn_limb l[3 * CTBN_MAX_LIMBS + 1]; /* radix 2^64: R'^2, its scratch; the result */
    } s;
    s.mod.digits = digits;
    s.mod.bits = w;
    s.mod.k2 = ctx->m0inv & (((uint64_t)1 << (2 * w)) - 1); /* -m^-1 mod 2^64, mod 2^(2w) */
    ctbn_avx2_from_radix64(s.mod.m, w, digits, ctx->m, n);
    ctbn_avx2_from_radix64(s.bw, w, digits, b, n); /* read before r is written (r MAY be b) */
    rr_prime(ctx, digits, w, s.l, s.l + n);
    ctbn_avx2_from_radix64(s.mod.rr, w, digits, s.l, n);

    /* base = AMM(b, R'^2) = b R' */
    amm(s.base, s.bw, s.mod.rr, &s.mod);

    /* acc = b^k R' for the top bits of e read so far; the last set bit leaves the domain */
    const uint64_t *src = s.base;
    int out = 0;
    for (size_t i = ebits - 1; i-- > 0;) {
        if (sqr != NULL)
            sqr(s.acc, src, &s.mod);
        else
            amm(s.acc, src, src, &s.mod);
        src = s.acc;
        if (ebit(e, i)) {
            if (i == 0) {
                amm(s.acc, s.acc, s.bw, &s.mod); /* b^e, < 1.5 m */
                out = 1;
                break;
            }
            amm(s.acc, s.acc, s.base, &s.mod);
        }
    }
    if (!out)
        amm(s.acc, s.acc, one_span, &s.mod); /* e even: AMM(x, 1) = (x + q m) / R' <= m */

    /* out of radix 2^W into n + 1 limbs (the value is < 1.5 m < 2^(64 n + 1) <= R'): limb n
     * is the bit above r's limbs, the carry of the final conditional subtraction */
    ctbn_avx2_to_radix64(s.l, n + 1, s.acc, w, digits);
    ctbn_copy(r, s.l, n);
    ctbn_csub_mod(r, s.l[n], ctx->m, n);
    size_t used = span * sizeof(uint64_t);
    wipe(s.mod.m, used);
    wipe(s.mod.rr, used);
    wipe(s.bw, used);
    wipe(s.base, used);
    wipe(s.acc, used);
    wipe(s.l, (3 * n + 1) * sizeof(ctbn_limb));
    return 1;
}
