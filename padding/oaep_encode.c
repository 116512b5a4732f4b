/* EME-OAEP encoding, RFC 8017 7.1.1 step 2. See enc_padding.h. */
#include "enc_padding.h"
#include "mgf1.h"
#include "ct_util.h"

int ctrsa_oaep_max_message(size_t k, size_t hlen, size_t *max)
{
    if (hlen == 0 || hlen > (SIZE_MAX - 2) / 2 || k < 2 * hlen + 2)
        return 0;
    *max = k - 2 * hlen - 2;
    return 1;
}

int ctrsa_oaep_encode(const ctrsa_hash *hash, const ctrsa_hash *mgf1_hash,
                      const ctrsa_rand *rnd, uint8_t *em, size_t k,
                      const uint8_t *msg, size_t mlen, const uint8_t *label, size_t llen)
{
    size_t hlen = hash->size, maxlen, dblen, i;
    uint8_t *seed, *db;
    ctrsa_span lp = { label, llen };
    int ret = CTRSA_PAD_HASH_ERR;

    if (hlen == 0 || hlen > CTRSA_MGF1_MAX_HASH)
        return CTRSA_PAD_HASH_ERR;
    /* Step 1.b: mLen > k - 2hLen - 2 is "message too long". */
    if (k > CTRSA_ENC_MAX_K || !ctrsa_oaep_max_message(k, hlen, &maxlen) || mlen > maxlen)
        return CTRSA_PAD_BAD_ARGS;

    /* EM = 0x00 || seed (hLen) || DB (k - hLen - 1) */
    em[0] = 0x00;
    seed = em + 1;
    db = em + 1 + hlen;
    dblen = k - hlen - 1;

    /* Step 2.a: lHash = Hash(L), the first hLen octets of DB. */
    if (!hash->digest(hash, &lp, 1, db))
        goto fail;
    /* Steps 2.b-c: DB = lHash || PS (zeros) || 0x01 || M. */
    for (i = hlen; i < dblen - mlen - 1; i++)
        db[i] = 0x00;
    db[dblen - mlen - 1] = 0x01;
    for (i = 0; i < mlen; i++)
        db[dblen - mlen + i] = msg[i];
    /* Step 2.d: a random seed of hLen octets. */
    if (!rnd->bytes(rnd, seed, hlen)) {
        ret = CTRSA_PAD_RAND_ERR;
        goto fail;
    }
    /* Steps 2.e-f: maskedDB = DB xor MGF(seed, k - hLen - 1). */
    if (!ctrsa_mgf1_xor(mgf1_hash, db, dblen, seed, hlen))
        goto fail;
    /* Steps 2.g-h: maskedSeed = seed xor MGF(maskedDB, hLen). */
    if (!ctrsa_mgf1_xor(mgf1_hash, seed, hlen, db, dblen))
        goto fail;
    /* Step 2.i: EM = 0x00 || maskedSeed || maskedDB, built in place. */
    return CTRSA_PAD_OK;

fail:
    ctrsa_ct_wipe(em, k);
    return ret;
}
