/* HMAC over ctrsa_hash. See hmac.h. */
#include "hmac.h"
#include "ct_util.h"

int ctrsa_hmac(const ctrsa_hash *h, const uint8_t *key, size_t keylen,
               const ctrsa_span *parts, size_t count, uint8_t *out)
{
    uint8_t k0[CTRSA_HMAC_MAX_BLOCK];   /* the key, padded to the block, then XORed */
    uint8_t inner[CTRSA_HMAC_MAX_SIZE];
    ctrsa_span in[CTRSA_HMAC_MAX_PARTS + 1];
    size_t i, b = h->block_size, n = h->size;
    int ok = 0;

    if (n == 0 || n > CTRSA_HMAC_MAX_SIZE || b == 0 || b > CTRSA_HMAC_MAX_BLOCK
        || b < n || count > CTRSA_HMAC_MAX_PARTS)
        return 0;

    /* K0: the key (or its hash when longer than a block), zero-padded to B bytes. */
    for (i = 0; i < b; i++)
        k0[i] = 0;
    if (keylen > b) {
        ctrsa_span kp = { key, keylen };

        if (!h->digest(h, &kp, 1, k0))
            goto done;
    } else {
        for (i = 0; i < keylen; i++)
            k0[i] = key[i];
    }

    /* inner := H((K0 ^ ipad) || text) */
    for (i = 0; i < b; i++)
        k0[i] ^= 0x36;
    in[0].p = k0;
    in[0].len = b;
    for (i = 0; i < count; i++)
        in[i + 1] = parts[i];
    if (!h->digest(h, in, count + 1, inner))
        goto done;

    /* out := H((K0 ^ opad) || inner); 0x36 ^ 0x5c turns ipad into opad. */
    for (i = 0; i < b; i++)
        k0[i] ^= 0x36 ^ 0x5c;
    in[1].p = inner;
    in[1].len = n;
    if (!h->digest(h, in, 2, out))
        goto done;
    ok = 1;

done:
    if (!ok)
        ctrsa_ct_wipe(out, n);
    ctrsa_ct_wipe(k0, sizeof(k0));
    ctrsa_ct_wipe(inner, sizeof(inner));
    return ok;
}
