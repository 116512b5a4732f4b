/*
 * Constant-time helpers for the encryption-padding decoders: byte selects, a masked copy,
 * a shift by a secret amount over a public window and an opaque wipe. Built on the
 * full-width masks of bignum/bignum.h (all ones = true, zero = false; never in a branch).
 */
#ifndef CTRSA_PADDING_CT_UTIL_H
#define CTRSA_PADDING_CT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "bignum.h"

/* All ones if x == 0. CT: nothing leaks. */
static inline ctbn_mask ctrsa_ct_is_zero(uint64_t x)
{
    return ~ctbn_mask_nonzero(x);
}

/* All ones if x >= y (unsigned). CT: nothing leaks. */
static inline ctbn_mask ctrsa_ct_ge(uint64_t x, uint64_t y)
{
    return ~ctbn_mask_lt(x, y);
}

/* mask ? a : b for bytes. CT: nothing leaks. */
static inline uint8_t ctrsa_ct_byte(ctbn_mask mask, uint8_t a, uint8_t b)
{
    return (uint8_t)ctbn_select(mask, a, b);
}

/*
 * buf[0..len) is moved left by `shift` positions (0 <= shift <= len), zeros entering on the
 * right: afterwards buf[i] = old buf[i + shift] for i + shift < len, else 0.
 * Done as one conditional shift per bit of `shift` (ceil(log2(len + 1)) passes over the whole
 * buffer), so the work is O(len log len) and the same for every shift value.
 * CT: only len leaks; shift and the bytes are secret.
 */
static inline void ctrsa_ct_shift_left(uint8_t *buf, size_t len, size_t shift)
{
    size_t step, i;

    for (step = 1; step != 0 && step <= len; step <<= 1) {
        ctbn_mask take = ctbn_mask_nonzero((uint64_t)(shift & step));

        for (i = 0; i < len; i++) {
            uint8_t next = i + step < len ? buf[i + step] : 0; /* i, step, len are public */
            buf[i] = ctrsa_ct_byte(take, next, buf[i]);
        }
    }
}

/*
 * out[i] := (i < n) ? src[i] : 0 for i in [0, window), and only where `mask` is all ones;
 * where mask is zero, out[0..window) is zeroed. window is public; n and mask are secret.
 * CT: only window leaks.
 */
static inline void ctrsa_ct_copy_prefix(ctbn_mask mask, uint8_t *out, const uint8_t *src,
                                        size_t window, size_t n)
{
    size_t i;

    for (i = 0; i < window; i++)
        out[i] = ctrsa_ct_byte(mask & ctbn_mask_lt(i, n), src[i], 0);
}

/* Wipe len bytes the compiler must not optimise away. CT: only len leaks. */
static inline void ctrsa_ct_wipe(void *p, size_t len)
{
    volatile uint8_t *v = p;
    size_t i;

    for (i = 0; i < len; i++)
        v[i] = 0;
}

#endif
