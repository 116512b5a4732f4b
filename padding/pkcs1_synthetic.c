/*
 * The implicit-rejection key derivation and PRF of draft-irtf-cfrg-rsa-guidance, with the
 * exact conventions of OpenSSL 3.2 (rsa_ossl.c derive_kdk, rsa_pk1.c ossl_rsa_prf and the
 * length choice in ossl_rsa_padding_check_PKCS1_type_2), so that a key moved between
 * OpenSSL and ctrsa gives the same synthetic messages. See enc_padding.h.
 */
#include <string.h>
#include "enc_padding.h"
#include "hmac.h"
#include "ct_util.h"

#define IR_HASH_LEN 32          /* SHA-256 */
#define IR_LEN_CANDIDATES 128   /* 16-bit length candidates drawn from the PRF */

/* 1 if h looks like SHA-256 (the draft fixes the hash; any other would change outputs). */
static int is_sha256_sized(const ctrsa_hash *h)
{
    return h != NULL && h->digest != NULL && h->size == IR_HASH_LEN && h->block_size == 64;
}

int ctrsa_ir_kdk(const ctrsa_hash *sha256, const uint8_t d_hash[32], const uint8_t *ct,
                 size_t k, uint8_t kdk[32])
{
    ctrsa_span msg = { ct, k };

    if (!is_sha256_sized(sha256))
        return CTRSA_PAD_HASH_ERR;
    if (k == 0 || k > CTRSA_ENC_MAX_K)
        return CTRSA_PAD_BAD_ARGS;
    /* KDK = HMAC-SHA256(key = SHA256(d), message = ciphertext as k bytes). */
    return ctrsa_hmac(sha256, d_hash, IR_HASH_LEN, &msg, 1, kdk) ? CTRSA_PAD_OK
                                                                 : CTRSA_PAD_HASH_ERR;
}

int ctrsa_ir_prf(const ctrsa_hash *sha256, const uint8_t kdk[32], const char *label,
                 uint8_t *out, size_t outlen)
{
    uint8_t block[IR_HASH_LEN];
    uint8_t be_iter[2], be_bits[2];
    ctrsa_span parts[3];
    size_t pos, take, i;
    unsigned int iter = 0;
    int ret = CTRSA_PAD_OK;

    if (!is_sha256_sized(sha256))
        return CTRSA_PAD_HASH_ERR;
    /* The output length in bits travels as 16 bits. */
    if (outlen == 0 || outlen > 0xffff / 8)
        return CTRSA_PAD_BAD_ARGS;
    be_bits[0] = (uint8_t)((outlen * 8) >> 8);
    be_bits[1] = (uint8_t)(outlen * 8);
    parts[0].p = be_iter;
    parts[0].len = sizeof(be_iter);
    parts[1].p = (const uint8_t *)label;
    parts[1].len = strlen(label);
    parts[2].p = be_bits;
    parts[2].len = sizeof(be_bits);
    /* out = HMAC(kdk, I || label || L) for I = 0, 1, ..., truncated to outlen bytes. */
    for (pos = 0; pos < outlen; pos += take, iter++) {
        be_iter[0] = (uint8_t)(iter >> 8);
        be_iter[1] = (uint8_t)iter;
        if (!ctrsa_hmac(sha256, kdk, IR_HASH_LEN, parts, 3, block)) {
            ret = CTRSA_PAD_HASH_ERR;
            break;
        }
        take = outlen - pos < IR_HASH_LEN ? outlen - pos : IR_HASH_LEN;
        for (i = 0; i < take; i++)
            out[pos + i] = block[i];
    }
    ctrsa_ct_wipe(block, sizeof(block));
    if (ret != CTRSA_PAD_OK)
        ctrsa_ct_wipe(out, outlen);
    return ret;
}

/*
 * CT: only k leaks. The candidates and the chosen length are secret: every candidate is
 * examined and the choice is a masked select.
 */
int ctrsa_ir_synthetic(const ctrsa_hash *sha256, const uint8_t kdk[32], size_t k,
                       uint8_t *syn, size_t *synlen)
{
    uint8_t cand[IR_LEN_CANDIDATES * 2];
    uint64_t max_sep_offset, len_mask, c, len = 0;
    size_t i;
    int ret;

    if (k < CTRSA_PKCS1_PADDING_SIZE || k > CTRSA_ENC_MAX_K)
        return CTRSA_PAD_BAD_ARGS;
    ret = ctrsa_ir_prf(sha256, kdk, "message", syn, k);
    if (ret != CTRSA_PAD_OK)
        return ret;
    ret = ctrsa_ir_prf(sha256, kdk, "length", cand, sizeof(cand));
    if (ret != CTRSA_PAD_OK) {
        ctrsa_ct_wipe(syn, k);
        return ret;
    }
    /*
     * The longest message is k - 2 - 8 - 1 bytes, so a length is accepted when below
     * k - 10. Each candidate is masked to the bit length of k - 10 (public), so that about
     * half or more are in range; the last one in range wins.
     */
    max_sep_offset = (uint64_t)(k - 2 - 8);
    len_mask = max_sep_offset;
    len_mask |= len_mask >> 1;
    len_mask |= len_mask >> 2;
    len_mask |= len_mask >> 4;
    len_mask |= len_mask >> 8;
    for (i = 0; i < sizeof(cand); i += 2) {
        c = (((uint64_t)cand[i] << 8) | cand[i + 1]) & len_mask;
        len = ctbn_select(ctbn_mask_lt(c, max_sep_offset), c, len);
    }
    *synlen = (size_t)len;
    ctrsa_ct_wipe(cand, sizeof(cand));
    return CTRSA_PAD_OK;
}
