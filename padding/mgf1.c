/* MGF1 (RFC 8017 B.2.1). See mgf1.h. */
#include "mgf1.h"

int ctrsa_mgf1_xor(const ctrsa_hash *h, uint8_t *out, size_t outlen,
                   const uint8_t *seed, size_t seedlen)
{
    uint8_t block[CTRSA_MGF1_MAX_HASH];
    uint8_t counter[4];
    ctrsa_span parts[2];
    size_t done, take, i;
    uint32_t c = 0;
    int ok = 1;

    if (h->size == 0 || h->size > CTRSA_MGF1_MAX_HASH)
        return 0;
    /* Step 1: maskLen > 2^32 hLen is an error. */
    if (outlen / h->size > 0xffffffffu)
        return 0;
    parts[0].p = seed;
    parts[0].len = seedlen;
    parts[1].p = counter;
    parts[1].len = sizeof(counter);
    /* Step 3: for counter = 0 .. ceil(maskLen / hLen) - 1, T || Hash(mgfSeed || C). */
    for (done = 0; done < outlen; done += take, c++) {
        counter[0] = (uint8_t)(c >> 24);
        counter[1] = (uint8_t)(c >> 16);
        counter[2] = (uint8_t)(c >> 8);
        counter[3] = (uint8_t)c;
        if (!h->digest(h, parts, 2, block)) {
            ok = 0;
            break;
        }
        /* Step 4: the leading maskLen octets of T, XORed in as they come. */
        take = outlen - done < h->size ? outlen - done : h->size;
        for (i = 0; i < take; i++)
            out[done + i] ^= block[i];
    }
    /* The last block may be mask material of a secret: wipe it where the compiler must. */
    {
        volatile uint8_t *v = block;
        for (i = 0; i < sizeof(block); i++)
            v[i] = 0;
    }
    return ok;
}
