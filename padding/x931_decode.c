/* The payload of an ANSI X9.31 signature block, with the verdicts of OpenSSL's
 * RSA_padding_check_X931. See sig_padding.h. */
#include "sig_padding.h"

ctrsa_pad_status ctrsa_x931_decode(const uint8_t *em, size_t k, size_t *off, size_t *len)
{
    size_t i;

    if (k < 3 || (em[0] != 0x6a && em[0] != 0x6b))
        return CTRSA_PAD_BAD_SIGNATURE;   /* OpenSSL: "invalid header" */
    if (em[0] == 0x6a) {
        /* 0x6a || payload || 0xcc */
        if (em[k - 1] != 0xcc)
            return CTRSA_PAD_BAD_SIGNATURE;   /* "invalid trailer" */
        *off = 1;
        *len = k - 2;
        return CTRSA_PAD_OK;
    }
    /* 0x6b || 0xbb... || 0xba || payload || 0xcc: the padding is read in em[1..k-2). */
    for (i = 1; i < k - 2; i++) {
        if (em[i] == 0xba)
            break;
        if (em[i] != 0xbb)
            return CTRSA_PAD_BAD_SIGNATURE;   /* "invalid padding" */
    }
    if (i == 1)
        return CTRSA_PAD_BAD_SIGNATURE;   /* no 0xbb before the end of the padding */
    if (i == k - 2) {
        /* No 0xba: an empty payload, with the trailer where the last 0xbb would end. */
        if (em[k - 2] != 0xcc)
            return CTRSA_PAD_BAD_SIGNATURE;
        *off = k - 2;
        *len = 0;
        return CTRSA_PAD_OK;
    }
    if (em[k - 1] != 0xcc)
        return CTRSA_PAD_BAD_SIGNATURE;
    *off = i + 1;
    *len = k - 2 - i;
    return CTRSA_PAD_OK;
}
