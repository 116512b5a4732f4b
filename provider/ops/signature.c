/*
 * The "RSA" signature operation: PKCS#1 v1.5 (with DigestInfo, or raw type-1 padding when
 * no digest is set), EMSA-PSS, and no padding; sign, verify, verify-recover and the
 * streaming/one-shot digest-sign and digest-verify forms.
 *
 * Digests are fetched once per context from the provider's child library context (md.h);
 * padding is in padding/ (sig_padding.h); the RSA operations are the key object's
 * (rsa_key.h). The parameters are described once, in sig_params[] below, from which the
 * settable and gettable lists and the parser are all derived.
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

#include "bignum.h"
#include "core_version.h"
#include "dispatch.h"
#include "md.h"
#include "padmode.h"
#include "prov.h"
#include "rsa_key.h"
#include "rsa_op.h"
#include "sig_algid.h"
#include "sig_padding.h"

/* OpenSSL 3.1+ names this salt-length mode; 3.0's headers lack it. */
#ifndef OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO_DIGEST_MAX
#define OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO_DIGEST_MAX "auto-digestmax"
#endif

#define CTRSA_SHA1_SIZE 20 /* RSA-PSS keys default to SHA-1 */
#define SIG_MAX_BYTES (CTBN_MAX_BITS / 8)
/* The digest the RSA keymgmt names as its default, for digest-sign with no digest given. */
#define SIG_DEFAULT_DIGEST "SHA2-256"

enum sig_operation {
    SIG_OP_NONE = 0,
    SIG_OP_SIGN,
    SIG_OP_VERIFY,
    SIG_OP_VERIFY_RECOVER,
};

typedef struct sig_ctx {
    CTRSA_PROVCTX *prov;
    char *propq;            /* default property query for digests (from newctx) */
    CTRSA_KEY *key;         /* up-ref'd */
    enum sig_operation op;
    int pad_mode;           /* RSA_PKCS1_PADDING, RSA_PKCS1_PSS_PADDING or RSA_NO_PADDING */
    ctrsa_md md;            /* the signature digest; unset means raw input */
    ctrsa_md mgf1;          /* MGF1 digest; unset means "the signature digest" */
    char *mdprops;          /* properties for the next digest fetch ("properties") */
    char *mgf1props;        /* properties for the next MGF1 digest fetch */
    int saltlen;            /* >= 0 or CTRSA_PSS_SALTLEN_* */
    EVP_MD_CTX *mdctx;      /* streaming digest for digest-sign/verify */
    int streaming;          /* digest-sign/verify initialised: the digest is fixed */
} sig_ctx;

static OSSL_FUNC_signature_newctx_fn sig_newctx;
static OSSL_FUNC_signature_freectx_fn sig_freectx;
static OSSL_FUNC_signature_dupctx_fn sig_dupctx;
static OSSL_FUNC_signature_sign_init_fn sig_sign_init;
static OSSL_FUNC_signature_sign_fn sig_sign;
static OSSL_FUNC_signature_verify_init_fn sig_verify_init;
static OSSL_FUNC_signature_verify_fn sig_verify;
static OSSL_FUNC_signature_verify_recover_init_fn sig_verify_recover_init;
static OSSL_FUNC_signature_verify_recover_fn sig_verify_recover;
static OSSL_FUNC_signature_digest_sign_init_fn sig_digest_sign_init;
static OSSL_FUNC_signature_digest_sign_update_fn sig_digest_update;
static OSSL_FUNC_signature_digest_sign_final_fn sig_digest_sign_final;
static OSSL_FUNC_signature_digest_sign_fn sig_digest_sign;
static OSSL_FUNC_signature_digest_verify_init_fn sig_digest_verify_init;
static OSSL_FUNC_signature_digest_verify_final_fn sig_digest_verify_final;
static OSSL_FUNC_signature_digest_verify_fn sig_digest_verify;
static OSSL_FUNC_signature_get_ctx_params_fn sig_get_ctx_params;
static OSSL_FUNC_signature_gettable_ctx_params_fn sig_gettable_ctx_params;
static OSSL_FUNC_signature_set_ctx_params_fn sig_set_ctx_params;
static OSSL_FUNC_signature_settable_ctx_params_fn sig_settable_ctx_params;
static OSSL_FUNC_signature_get_ctx_md_params_fn sig_get_ctx_md_params;
static OSSL_FUNC_signature_gettable_ctx_md_params_fn sig_gettable_ctx_md_params;
static OSSL_FUNC_signature_set_ctx_md_params_fn sig_set_ctx_md_params;
static OSSL_FUNC_signature_settable_ctx_md_params_fn sig_settable_ctx_md_params;

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */

static const char *op_name(enum sig_operation op)
{
    return op == SIG_OP_SIGN ? "sign" : op == SIG_OP_VERIFY ? "verify" : "verify-recover";
}

/* The MGF1 digest in force: the explicit one, else the signature digest. */
static const ctrsa_md *mgf1_in_force(const sig_ctx *c)
{
    return ctrsa_md_is_set(&c->mgf1) ? &c->mgf1 : &c->md;
}

static int set_string(char **dst, const char *src)
{
    char *copy = NULL;

    if (src != NULL && (copy = OPENSSL_strdup(src)) == NULL)
        return 0;
    OPENSSL_free(*dst);
    *dst = copy;
    return 1;
}

static const ctrsa_pss_restriction *restriction(const sig_ctx *c)
{
    const ctrsa_pss_restriction *r = c->key != NULL ? ctrsa_key_pss(c->key) : NULL;

    return r != NULL && r->restricted ? r : NULL;
}

/* Map a padding outcome to the error queue. 1 for CTRSA_PAD_OK. */
static int pad_result(const sig_ctx *c, ctrsa_pad_status st)
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
        CTRSA_RAISE(c->prov, CTRSA_R_KEY_TOO_SMALL,
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
static int rand_from_prov(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    return ctrsa_random_bytes(r->impl, buf, len);
}

/*
 * 1 if m is MD5-SHA1: the 36-byte MD5 || SHA-1 of TLS 1.0 and 1.1, which they sign with
 * PKCS#1 v1.5 and no DigestInfo (RFC 4346, 7.4.3). The default provider accepts it for
 * PKCS#1 v1.5 and PSS signatures (TLS's ServerKeyExchange needs the first), so ctrsa does;
 * it has no algorithm identifier, so an RSA-PSS key's restriction cannot name it.
 */
static int md_is_md5_sha1(const ctrsa_md *m)
{
    return ctrsa_md_is(m, "MD5-SHA1");
}

/*
 * m's entry in the digest table for pad_mode: for PKCS#1 v1.5 on a core of OpenSSL 3.4 or
 * later also SM3, which that default provider signs with (its RSA-SM3) and 3.0's refuses;
 * SM3 has no PSS algorithm identifier in either, so PSS and MGF1 keep the common table.
 * Public: names and the core's version.
 */
static const ctrsa_digest_info *digest_info(const sig_ctx *c, const ctrsa_md *m, int pad_mode)
{
    if (pad_mode == RSA_PKCS1_PADDING && c->prov != NULL
            && c->prov->core_version >= CTRSA_CORE_3_4)
        return ctrsa_digest_info_lookup_pkcs1(ctrsa_md_name(m));
    return ctrsa_digest_info_lookup(ctrsa_md_name(m));
}

/*
 * Check the digest m against the pad mode and the key's restriction. PKCS#1 v1.5 needs a
 * DigestInfo for it (or m is MD5-SHA1, signed bare), PSS any digest we know the OID of
 * (for the algorithm identifier) or MD5-SHA1, no padding none at all.
 */
static int check_digest(const sig_ctx *c, const ctrsa_md *m, int pad_mode)
{
    const ctrsa_pss_restriction *r = restriction(c);

    if (!ctrsa_md_is_set(m))
        return 1;
    if (pad_mode == RSA_NO_PADDING) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode none takes no digest (%s is set)", ctrsa_md_name(m));
        return 0;
    }
    if (md_is_md5_sha1(m) && r == NULL)
        return 1;
    if (digest_info(c, m, pad_mode) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "digest %s is not allowed for RSA signatures", ctrsa_md_name(m));
        return 0;
    }
    if (r != NULL && r->mdname[0] != '\0' && !ctrsa_md_is(m, r->mdname)) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
                    "the RSA-PSS key requires digest %s, not %s", r->mdname, ctrsa_md_name(m));
        return 0;
    }
    return 1;
}

static int check_mgf1(const sig_ctx *c, const ctrsa_md *m)
{
    const ctrsa_pss_restriction *r = restriction(c);

    if (!ctrsa_md_is_set(m))
        return 1;
    if (ctrsa_digest_info_lookup(ctrsa_md_name(m)) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "digest %s is not allowed for MGF1", ctrsa_md_name(m));
        return 0;
    }
    if (r != NULL && r->mgf1mdname[0] != '\0' && !ctrsa_md_is(m, r->mgf1mdname)) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
                    "the RSA-PSS key requires MGF1 with %s, not %s", r->mgf1mdname,
                    ctrsa_md_name(m));
        return 0;
    }
    return 1;
}

/* The shortest salt the key accepts: its RSA-PSS restriction's, -1 when it has none. */
static int min_saltlen(const sig_ctx *c)
{
    const ctrsa_pss_restriction *r = restriction(c);

    return r != NULL ? r->min_saltlen : -1;
}

/* A salt of slen bytes, made or found, against the key's minimum. */
static int salt_meets_minimum(const sig_ctx *c, size_t slen)
{
    int min = min_saltlen(c);

    if (min >= 0 && slen < (size_t)min) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
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
static int check_saltlen(const sig_ctx *c, int saltlen)
{
    const ctrsa_pss_restriction *r = restriction(c);
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
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
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
    if (!set_string(&c->propq, propq)) {
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
    if (!set_string(&c->propq, src->propq) || !set_string(&c->mdprops, src->mdprops)
        || !set_string(&c->mgf1props, src->mgf1props)
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
/* Parameters: the one table                                                            */

typedef int (*sig_setter)(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
typedef int (*sig_getter)(const sig_ctx *c, OSSL_PARAM *p);

static int set_pad_mode(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_digest(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_properties(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_mgf1_digest(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_mgf1_properties(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_saltlen(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int get_algorithm_id(const sig_ctx *c, OSSL_PARAM *p);
static int get_pad_mode(const sig_ctx *c, OSSL_PARAM *p);
static int get_digest(const sig_ctx *c, OSSL_PARAM *p);
static int get_mgf1_digest(const sig_ctx *c, OSSL_PARAM *p);
static int get_saltlen(const sig_ctx *c, OSSL_PARAM *p);
static int get_digest_size(const sig_ctx *c, OSSL_PARAM *p);

/*
 * Every parameter once: name, descriptor type, setter, getter, and whether it may be set
 * while digest-sign/verify is streaming. The setters run in this order, so pad-mode is
 * known before the digest, MGF1 and salt-length checks that depend on it.
 *   X(name, descriptor, setter, getter, settable_while_streaming)
 */
#define SIG_PARAMS(X)                                                                        \
    X(OSSL_SIGNATURE_PARAM_PAD_MODE, OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE,   \
      NULL, 0), set_pad_mode, get_pad_mode, 1)                                               \
    X(OSSL_SIGNATURE_PARAM_DIGEST, OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,       \
      NULL, 0), set_digest, get_digest, 0)                                                   \
    X(OSSL_SIGNATURE_PARAM_PROPERTIES, OSSL_PARAM_utf8_string(                               \
      OSSL_SIGNATURE_PARAM_PROPERTIES, NULL, 0), set_properties, NULL, 0)                    \
    X(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, OSSL_PARAM_utf8_string(                              \
      OSSL_SIGNATURE_PARAM_MGF1_DIGEST, NULL, 0), set_mgf1_digest, get_mgf1_digest, 1)       \
    X(OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, OSSL_PARAM_utf8_string(                         \
      OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, NULL, 0), set_mgf1_properties, NULL, 1)          \
    X(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, OSSL_PARAM_utf8_string(                              \
      OSSL_SIGNATURE_PARAM_PSS_SALTLEN, NULL, 0), set_saltlen, get_saltlen, 1)               \
    X(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, OSSL_PARAM_octet_string(                            \
      OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0), NULL, get_algorithm_id, 0)                \
    X(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE,  \
      NULL), NULL, get_digest_size, 0)

static const struct sig_param {
    const char *name;
    sig_setter set;
    sig_getter get;
    int while_streaming;
} sig_params[] = {
#define AS_ENTRY(name, desc, setter, getter, stream) { name, setter, getter, stream },
    SIG_PARAMS(AS_ENTRY)
#undef AS_ENTRY
};

#define N_SIG_PARAMS (sizeof(sig_params) / sizeof(sig_params[0]))

/*
 * The descriptor lists, derived from the same table: the full descriptor array is built at
 * compile time, and the three lists (gettable, settable, settable while streaming) are
 * filtered from it once, the first time one is asked for.
 */
static const OSSL_PARAM sig_descriptors[] = {
#define AS_DESC(name, desc, setter, getter, stream) desc,
    SIG_PARAMS(AS_DESC)
#undef AS_DESC
};

static OSSL_PARAM gettable_list[N_SIG_PARAMS + 1];
static OSSL_PARAM settable_list[N_SIG_PARAMS + 1];
static OSSL_PARAM settable_streaming_list[N_SIG_PARAMS + 1];
static CRYPTO_ONCE lists_once = CRYPTO_ONCE_STATIC_INIT;

static void build_lists(void)
{
    size_t i, g = 0, s = 0, ss = 0;

    for (i = 0; i < N_SIG_PARAMS; i++) {
        if (sig_params[i].get != NULL)
            gettable_list[g++] = sig_descriptors[i];
        if (sig_params[i].set != NULL) {
            settable_list[s++] = sig_descriptors[i];
            if (sig_params[i].while_streaming)
                settable_streaming_list[ss++] = sig_descriptors[i];
        }
    }
    gettable_list[g] = (OSSL_PARAM)OSSL_PARAM_END;
    settable_list[s] = (OSSL_PARAM)OSSL_PARAM_END;
    settable_streaming_list[ss] = (OSSL_PARAM)OSSL_PARAM_END;
}

static const OSSL_PARAM *sig_gettable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    if (!CRYPTO_THREAD_run_once(&lists_once, build_lists))
        return NULL;
    return gettable_list;
}

static const OSSL_PARAM *sig_settable_ctx_params(void *vctx, void *provctx)
{
    const sig_ctx *c = vctx;

    (void)provctx;
    if (!CRYPTO_THREAD_run_once(&lists_once, build_lists))
        return NULL;
    return c != NULL && c->streaming ? settable_streaming_list : settable_list;
}

static int sig_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    sig_ctx *c = vctx;
    size_t i;

    if (c == NULL)
        return 0;
    if (params == NULL)
        return 1;
    for (i = 0; i < N_SIG_PARAMS; i++) {
        const OSSL_PARAM *p;

        if (sig_params[i].set == NULL
            || (p = OSSL_PARAM_locate_const(params, sig_params[i].name)) == NULL)
            continue;
        if (c->streaming && !sig_params[i].while_streaming) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                        "\"%s\" cannot change once digest-sign/verify has started",
                        sig_params[i].name);
            return 0;
        }
        if (!sig_params[i].set(c, p, params))
            return 0;
    }
    return 1;
}

static int sig_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    const sig_ctx *c = vctx;
    size_t i;

    if (c == NULL)
        return 0;
    for (i = 0; i < N_SIG_PARAMS; i++) {
        OSSL_PARAM *p;

        if (sig_params[i].get == NULL
            || (p = OSSL_PARAM_locate(params, sig_params[i].name)) == NULL)
            continue;
        if (!sig_params[i].get(c, p)) {
            /* a getter that fails without saying why: the type or the buffer size */
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                        "cannot return parameter \"%s\" (wrong type or buffer too small)",
                        sig_params[i].name);
            return 0;
        }
    }
    return 1;
}

/*
 * buf[0..size) := the UTF-8 string parameter p, read within its data_size; raises on a
 * wrong type or a value too long.
 */
static int read_utf8(const sig_ctx *c, const OSSL_PARAM *p, char *buf, size_t size)
{
    return ctrsa_param_get_utf8(c->prov, p, buf, size);
}

static int replace_md(sig_ctx *c, ctrsa_md *dst, const char *name, const char *props,
                      int (*check)(const sig_ctx *c, const ctrsa_md *m));
static int check_sig_digest(const sig_ctx *c, const ctrsa_md *m);

static int set_pad_mode(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    const ctrsa_pss_restriction *r = restriction(c);
    unsigned int allowed = CTRSA_PADMODES_SIGNATURE;
    int mode;

    /* PSS cannot be recovered from the block; raw verify-recover is pkcs1 or none. */
    if (c->op == SIG_OP_VERIFY_RECOVER)
        allowed &= ~CTRSA_PADMODE_BIT(RSA_PKCS1_PSS_PADDING);
    if (!ctrsa_padmode_from_param(c->prov, p, allowed, &mode))
        return 0;
    if ((r != NULL || ctrsa_key_is_pss(c->key)) && mode != RSA_PKCS1_PSS_PADDING) {
        CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
                    "an RSA-PSS key only signs with pad-mode pss, not %s",
                    ctrsa_padmode_label(mode));
        return 0;
    }
    if (!check_digest(c, &c->md, mode))
        return 0;
    c->pad_mode = mode;
    /*
     * PSS with no digest set, and none in this call: SHA-1, as OpenSSL does (RFC 8017's
     * default RSASSA-PSS parameters; MGF1 then follows the digest). set_digest runs after
     * this setter when the call names one.
     */
    if (mode == RSA_PKCS1_PSS_PADDING && !ctrsa_md_is_set(&c->md)
        && OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST) == NULL)
        return replace_md(c, &c->md, "SHA1", c->mdprops, check_sig_digest);
    return 1;
}

/*
 * *dst := the digest `name`, fetched for this context with `props`, if `check` accepts it;
 * *dst is unchanged on failure (errors raised).
 */
static int replace_md(sig_ctx *c, ctrsa_md *dst, const char *name, const char *props,
                      int (*check)(const sig_ctx *c, const ctrsa_md *m))
{
    ctrsa_md fresh;

    memset(&fresh, 0, sizeof(fresh));
    if (!ctrsa_md_fetch_for_ctx(c->prov, &fresh, name, props, c->propq))
        return 0;
    if (!check(c, &fresh)) {
        ctrsa_md_reset(&fresh);
        return 0;
    }
    ctrsa_md_reset(dst);
    *dst = fresh;
    return 1;
}

/*
 * *props := the properties parameter `props_name` of params when present (read into buf),
 * else `stored` (what an earlier call set alone). 0 with an error raised if it is not a
 * UTF-8 string.
 */
static int props_for(const sig_ctx *c, const OSSL_PARAM params[], const char *props_name,
                     const char *stored, char buf[CTRSA_PARAM_PROPS_SIZE], const char **props)
{
    const OSSL_PARAM *pp = OSSL_PARAM_locate_const(params, props_name);

    *props = stored;
    if (pp == NULL)
        return 1;
    *props = buf;
    return read_utf8(c, pp, buf, CTRSA_PARAM_PROPS_SIZE);
}

/* *dst := a copy of the UTF-8 string in p. */
static int store_props(sig_ctx *c, const OSSL_PARAM *p, char **dst)
{
    char props[CTRSA_PARAM_PROPS_SIZE];

    if (!read_utf8(c, p, props, sizeof(props)))
        return 0;
    if (!set_string(dst, props)) {
        CTRSA_RAISE(c->prov, CTRSA_R_MALLOC_FAILURE, "properties");
        return 0;
    }
    return 1;
}

static int check_sig_digest(const sig_ctx *c, const ctrsa_md *m)
{
    return check_digest(c, m, c->pad_mode);
}

static int set_digest(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    char name[CTRSA_PARAM_NAME_SIZE], buf[CTRSA_PARAM_PROPS_SIZE];
    const char *props;

    return read_utf8(c, p, name, sizeof(name))
           && props_for(c, params, OSSL_SIGNATURE_PARAM_PROPERTIES, c->mdprops, buf, &props)
           && replace_md(c, &c->md, name, props, check_sig_digest);
}

/* "properties" alone applies to the next digest fetch; with "digest" set_digest used it. */
static int set_properties(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    (void)params;
    return store_props(c, p, &c->mdprops);
}

static int require_pss(const sig_ctx *c, const char *what)
{
    if (c->pad_mode != RSA_PKCS1_PSS_PADDING) {
        /* (an MGF1 digest gets the default provider's reason, "invalid mgf1 md") */
        CTRSA_RAISE(c->prov, strcmp(what, OSSL_SIGNATURE_PARAM_MGF1_DIGEST) == 0
                                 ? CTRSA_R_INVALID_MGF1_MD : CTRSA_R_INVALID_PADDING_MODE,
                    "\"%s\" needs pad-mode pss (pad-mode is %s)", what,
                    ctrsa_padmode_label(c->pad_mode));
        return 0;
    }
    return 1;
}

static int set_mgf1_digest(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    char name[CTRSA_PARAM_NAME_SIZE], buf[CTRSA_PARAM_PROPS_SIZE];
    const char *props;

    return require_pss(c, p->key) && read_utf8(c, p, name, sizeof(name))
           && props_for(c, params, OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, c->mgf1props, buf,
                        &props)
           && replace_md(c, &c->mgf1, name, props, check_mgf1);
}

static int set_mgf1_properties(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    (void)params;
    return store_props(c, p, &c->mgf1props);
}

static const struct {
    int mode;
    const char *name;
} saltlen_names[] = {
    { CTRSA_PSS_SALTLEN_DIGEST, OSSL_PKEY_RSA_PSS_SALT_LEN_DIGEST },
    { CTRSA_PSS_SALTLEN_MAX, OSSL_PKEY_RSA_PSS_SALT_LEN_MAX },
    { CTRSA_PSS_SALTLEN_AUTO, OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO },
    { CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX, OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO_DIGEST_MAX },
};

static int set_saltlen(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    int saltlen = INT_MIN;
    size_t i;

    (void)params;
    if (!require_pss(c, p->key))
        return 0;
    if (p->data_type == OSSL_PARAM_INTEGER || p->data_type == OSSL_PARAM_UNSIGNED_INTEGER) {
        /* OpenSSL 3.0's getter reads p->data without checking it (fuzz_params). */
        if (p->data == NULL || !OSSL_PARAM_get_int(p, &saltlen)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH, "unreadable salt length");
            return 0;
        }
    } else if (p->data_type == OSSL_PARAM_UTF8_STRING) {
        char s[CTRSA_PARAM_NAME_SIZE];
        char *end = NULL;
        long v;

        if (!read_utf8(c, p, s, sizeof(s)))
            return 0;
        for (i = 0; i < sizeof(saltlen_names) / sizeof(saltlen_names[0]); i++)
            if (strcmp(s, saltlen_names[i].name) == 0)
                saltlen = saltlen_names[i].mode;
        if (saltlen == INT_MIN) {
            errno = 0;
            v = strtol(s, &end, 10);
            if (s[0] == '\0' || *end != '\0' || errno != 0 || v < INT_MIN + 1 || v > INT_MAX) {
                CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH,
                            "salt length \"%.40s\" is neither a number nor digest, max, auto "
                            "or auto-digestmax", s);
                return 0;
            }
            saltlen = (int)v;
        }
    } else {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_SALT_LENGTH,
                    "salt length must be an integer or a UTF-8 string");
        return 0;
    }
    if (!check_saltlen(c, saltlen))
        return 0;
    c->saltlen = saltlen;
    return 1;
}

static int get_pad_mode(const sig_ctx *c, OSSL_PARAM *p)
{
    return ctrsa_padmode_to_param(c->prov, p, c->pad_mode);
}

static int get_digest(const sig_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_name(&c->md));
}

static int get_mgf1_digest(const sig_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_name(mgf1_in_force(c)));
}

static int get_digest_size(const sig_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_size_t(p, ctrsa_md_size(&c->md));
}

static int get_saltlen(const sig_ctx *c, OSSL_PARAM *p)
{
    size_t i;
    int n;

    if (p->data_type == OSSL_PARAM_INTEGER || p->data_type == OSSL_PARAM_UNSIGNED_INTEGER)
        return OSSL_PARAM_set_int(p, c->saltlen);
    if (p->data_type != OSSL_PARAM_UTF8_STRING) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "salt length is read as an integer or a UTF-8 string");
        return 0;
    }
    /* (auto-digestmax is only ever set on a 3.1+ core, whose libcrypto knows the name.) */
    for (i = 0; i < sizeof(saltlen_names) / sizeof(saltlen_names[0]); i++)
        if (saltlen_names[i].mode == c->saltlen)
            return OSSL_PARAM_set_utf8_string(p, saltlen_names[i].name);
    if (p->data == NULL) {
        p->return_size = 12;
        return 1;
    }
    n = snprintf(p->data, p->data_size, "%d", c->saltlen);
    if (n <= 0 || (size_t)n >= p->data_size)
        return 0;
    p->return_size = (size_t)n;
    return 1;
}

/* The salt length a signature made now would have (for the algorithm identifier). */
static int resolved_saltlen(const sig_ctx *c, size_t *out)
{
    return pad_result(c, ctrsa_pss_sign_saltlen(ctrsa_key_bits(c->key), ctrsa_md_size(&c->md),
                                                c->saltlen, out));
}

static int get_algorithm_id(const sig_ctx *c, OSSL_PARAM *p)
{
    uint8_t der[CTRSA_SIG_ALGID_MAX];
    const ctrsa_digest_info *d = digest_info(c, &c->md, c->pad_mode);
    const ctrsa_digest_info *mgf1;
    size_t len = 0, saltlen;

    if (d == NULL || c->key == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "algorithm-id needs a key and a digest");
        return 0;
    }
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        len = ctrsa_sig_algid_pkcs1(d, der, sizeof(der));
        break;
    case RSA_PKCS1_PSS_PADDING:
        if (!resolved_saltlen(c, &saltlen))
            return 0;
        mgf1 = ctrsa_digest_info_lookup(ctrsa_md_name(mgf1_in_force(c)));
        if (mgf1 == NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                        "no algorithm identifier for MGF1 with %s",
                        ctrsa_md_name(mgf1_in_force(c)));
            return 0;
        }
        len = ctrsa_sig_algid_pss(d, mgf1, saltlen, der, sizeof(der));
        break;
    default:
        break;
    }
    if (len == 0) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "no algorithm identifier for pad-mode %s with %s",
                    ctrsa_padmode_label(c->pad_mode), d->name);
        return 0;
    }
    return OSSL_PARAM_set_octet_string(p, der, len);
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
 * Common to every init: take the key (or keep the current one when provkey is NULL), reset
 * padding to pkcs1 (pss with the key's restrictions for a restricted RSA-PSS key), then
 * apply params.
 */
static int sig_init(sig_ctx *c, void *provkey, const OSSL_PARAM params[], enum sig_operation op)
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
        CTRSA_RAISE(c->prov, CTRSA_R_MISSING_KEY_PART, "%s needs an RSA key", op_name(op));
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
    r = restriction(c);
    if (ctrsa_key_is_pss(c->key)) {
        /* Every RSA-PSS key signs with PSS only; a restricted one also fixes its digests. */
        if (op == SIG_OP_VERIFY_RECOVER) {
            CTRSA_RAISE(c->prov, CTRSA_R_PSS_RESTRICTION,
                        "an RSA-PSS key has no verify-recover operation");
            return 0;
        }
        c->pad_mode = RSA_PKCS1_PSS_PADDING;
    }
    if (r != NULL) {
        /* the restriction's digests get the checks a "digest" parameter gets */
        c->saltlen = r->min_saltlen;
        if ((r->mdname[0] != '\0'
             && !replace_md(c, &c->md, r->mdname, NULL, check_sig_digest))
            || (r->mgf1mdname[0] != '\0'
                && !replace_md(c, &c->mgf1, r->mgf1mdname, NULL, check_mgf1)))
            return 0;
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
        d = digest_info(c, &c->md, c->pad_mode);
        if (tbslen != ctrsa_md_size(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                        "input is %zu bytes, the %s digest is %zu", tbslen,
                        ctrsa_md_name(&c->md), ctrsa_md_size(&c->md));
            return 0;
        }
    }
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        if (d == NULL && tbslen > k - 11) {
            CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                        "raw PKCS#1 input is %zu bytes, at most %zu fit", tbslen,
                        k > 11 ? k - 11 : 0);
            return 0;
        }
        return pad_result(c, ctrsa_emsa_pkcs1_encode(em, k, d, tbs, tbslen));
    case RSA_PKCS1_PSS_PADDING:
        if (!ctrsa_md_is_set(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "pad-mode pss needs a digest");
            return 0;
        }
        if (min_saltlen(c) >= 0) {
            size_t slen = 0;

            if (!pad_result(c, ctrsa_pss_sign_saltlen(ctrsa_key_bits(c->key),
                                                      ctrsa_md_size(&c->md), c->saltlen,
                                                      &slen))
                || !salt_meets_minimum(c, slen))
                return 0;
        }
        rnd.impl = c->prov;
        rnd.bytes = rand_from_prov;
        return pad_result(c, ctrsa_emsa_pss_encode(em, k, ctrsa_key_bits(c->key), &c->md.hash,
                                                   &mgf1_in_force(c)->hash, tbs, tbslen,
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
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode %d", c->pad_mode);
        return 0;
    }
}

static int check_op(const sig_ctx *c, enum sig_operation op)
{
    if (c == NULL || c->key == NULL || c->op != op) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "%s was not initialised", op_name(op));
        return 0;
    }
    return 1;
}

/*
 * CT: the encoded message is public; the private operation is the key object's, constant
 * time in its inputs, and its result is copied out without looking at it.
 */
static int sig_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize,
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
        CTRSA_RAISE(c->prov, CTRSA_R_OUTPUT_BUFFER_TOO_SMALL,
                    "signature buffer is %zu bytes, %zu needed", sigsize, k);
        return 0;
    }
    if (!ctrsa_key_computable(c->key))  /* before the encoding: no arithmetic on such keys */
        return 0;
    if (k > sizeof(em)) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEY_TOO_LARGE, "key of %zu bytes", k);
        return 0;
    }
    if (ctrsa_trace_enabled())
        ctrsa_trace("sign", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    ok = encode_for_sign(c, em, k, tbs, tbslen) && ctrsa_key_private_op(c->key, em, em);
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
static int sig_verify(void *vctx, const unsigned char *sig, size_t siglen,
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
        d = digest_info(c, &c->md, c->pad_mode);
        if (tbslen != ctrsa_md_size(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                        "input is %zu bytes, the %s digest is %zu", tbslen,
                        ctrsa_md_name(&c->md), ctrsa_md_size(&c->md));
            return 0;
        }
    }
    if (!open_signature(c, em, k, sig, siglen))
        return 0;
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        return pad_result(c, ctrsa_emsa_pkcs1_verify(em, k, d, tbs, tbslen));
    case RSA_PKCS1_PSS_PADDING:
        if (!ctrsa_md_is_set(&c->md)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "pad-mode pss needs a digest");
            return 0;
        }
        if (!pad_result(c, ctrsa_emsa_pss_verify(em, k, ctrsa_key_bits(c->key), &c->md.hash,
                                                 &mgf1_in_force(c)->hash, tbs, tbslen,
                                                 c->saltlen, &found)))
            return 0;
        return salt_meets_minimum(c, found);
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
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode %d", c->pad_mode);
        return 0;
    }
}

/* CT: public data only; variable time. */
static int sig_verify_recover(void *vctx, unsigned char *rout, size_t *routlen,
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
        d = digest_info(c, &c->md, c->pad_mode);
    if (!open_signature(c, em, k, sig, siglen))
        return 0;
    switch (c->pad_mode) {
    case RSA_PKCS1_PADDING:
        if (!pad_result(c, ctrsa_pkcs1_type1_recover(em, k, d, &off, &len)))
            return 0;
        /* MD5-SHA1 has no DigestInfo: the block holds the bare 36 bytes or is wrong. */
        if (d == NULL && md_is_md5_sha1(&c->md) && len != ctrsa_md_size(&c->md))
            return pad_result(c, CTRSA_PAD_BAD_SIGNATURE);
        break;
    case RSA_NO_PADDING:
        if (d != NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode none takes no digest");
            return 0;
        }
        off = 0;
        len = k;
        break;
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "verify-recover works with pad-mode pkcs1 or none, not %s",
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

/* ------------------------------------------------------------------------------------ */
/* Digest-sign and digest-verify                                                        */

static int digest_init(sig_ctx *c, const char *mdname, void *provkey, const OSSL_PARAM params[],
                       enum sig_operation op)
{
    if (!sig_init(c, provkey, params, op))
        return 0;
    if (mdname != NULL && mdname[0] == '\0') {
        CTRSA_RAISE(c->prov, CTRSA_R_UNKNOWN_DIGEST, "empty digest name");
        return 0;
    }
    if (mdname == NULL && !ctrsa_md_is_set(&c->md))
        mdname = SIG_DEFAULT_DIGEST;
    if (mdname != NULL && !ctrsa_md_is(&c->md, mdname)
        && !replace_md(c, &c->md, mdname, c->mdprops, check_sig_digest))
        return 0;
    if ((c->mdctx = EVP_MD_CTX_new()) == NULL || !EVP_DigestInit_ex2(c->mdctx, c->md.md, NULL)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "cannot start digest %s", ctrsa_md_name(&c->md));
        return 0;
    }
    c->streaming = 1;
    return 1;
}

static int sig_digest_sign_init(void *vctx, const char *mdname, void *provkey,
                                const OSSL_PARAM params[])
{
    return digest_init(vctx, mdname, provkey, params, SIG_OP_SIGN);
}

static int sig_digest_verify_init(void *vctx, const char *mdname, void *provkey,
                                  const OSSL_PARAM params[])
{
    return digest_init(vctx, mdname, provkey, params, SIG_OP_VERIFY);
}

static int check_streaming(const sig_ctx *c)
{
    if (c == NULL || !c->streaming || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "digest-sign/verify was not initialised");
        return 0;
    }
    return 1;
}

/* The same update serves digest-sign and digest-verify. */
static int sig_digest_update(void *vctx, const unsigned char *data, size_t datalen)
{
    sig_ctx *c = vctx;

    if (!check_streaming(c))
        return 0;
    return EVP_DigestUpdate(c->mdctx, data, datalen);
}

/* digest[0..*len) := the streamed digest. */
static int finish_digest(sig_ctx *c, uint8_t digest[EVP_MAX_MD_SIZE], size_t *len)
{
    unsigned int n = 0;

    if (!EVP_DigestFinal_ex(c->mdctx, digest, &n)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "digest %s failed", ctrsa_md_name(&c->md));
        return 0;
    }
    *len = n;
    return 1;
}

static int sig_digest_sign_final(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize)
{
    sig_ctx *c = vctx;
    uint8_t digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (!check_streaming(c))
        return 0;
    /* A size query does not finish the digest. */
    if (sig == NULL)
        return sig_sign(c, NULL, siglen, 0, NULL, 0);
    return finish_digest(c, digest, &dlen) && sig_sign(c, sig, siglen, sigsize, digest, dlen);
}

static int sig_digest_verify_final(void *vctx, const unsigned char *sig, size_t siglen)
{
    sig_ctx *c = vctx;
    uint8_t digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (!check_streaming(c))
        return 0;
    return finish_digest(c, digest, &dlen) && sig_verify(c, sig, siglen, digest, dlen);
}

static int sig_digest_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize,
                           const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;

    if (!check_streaming(c))
        return 0;
    if (sig == NULL)
        return sig_sign(c, NULL, siglen, 0, NULL, 0);
    return sig_digest_update(c, tbs, tbslen) && sig_digest_sign_final(c, sig, siglen, sigsize);
}

static int sig_digest_verify(void *vctx, const unsigned char *sig, size_t siglen,
                             const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;

    if (!check_streaming(c))
        return 0;
    return sig_digest_update(c, tbs, tbslen) && sig_digest_verify_final(c, sig, siglen);
}

/* ------------------------------------------------------------------------------------ */
/* Digest parameters, passed through to the streaming digest                            */

static int sig_get_ctx_md_params(void *vctx, OSSL_PARAM params[])
{
    sig_ctx *c = vctx;

    if (c == NULL || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "digest parameters need digest-sign/verify to be initialised");
        return 0;
    }
    return EVP_MD_CTX_get_params(c->mdctx, params);
}

static const OSSL_PARAM *sig_gettable_ctx_md_params(void *vctx)
{
    sig_ctx *c = vctx;

    if (c == NULL || !ctrsa_md_is_set(&c->md))
        return NULL;
    return EVP_MD_gettable_ctx_params(c->md.md);
}

static int sig_set_ctx_md_params(void *vctx, const OSSL_PARAM params[])
{
    sig_ctx *c = vctx;

    if (c == NULL || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "digest parameters need digest-sign/verify to be initialised");
        return 0;
    }
    return EVP_MD_CTX_set_params(c->mdctx, params);
}

static const OSSL_PARAM *sig_settable_ctx_md_params(void *vctx)
{
    sig_ctx *c = vctx;

    if (c == NULL || !ctrsa_md_is_set(&c->md))
        return NULL;
    return EVP_MD_settable_ctx_params(c->md.md);
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
