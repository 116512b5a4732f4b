/*
 * The public-exponent path on the IFMA kernels (the modexp_public_vartime hook of
 * backend.h; contract in ifma.h): verify, encrypt, the private operation's fault check and
 * the blinding set-up, by left-to-right square-and-multiply over the bits of a PUBLIC
 * exponent with the single almost-Montgomery kernels (ctbn_ifma_amm*_x1).
 *
 * Into the domain of R' = 2^(52 D) = 2^(65 n) without a per-modulus constant. The context
 * holds X = R^2 mod m = 2^(128 n) mod m (radix 2^64); R'^2 is not there, and deriving it by
 * 2 n modular doublings (ctbn_ifma_mod_init) costs more than the whole exponentiation's
 * conversions. Three AMMs do it instead, two of them independent (one _x2 call where the
 * size has one):
 *     U    = AMM(b, X)       = b 2^(128n - 65n)           = b 2^(63 n)
 *     T    = AMM(X, 2^(4n))  = 2^(128n + 4n - 65n)        = 2^(67 n)
 *     base = AMM(U, T)       = b 2^(63n + 67n - 65n)      = b R'
 * 2^(4n) is a single set bit. Every value stays below 2m, as the kernels require (a b < m R',
 * ifma.h): b, X < m give U < 2m; X < m and 2^(4n) < R' give T < 2m, for any m; and so on.
 *
 * Out of it in the last multiplication, as the generic path does (exp_public_vartime.c):
 * when the last bit of e is set (always, for odd RSA exponents) it multiplies by b in
 * normal form, AMM(b^k R', b) = b^(k+1) mod m, below m (b^k R' b / R' + m with
 * b^k R' < 2m, b < m, R' > 4m: < 1.5 m); an even e ends with an AMM by 1 (<= m). The
 * result can exceed 2^(64 n) only through its bit 64 n, which is the carry handed to
 * ctbn_csub_mod: fully reduced, identical to the generic path.
 * For e = 65537 at 2048 bits: 3 AMMs in (one pair interleaved), 16 squarings, 1 out.
 *
 * The values derived from b (which may be secret: an encryption block, a blinding value,
 * the private result under its fault check) live on this stack frame and are wiped.
 *
 * CT: branches and the operation sequence depend on the bits of e and en (public) and on
 * n; b and m only flow through the conversions (fixed trip counts) and the AMM kernels
 * (constant time in the data, ifma_amm.c), the carry of the last step through ctbn_csub_mod.
 */
#include <string.h>

#include "ifma.h"

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

int ctbn_ifma_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                    const ctbn_limb *e, size_t en, ctbn_limb *scratch)
{
    (void)scratch; /* the radix 2^52 values need 64-byte alignment: on the stack */
    size_t n = ctx->n, digits = ctbn_ifma_public_digits(n);
    ctbn_ifma_amm_x1_fn *amm = ctbn_ifma_amm_x1_for(digits);
    if (digits == 0 || amm == NULL)
        return 0; /* public: n */
    ctbn_ifma_amm_x2_fn *amm2 = ctbn_ifma_amm_x2_for(digits);
    size_t lanes = CTBN_IFMA_LANES(digits);
    size_t ebits = ctbn_bitlen_vartime(e, en);

    if (ebits == 0) {
        ctbn_set_u64(r, n, 1); /* 1 mod m: m > 1 (ctbn_mont_init) */
        return 1;
    }
    if (ebits == 1) {
        ctbn_copy(r, b, n); /* b^1, already reduced (b < m) */
        return 1;
    }

    struct {
        ctbn_ifma_mod mod; /* m and k0 only: the kernels read nothing else */
        _Alignas(64) uint64_t b52[CTBN_IFMA_MAX_LANES];
        _Alignas(64) uint64_t base[CTBN_IFMA_MAX_LANES];
        _Alignas(64) uint64_t acc[CTBN_IFMA_MAX_LANES];
        _Alignas(64) uint64_t x[CTBN_IFMA_MAX_LANES];  /* 2^(128 n) mod m, then T */
        _Alignas(64) uint64_t k[CTBN_IFMA_MAX_LANES];  /* 2^(4 n), then 1 */
    } s;
    s.mod.digits = digits;
    s.mod.k0 = ctx->m0inv & CTBN_IFMA_MASK52; /* -m^-1 mod 2^52 */
    ctbn_ifma_from_radix64(s.mod.m, digits, ctx->m, n);
    ctbn_ifma_from_radix64(s.x, digits, ctx->rr, n);
    ctbn_ifma_from_radix64(s.b52, digits, b, n); /* read before r is written (r MAY be b) */
    memset(s.k, 0, lanes * sizeof(uint64_t));
    s.k[4 * n / 52] = (uint64_t)1 << (4 * n % 52);

    /* base = b R' (see above): U into acc, T into x */
    if (amm2 != NULL)
        amm2(s.acc, s.b52, s.x, &s.mod, s.x, s.x, s.k, &s.mod);
    else {
        amm(s.acc, s.b52, s.x, &s.mod);
        amm(s.x, s.x, s.k, &s.mod);
    }
    amm(s.base, s.acc, s.x, &s.mod);

    /* acc = b^k R' for the top bits of e read so far; the last set bit leaves the domain */
    const uint64_t *src = s.base;
    const uint64_t *out = NULL;
    for (size_t i = ebits - 1; i-- > 0;) {
        amm(s.acc, src, src, &s.mod);
        src = s.acc;
        if (ebit(e, i)) {
            if (i == 0) {
                amm(s.acc, s.acc, s.b52, &s.mod); /* b^e, < 1.5 m */
                out = s.acc;
                break;
            }
            amm(s.acc, s.acc, s.base, &s.mod);
        }
    }
    if (out == NULL) {
        /* e even: AMM(x, 1) = (x + q m) / R' <= m */
        memset(s.k, 0, lanes * sizeof(uint64_t));
        s.k[0] = 1;
        amm(s.acc, s.acc, s.k, &s.mod);
    }

    /* out of radix 2^52; bit 64 n (the only one above r's limbs: the value is < 2m) is the
     * carry of the final conditional subtraction */
    ctbn_ifma_to_radix64(r, n, s.acc, digits);
    ctbn_limb carry = (s.acc[64 * n / 52] >> (64 * n % 52)) & 1;
    ctbn_csub_mod(r, carry, ctx->m, n);
    wipe(&s, sizeof(s));
    return 1;
}
