/*
 * The "RSA" asymmetric cipher: encryption with the public key and decryption with the
 * private key (blinded, CRT, result checked: rsa_key.h), with the paddings of
 * padding/enc_padding.h: OAEP, PKCS#1 v1.5 (implicit rejection on by default, as OpenSSL
 * 3.2+), raw ("none") and the TLS pre-master secret (RSA_PKCS1_WITH_TLS_PADDING, 7).
 *
 * The parameters are described once, in asym_params[] below; the gettable and settable
 * lists and the parser all come from it. Pad-mode names and digest fetching are shared with
 * the signature operation (padmode.h, md.h).
 *
 * Behaviour follows OpenSSL's default provider (providers/implementations/asymciphers/
 * rsa_enc.c) where applications can see it: out == NULL reports the size (k, or 48 for the
 * TLS mode); decryption needs an output buffer of k bytes (48 for TLS) whatever the message
 * length; ciphertexts shorter than k are left-padded with zeros; every padding failure is
 * one opaque error.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include "dispatch.h"
#include "enc_padding.h"
#include "md.h"
#include "padmode.h"
#include "bignum.h"
#include "core_version.h"

/* Every key-sized buffer below holds any modulus the engine takes. */
_Static_assert(CTRSA_ENC_MAX_K >= CTBN_MAX_BITS / 8, "CTRSA_ENC_MAX_K below the largest modulus");
#include "prov.h"
#include "rsa_key.h"
#include "rsa_op.h"

/* OpenSSL 3.0's headers predate these names (3.2). */
#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif
#ifndef RSA_PKCS1_WITH_TLS_PADDING
#define RSA_PKCS1_WITH_TLS_PADDING 7
#endif

#define OAEP_DEFAULT_DIGEST "SHA1"
#define IR_DIGEST "SHA2-256"   /* fixed by draft-irtf-cfrg-rsa-guidance */

static OSSL_FUNC_asym_cipher_newctx_fn asym_newctx;
static OSSL_FUNC_asym_cipher_freectx_fn asym_freectx;
static OSSL_FUNC_asym_cipher_dupctx_fn asym_dupctx;
static OSSL_FUNC_asym_cipher_encrypt_init_fn asym_encrypt_init;
static OSSL_FUNC_asym_cipher_encrypt_fn asym_encrypt;
static OSSL_FUNC_asym_cipher_decrypt_init_fn asym_decrypt_init;
static OSSL_FUNC_asym_cipher_decrypt_fn asym_decrypt;
static OSSL_FUNC_asym_cipher_get_ctx_params_fn asym_get_ctx_params;
static OSSL_FUNC_asym_cipher_gettable_ctx_params_fn asym_gettable_ctx_params;
static OSSL_FUNC_asym_cipher_set_ctx_params_fn asym_set_ctx_params;
static OSSL_FUNC_asym_cipher_settable_ctx_params_fn asym_settable_ctx_params;

enum asym_op { OP_NONE = 0, OP_ENCRYPT, OP_DECRYPT };

typedef struct asym_ctx {
    CTRSA_PROVCTX *prov;
    CTRSA_KEY *key;              /* one reference held */
    enum asym_op op;
    int pad_mode;                /* RSA_*_PADDING */
    ctrsa_md oaep_md;            /* OAEP hash; SHA-1 when the application sets none */
    ctrsa_md mgf1_md;            /* MGF1 hash; empty means "the OAEP hash" */
    ctrsa_md sha256;             /* implicit rejection's KDF, fetched on first use */
    uint8_t *label;              /* OAEP label (owned copy), NULL when empty */
    size_t label_len;
    unsigned int client_version; /* TLS: the version in the ClientHello */
    unsigned int alt_version;    /* TLS: the negotiated version, 0 if not tolerated */
    unsigned int implicit_rejection;
} asym_ctx;

/* ---- context life cycle -------------------------------------------------------------- */

static void *asym_newctx(void *provctx)
{
    asym_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "cannot allocate a cipher context");
        return NULL;
    }
    c->prov = provctx;
    c->pad_mode = RSA_PKCS1_PADDING;
    c->implicit_rejection = 1;
    return c;
}

static void asym_freectx(void *vctx)
{
    asym_ctx *c = vctx;

    if (c == NULL)
        return;
    ctrsa_key_free(c->key);
    ctrsa_md_reset(&c->oaep_md);
    ctrsa_md_reset(&c->mgf1_md);
    ctrsa_md_reset(&c->sha256);
    OPENSSL_clear_free(c->label, c->label_len);
    ctrsa_cleanse(c, sizeof(*c));
    OPENSSL_free(c);
}

static void *asym_dupctx(void *vctx)
{
    const asym_ctx *src = vctx;
    asym_ctx *dst;

    if (src == NULL)
        return NULL;
    dst = OPENSSL_malloc(sizeof(*dst));
    if (dst == NULL) {
        CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "cannot duplicate a cipher context");
        return NULL;
    }
    *dst = *src;
    /* Nothing shared yet: the copies below take their own references and buffers. */
    dst->key = NULL;
    memset(&dst->oaep_md, 0, sizeof(dst->oaep_md));
    memset(&dst->mgf1_md, 0, sizeof(dst->mgf1_md));
    memset(&dst->sha256, 0, sizeof(dst->sha256));
    dst->label = NULL;
    dst->label_len = 0;
    if (src->key != NULL) {
        ctrsa_key_up_ref(src->key);
        dst->key = src->key;
    }
    if (!ctrsa_md_copy(&dst->oaep_md, &src->oaep_md)
        || !ctrsa_md_copy(&dst->mgf1_md, &src->mgf1_md)
        || !ctrsa_md_copy(&dst->sha256, &src->sha256))
        goto fail;
    if (src->label != NULL) {
        dst->label = OPENSSL_memdup(src->label, src->label_len);
        if (dst->label == NULL)
            goto fail;
        dst->label_len = src->label_len;
    }
    return dst;

fail:
    CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "cannot duplicate a cipher context");
    asym_freectx(dst);
    return NULL;
}

/* ---- parameters: one table ------------------------------------------------------------ */

typedef int (*asym_setter)(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
typedef int (*asym_getter)(const asym_ctx *c, OSSL_PARAM *p);

static int set_oaep_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_with_its_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_pad_mode(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_mgf1_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_label(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_client_version(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_alt_version(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[]);
static int set_implicit_rejection(asym_ctx *c, const OSSL_PARAM *p,
                                  const OSSL_PARAM params[]);
static int get_pad_mode(const asym_ctx *c, OSSL_PARAM *p);
static int get_oaep_digest(const asym_ctx *c, OSSL_PARAM *p);
static int get_mgf1_digest(const asym_ctx *c, OSSL_PARAM *p);
static int get_label(const asym_ctx *c, OSSL_PARAM *p);
static int get_client_version(const asym_ctx *c, OSSL_PARAM *p);
static int get_alt_version(const asym_ctx *c, OSSL_PARAM *p);
static int get_implicit_rejection(const asym_ctx *c, OSSL_PARAM *p);

/*
 * Every parameter once: name, the type it is set with, the type it is read with, setter,
 * getter (NULL: not settable / not gettable). Order matters for setting: the OAEP digest
 * comes before the pad mode (which fetches the default digest only when none is set), as
 * in OpenSSL. A "-props" parameter is read by the setter of its digest.
 */
static const struct asym_param {
    const char *name;
    unsigned int set_type, get_type;
    asym_setter set;
    asym_getter get;
} asym_params[] = {
    { OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, OSSL_PARAM_UTF8_STRING, OSSL_PARAM_UTF8_STRING,
      set_oaep_digest, get_oaep_digest },
    { OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS, OSSL_PARAM_UTF8_STRING, 0,
      set_with_its_digest, NULL },
    { OSSL_ASYM_CIPHER_PARAM_PAD_MODE, OSSL_PARAM_UTF8_STRING, OSSL_PARAM_UTF8_STRING,
      set_pad_mode, get_pad_mode },
    { OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, OSSL_PARAM_UTF8_STRING, OSSL_PARAM_UTF8_STRING,
      set_mgf1_digest, get_mgf1_digest },
    { OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS, OSSL_PARAM_UTF8_STRING, 0,
      set_with_its_digest, NULL },
    { OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, OSSL_PARAM_OCTET_STRING, OSSL_PARAM_OCTET_PTR,
      set_label, get_label },
    { OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, OSSL_PARAM_UNSIGNED_INTEGER,
      OSSL_PARAM_UNSIGNED_INTEGER, set_client_version, get_client_version },
    { OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION, OSSL_PARAM_UNSIGNED_INTEGER,
      OSSL_PARAM_UNSIGNED_INTEGER, set_alt_version, get_alt_version },
    { OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, OSSL_PARAM_UNSIGNED_INTEGER,
      OSSL_PARAM_UNSIGNED_INTEGER, set_implicit_rejection, get_implicit_rejection },
};
#define N_ASYM_PARAMS (sizeof(asym_params) / sizeof(asym_params[0]))

static OSSL_PARAM gettable_list[N_ASYM_PARAMS + 1];
static OSSL_PARAM settable_list[N_ASYM_PARAMS + 1];
static CRYPTO_ONCE lists_once = CRYPTO_ONCE_STATIC_INIT;

static OSSL_PARAM describe(const char *name, unsigned int type)
{
    OSSL_PARAM d = OSSL_PARAM_DEFN(NULL, 0, NULL, 0);

    d.key = name;
    d.data_type = type;
    if (type == OSSL_PARAM_UNSIGNED_INTEGER)
        d.data_size = sizeof(unsigned int);
    return d;
}

static void build_lists(void)
{
    size_t i, g = 0, s = 0;

    for (i = 0; i < N_ASYM_PARAMS; i++) {
        if (asym_params[i].get != NULL)
            gettable_list[g++] = describe(asym_params[i].name, asym_params[i].get_type);
        if (asym_params[i].set != NULL)
            settable_list[s++] = describe(asym_params[i].name, asym_params[i].set_type);
    }
    gettable_list[g] = (OSSL_PARAM)OSSL_PARAM_END;
    settable_list[s] = (OSSL_PARAM)OSSL_PARAM_END;
}

static const OSSL_PARAM *asym_gettable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx, (void)provctx;
    return CRYPTO_THREAD_run_once(&lists_once, build_lists) ? gettable_list : NULL;
}

static const OSSL_PARAM *asym_settable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx, (void)provctx;
    return CRYPTO_THREAD_run_once(&lists_once, build_lists) ? settable_list : NULL;
}

static int asym_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    asym_ctx *c = vctx;
    const OSSL_PARAM *p;
    size_t i;

    if (c == NULL)
        return 0;
    if (params == NULL)
        return 1;
    for (i = 0; i < N_ASYM_PARAMS; i++) {
        if (asym_params[i].set == NULL)
            continue;
        p = OSSL_PARAM_locate_const(params, asym_params[i].name);
        if (p != NULL && !asym_params[i].set(c, p, params))
            return 0;
    }
    return 1;
}

static int asym_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    const asym_ctx *c = vctx;
    OSSL_PARAM *p;
    size_t i;

    if (c == NULL)
        return 0;
    if (params == NULL)
        return 1;
    for (i = 0; i < N_ASYM_PARAMS; i++) {
        if (asym_params[i].get == NULL)
            continue;
        p = OSSL_PARAM_locate(params, asym_params[i].name);
        if (p != NULL && !asym_params[i].get(c, p)) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "cannot return parameter \"%s\"",
                        asym_params[i].name);
            return 0;
        }
    }
    return 1;
}

/* The "-props" value that goes with a digest parameter (read into buf), NULL when absent. */
static int props_for(const asym_ctx *c, const OSSL_PARAM params[], const char *props_name,
                     char buf[CTRSA_PARAM_PROPS_SIZE], const char **props)
{
    const OSSL_PARAM *pp = OSSL_PARAM_locate_const(params, props_name);

    *props = NULL;
    if (pp == NULL)
        return 1;
    *props = buf;
    return ctrsa_param_get_utf8(c->prov, pp, buf, CTRSA_PARAM_PROPS_SIZE);
}

/* *dst := the digest named in p, fetched with the "-props" parameter props_name if given. */
static int set_md_from(asym_ctx *c, ctrsa_md *dst, const OSSL_PARAM *p,
                       const OSSL_PARAM params[], const char *props_name)
{
    char name[CTRSA_PARAM_NAME_SIZE], buf[CTRSA_PARAM_PROPS_SIZE];
    const char *props;

    return ctrsa_param_get_utf8(c->prov, p, name, sizeof(name))
           && props_for(c, params, props_name, buf, &props)
           && ctrsa_md_fetch(c->prov, dst, name, props);
}

static int set_oaep_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    return set_md_from(c, &c->oaep_md, p, params, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS);
}

static int set_mgf1_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    return set_md_from(c, &c->mgf1_md, p, params, OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS);
}

/* Properties alone change nothing: they are read with their digest, as OpenSSL does. */
static int set_with_its_digest(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    char buf[CTRSA_PARAM_PROPS_SIZE];

    (void)params;
    return ctrsa_param_get_utf8(c->prov, p, buf, sizeof(buf));
}

/* Fetch the default OAEP digest if the application has set none. */
static int oaep_md_ready(asym_ctx *c)
{
    return ctrsa_md_is_set(&c->oaep_md)
           || ctrsa_md_fetch(c->prov, &c->oaep_md, OAEP_DEFAULT_DIGEST, NULL);
}

/* The pad-mode names of the loading core's default provider (padmode.h). */
static unsigned int cipher_names(const asym_ctx *c)
{
    return c->prov->core_version >= CTRSA_CORE_3_4 ? CTRSA_PADMODE_NAMES_CIPHER
                                                   : CTRSA_PADMODE_NAMES_CIPHER_3_0;
}

/*
 * As the default provider's rsa_enc.c (3.0 to 4.0): every integer but PSS is taken, and a
 * name not in its table (pkcs1, none, oaep, oeap, and x931 before 3.4; "pss" is not there)
 * sets mode 0. The modes ctrsa cannot encrypt or decrypt with (0, x931, 2, 99...) are
 * refused at the operation, as the default's RSA_public_encrypt and RSA_private_decrypt
 * refuse them.
 */
static int set_pad_mode(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    const ctrsa_padmode_rules rules = {
        cipher_names(c), 0, ~CTRSA_PADMODE_BIT(RSA_PKCS1_PSS_PADDING), 1
    };
    int mode = c->pad_mode;

    (void)params;
    if (!ctrsa_padmode_from_param(c->prov, p, &rules, &mode))
        return 0;
    if (mode == RSA_PKCS1_OAEP_PADDING && !oaep_md_ready(c))
        return 0;
    c->pad_mode = mode;
    return 1;
}

static int set_label(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    void *copy = NULL;
    size_t len = 0;

    (void)params;
    if (p->data_type != OSSL_PARAM_OCTET_STRING
        || !OSSL_PARAM_get_octet_string(p, &copy, 0, &len)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "oaep-label must be an octet string");
        return 0;
    }
    OPENSSL_clear_free(c->label, c->label_len);
    c->label = len > 0 ? copy : NULL;
    c->label_len = len;
    if (len == 0)
        OPENSSL_free(copy);
    return 1;
}

static int get_uint_param(const asym_ctx *c, const OSSL_PARAM *p, unsigned int *v)
{
    /* OpenSSL 3.0's getter reads p->data without checking it (fuzz_params). */
    if (p->data == NULL || !OSSL_PARAM_get_uint(p, v)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "parameter \"%s\" must be an unsigned integer", p->key);
        return 0;
    }
    return 1;
}

static int set_client_version(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    (void)params;
    return get_uint_param(c, p, &c->client_version);
}

static int set_alt_version(asym_ctx *c, const OSSL_PARAM *p, const OSSL_PARAM params[])
{
    (void)params;
    return get_uint_param(c, p, &c->alt_version);
}

static int set_implicit_rejection(asym_ctx *c, const OSSL_PARAM *p,
                                  const OSSL_PARAM params[])
{
    unsigned int v;

    (void)params;
    if (!get_uint_param(c, p, &v))
        return 0;
    c->implicit_rejection = v != 0;
    return 1;
}

static int get_pad_mode(const asym_ctx *c, OSSL_PARAM *p)
{
    return ctrsa_padmode_to_param(c->prov, p, c->pad_mode, cipher_names(c));
}

static int get_oaep_digest(const asym_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_name(&c->oaep_md));
}

static int get_mgf1_digest(const asym_ctx *c, OSSL_PARAM *p)
{
    const ctrsa_md *m = ctrsa_md_is_set(&c->mgf1_md) ? &c->mgf1_md : &c->oaep_md;

    return OSSL_PARAM_set_utf8_string(p, ctrsa_md_name(m));
}

static int get_label(const asym_ctx *c, OSSL_PARAM *p)
{
    if (p->data_type == OSSL_PARAM_OCTET_PTR)
        return OSSL_PARAM_set_octet_ptr(p, c->label, c->label_len);
    return OSSL_PARAM_set_octet_string(p, c->label, c->label_len);
}

static int get_client_version(const asym_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_uint(p, c->client_version);
}

static int get_alt_version(const asym_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_uint(p, c->alt_version);
}

static int get_implicit_rejection(const asym_ctx *c, OSSL_PARAM *p)
{
    return OSSL_PARAM_set_uint(p, c->implicit_rejection);
}

/* ---- initialisation ------------------------------------------------------------------ */

static int asym_init(asym_ctx *c, CTRSA_KEY *key, const OSSL_PARAM params[], enum asym_op op)
{
    if (c == NULL)
        return 0;
    if (key == NULL || !ctrsa_key_has_public(key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_MISSING_KEY_PART, "the key has no public part");
        return 0;
    }
    /* (A public key is refused at the decryption, as the default provider refuses it.) */
    /* As the default provider: an RSA-PSS key is for PSS signatures only (RFC 4055). */
    if (ctrsa_key_is_pss(key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE, "an RSA-PSS key only signs");
        return 0;
    }
    ctrsa_key_up_ref(key);
    ctrsa_key_free(c->key);
    c->key = key;
    c->op = op;
    /* As OpenSSL: each init starts from PKCS#1 v1.5 with implicit rejection. */
    c->pad_mode = RSA_PKCS1_PADDING;
    c->implicit_rejection = 1;
    return asym_set_ctx_params(c, params);
}

static int asym_encrypt_init(void *vctx, void *vkey, const OSSL_PARAM params[])
{
    return asym_init(vctx, vkey, params, OP_ENCRYPT);
}

static int asym_decrypt_init(void *vctx, void *vkey, const OSSL_PARAM params[])
{
    return asym_init(vctx, vkey, params, OP_DECRYPT);
}

/* ---- randomness for the encoders ------------------------------------------------------ */

static int prov_rand_bytes(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    return ctrsa_random_bytes(r->impl, buf, len);
}

/* The OAEP hashes, checked against the key size. 1 on success (errors raised). */
static int oaep_hashes(asym_ctx *c, size_t k, const ctrsa_hash **h, const ctrsa_hash **g,
                       size_t *maxlen)
{
    if (!oaep_md_ready(c))
        return 0;
    *h = &c->oaep_md.hash;
    *g = ctrsa_md_is_set(&c->mgf1_md) ? &c->mgf1_md.hash : &c->oaep_md.hash;
    if (!ctrsa_oaep_max_message(k, (*h)->size, maxlen)) {
        CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                    "a %zu-bit key is too small for OAEP with %s", ctrsa_key_bits(c->key),
                    ctrsa_md_name(&c->oaep_md));
        return 0;
    }
    return 1;
}

/* ---- encryption ---------------------------------------------------------------------- */

static int asym_encrypt(void *vctx, unsigned char *out, size_t *outlen, size_t outsize,
                        const unsigned char *in, size_t inlen)
{
    asym_ctx *c = vctx;
    uint8_t em[CTRSA_ENC_MAX_K];
    ctrsa_rand rnd;
    const ctrsa_hash *h, *g;
    size_t k, maxlen;
    int r = CTRSA_PAD_OK, ok = 0;

    if (c == NULL || c->op != OP_ENCRYPT || c->key == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "encrypt called without encrypt_init");
        return 0;
    }
    k = ctrsa_key_size(c->key);
    if (k == 0) {   /* n = 0: no size to give, as the default provider answers (public) */
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_KEY, "the key has no size (n is zero)");
        return 0;
    }
    if (out == NULL) {
        *outlen = k;
        return 1;
    }
    if (outsize < k) {
        CTRSA_RAISE(c->prov, CTRSA_R_OUTPUT_BUFFER_TOO_SMALL,
                    "the ciphertext needs %zu bytes, the buffer has %zu", k, outsize);
        return 0;
    }
    /* A key the engine cannot compute with (k may then exceed em) is refused here, at the
     * operation, as the default provider refuses it. */
    if (!ctrsa_key_computable(c->key))
        return 0;
    rnd.impl = c->prov;
    rnd.bytes = prov_rand_bytes;

    switch (c->pad_mode) {
    case RSA_NO_PADDING:
        /* Raw RSA: exactly k bytes, a number below n (checked by the public operation). */
        if (inlen != k) {
            CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                        "raw RSA needs exactly %zu input bytes, not %zu", k, inlen);
            return 0;
        }
        memcpy(em, in, k);
        break;
    case RSA_PKCS1_PADDING:
        if (inlen > k - CTRSA_PKCS1_PADDING_SIZE) {
            CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                        "PKCS#1 v1.5 carries at most %zu bytes with this key, not %zu",
                        k - CTRSA_PKCS1_PADDING_SIZE, inlen);
            return 0;
        }
        r = ctrsa_pkcs1_type2_encode(&rnd, em, k, in, inlen);
        break;
    case RSA_PKCS1_OAEP_PADDING:
        if (!oaep_hashes(c, k, &h, &g, &maxlen))
            return 0;
        if (inlen > maxlen) {
            CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                        "OAEP with %s carries at most %zu bytes with this key, not %zu",
                        ctrsa_md_name(&c->oaep_md), maxlen, inlen);
            return 0;
        }
        r = ctrsa_oaep_encode(h, g, &rnd, em, k, in, inlen, c->label, c->label_len);
        break;
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode %s cannot encrypt", ctrsa_padmode_label(c->pad_mode));
        return 0;
    }
    if (r == CTRSA_PAD_HASH_ERR)
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "the OAEP digest failed");
    else if (r == CTRSA_PAD_BAD_ARGS)
        CTRSA_RAISE(c->prov, CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE,
                    "the message does not fit the key");
    /* CTRSA_PAD_RAND_ERR: ctrsa_random_bytes has raised it already. */
    if (r == CTRSA_PAD_OK && ctrsa_key_encrypt_op(c->key, out, em)) {
        *outlen = k;
        ok = 1;
        ctrsa_trace("encrypt", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    }
    ctrsa_cleanse(em, k);
    return ok;
}

/* ---- decryption ---------------------------------------------------------------------- */

/*
 * CT: the ciphertext, k, the pad mode and the output size are public. The decrypted block,
 * the message, its length and the padding's validity are secret until the padding code's
 * single result; with implicit rejection (the default for PKCS#1 v1.5) and for the TLS
 * mode there is no failure to observe at all. Where the padding can fail (OAEP, PKCS#1
 * v1.5 without implicit rejection), failure and success take the same steps to the end:
 * the trace line is written before the private operation and the same buffers are wiped.
 * How the verdict leaves depends on the core (both ways measured through EVP, issue 20):
 * - OpenSSL 3.0 and 3.1: it is only returned, and a padding failure raises no error, as
 *   OpenSSL's FIPS provider does. The default provider raises its error either way and
 *   clears it in constant time on success (err_clear_last_constant_time, internal to
 *   libcrypto); a provider reaches the queue only through the core, which cannot: raising
 *   only on failure costs about 800 TSC ticks that success does not, and raising either way
 *   then popping or keeping it runs a different libcrypto function by the verdict (a
 *   Flush+Reload probe on the two told valid from invalid in one trace, 80-88% right).
 * - OpenSSL 3.2 and later: EVP_PKEY_decrypt itself branches on the result and, when a
 *   failed provider left no error, raises one ("provider asym cipher failure"): silence
 *   would bring back the 800 ticks. So the one opaque error is raised either way and
 *   dropped on success (ctrsa_raise_unless): the time is even, and the probe's view of
 *   pop-or-keep adds nothing to what libcrypto's own failure-only call (ERR_count_to_mark)
 *   already shows for every provider there.
 */
static int asym_decrypt(void *vctx, unsigned char *out, size_t *outlen, size_t outsize,
                        const unsigned char *in, size_t inlen)
{
    asym_ctx *c = vctx;
    uint8_t ct[CTRSA_ENC_MAX_K], em[CTRSA_ENC_MAX_K];
    uint8_t d_hash[32], pms[CTRSA_TLS_PREMASTER_LEN];
    const ctrsa_hash *h = NULL, *g = NULL;
    size_t k, need, maxlen;
    int tls, ir, can_fail, r, verdict = 0;

    if (c == NULL || c->op != OP_DECRYPT || c->key == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "decrypt called without decrypt_init");
        return 0;
    }
    k = ctrsa_key_size(c->key);
    tls = c->pad_mode == RSA_PKCS1_WITH_TLS_PADDING;
    ir = c->pad_mode == RSA_PKCS1_PADDING && c->implicit_rejection;
    need = tls ? CTRSA_TLS_PREMASTER_LEN : k;
    /* The modes whose padding can fail visibly (public: the pad mode is). */
    can_fail = c->pad_mode == RSA_PKCS1_OAEP_PADDING
               || (c->pad_mode == RSA_PKCS1_PADDING && !ir);
    if (out == NULL) {
        if (need == 0) {   /* n = 0 (public), as the default provider answers */
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_KEY, "the key has no size (n is zero)");
            return 0;
        }
        *outlen = need;
        return 1;
    }
    /* As OpenSSL's default provider: room for k bytes (48 for TLS), whatever the message. */
    if (!ctrsa_key_has_private(c->key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_NOT_PRIVATE_KEY, "decryption needs a private key");
        return 0;
    }
    if (outsize < need) {
        CTRSA_RAISE(c->prov, CTRSA_R_PLAINTEXT_BUFFER_TOO_SMALL,
                    "decryption needs an output buffer of %zu bytes, not %zu", need, outsize);
        return 0;
    }
    if (!ctrsa_key_private_computable(c->key))  /* before ct and em are sized by k */
        return 0;
    if (inlen == 0 || inlen > k) {
        CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                    "the ciphertext has %zu bytes; this key takes 1 to %zu", inlen, k);
        return 0;
    }

    /* Everything that can fail publicly is done before the private operation. */
    switch (c->pad_mode) {
    case RSA_NO_PADDING:
        break;
    case RSA_PKCS1_PADDING:
        if (ir && ((!ctrsa_md_is_set(&c->sha256)
                    && !ctrsa_md_fetch(c->prov, &c->sha256, IR_DIGEST, NULL))
                   || !ctrsa_key_d_hash(c->key, d_hash)))
            return 0;
        break;
    case RSA_PKCS1_OAEP_PADDING:
        if (!oaep_hashes(c, k, &h, &g, &maxlen))
            return 0;
        break;
    case RSA_PKCS1_WITH_TLS_PADDING:
        if (c->client_version == 0) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                        "the TLS padding needs tls-client-version");
            return 0;
        }
        if (k < CTRSA_PKCS1_PADDING_SIZE + CTRSA_TLS_PREMASTER_LEN) {
            CTRSA_RAISE(c->prov, CTRSA_R_KEY_TOO_SMALL, "the key is too small for TLS");
            return 0;
        }
        /* The fallback pre-master stays secret: the private DRBG, as OpenSSL. */
        if (!ctrsa_random_priv_bytes(c->prov, pms, sizeof(pms)))
            return 0;
        break;
    default:
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode %s cannot decrypt", ctrsa_padmode_label(c->pad_mode));
        return 0;
    }

    /* A ciphertext shorter than k is a number with its leading zero bytes dropped. */
    memset(ct, 0, k - inlen);
    memcpy(ct + k - inlen, in, inlen);
    /*
     * One trace line per private operation, written before its outcome is known: traced on
     * success only, the line (a write() when tracing is on) told valid padding from invalid.
     */
    ctrsa_trace("decrypt", ctrsa_key_bits(c->key), ctrsa_padmode_label(c->pad_mode));
    if (!ctrsa_key_private_op(c->key, em, ct))
        goto done;

    switch (c->pad_mode) {
    case RSA_NO_PADDING:
        memcpy(out, em, k);
        *outlen = k;
        r = CTRSA_PAD_OK;
        break;
    case RSA_PKCS1_PADDING:
        r = ir ? ctrsa_pkcs1_type2_decode_ir(&c->sha256.hash, d_hash, ct, em, k, out, outsize,
                                             outlen)
               : ctrsa_pkcs1_type2_decode(em, k, out, outsize, outlen);
        break;
    case RSA_PKCS1_OAEP_PADDING:
        r = ctrsa_oaep_decode(h, g, em, k, c->label, c->label_len, out, outsize, outlen);
        break;
    default: /* RSA_PKCS1_WITH_TLS_PADDING: never reports bad padding */
        r = ctrsa_tls_premaster_decode(em, k, c->client_version, c->alt_version, pms, out);
        if (r == CTRSA_PAD_OK)
            *outlen = CTRSA_TLS_PREMASTER_LEN;
        break;
    }
    /*
     * r is CTRSA_PAD_OK or CTRSA_PAD_FAIL (the secret validity, 1 or 0) or a negative code
     * (a public failure of the padding code: a hash that failed, impossible lengths). Its
     * sign says which, whatever the validity, so testing it tells nothing.
     */
    if (r < 0) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "the padding code failed (%d)", r);
        goto done;
    }
    verdict = 1;

done:
    ctrsa_cleanse(em, k);
    ctrsa_cleanse(d_hash, sizeof(d_hash));
    ctrsa_cleanse(pms, sizeof(pms));
    if (!verdict)
        return 0;
    /* The padding's validity, secret up to here (r's low bit); see above for the core. */
    if (can_fail && c->prov->core_version >= CTRSA_CORE_3_2)
        return ctrsa_raise_unless(c->prov, r, CTRSA_R_DECRYPT_FAILED,
                                  "the ciphertext does not decrypt under this key and padding");
    return r & 1; /* raw RSA, implicit rejection, TLS: r is CTRSA_PAD_OK (public) */
}

const OSSL_DISPATCH ctrsa_rsa_asym_cipher_functions[] = {
    { OSSL_FUNC_ASYM_CIPHER_NEWCTX, (void (*)(void))asym_newctx },
    { OSSL_FUNC_ASYM_CIPHER_FREECTX, (void (*)(void))asym_freectx },
    { OSSL_FUNC_ASYM_CIPHER_DUPCTX, (void (*)(void))asym_dupctx },
    { OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT, (void (*)(void))asym_encrypt_init },
    { OSSL_FUNC_ASYM_CIPHER_ENCRYPT, (void (*)(void))asym_encrypt },
    { OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT, (void (*)(void))asym_decrypt_init },
    { OSSL_FUNC_ASYM_CIPHER_DECRYPT, (void (*)(void))asym_decrypt },
    { OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS, (void (*)(void))asym_get_ctx_params },
    { OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))asym_gettable_ctx_params },
    { OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS, (void (*)(void))asym_set_ctx_params },
    { OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))asym_settable_ctx_params },
    OSSL_DISPATCH_END
};
