/*
 * EME-OAEP decoding, RFC 8017 7.1.2 step 3, in constant time up to the single final
 * result (the shape of BearSSL's rsa_oaep_unpad.c: a 0/1 validity accumulated over every
 * byte, no early exit, the separator found with masks). See enc_padding.h.
 */
#include "enc_padding.h"
#include "mgf1.h"
#include "ct_util.h"

_Static_assert(CTRSA_PAD_OK == 1 && CTRSA_PAD_FAIL == 0,
               "the decoders return their validity bit as the result");

/*
 * CT: public are k, hLen, the label and outcap. Secret are all of em (Y, the seed, DB),
 * the position of the 0x01 separator, the message, its length and the validity, until the
 * marked point at the end.
 */
int ctrsa_oaep_decode(const ctrsa_hash *hash, const ctrsa_hash *mgf1_hash,
                      uint8_t *em, size_t k, const uint8_t *label, size_t llen,
                      uint8_t *out, size_t outcap, size_t *outlen)
{
    uint8_t lhash[CTRSA_MGF1_MAX_HASH];
    ctrsa_span lp = { label, llen };
    size_t hlen = hash->size, maxlen, dblen, window, i;
    uint8_t *seed, *db;
    ctbn_mask good, found = 0, bad_byte = 0, is0, is1;
    uint64_t diff = 0, sep_index = 0, mlen;

    if (hlen == 0 || hlen > CTRSA_MGF1_MAX_HASH)
        return CTRSA_PAD_HASH_ERR;
    if (k > CTRSA_ENC_MAX_K || !ctrsa_oaep_max_message(k, hlen, &maxlen))
        return CTRSA_PAD_BAD_ARGS;
    window = outcap < maxlen ? outcap : maxlen;

    /* Step 3.a: lHash = Hash(L). */
    if (!hash->digest(hash, &lp, 1, lhash))
        return CTRSA_PAD_HASH_ERR;

    /* Step 3.b: EM = Y || maskedSeed (hLen) || maskedDB (k - hLen - 1). */
    seed = em + 1;
    db = em + 1 + hlen;
    dblen = k - hlen - 1;
    /* Steps 3.c-d: seed = maskedSeed xor MGF(maskedDB, hLen). */
    /* Steps 3.e-f: DB = maskedDB xor MGF(seed, k - hLen - 1). */
    if (!ctrsa_mgf1_xor(mgf1_hash, seed, hlen, db, dblen)
        || !ctrsa_mgf1_xor(mgf1_hash, db, dblen, seed, hlen)) {
        ctrsa_ct_wipe(out, window);
        return CTRSA_PAD_HASH_ERR;
    }

    /* Step 3.g: DB = lHash' || PS || 0x01 || M. Y must be zero ... */
    good = ctrsa_ct_is_zero(em[0]);
    /* ... lHash' must equal lHash (every byte compared) ... */
    for (i = 0; i < hlen; i++)
        diff |= (uint64_t)(db[i] ^ lhash[i]);
    good &= ctrsa_ct_is_zero(diff);
    /*
     * ... and PS (zeros) must end with 0x01: the first nonzero octet after lHash' is the
     * separator, and any other nonzero value there is an error. Every octet is visited.
     */
    for (i = hlen; i < dblen; i++) {
        is0 = ctrsa_ct_is_zero(db[i]);
        is1 = ctbn_mask_eq(db[i], 1);
        sep_index = ctbn_select(~found & is1, (uint64_t)i, sep_index);
        bad_byte |= ~found & ~is0 & ~is1;
        found |= ~is0;
    }
    good &= found & ~bad_byte;
    /* M follows the separator; a message longer than the output is the same failure. */
    mlen = (uint64_t)dblen - (sep_index + 1);
    good &= ctrsa_ct_ge((uint64_t)outcap, mlen);

    /* Move M to the front of DB (shift <= dblen) and copy the public window out. */
    ctrsa_ct_shift_left(db, dblen, (size_t)((sep_index + 1) & ctbn_select(good, ~(uint64_t)0, 0)));
    ctrsa_ct_copy_prefix(good, out, db, window, (size_t)mlen);
    ctrsa_ct_wipe(lhash, sizeof(lhash));

    /*
     * The result leaves without a branch: *outlen takes the length only when valid, and
     * the return value is the validity bit itself (CTRSA_PAD_OK = 1, CTRSA_PAD_FAIL = 0).
     * The caller's test of it is the single point where success or failure becomes known.
     */
    *outlen = (size_t)ctbn_select(good, mlen, (uint64_t)*outlen);
    return (int)(good & 1);
}
