/*
 * ANSI X9.31's representative of a signature: of s and n - s, which verify alike (for an
 * odd e, (n - s)^e = -(s^e) mod n), the signer releases the smaller and the verifier takes
 * whichever of m and n - m is a block (ends in 0xcc), as OpenSSL's RSA_X931_PADDING does
 * in its private encryption and public decryption. See sig_padding.h.
 */
#include <string.h>
#include "bignum.h"
#include "sig_padding.h"

#define X931_MAX_BYTES (CTBN_MAX_BITS / 8)

/* out[0..k) := n - x, for x < n; big-endian. MAY alias. */
static void sub_from_n(uint8_t *out, const uint8_t *n, const uint8_t *x, size_t k)
{
    unsigned borrow = 0;

    for (size_t i = k; i-- > 0;) {
        unsigned d = (unsigned)n[i] - (unsigned)x[i] - borrow;

        out[i] = (uint8_t)d;
        borrow = (d >> 8) & 1;
    }
}

void ctrsa_x931_sig_minimal(uint8_t *sig, const uint8_t *n, size_t k)
{
    uint8_t other[X931_MAX_BYTES];

    if (k > sizeof(other))
        return;
    sub_from_n(other, n, sig, k);
    /* big-endian byte strings of one length compare as numbers */
    if (memcmp(other, sig, k) < 0)
        memcpy(sig, other, k);
}

void ctrsa_x931_block_from_public(uint8_t *m, const uint8_t *n, size_t k)
{
    if (k > 0 && (m[k - 1] & 0x0f) != 0x0c)
        sub_from_n(m, n, m, k);
}
