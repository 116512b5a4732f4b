/* EMSA-PKCS1-v1_5 (RFC 8017 9.2), raw type-1 padding and its recovery. See sig_padding.h. */
#include <string.h>
#include "sig_padding.h"

#define PKCS1_MIN_PS 8  /* RFC 8017 9.2 step 5 / 7.2: PS is at least 8 octets */

ctrsa_pad_status ctrsa_emsa_pkcs1_encode(uint8_t *em, size_t k, const ctrsa_digest_info *d,
                                         const uint8_t *digest, size_t digest_len)
{
    uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX];
    size_t plen = 0, tlen, pslen;

    /* Steps 1-2: T = DigestInfo(H), or the raw input without a digest. */
    if (d != NULL) {
        if (digest_len != d->size)
            return CTRSA_PAD_BAD_INPUT_LENGTH;
        plen = ctrsa_digestinfo_prefix(d, prefix);
    }
    tlen = plen + digest_len;
    /* Step 3: emLen < tLen + 11 is "intended encoded message length too short". */
    if (k < 3 + PKCS1_MIN_PS || tlen > k - 3 - PKCS1_MIN_PS)
        return d != NULL ? CTRSA_PAD_KEY_TOO_SMALL : CTRSA_PAD_BAD_INPUT_LENGTH;
    /* Steps 4-5: EM = 0x00 || 0x01 || PS || 0x00 || T. */
    pslen = k - 3 - tlen;
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, pslen);
    em[2 + pslen] = 0x00;
    memcpy(em + 3 + pslen, prefix, plen);
    if (digest_len > 0)
        memmove(em + 3 + pslen + plen, digest, digest_len);
    return CTRSA_PAD_OK;
}

ctrsa_pad_status ctrsa_emsa_pkcs1_verify(const uint8_t *em, size_t k,
                                         const ctrsa_digest_info *d,
                                         const uint8_t *digest, size_t digest_len)
{
    uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX];
    size_t plen = 0, tlen, pslen, i;

    if (d != NULL) {
        if (digest_len != d->size)
            return CTRSA_PAD_BAD_INPUT_LENGTH;
        plen = ctrsa_digestinfo_prefix(d, prefix);
    }
    tlen = plen + digest_len;
    if (k < 3 + PKCS1_MIN_PS || tlen > k - 3 - PKCS1_MIN_PS)
        return CTRSA_PAD_BAD_SIGNATURE;
    /*
     * RFC 8017 8.2.2 steps 3-4: compare with the encoding of the expected message,
     * 0x00 || 0x01 || PS || 0x00 || T, part by part (no copy of a k-byte block).
     */
    pslen = k - 3 - tlen;
    if (em[0] != 0x00 || em[1] != 0x01 || em[2 + pslen] != 0x00)
        return CTRSA_PAD_BAD_SIGNATURE;
    for (i = 0; i < pslen; i++)
        if (em[2 + i] != 0xff)
            return CTRSA_PAD_BAD_SIGNATURE;
    if (memcmp(em + 3 + pslen, prefix, plen) != 0
        || (digest_len > 0 && memcmp(em + 3 + pslen + plen, digest, digest_len) != 0))
        return CTRSA_PAD_BAD_SIGNATURE;
    return CTRSA_PAD_OK;
}

ctrsa_pad_status ctrsa_pkcs1_type1_recover(const uint8_t *em, size_t k,
                                           const ctrsa_digest_info *d,
                                           size_t *off, size_t *len)
{
    uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX];
    size_t i, plen;

    if (k < 3 + PKCS1_MIN_PS || em[0] != 0x00 || em[1] != 0x01)
        return CTRSA_PAD_BAD_SIGNATURE;
    /* PS: 0xff up to the 0x00 separator, at least 8 of them. */
    for (i = 2; i < k && em[i] == 0xff; i++)
        continue;
    if (i == k || em[i] != 0x00 || i - 2 < PKCS1_MIN_PS)
        return CTRSA_PAD_BAD_SIGNATURE;
    i++;
    if (d != NULL) {
        plen = ctrsa_digestinfo_prefix(d, prefix);
        if (k - i != plen + d->size || memcmp(em + i, prefix, plen) != 0)
            return CTRSA_PAD_BAD_SIGNATURE;
        i += plen;
    }
    *off = i;
    *len = k - i;
    return CTRSA_PAD_OK;
}
