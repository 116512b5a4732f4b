/* ANSI X9.31's signature block (X9.31-1998 section 6, as OpenSSL's RSA_padding_add_X931).
 * See sig_padding.h. */
#include <string.h>
#include "sig_padding.h"

#define X931_HEADER_PADDED 0x6b   /* header nibble 6, padding nibble b */
#define X931_HEADER_BARE 0x6a     /* header nibble 6, padding ends at once (nibble a) */
#define X931_PAD 0xbb
#define X931_PAD_END 0xba
#define X931_TRAILER 0xcc         /* the trailer's second byte; the first is the payload's
                                     last (a signature's hash id), or 0xcc alone */

ctrsa_pad_status ctrsa_x931_encode(uint8_t *em, size_t k, const uint8_t *payload, size_t len)
{
    size_t pad;

    /* At least the header (with its padding nibble) and the trailer around the payload. */
    if (k < 2 || len > k - 2)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    pad = k - 2 - len;   /* bytes between header and payload, the 0xba included */
    if (pad == 0) {
        em[0] = X931_HEADER_BARE;
    } else {
        em[0] = X931_HEADER_PADDED;
        memset(em + 1, X931_PAD, pad - 1);
        em[pad] = X931_PAD_END;
    }
    if (len > 0)
        memcpy(em + 1 + pad, payload, len);
    em[k - 1] = X931_TRAILER;
    return CTRSA_PAD_OK;
}
