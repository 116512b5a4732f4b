/*
 * Montgomery context set-up: -m^-1 mod 2^64, R^2 mod m and R mod m. Contract in bignum.h.
 */
#include "bignum.h"

/* -m0^-1 mod 2^64 for odd m0, by Newton's iteration (each step doubles the correct bits). */
static uint64_t neg_inverse64(uint64_t m0)
{
    uint64_t x = (m0 * 3) ^ 2; /* correct to 5 bits for odd m0 */
    for (int i = 0; i < 4; i++)
        x *= 2 - m0 * x;       /* 10, 20, 40, 80 bits */
    return (uint64_t)0 - x;
}

int ctbn_mont_init(ctbn_mont *ctx, const ctbn_limb *m, size_t n)
{
    if (n < 1 || n > CTBN_MAX_LIMBS)
        return -1;
    /* Even, zero or one moduli are refused: public failure reasons (the key is malformed). */
    size_t bits = ctbn_bitlen_vartime(m, n);
    if ((m[0] & 1) == 0 || bits < 2)
        return -1;

    ctx->n = n;
    ctx->bits = bits;
    ctx->m = (ctbn_limb *)(ctx + 1);   /* the 2n limbs that follow (CTBN_MONT_BYTES) */
    ctx->rr = ctx->m + n;
    ctbn_copy(ctx->m, m, n);
    ctx->m0inv = neg_inverse64(m[0]);

    /*
     * R^2 mod m without division. x starts at 2^(bits-1), which is < m (m is odd, so it is
     * not a power of two). Modular doublings take it to 2^(64n + n) mod m = R * 2^n mod m:
     * the Montgomery form of 2^n. Six Montgomery squarings then give the Montgomery form of
     * 2^(64n) = R, that is R^2 mod m. The number of doublings depends on the bit length of
     * m only (public), each is a shift and a masked subtraction.
     */
    ctbn_limb *x = ctx->rr;
    ctbn_zero(x, n);
    x[(bits - 1) / 64] = (uint64_t)1 << ((bits - 1) % 64);
    size_t doublings = 64 * n + n - (bits - 1);
    for (size_t k = 0; k < doublings; k++) {
        uint64_t carry = ctbn_add(x, x, x, n);
        ctbn_csub_mod(x, carry, m, n);
    }
    for (int k = 0; k < 6; k++)
        ctbn_mont_sqr(ctx, x, x);
    return 0;
}

void ctbn_mont_one(const ctbn_mont *ctx, ctbn_limb *r)
{
    ctbn_from_mont(ctx, r, ctx->rr); /* R^2 * R^-1 = R mod m */
}
