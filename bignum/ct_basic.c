/*
 * Byte-string conversion and plain constant-time arithmetic on n-limb values.
 * Contracts in bignum.h. Every loop runs over the public limb count or byte length; values
 * only flow through arithmetic and masks.
 */
#include "bignum.h"

ctbn_mask ctbn_from_bytes(ctbn_limb *x, size_t n, const uint8_t *in, size_t len)
{
    uint64_t overflow = 0;
    ctbn_zero(x, n);
    /* Byte i counted from the end goes to limb i/8, shift 8*(i%8); positions are public. */
    for (size_t i = 0; i < len; i++) {
        uint64_t b = in[len - 1 - i];
        size_t limb = i / 8;
        if (limb < n)
            x[limb] |= b << (8 * (i % 8));
        else
            overflow |= b;
    }
    return ~ctbn_mask_nonzero(overflow);
}

ctbn_mask ctbn_to_bytes(uint8_t *out, size_t len, const ctbn_limb *x, size_t n)
{
    uint64_t overflow = 0;
    for (size_t i = 0; i < len; i++) {
        size_t limb = i / 8;
        uint8_t b = 0;
        if (limb < n)
            b = (uint8_t)(x[limb] >> (8 * (i % 8)));
        out[len - 1 - i] = b;
    }
    /* Bytes of x beyond len must be zero for the result to be exact. */
    for (size_t i = len; i < 8 * n; i++)
        overflow |= (x[i / 8] >> (8 * (i % 8))) & 0xff;
    return ~ctbn_mask_nonzero(overflow);
}

void ctbn_zero(ctbn_limb *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 0;
}

void ctbn_copy(ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    if (x == y)
        return;
    for (size_t i = 0; i < n; i++)
        x[i] = y[i];
}

void ctbn_set_u64(ctbn_limb *x, size_t n, uint64_t v)
{
    ctbn_zero(x, n);
    if (n > 0)
        x[0] = v;
}

ctbn_mask ctbn_eq(const ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    uint64_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= x[i] ^ y[i];
    return ~ctbn_mask_nonzero(diff);
}

ctbn_mask ctbn_is_zero(const ctbn_limb *x, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= x[i];
    return ~ctbn_mask_nonzero(acc);
}

ctbn_mask ctbn_lt(const ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    /* x < y exactly when x - y borrows. */
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)x[i] - y[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return (ctbn_mask)0 - borrow;
}

ctbn_limb ctbn_add(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 s = (unsigned __int128)x[i] + y[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

ctbn_limb ctbn_sub(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)x[i] - y[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

ctbn_limb ctbn_sub_word(ctbn_limb *r, const ctbn_limb *x, ctbn_limb w, size_t n)
{
    uint64_t borrow = w;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)x[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

void ctbn_cmov(ctbn_mask mask, ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ctbn_select(mask, y[i], x[i]);
}

void ctbn_cswap(ctbn_mask mask, ctbn_limb *x, ctbn_limb *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t = mask & (x[i] ^ y[i]);
        x[i] ^= t;
        y[i] ^= t;
    }
}

ctbn_mask ctbn_csub_mod(ctbn_limb *x, ctbn_limb extra, const ctbn_limb *m, size_t n)
{
    /*
     * Compute x - m in place while keeping x: one pass computing the difference into the
     * limbs with the borrow, then undo by selecting. (extra:x) >= m iff extra = 1 or the
     * subtraction does not borrow.
     */
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)x[i] - m[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    ctbn_mask take = ctbn_mask_nonzero(extra | (borrow ^ 1));
    borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)x[i] - (m[i] & take) - borrow;
        x[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return take;
}

void ctbn_mod_add(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, const ctbn_limb *m,
                  size_t n)
{
    ctbn_limb carry = ctbn_add(r, x, y, n);
    ctbn_csub_mod(r, carry, m, n);
}

void ctbn_mod_sub(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, const ctbn_limb *m,
                  size_t n)
{
    ctbn_limb borrow = ctbn_sub(r, x, y, n);
    ctbn_cadd((ctbn_mask)0 - borrow, r, m, n);
}

ctbn_limb ctbn_cadd(ctbn_mask mask, ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 s = (unsigned __int128)x[i] + (y[i] & mask) + carry;
        x[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

void ctbn_mul(ctbn_limb *r, const ctbn_limb *a, size_t an, const ctbn_limb *b, size_t bn)
{
    ctbn_zero(r, an + bn);
    for (size_t i = 0; i < an; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < bn; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        r[i + bn] = carry;
    }
}

size_t ctbn_bitlen_vartime(const ctbn_limb *x, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (x[i] != 0)
            return 64 * i + (64 - (size_t)__builtin_clzll(x[i]));
    }
    return 0;
}
