/* EMSA-PKCS1-v1_5 (RFC 8017 9.2), raw type-1 padding and its recovery. See sig_padding.h. */
#include <string.h>
#include "sig_padding.h"

#define PKCS1_MIN_PS 8  /* RFC 8017 9.2 step 5 / 7.2: PS is at least 8 octets */

/*
 * RFC 8017 9.2 steps 1-3, shared by encoding and verification: T = DigestInfo(H) (prefix
 * [0..*plen) then the digest; without d, the raw input alone, *plen = 0), and *pslen := the
 * length of PS in a k-byte EM holding T. 0 if fewer than 8 bytes of PS are left ("intended
 * encoded message length too short"). The caller has checked digest_len against d.
 */
static int pkcs1_layout(size_t k, const ctrsa_digest_info *d, size_t digest_len,
                        uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX], size_t *plen, size_t *pslen)
{
    size_t tlen;

    *plen = d != NULL ? ctrsa_digestinfo_prefix(d, prefix) : 0;
    tlen = *plen + digest_len;
    if (k < 3 + PKCS1_MIN_PS || tlen > k - 3 - PKCS1_MIN_PS)
        return 0;
    *pslen = k - 3 - tlen;
    return 1;
}

ctrsa_pad_status ctrsa_emsa_pkcs1_encode(uint8_t *em, size_t k, const ctrsa_digest_info *d,
                                         const uint8_t *digest, size_t digest_len)
{
    uint8_t prefix[CTRSA_DIGESTINFO_PREFIX_MAX];
    size_t plen, pslen;

    if (d != NULL && digest_len != d->size)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    if (!pkcs1_layout(k, d, digest_len, prefix, &plen, &pslen))
        return d != NULL ? CTRSA_PAD_KEY_TOO_SMALL : CTRSA_PAD_BAD_INPUT_LENGTH;
    /* Steps 4-5: EM = 0x00 || 0x01 || PS || 0x00 || T. */
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
    size_t plen, pslen, i;

    if (d != NULL && digest_len != d->size)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    if (!pkcs1_layout(k, d, digest_len, prefix, &plen, &pslen))
        return CTRSA_PAD_BAD_SIGNATURE;
    /*
     * RFC 8017 8.2.2 steps 3-4: compare with the encoding of the expected message,
     * 0x00 || 0x01 || PS || 0x00 || T, part by part (no copy of a k-byte block).
     */
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
