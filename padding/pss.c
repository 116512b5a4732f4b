/* EMSA-PSS encoding and verification (RFC 8017 9.1). See sig_padding.h. */
#include <string.h>
#include "bignum.h"
#include "mgf1.h"
#include "sig_padding.h"

#define PSS_MAX_EM (CTBN_MAX_BITS / 8)

static const uint8_t zero8[8];

/* emLen for emBits = mod_bits - 1 (RFC 8017 9.1.1 input). */
static size_t pss_em_len(size_t mod_bits)
{
    return (mod_bits - 1 + 7) / 8;
}

/* Step 5-6 of 9.1.1 / 12-13 of 9.1.2: out := Hash(0x00 * 8 || mHash || salt). */
static int pss_hash(const ctrsa_hash *h, const uint8_t *mhash, const uint8_t *salt,
                    size_t slen, uint8_t *out)
{
    ctrsa_span parts[3];

    parts[0].p = zero8;
    parts[0].len = sizeof(zero8);
    parts[1].p = mhash;
    parts[1].len = h->size;
    parts[2].p = salt;
    parts[2].len = slen;
    return h->digest(h, parts, 3, out);
}

ctrsa_pad_status ctrsa_pss_sign_saltlen(size_t mod_bits, size_t hlen, int saltlen_mode,
                                        size_t *saltlen)
{
    size_t emlen, max;

    if (saltlen_mode < CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX)
        return CTRSA_PAD_BAD_SALT_LENGTH;
    if (mod_bits < 2)
        return CTRSA_PAD_KEY_TOO_SMALL;
    emlen = pss_em_len(mod_bits);
    /* 9.1.1 step 3 with the smallest salt: emLen >= hLen + 2. */
    if (emlen < hlen + 2)
        return CTRSA_PAD_KEY_TOO_SMALL;
    max = emlen - hlen - 2;
    switch (saltlen_mode) {
    case CTRSA_PSS_SALTLEN_DIGEST:
        *saltlen = hlen;
        break;
    case CTRSA_PSS_SALTLEN_AUTO:
    case CTRSA_PSS_SALTLEN_MAX:
        *saltlen = max;
        break;
    case CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX:
        *saltlen = hlen < max ? hlen : max;
        break;
    default:
        *saltlen = (size_t)saltlen_mode;
        break;
    }
    /* 9.1.1 step 3: emLen < hLen + sLen + 2 is an encoding error. */
    return *saltlen <= max ? CTRSA_PAD_OK : CTRSA_PAD_KEY_TOO_SMALL;
}

ctrsa_pad_status ctrsa_emsa_pss_encode(uint8_t *em, size_t k, size_t mod_bits,
                                       const ctrsa_hash *h, const ctrsa_hash *mgf1,
                                       const uint8_t *mhash, size_t mhash_len,
                                       int saltlen_mode, const ctrsa_rand *rnd)
{
    size_t hlen = h->size, emlen, dblen, slen;
    uint8_t *out;
    ctrsa_pad_status st;

    /* Step 1-2: the message digest mHash is given; its length must be hLen. */
    if (mod_bits < 2 || k != (mod_bits + 7) / 8 || mhash_len != hlen || hlen == 0)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    /* Step 3: emLen >= hLen + sLen + 2, with sLen from the mode. */
    st = ctrsa_pss_sign_saltlen(mod_bits, hlen, saltlen_mode, &slen);
    if (st != CTRSA_PAD_OK)
        return st;
    emlen = pss_em_len(mod_bits);
    /* EM is the last emLen bytes of the k-byte block; the integer's top byte is 0 if emLen < k. */
    memset(em, 0, k - emlen);
    out = em + (k - emlen);
    dblen = emlen - hlen - 1;
    /* Step 4: the salt, written where step 8 puts it (the end of DB). */
    if (slen > 0 && (rnd == NULL || !rnd->bytes(rnd, out + dblen - slen, slen)))
        return CTRSA_PAD_RANDOM_FAILED;
    /* Steps 5-6: H = Hash(M'), M' = 0x00 * 8 || mHash || salt; H goes after DB. */
    if (!pss_hash(h, mhash, out + dblen - slen, slen, out + dblen))
        return CTRSA_PAD_HASH_FAILED;
    /* Steps 7-8: DB = PS (zeros) || 0x01 || salt. */
    memset(out, 0, dblen - slen - 1);
    out[dblen - slen - 1] = 0x01;
    /* Steps 9-10: maskedDB = DB xor MGF(H, emLen - hLen - 1). */
    if (!ctrsa_mgf1_xor(mgf1, out, dblen, out + dblen, hlen))
        return CTRSA_PAD_HASH_FAILED;
    /* Step 11: clear the leftmost 8 emLen - emBits bits. */
    out[0] &= (uint8_t)(0xff >> (8 * emlen - (mod_bits - 1)));
    /* Step 12: EM = maskedDB || H || 0xbc. */
    out[emlen - 1] = 0xbc;
    return CTRSA_PAD_OK;
}

ctrsa_pad_status ctrsa_emsa_pss_verify(const uint8_t *em, size_t k, size_t mod_bits,
                                       const ctrsa_hash *h, const ctrsa_hash *mgf1,
                                       const uint8_t *mhash, size_t mhash_len,
                                       int saltlen_mode, size_t *salt_found)
{
    uint8_t db[PSS_MAX_EM];
    uint8_t hprime[CTRSA_MGF1_MAX_HASH];
    size_t hlen = h->size, emlen, dblen, slen = 0, i;
    const uint8_t *in, *hh;
    uint8_t topmask;
    int fixed = 1;
    ctrsa_pad_status st = CTRSA_PAD_BAD_SIGNATURE;

    if (mod_bits < 2 || k != (mod_bits + 7) / 8 || mhash_len != hlen || hlen == 0
        || hlen > CTRSA_MGF1_MAX_HASH)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    if (saltlen_mode < CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX)
        return CTRSA_PAD_BAD_SALT_LENGTH;
    emlen = pss_em_len(mod_bits);
    if (emlen > PSS_MAX_EM)
        return CTRSA_PAD_BAD_INPUT_LENGTH;
    /* Step 3 (smallest salt): emLen < hLen + 2 is "inconsistent". */
    if (emlen < hlen + 2)
        return CTRSA_PAD_BAD_SIGNATURE;
    switch (saltlen_mode) {
    case CTRSA_PSS_SALTLEN_DIGEST:
        slen = hlen;
        break;
    case CTRSA_PSS_SALTLEN_MAX:
        slen = emlen - hlen - 2;
        break;
    case CTRSA_PSS_SALTLEN_AUTO:
    case CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX:
        fixed = 0;
        break;
    default:
        slen = (size_t)saltlen_mode;
        break;
    }
    /* Step 3: emLen < hLen + sLen + 2 is "inconsistent". */
    if (fixed && slen > emlen - hlen - 2)
        return CTRSA_PAD_BAD_SIGNATURE;
    /* The integer is < 2^emBits: when emLen < k its leading byte is zero. */
    if (k > emlen && em[0] != 0x00)
        return CTRSA_PAD_BAD_SIGNATURE;
    in = em + (k - emlen);
    /* Step 4: the rightmost octet is 0xbc. */
    if (in[emlen - 1] != 0xbc)
        return CTRSA_PAD_BAD_SIGNATURE;
    /* Step 5: maskedDB = EM[0 .. emLen - hLen - 1), H = the next hLen octets. */
    dblen = emlen - hlen - 1;
    hh = in + dblen;
    /* Step 6: the leftmost 8 emLen - emBits bits of maskedDB are zero. */
    topmask = (uint8_t)(0xff >> (8 * emlen - (mod_bits - 1)));
    if ((in[0] & (uint8_t)~topmask) != 0)
        return CTRSA_PAD_BAD_SIGNATURE;
    /* Steps 7-8: DB = maskedDB xor MGF(H, emLen - hLen - 1). */
    memcpy(db, in, dblen);
    if (!ctrsa_mgf1_xor(mgf1, db, dblen, hh, hlen))
        return CTRSA_PAD_HASH_FAILED;
    /* Step 9: clear the leftmost bits of DB. */
    db[0] &= topmask;
    /* Step 10: DB = zeros || 0x01 || salt (with emLen - hLen - sLen - 2 zeros if sLen is fixed). */
    for (i = 0; i < dblen && db[i] == 0x00; i++)
        continue;
    if (i == dblen || db[i] != 0x01)
        goto done;
    i++;
    if (fixed && dblen - i != slen)
        goto done;
    slen = dblen - i;
    /* Steps 11-13: salt = the last sLen octets of DB; H' = Hash(0x00 * 8 || mHash || salt). */
    if (!pss_hash(h, mhash, db + i, slen, hprime)) {
        st = CTRSA_PAD_HASH_FAILED;
        goto done;
    }
    /* Step 14: H == H'. */
    if (memcmp(hprime, hh, hlen) == 0) {
        st = CTRSA_PAD_OK;
        if (salt_found != NULL)
            *salt_found = slen;
    }
done:
    return st;
}
