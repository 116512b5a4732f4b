/*
 * EME-PKCS1-v1_5 decoding (RFC 8017 7.2.2 step 3) in constant time, with and without the
 * implicit rejection of draft-irtf-cfrg-rsa-guidance. See enc_padding.h.
 *
 * Shape of both: accumulate a validity mask over every byte of EM with no early exit, find
 * the separator with masks, then move the message to the front with a shift whose passes
 * depend only on k, and copy a public-length window out under a mask.
 */
#include "enc_padding.h"
#include "ct_util.h"

_Static_assert(CTRSA_PAD_OK == 1 && CTRSA_PAD_FAIL == 0,
               "the decoders return their validity bit as the result");

/*
 * Check EM = 0x00 || 0x02 || PS || 0x00 || M with |PS| >= 8 (RFC 8017 7.2.2 step 3).
 * Returns the validity mask and sets *msg_index to the index of M's first byte (k when M is
 * empty; meaningless when invalid).
 * CT: only k leaks; em, the mask and *msg_index are secret.
 */
static ctbn_mask pkcs1_check(const uint8_t *em, size_t k, uint64_t *msg_index)
{
    ctbn_mask good, found = 0, is0;
    uint64_t zero_index = 0;
    size_t i;

    /* The first octet must be 0x00 and the second 0x02. */
    good = ctrsa_ct_is_zero(em[0]) & ctbn_mask_eq(em[1], 2);
    /* The separator is the first zero octet after the header. */
    for (i = 2; i < k; i++) {
        is0 = ctrsa_ct_is_zero(em[i]);
        zero_index = ctbn_select(~found & is0, (uint64_t)i, zero_index);
        found |= is0;
    }
    /* PS is at least 8 octets: the separator sits at index 10 or later (0 if none). */
    good &= ctrsa_ct_ge(zero_index, 2 + 8);
    *msg_index = zero_index + 1;
    return good;
}

int ctrsa_pkcs1_type2_decode(uint8_t *em, size_t k, uint8_t *out, size_t outcap,
                             size_t *outlen)
{
    ctbn_mask good;
    uint64_t msg_index, mlen;
    size_t window;

    if (k < CTRSA_PKCS1_PADDING_SIZE || k > CTRSA_ENC_MAX_K)
        return CTRSA_PAD_BAD_ARGS;
    window = outcap < k - CTRSA_PKCS1_PADDING_SIZE ? outcap : k - CTRSA_PKCS1_PADDING_SIZE;

    good = pkcs1_check(em, k, &msg_index);
    mlen = (uint64_t)k - msg_index;  /* no separator: msg_index is 1, good is 0 then */
    /* A message longer than the output is the same opaque failure. */
    good &= ctrsa_ct_ge((uint64_t)outcap, mlen);

    /* Bring M to the front of em (msg_index <= k) and copy the public window out. */
    ctrsa_ct_shift_left(em, k, (size_t)(msg_index & ctbn_select(good, ~(uint64_t)0, 0)));
    ctrsa_ct_copy_prefix(good, out, em, window, (size_t)mlen);

    /*
     * The result leaves without a branch: *outlen takes the length only when valid, and
     * the return value is the validity bit itself (CTRSA_PAD_OK = 1, CTRSA_PAD_FAIL = 0).
     * The caller's test of it is the single point where success or failure becomes known.
     */
    *outlen = (size_t)ctbn_select(good, mlen, (uint64_t)*outlen);
    return (int)(good & 1);
}

int ctrsa_pkcs1_type2_decode_ir(const ctrsa_hash *sha256, const uint8_t d_hash[32],
                                const uint8_t *ct, const uint8_t *em, size_t k,
                                uint8_t *out, size_t outcap, size_t *outlen)
{
    uint8_t kdk[32];
    uint8_t syn[CTRSA_ENC_MAX_K];   /* the synthetic message, at its tail */
    uint8_t buf[CTRSA_ENC_MAX_K];   /* the chosen block, shifted */
    ctbn_mask good;
    uint64_t msg_index, mlen;
    size_t synlen = 0, i;
    int ret;

    if (k < CTRSA_PKCS1_PADDING_SIZE || k > CTRSA_ENC_MAX_K
        || outcap < k - CTRSA_PKCS1_PADDING_SIZE)
        return CTRSA_PAD_BAD_ARGS;

    /* The alternative message first, so that its cost does not depend on the padding. */
    ret = ctrsa_ir_kdk(sha256, d_hash, ct, k, kdk);
    if (ret == CTRSA_PAD_OK)
        ret = ctrsa_ir_synthetic(sha256, kdk, k, syn, &synlen);
    if (ret != CTRSA_PAD_OK)
        goto done;

    /* Then the real one: validity and message start, as for explicit rejection. */
    good = pkcs1_check(em, k, &msg_index);
    mlen = ctbn_select(good, (uint64_t)k - msg_index, (uint64_t)synlen);

    /*
     * Both messages end at EM's last byte: select the whole block byte by byte (both
     * buffers are read in full whatever good is), then move the chosen message to the
     * front. mlen <= k - 11 either way, so the window k - 11 holds it.
     */
    for (i = 0; i < k; i++)
        buf[i] = ctrsa_ct_byte(good, em[i], syn[i]);
    ctrsa_ct_shift_left(buf, k, (size_t)((uint64_t)k - mlen));
    ctrsa_ct_copy_prefix(~(ctbn_mask)0, out, buf, k - CTRSA_PKCS1_PADDING_SIZE, (size_t)mlen);
    /* The length is now that of the returned message, whichever it is: no secret branch. */
    *outlen = (size_t)mlen;

done:
    ctrsa_ct_wipe(kdk, sizeof(kdk));
    ctrsa_ct_wipe(syn, sizeof(syn));
    ctrsa_ct_wipe(buf, sizeof(buf));
    return ret;
}
