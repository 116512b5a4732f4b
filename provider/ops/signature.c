/*
 * The "RSA" signature operation: PKCS#1 v1.5 (with DigestInfo, or raw type-1 padding when
 * no digest is set), EMSA-PSS, ANSI X9.31, and no padding; sign, verify, verify-recover and
 * the streaming/one-shot digest-sign and digest-verify forms.
 *
 * Digests are fetched once per context from the provider's child library context (md.h);
 * padding is in padding/ (sig_padding.h); the RSA operations are the key object's
 * (rsa_op.h). The parameters are described once, in sig_params[] (signature_params.c),
 * from which the settable and gettable lists and the parser are all derived.
 *
 * This file: the context's life cycle and init, the checks the other parts share, and the
 * dispatch table. signature.h names the other three files and what each holds.
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
#include "dispatch.h"
#include "padmode.h"
#include "rsa_op.h"
#include "signature.h"

static OSSL_FUNC_signature_newctx_fn sig_newctx;
static OSSL_FUNC_signature_freectx_fn sig_freectx;
static OSSL_FUNC_signature_dupctx_fn sig_dupctx;
static OSSL_FUNC_signature_sign_init_fn sig_sign_init;
static OSSL_FUNC_signature_verify_init_fn sig_verify_init;
static OSSL_FUNC_signature_verify_recover_init_fn sig_verify_recover_init;

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */

const char *sig_op_name(enum sig_operation op)
{
    return op == SIG_OP_SIGN ? "sign" : op == SIG_OP_VERIFY ? "verify" : "verify-recover";
}

/* The MGF1 digest in force: the explicit one, else the signature digest. */
const ctrsa_md *sig_mgf1_in_force(const sig_ctx *c)
{
    return ctrsa_md_is_set(&c->mgf1) ? &c->mgf1 : &c->md;
}

int sig_set_string(char **dst, const char *src)
{
    char *copy = NULL;

    if (src != NULL && (copy = OPENSSL_strdup(src)) == NULL)
        return 0;
    OPENSSL_free(*dst);
    *dst = copy;
    return 1;
}

const ctrsa_pss_restriction *sig_restriction(const sig_ctx *c)
{
    const ctrsa_pss_restriction *r = c->key != NULL ? ctrsa_key_pss(c->key) : NULL;

    return r != NULL && r->restricted ? r : NULL;
}

/* Map a padding outcome to the error queue. 1 for CTRSA_PAD_OK. */
int sig_pad_result(const sig_ctx *c, ctrsa_pad_status st)
{
    switch (st) {
    case CTRSA_PAD_OK:
        return 1;
    case CTRSA_PAD_BAD_INPUT_LENGTH:
        CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                    "input length does not fit %s padding for this key",
                    ctrsa_padmode_label(c->pad_mode));
        break;
    case CTRSA_PAD_KEY_TOO_SMALL:
        /* PKCS#1 v1.5's DigestInfo, or PSS's digest, salt and padding, as OpenSSL codes them */
        CTRSA_RAISE(c->prov, c->pad_mode == RSA_PKCS1_PADDING ? CTRSA_R_DIGEST_TOO_BIG_FOR_KEY
                                                              : CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                    "a %zu-bit key is too small for %s with %s",
                    ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode),
                    ctrsa_md_is_set(&c->md) ? ctrsa_md_name(&c->md) : "this input");
        break;
    case CTRSA_PAD_BAD_SALT_LENGTH:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH, "invalid PSS salt length %d",
                    c->saltlen);
        break;
    case CTRSA_PAD_RANDOM_FAILED:
        CTRSA_RAISE(c->prov, CTRSA_R_RANDOM_FAILURE, "no random bytes for the PSS salt");
        break;
    case CTRSA_PAD_BAD_SIGNATURE:
        CTRSA_RAISE(c->prov, CTRSA_R_BAD_SIGNATURE, "signature verification failed");
        break;
    case CTRSA_PAD_HASH_FAILED:
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "digest computation failed in %s padding",
                    ctrsa_padmode_label(c->pad_mode));
        break;
    }
    return 0;
}

/* ctrsa_rand over the provider's DRBG. */
int sig_rand_from_prov(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    return ctrsa_random_bytes(r->impl, buf, len);
}

/*
 * 1 if m is MD5-SHA1: the 36-byte MD5 || SHA-1 of TLS 1.0 and 1.1, which they sign with
 * PKCS#1 v1.5 and no DigestInfo (RFC 4346, 7.4.3). The default provider accepts it for
 * PKCS#1 v1.5 and PSS signatures (TLS's ServerKeyExchange needs the first), so ctrsa does;
 * it has no algorithm identifier, so an RSA-PSS key's restriction cannot name it.
 */
int sig_md_is_md5_sha1(const ctrsa_md *m)
{
    return ctrsa_md_is(m, "MD5-SHA1");
}

/*
 * m's entry in the digest table for pad_mode: for PKCS#1 v1.5 on a core of OpenSSL 3.4 or
 * later also SM3, which that default provider signs with (its RSA-SM3) and 3.0's refuses;
 * SM3 has no PSS algorithm identifier in either, so PSS and MGF1 keep the common table.
 * Public: names and the core's version.
 */
const ctrsa_digest_info *sig_digest_info(const sig_ctx *c, const ctrsa_md *m, int pad_mode)
{
    if (pad_mode == RSA_PKCS1_PADDING && c->prov != NULL
            && c->prov->core_version >= CTRSA_CORE_3_4)
        return ctrsa_digest_info_lookup_pkcs1(ctrsa_md_name(m));
    return ctrsa_digest_info_lookup(ctrsa_md_name(m));
}

/*
 * m's X9.31 entry: the digest table's, when X9.31 has a hash id for it (SHA-1, SHA-256,
 * SHA-384, SHA-512); else NULL, and NULL when m is not set.
 */
const ctrsa_digest_info *sig_x931_digest(const ctrsa_md *m)
{
    const ctrsa_digest_info *d;

    if (!ctrsa_md_is_set(m) || (d = ctrsa_digest_info_lookup(ctrsa_md_name(m))) == NULL)
        return NULL;
    return d->x931_id != 0 ? d : NULL;
}

/*
 * Check the digest m against the pad mode and the key's restriction. PKCS#1 v1.5 needs a
 * DigestInfo for it (or m is MD5-SHA1, signed bare), PSS any digest we know the OID of
 * (for the algorithm identifier) or MD5-SHA1, X9.31 one with an X9.31 hash id (and a
 * digest there must be: the default provider refuses pad-mode x931 without one, as it
 * signs no raw X9.31 block), no padding none at all.
 */
int sig_check_digest(const sig_ctx *c, const ctrsa_md *m, int pad_mode)
{
    const ctrsa_pss_restriction *r = sig_restriction(c);

    if (pad_mode == RSA_X931_PADDING && sig_x931_digest(m) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_X931_DIGEST,
                    "pad-mode x931 needs digest SHA1, SHA2-256, SHA2-384 or SHA2-512, the "
                    "digests X9.31 has an id for (%s is set)",
                    ctrsa_md_is_set(m) ? ctrsa_md_name(m) : "none");
        return 0;
    }
    if (!ctrsa_md_is_set(m))
        return 1;
    if (pad_mode == RSA_NO_PADDING) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode none takes no digest (%s is set)", ctrsa_md_name(m));
        return 0;
    }
    if (sig_md_is_md5_sha1(m) && r == NULL)
        return 1;
    if (sig_digest_info(c, m, pad_mode) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "digest %s is not allowed for RSA signatures", ctrsa_md_name(m));
        return 0;
    }
    if (r != NULL && r->mdname[0] != '\0' && !ctrsa_md_is(m, r->mdname)) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "the RSA-PSS key requires digest %s, not %s", r->mdname, ctrsa_md_name(m));
        return 0;
    }
    return 1;
}

int sig_check_mgf1(const sig_ctx *c, const ctrsa_md *m)
{
    const ctrsa_pss_restriction *r = sig_restriction(c);

    if (!ctrsa_md_is_set(m))
        return 1;
    if (ctrsa_digest_info_lookup(ctrsa_md_name(m)) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "digest %s is not allowed for MGF1", ctrsa_md_name(m));
        return 0;
    }
    if (r != NULL && r->mgf1mdname[0] != '\0' && !ctrsa_md_is(m, r->mgf1mdname)) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "the RSA-PSS key requires MGF1 with %s, not %s", r->mgf1mdname,
                    ctrsa_md_name(m));
        return 0;
    }
    return 1;
}

/* The shortest salt the key accepts: its RSA-PSS restriction's, -1 when it has none. */
int sig_min_saltlen(const sig_ctx *c)
{
    const ctrsa_pss_restriction *r = sig_restriction(c);

    return r != NULL ? r->min_saltlen : -1;
}

/* A salt of slen bytes, made or found, against the key's minimum. */
int sig_salt_meets_minimum(const sig_ctx *c, size_t slen)
{
    int min = sig_min_saltlen(c);

    if (min >= 0 && slen < (size_t)min) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_SALTLEN_TOO_SMALL,
                    "salt of %zu bytes, the RSA-PSS key requires at least %d", slen, min);
        return 0;
    }
    return 1;
}

/*
 * The salt length mode a context starts with, as the loading core's default provider: from
 * OpenSSL 3.1, auto-digestmax (sign with min(digest, max), verify auto); on 3.0, which has
 * no such mode, auto (sign with the longest salt, verify auto).
 */
static int default_saltlen(const sig_ctx *c)
{
    return c->prov->core_version >= CTRSA_CORE_3_1 ? CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX
                                                   : CTRSA_PSS_SALTLEN_AUTO;
}

/* The salt length mode against the version's modes and the key's minimum (verification's
 * auto is checked later). */
int sig_check_saltlen(const sig_ctx *c, int saltlen)
{
    const ctrsa_pss_restriction *r = sig_restriction(c);
    size_t hlen = ctrsa_md_size(&c->md);

    if (saltlen == CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX
        && c->prov->core_version < CTRSA_CORE_3_1) {
        /* OpenSSL 3.0's default provider refuses -4 too (its lowest mode is max, -3). */
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH,
                    "invalid PSS salt length -4: auto-digestmax needs OpenSSL 3.1 or later");
        return 0;
    }
    if (saltlen < CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH, "invalid PSS salt length %d", saltlen);
        return 0;
    }
    if (r == NULL)
        return 1;
    if ((saltlen >= 0 && saltlen < r->min_saltlen)
        || (saltlen == CTRSA_PSS_SALTLEN_DIGEST && hlen > 0 && hlen < (size_t)r->min_saltlen)) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_SALTLEN_TOO_SMALL,
                    "the RSA-PSS key requires a salt of at least %d bytes", r->min_saltlen);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------ */
/* Life cycle                                                                           */

static void *sig_newctx(void *provctx, const char *propq)
{
    sig_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "signature context");
        return NULL;
    }
    c->prov = provctx;
    if (!sig_set_string(&c->propq, propq)) {
        OPENSSL_free(c);
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "signature context");
        return NULL;
    }
    c->pad_mode = RSA_PKCS1_PADDING;
    c->saltlen = default_saltlen(c);
    return c;
}

static void sig_freectx(void *vctx)
{
    sig_ctx *c = vctx;

    if (c == NULL)
        return;
    ctrsa_key_free(c->key);
    ctrsa_md_reset(&c->md);
    ctrsa_md_reset(&c->mgf1);
    EVP_MD_CTX_free(c->mdctx);
    OPENSSL_free(c->propq);
    OPENSSL_free(c->mdprops);
    OPENSSL_free(c->mgf1props);
    ctrsa_cleanse(c, sizeof(*c));
    OPENSSL_free(c);
}

static void *sig_dupctx(void *vctx)
{
    const sig_ctx *src = vctx;
    sig_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c == NULL) {
        CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "signature context");
        return NULL;
    }
    c->prov = src->prov;
    c->op = src->op;
    c->pad_mode = src->pad_mode;
    c->saltlen = src->saltlen;
    c->streaming = src->streaming;
    if (src->key != NULL) {
        if (!ctrsa_key_up_ref(src->key))
            goto err;
        c->key = src->key;
    }
    if (!sig_set_string(&c->propq, src->propq) || !sig_set_string(&c->mdprops, src->mdprops)
        || !sig_set_string(&c->mgf1props, src->mgf1props)
        || !ctrsa_md_copy(&c->md, &src->md) || !ctrsa_md_copy(&c->mgf1, &src->mgf1))
        goto err;
    if (src->mdctx != NULL) {
        if ((c->mdctx = EVP_MD_CTX_new()) == NULL || !EVP_MD_CTX_copy_ex(c->mdctx, src->mdctx))
            goto err;
    }
    return c;
err:
    CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "duplicating the signature context");
    sig_freectx(c);
    return NULL;
}

/* ------------------------------------------------------------------------------------ */
/* Initialisation                                                                       */

/*
 * 1 if the RSA-PSS key's minimum salt length r->min_saltlen can be used with its modulus:
 * from 0 to the key's size less the digest's (one less when the top byte holds a single
 * bit), the bound the default provider checks when an operation starts (it refuses there
 * with "invalid salt length"; a key it imports but cannot use is refused the same way).
 */
static int restriction_saltlen_fits(const sig_ctx *c, const ctrsa_pss_restriction *r)
{
    long max = (long)ctrsa_key_size(c->key)
               - (long)(ctrsa_md_is_set(&c->md) ? ctrsa_md_size(&c->md) : CTRSA_SHA1_SIZE)
               - ((ctrsa_key_bits(c->key) & 7) == 1);

    if (r->min_saltlen < 0 || r->min_saltlen > max) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH,
                    "invalid salt length: the RSA-PSS key's minimum salt length %d is not "
                    "in 0..%ld for its %zu-bit modulus", r->min_saltlen, max,
                    ctrsa_key_bits(c->key));
        return 0;
    }
    return 1;
}

/*
 * 1 if an RSA-PSS restriction's digest m is one the default provider can sign and verify
 * with: its table of PSS digests (OpenSSL 3.0.20, crypto/rsa/rsa_schemes.c) holds SHA-1
 * and SHA-2 only, and it refuses a key restricted to any other digest, as the hash or the
 * MGF1 hash, when an operation starts ("PSS restrictions lack [MGF1] hash algorithm").
 * ctrsa accepts SHA-3 restrictions on import (compatibility.md) and refuses them here, so
 * the verdicts of both providers agree. Public: digest names only.
 */
static int restriction_md_signable(const ctrsa_md *m)
{
    static const char *const names[] = {"SHA1", "SHA2-224", "SHA2-256", "SHA2-384",
                                         "SHA2-512", "SHA2-512/224", "SHA2-512/256"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (EVP_MD_is_a(m->md, names[i]))
            return 1;
    return 0;
}

/*
 * Common to every init: take the key (or keep the current one when provkey is NULL), reset
 * padding to pkcs1 (pss with the key's restrictions for a restricted RSA-PSS key), then
 * apply params.
 */
int sig_init(sig_ctx *c, void *provkey, const OSSL_PARAM params[], enum sig_operation op)
{
    const ctrsa_pss_restriction *r;

    if (c == NULL)
        return 0;
    if (provkey != NULL) {
        if (!ctrsa_key_up_ref(provkey)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "cannot reference the key");
            return 0;
        }
        ctrsa_key_free(c->key);
        c->key = provkey;
    }
    if (c->key == NULL || !ctrsa_key_has_public(c->key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_MISSING_KEY_PART, "%s needs an RSA key", sig_op_name(op));
        return 0;
    }
    /* (A public key is refused at the signature, as the default provider refuses it.) */
    c->op = op;
    c->streaming = 0;
    EVP_MD_CTX_free(c->mdctx);
    c->mdctx = NULL;
    ctrsa_md_reset(&c->md);
    ctrsa_md_reset(&c->mgf1);
    c->pad_mode = RSA_PKCS1_PADDING;
    c->saltlen = default_saltlen(c);
    r = sig_restriction(c);
    if (ctrsa_key_is_pss(c->key)) {
        /* Every RSA-PSS key signs with PSS only; a restricted one also fixes its digests. */
        if (op == SIG_OP_VERIFY_RECOVER) {
            CTRSA_RAISE(c->prov, CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE,
                        "an RSA-PSS key has no verify-recover operation");
            return 0;
        }
        c->pad_mode = RSA_PKCS1_PSS_PADDING;
    }
    if (r != NULL) {
        /* the restriction's digests get the checks a "digest" parameter gets */
        c->saltlen = r->min_saltlen;
        if ((r->mdname[0] != '\0'
             && !sig_replace_md(c, &c->md, r->mdname, NULL, sig_check_sig_digest))
            || (r->mgf1mdname[0] != '\0'
                && !sig_replace_md(c, &c->mgf1, r->mgf1mdname, NULL, sig_check_mgf1)))
            return 0;
        int md_ok = r->mdname[0] == '\0' || restriction_md_signable(&c->md);
        int mgf1_ok = r->mgf1mdname[0] == '\0' || restriction_md_signable(&c->mgf1);
        if (!md_ok || !mgf1_ok) {
            CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                        "PSS restrictions lack %s hash algorithm: the RSA-PSS key is "
                        "restricted to %s, which the default provider cannot sign with "
                        "either (it takes SHA-1 and SHA-2 there)",
                        md_ok ? "MGF1" : "a", md_ok ? r->mgf1mdname : r->mdname);
            return 0;
        }
        if (!restriction_saltlen_fits(c, r))
            return 0;
    }
    return sig_set_ctx_params(c, params);
}

static int sig_sign_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return sig_init(vctx, provkey, params, SIG_OP_SIGN);
}

static int sig_verify_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return sig_init(vctx, provkey, params, SIG_OP_VERIFY);
}

static int sig_verify_recover_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return sig_init(vctx, provkey, params, SIG_OP_VERIFY_RECOVER);
}

/* ------------------------------------------------------------------------------------ */

const OSSL_DISPATCH ctrsa_rsa_signature_functions[] = {
    { OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx },
    { OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx },
    { OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx },
    { OSSL_FUNC_SIGNATURE_SIGN_INIT, (void (*)(void))sig_sign_init },
    { OSSL_FUNC_SIGNATURE_SIGN, (void (*)(void))sig_sign },
    { OSSL_FUNC_SIGNATURE_VERIFY_INIT, (void (*)(void))sig_verify_init },
    { OSSL_FUNC_SIGNATURE_VERIFY, (void (*)(void))sig_verify },
    { OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT, (void (*)(void))sig_verify_recover_init },
    { OSSL_FUNC_SIGNATURE_VERIFY_RECOVER, (void (*)(void))sig_verify_recover },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))sig_digest_sign_init },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (void (*)(void))sig_digest_update },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (void (*)(void))sig_digest_sign_final },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN, (void (*)(void))sig_digest_sign },
    { OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (void (*)(void))sig_digest_verify_init },
    { OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, (void (*)(void))sig_digest_update },
    { OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, (void (*)(void))sig_digest_verify_final },
    { OSSL_FUNC_SIGNATURE_DIGEST_VERIFY, (void (*)(void))sig_digest_verify },
    { OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))sig_get_ctx_params },
    { OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (void (*)(void))sig_gettable_ctx_params },
    { OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))sig_set_ctx_params },
    { OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (void (*)(void))sig_settable_ctx_params },
    { OSSL_FUNC_SIGNATURE_GET_CTX_MD_PARAMS, (void (*)(void))sig_get_ctx_md_params },
    { OSSL_FUNC_SIGNATURE_GETTABLE_CTX_MD_PARAMS, (void (*)(void))sig_gettable_ctx_md_params },
    { OSSL_FUNC_SIGNATURE_SET_CTX_MD_PARAMS, (void (*)(void))sig_set_ctx_md_params },
    { OSSL_FUNC_SIGNATURE_SETTABLE_CTX_MD_PARAMS, (void (*)(void))sig_settable_ctx_md_params },
    OSSL_DISPATCH_END
};
