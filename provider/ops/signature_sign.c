/*
 * The "RSA" signature operation on a digest or raw input (signature.h): sign, verify and
 * verify-recover, with PKCS#1 v1.5 (with DigestInfo, or raw type-1 padding when no digest
 * is set), EMSA-PSS, ANSI X9.31 or no padding, through padding/ (sig_padding.h) and the
 * key's operations (rsa_op.h). What is signed is public with the signature; the private
 * operation is the key object's, in constant time.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include "core_version.h"
#include "padmode.h"
#include "rsa_op.h"
#include "signature.h"

/* ------------------------------------------------------------------------------------ */
/* ANSI X9.31                                                                           */

/* n[0..k) := the key's modulus, k = ctrsa_key_size(). Public. */
static int key_modulus(const sig_ctx *c, uint8_t *n, size_t k)
{
    ctrsa_key_numbers nums;
    int ok;

    memset(&nums, 0, sizeof(nums));
    if (!ctrsa_key_get_numbers(c->key, &nums, 0))
        return 0;
    ok = nums.n.len <= k;
    if (ok) {
        memset(n, 0, k - nums.n.len);
        memcpy(n + k - nums.n.len, nums.n.p, nums.n.len);
    } else {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "the modulus is longer than the key's size");
    }
    ctrsa_key_numbers_clear(&nums);
    return ok;
}

/* The context's X9.31 digest; raises "invalid x931 digest" when it has none. */
static const ctrsa_digest_info *x931_digest_required(const sig_ctx *c)
{
    const ctrsa_digest_info *d = sig_x931_digest(&c->md);

    if (d == NULL)
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_X931_DIGEST,
                    "pad-mode x931 needs digest SHA1, SHA2-256, SHA2-384 or SHA2-512");
    return d;
}

/*
 * em[0..k) := the X9.31 block of the digest tbs (tbslen = the digest's size, checked by
 * the caller) and its hash id, as the default provider makes it: a key of fewer than
 * tbslen + 1 bytes is "too small", and the block needs two bytes more.
 */
static int encode_x931(sig_ctx *c, uint8_t *em, size_t k, const uint8_t *tbs, size_t tbslen)
{
    const ctrsa_digest_info *d = x931_digest_required(c);
    uint8_t payload[EVP_MAX_MD_SIZE + 1];

    if (d == NULL)
        return 0;
    if (tbslen > EVP_MAX_MD_SIZE || k < tbslen + 1) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEY_SIZE_TOO_SMALL,
                    "RSA key size = %zu, expected minimum = %zu", k, tbslen + 1);
        return 0;
    }
    memcpy(payload, tbs, tbslen);
    payload[tbslen] = d->x931_id;
    if (ctrsa_x931_encode(em, k, payload, tbslen + 1) != CTRSA_PAD_OK) {
        CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                    "an X9.31 block of %s needs %zu bytes, the key has %zu", d->name,
                    tbslen + 3, k);
        return 0;
    }
    return 1;
}

/*
 * The digest in an opened X9.31 signature em[0..k) (em := sig^e mod n on entry, the block
 * on return): *off and *len delimit it, after the checks of the default provider's
 * verify-recover (a block, ending in the context digest's hash id, holding that digest's
 * length). Public data; variable time.
 */
static int open_x931(sig_ctx *c, uint8_t *em, size_t k, size_t *off, size_t *len)
{
    const ctrsa_digest_info *d = x931_digest_required(c);
    uint8_t n[SIG_MAX_BYTES];
    size_t o = 0, l = 0;

    if (d == NULL || !key_modulus(c, n, k))
        return 0;
    ctrsa_x931_block_from_public(em, n, k);
    if (ctrsa_x931_decode(em, k, &o, &l) != CTRSA_PAD_OK || l < 1) {
        CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE,
                    "signature verification failed: not an X9.31 block");
        return 0;
    }
    if (em[o + l - 1] != d->x931_id) {
        CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE,
                    "signature verification failed: X9.31 hash id 0x%02x, %s's is 0x%02x",
                    em[o + l - 1], d->name, d->x931_id);
        return 0;
    }
    if (l - 1 != d->size) {
        CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE,
                    "signature verification failed: an X9.31 digest of %zu bytes, %s has %zu",
                    l - 1, d->name, d->size);
        return 0;
    }
    *off = o;
    *len = l - 1;
    return 1;
}

/* ------------------------------------------------------------------------------------ */
/* The operations on a digest (or raw input)                                            */

/*
 * em[0..k) := the encoded message for tbs under the context's padding.
 * CT: public data only (what is signed becomes public with the signature).
 */
static int encode_for_sign(sig_ctx *c, uint8_t *em, size_t k, const uint8_t *tbs, size_t tbslen)
{
    const ctrsa_digest_info *d = NULL;
    ctrsa_rand rnd;

    if (ctrsa_md_is_set(&c->md)) {
        d = sig_digest_info(c, &c->md, c->pad_mode);
        if (tbslen != ctrsa_md_size(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_DIGEST_LENGTH,
                        "input is %zu bytes, the %s digest is %zu", tbslen,
                        ctrsa_md_name(&c->md), ctrsa_md_size(&c->md));
            return 0;
        }
    }
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        if (d == NULL && tbslen > k - 11) {
            CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                        "raw PKCS#1 input is %zu bytes, at most %zu fit", tbslen,
                        k > 11 ? k - 11 : 0);
            return 0;
        }
        return sig_pad_result(c, ctrsa_emsa_pkcs1_encode(em, k, d, tbs, tbslen));
    case RSA_PKCS1_PSS_PADDING:
        if (!ctrsa_md_is_set(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "pad-mode pss needs a digest");
            return 0;
        }
        if (sig_min_saltlen(c) >= 0) {
            size_t slen = 0;

            if (!sig_pad_result(c, ctrsa_pss_sign_saltlen(ctrsa_key_bits(c->key),
                                                          ctrsa_md_size(&c->md), c->saltlen,
                                                          &slen))
                || !sig_salt_meets_minimum(c, slen))
                return 0;
        }
        rnd.impl = c->prov;
        rnd.bytes = sig_rand_from_prov;
        return sig_pad_result(c, ctrsa_emsa_pss_encode(em, k, ctrsa_key_bits(c->key), &c->md.hash,
                                                       &sig_mgf1_in_force(c)->hash, tbs, tbslen,
                                                       c->saltlen, &rnd));
    case RSA_NO_PADDING:
        if (ctrsa_md_is_set(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode none takes no digest");
            return 0;
        }
        if (tbslen != k) {
            CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                        "pad-mode none needs exactly %zu bytes of input, not %zu", k, tbslen);
            return 0;
        }
        memcpy(em, tbs, k);
        return 1;
    case RSA_X931_PADDING:
        return encode_x931(c, em, k, tbs, tbslen);
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode %d", c->pad_mode);
        return 0;
    }
}

static int check_op(const sig_ctx *c, enum sig_operation op)
{
    if (c == NULL || c->key == NULL || c->op != op) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "%s was not initialised", sig_op_name(op));
        return 0;
    }
    return 1;
}

/*
 * CT: the encoded message is public; the private operation is the key object's, constant
 * time in its inputs, and its result is copied out without looking at it.
 */
int sig_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize,
             const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;
    uint8_t em[SIG_MAX_BYTES];
    size_t k;
    int ok;

    if (!check_op(c, SIG_OP_SIGN))
        return 0;
    k = ctrsa_key_size(c->key);
    if (sig == NULL) {
        *siglen = k;
        return 1;
    }
    if (!ctrsa_key_has_private(c->key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_NOT_PRIVATE_KEY, "signing needs a private key");
        return 0;
    }
    if (sigsize < k) {
        CTRSA_RAISE(c->prov, CTRSA_R_SIGNATURE_BUFFER_TOO_SMALL,
                    "signature buffer is %zu bytes, %zu needed", sigsize, k);
        return 0;
    }
    if (!ctrsa_key_private_computable(c->key))  /* before the encoding: no arithmetic */
        return 0;
    if (k > sizeof(em)) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEY_TOO_LARGE, "key of %zu bytes", k);
        return 0;
    }
    if (ctrsa_trace_enabled())
        ctrsa_trace("sign", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    ok = encode_for_sign(c, em, k, tbs, tbslen) && ctrsa_key_private_op(c->key, em, em);
    if (ok && c->pad_mode == RSA_X931_PADDING) {
        /* em is the signature now, public: X9.31 releases the smaller of s and n - s. */
        uint8_t n[SIG_MAX_BYTES];

        ok = key_modulus(c, n, k);
        if (ok)
            ctrsa_x931_sig_minimal(em, n, k);
    }
    if (ok) {
        memcpy(sig, em, k);
        *siglen = k;
    }
    ctrsa_cleanse(em, k);
    return ok;
}

/* em[0..k) := sig^e mod n; the signature must be exactly k bytes. */
static int open_signature(sig_ctx *c, uint8_t *em, size_t k, const uint8_t *sig, size_t siglen)
{
    if (!ctrsa_key_computable(c->key))
        return 0;
    if (k > SIG_MAX_BYTES) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEY_TOO_LARGE, "key of %zu bytes", k);
        return 0;
    }
    if (siglen != k) {
        CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE,
                    "signature is %zu bytes, the key's size is %zu", siglen, k);
        return 0;
    }
    return ctrsa_key_public_op(c->key, em, sig);
}

/* CT: public data only; variable time. */
int sig_verify(void *vctx, const unsigned char *sig, size_t siglen,
               const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;
    uint8_t em[SIG_MAX_BYTES];
    const ctrsa_digest_info *d = NULL;
    size_t k, found = 0;

    if (!check_op(c, SIG_OP_VERIFY))
        return 0;
    k = ctrsa_key_size(c->key);
    if (ctrsa_trace_enabled())
        ctrsa_trace("verify", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    if (ctrsa_md_is_set(&c->md)) {
        d = sig_digest_info(c, &c->md, c->pad_mode);
        if (tbslen != ctrsa_md_size(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_DIGEST_LENGTH,
                        "input is %zu bytes, the %s digest is %zu", tbslen,
                        ctrsa_md_name(&c->md), ctrsa_md_size(&c->md));
            return 0;
        }
    }
    if (!open_signature(c, em, k, sig, siglen))
        return 0;
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        return sig_pad_result(c, ctrsa_emsa_pkcs1_verify(em, k, d, tbs, tbslen));
    case RSA_PKCS1_PSS_PADDING:
        if (!ctrsa_md_is_set(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "pad-mode pss needs a digest");
            return 0;
        }
        if (!sig_pad_result(c, ctrsa_emsa_pss_verify(em, k, ctrsa_key_bits(c->key), &c->md.hash,
                                                     &sig_mgf1_in_force(c)->hash, tbs, tbslen,
                                                     c->saltlen, &found)))
            return 0;
        return sig_salt_meets_minimum(c, found);
    case RSA_NO_PADDING:
        if (d != NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode none takes no digest");
            return 0;
        }
        if (tbslen != k || CRYPTO_memcmp(em, tbs, k) != 0) {
            CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE, "signature verification failed");
            return 0;
        }
        return 1;
    case RSA_X931_PADDING: {
        size_t off = 0, len = 0;

        if (!open_x931(c, em, k, &off, &len))
            return 0;
        if (len != tbslen || memcmp(em + off, tbs, len) != 0) {
            CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE, "signature verification failed");
            return 0;
        }
        return 1;
    }
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode %d", c->pad_mode);
        return 0;
    }
}

/* CT: public data only; variable time. */
int sig_verify_recover(void *vctx, unsigned char *rout, size_t *routlen,
                       size_t routsize, const unsigned char *sig, size_t siglen)
{
    sig_ctx *c = vctx;
    uint8_t em[SIG_MAX_BYTES];
    const ctrsa_digest_info *d = NULL;
    size_t k, off = 0, len = 0;

    if (!check_op(c, SIG_OP_VERIFY_RECOVER))
        return 0;
    k = ctrsa_key_size(c->key);
    if (rout == NULL) {
        *routlen = k;
        return 1;
    }
    if (ctrsa_trace_enabled())
        ctrsa_trace("verify-recover", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    if (ctrsa_md_is_set(&c->md))
        d = sig_digest_info(c, &c->md, c->pad_mode);
    if (!open_signature(c, em, k, sig, siglen))
        return 0;
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        if (!sig_pad_result(c, ctrsa_pkcs1_type1_recover(em, k, d, &off, &len)))
            return 0;
        /* MD5-SHA1 has no DigestInfo: the block holds the bare 36 bytes or is wrong. */
        if (d == NULL && sig_md_is_md5_sha1(&c->md) && len != ctrsa_md_size(&c->md))
            return sig_pad_result(c, CTRSA_PAD_BAD_SIGNATURE);
        break;
    case RSA_NO_PADDING:
        if (d != NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode none takes no digest");
            return 0;
        }
        off = 0;
        len = k;
        break;
    case RSA_X931_PADDING:
        if (!open_x931(c, em, k, &off, &len))
            return 0;
        break;
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "verify-recover works with pad-mode pkcs1, x931 or none, not %s",
                    ctrsa_padmode_label(c->pad_mode));
        return 0;
    }
    if (routsize < len) {
        CTRSA_RAISE(c->prov, CTRSA_R_OUTPUT_BUFFER_TOO_SMALL,
                    "output buffer is %zu bytes, %zu needed", routsize, len);
        return 0;
    }
    memcpy(rout, em + off, len);
    *routlen = len;
    return 1;
}

