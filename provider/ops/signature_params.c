/*
 * The "RSA" signature operation's parameters (signature.h): every parameter once, in
 * sig_params[], from which the settable and gettable lists and the parser are derived; the
 * setters (with the checks of signature.c) and the getters, the algorithm identifier among
 * them. Public data only.
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
#include "sig_algid.h"
#include "signature.h"

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

const OSSL_PARAM *sig_gettable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    if (!CRYPTO_THREAD_run_once(&lists_once, build_lists))
        return NULL;
    return gettable_list;
}

const OSSL_PARAM *sig_settable_ctx_params(void *vctx, void *provctx)
{
    const sig_ctx *c = vctx;

    (void)provctx;
    if (!CRYPTO_THREAD_run_once(&lists_once, build_lists))
        return NULL;
    return c != NULL && c->streaming ? settable_streaming_list : settable_list;
}

int sig_set_ctx_params(void *vctx, const OSSL_PARAM params[])
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

int sig_get_ctx_params(void *vctx, OSSL_PARAM params[])
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

static int set_pad_mode(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    const ctrsa_pss_restriction *r = sig_restriction(c);
    /*
     * A name not in the default's signature table (pkcs1, none, x931, pss), "oaep" and its
     * alias "oeap" among them, leaves the mode as it is, and the call goes on: OpenSSL 3.5's
     * 15-test_rsax931 signs with "pad-mode:oaep" and expects PKCS#1 v1.5 (3.0 to 4.0 alike).
     */
    ctrsa_padmode_rules rules = { CTRSA_PADMODE_NAMES_SIGNATURE, CTRSA_PADMODE_KEEP,
                                  CTRSA_PADMODES_SIGNATURE, 0 };
    int mode = c->pad_mode;

    /* PSS cannot be recovered from the block; verify-recover is pkcs1, x931 or none. */
    if (c->op == SIG_OP_VERIFY_RECOVER)
        rules.allowed &= ~CTRSA_PADMODE_BIT(RSA_PKCS1_PSS_PADDING);
    if (!ctrsa_padmode_from_param(c->prov, p, &rules, &mode))
        return 0;
    int digest_follows = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST) != NULL;
    if ((r != NULL || ctrsa_key_is_pss(c->key)) && mode != RSA_PKCS1_PSS_PADDING) {
        CTRSA_RAISE(c->prov, CTRSA_R_ILLEGAL_PADDING_MODE,
                    "an RSA-PSS key only signs with pad-mode pss, not %s",
                    ctrsa_padmode_label(mode));
        return 0;
    }
    /* A digest in the same call is checked against the new mode by set_digest, which runs
     * next (as the default provider checks it: x931 with "digest" SHA256 in one call). */
    if (!(digest_follows && mode == RSA_X931_PADDING) && !sig_check_digest(c, &c->md, mode))
        return 0;
    c->pad_mode = mode;
    /*
     * PSS with no digest set, and none in this call: SHA-1, as OpenSSL does (RFC 8017's
     * default RSASSA-PSS parameters; MGF1 then follows the digest). set_digest runs after
     * this setter when the call names one.
     */
    if (mode == RSA_PKCS1_PSS_PADDING && !ctrsa_md_is_set(&c->md) && !digest_follows)
        return sig_replace_md(c, &c->md, "SHA1", c->mdprops, sig_check_sig_digest);
    return 1;
}

/*
 * *dst := the digest `name`, fetched for this context with `props`, if `check` accepts it;
 * *dst is unchanged on failure (errors raised).
 */
int sig_replace_md(sig_ctx *c, ctrsa_md *dst, const char *name, const char *props,
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
    if (!sig_set_string(dst, props)) {
        CTRSA_RAISE(c->prov, CTRSA_R_MALLOC_FAILURE, "properties");
        return 0;
    }
    return 1;
}

int sig_check_sig_digest(const sig_ctx *c, const ctrsa_md *m)
{
    return sig_check_digest(c, m, c->pad_mode);
}

static int set_digest(sig_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    char name[CTRSA_PARAM_NAME_SIZE], buf[CTRSA_PARAM_PROPS_SIZE];
    const char *props;

    return read_utf8(c, p, name, sizeof(name))
           && props_for(c, params, OSSL_SIGNATURE_PARAM_PROPERTIES, c->mdprops, buf, &props)
           && sig_replace_md(c, &c->md, name, props, sig_check_sig_digest);
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
           && sig_replace_md(c, &c->mgf1, name, props, sig_check_mgf1);
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
    if (!sig_check_saltlen(c, saltlen))
        return 0;
    c->saltlen = saltlen;
    return 1;
}

static int get_pad_mode(const sig_ctx *c, OSSL_PARAM *p)
{
    return ctrsa_padmode_to_param(c->prov, p, c->pad_mode, CTRSA_PADMODE_NAMES_SIGNATURE);
}

/* The digests by the names they were set with, as the default provider reports them
 * (OpenSSL's test_EVP_PKEY_CTX_get_set_params sets "SHA512" and expects "SHA512" back). */
static int get_digest(const sig_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_given_name(&c->md));
}

static int get_mgf1_digest(const sig_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_given_name(sig_mgf1_in_force(c)));
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
    return sig_pad_result(c, ctrsa_pss_sign_saltlen(ctrsa_key_bits(c->key), ctrsa_md_size(&c->md),
                                                    c->saltlen, out));
}

static int get_algorithm_id(const sig_ctx *c, OSSL_PARAM *p)
{
    uint8_t der[CTRSA_SIG_ALGID_MAX];
    const ctrsa_digest_info *d = sig_digest_info(c, &c->md, c->pad_mode);
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
        mgf1 = ctrsa_digest_info_lookup(ctrsa_md_name(sig_mgf1_in_force(c)));
        if (mgf1 == NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                        "no algorithm identifier for MGF1 with %s",
                        ctrsa_md_name(sig_mgf1_in_force(c)));
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

