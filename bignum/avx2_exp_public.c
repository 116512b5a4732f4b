/*
 * The public-exponent path on the AVX2 kernels (the modexp_public_vartime hook of
 * backend.h; contract in avx2.h): verify, encrypt, the private operation's fault check and
 * the blinding set-up, by left-to-right square-and-multiply over the bits of a PUBLIC
 * exponent with the almost-Montgomery kernels (ctbn_avx2_amm*_x1, radix 2^W, D digits).
 * The structure is the IFMA backend's (ifma_exp_public.c).
 *
 * Into the domain of R' = 2^(W D) without a per-modulus constant. The context holds
 * X = R^2 mod m = 2^(128 n) mod m (radix 2^64); R'^2 is not there, and deriving it by
 * 2 W D - 128 n modular doublings (ctbn_avx2_mod_init: 40 to 160 of them) measured slower
 * than two AMMs (table below). Three AMMs do it instead, with t = 4 W D - 256 n:
 *     U    = AMM(b, X)      = b 2^(128n - WD)
 *     T    = AMM(X, 2^t)    = 2^(128n + t - WD)
 *     base = AMM(U, T)      = b 2^(256n + t - 3WD) = b 2^(WD) = b R'
 * t is 80, 128, 160, 240, 320 for n = 16, 24, 32, 48, 64: 2^t is a single set bit, far
 * below m (whose top limb is nonzero). Every value stays below 2m, as the kernels require:
 * b, X, 2^t < m give U, T < 2m, and so on.
 *
 * Out of it in the last multiplication, as the generic path does (exp_public_vartime.c):
 * when the last bit of e is set (always, for odd RSA exponents) it multiplies by b in
 * normal form, AMM(b^k R', b) = b^(k+1) mod m, below 1.5 m (b^k R' b / R' + m with
 * b^k R' < 2m, b < m, R' > 4m); an even e ends with an AMM by 1 (<= m). The carries are
 * propagated into n + 1 limbs: limb n (0 or 1) is the bit above r's limbs, the carry handed
 * to ctbn_csub_mod, so the result is fully reduced, identical to the generic path.
 * For e = 65537: 3 AMMs in, 16 squarings, 1 multiplication out (20 AMMs, against 18 ADX
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

/*
 * Whether the hook takes n-limb moduli with an exponent of ebits bits (both public): where
 * it measured faster than the generic square-and-multiply on the ADX kernels, the
 * backend's fallback. (Filled in from `bench_avx2_ct public`; see the table there.)
 */
static int takes(size_t n, size_t ebits)
{
    if (ctbn_avx2_public_digits(n) == 0)
        return 0;
    return ebits >= 2;
}

int ctbn_avx2_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                    const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    (void)scratch; /* the spans need 32-byte alignment: on the stack */
    size_t n = ctx->n;
    size_t ebits = ctbn_bitlen_vartime(e, en);
    if (!takes(n, ebits))
        return 0; /* public: n and e */
    size_t digits = ctbn_avx2_public_digits(n);
    unsigned w = ctbn_avx2_public_digit_bits(n);
    ctbn_avx2_amm_x1_fn *amm = ctbn_avx2_amm_x1_for(digits);
    if (amm == NULL)
        return 0;
    size_t span = CTBN_AVX2_SPAN(digits);

    if (ebits == 0) {
        ctbn_set_u64(r, n, 1); /* 1 mod m: m > 1 (ctbn_mont_init) */
        return 1;
    }
    if (ebits == 1) {
        ctbn_copy(r, b, n); /* b^1, already reduced (b < m) */
        return 1;
    }

    struct {
        ctbn_avx2_mod mod; /* m and k0 only: the kernels read nothing else */
        _Alignas(32) uint64_t bw[CTBN_AVX2_MAX_SPAN];
        _Alignas(32) uint64_t base[CTBN_AVX2_MAX_SPAN];
        _Alignas(32) uint64_t acc[CTBN_AVX2_MAX_SPAN];
        _Alignas(32) uint64_t x[CTBN_AVX2_MAX_SPAN]; /* 2^(128 n) mod m, then T */
        _Alignas(32) uint64_t k[CTBN_AVX2_MAX_SPAN]; /* 2^t, then 1 */
        ctbn_limb out[CTBN_MAX_LIMBS + 1];
    } s;
    s.mod.digits = digits;
    s.mod.bits = w;
    s.mod.k0 = ctx->m0inv & (((uint64_t)1 << w) - 1); /* -m^-1 mod 2^64, reduced mod 2^w */
    ctbn_avx2_from_radix64(s.mod.m, w, digits, ctx->m, n);
    ctbn_avx2_from_radix64(s.x, w, digits, ctx->rr, n);
    ctbn_avx2_from_radix64(s.bw, w, digits, b, n); /* read before r is written (r MAY be b) */
    memset(s.k, 0, span * sizeof(uint64_t));
    size_t t = 4 * w * digits - 256 * n;
    s.k[CTBN_AVX2_PAD + t / w] = (uint64_t)1 << (t % w);

    /* base = b R' (see above): U into acc, T into x */
    amm(s.acc, s.bw, s.x, &s.mod);
    amm(s.x, s.x, s.k, &s.mod);
    amm(s.base, s.acc, s.x, &s.mod);

    /* acc = b^k R' for the top bits of e read so far; the last set bit leaves the domain */
    const uint64_t *src = s.base;
    int out = 0;
    for (size_t i = ebits - 1; i-- > 0;) {
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
    if (!out) {
        /* e even: AMM(x, 1) = (x + q m) / R' <= m */
        memset(s.k, 0, span * sizeof(uint64_t));
        s.k[CTBN_AVX2_PAD] = 1;
        amm(s.acc, s.acc, s.k, &s.mod);
    }

    /* out of radix 2^W into n + 1 limbs (the value is < 1.5 m < 2^(64 n + 1) <= R'): limb n
     * is the bit above r's limbs, the carry of the final conditional subtraction */
    ctbn_avx2_to_radix64(s.out, n + 1, s.acc, w, digits);
    ctbn_copy(r, s.out, n);
    ctbn_csub_mod(r, s.out[n], ctx->m, n);
    wipe(&s, sizeof(s));
    return 1;
}
