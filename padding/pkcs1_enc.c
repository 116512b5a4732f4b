/* EME-PKCS1-v1_5 encoding, RFC 8017 7.2.1 step 2. See enc_padding.h. */
#include "enc_padding.h"
#include "ct_util.h"

#define REFILL_ROUNDS 64  /* a byte stays zero after r rounds with probability 2^(-8r) */

int ctrsa_pkcs1_type2_encode(const ctrsa_rand *rnd, uint8_t *em, size_t k,
                             const uint8_t *msg, size_t mlen)
{
    uint8_t fresh[CTRSA_ENC_MAX_K];
    uint8_t *ps = em + 2;
    size_t pslen, i, round;
    ctbn_mask zero, any;
    int ret = CTRSA_PAD_RAND_ERR;

    /* Step 1: mLen > k - 11 is "message too long". */
    if (k > CTRSA_ENC_MAX_K || k < CTRSA_PKCS1_PADDING_SIZE
        || mlen > k - CTRSA_PKCS1_PADDING_SIZE)
        return CTRSA_PAD_BAD_ARGS;
    pslen = k - mlen - 3;

    /* Step 2.a: PS, k - mLen - 3 pseudo-randomly generated nonzero octets. */
    if (!rnd->bytes(rnd, ps, pslen))
        goto fail;
    for (round = 0; round < REFILL_ROUNDS; round++) {
        /* Only "some byte is still zero" steers this loop, never which byte. */
        any = 0;
        for (i = 0; i < pslen; i++)
            any |= ctrsa_ct_is_zero(ps[i]);
        if ((any & 1) == 0)
            break;
        if (!rnd->bytes(rnd, fresh, pslen))
            goto fail;
        for (i = 0; i < pslen; i++) {
            zero = ctrsa_ct_is_zero(ps[i]);
            ps[i] = ctrsa_ct_byte(zero, fresh[i], ps[i]);
        }
    }
    if (round == REFILL_ROUNDS)
        goto fail;
    /* Step 2.b: EM = 0x00 || 0x02 || PS || 0x00 || M. */
    em[0] = 0x00;
    em[1] = 0x02;
    em[2 + pslen] = 0x00;
    for (i = 0; i < mlen; i++)
        em[3 + pslen + i] = msg[i];
    ret = CTRSA_PAD_OK;
    goto done;

fail:
    ctrsa_ct_wipe(em, k);
done:
    ctrsa_ct_wipe(fresh, pslen);
    return ret;
}
