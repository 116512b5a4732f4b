/*
 * The signature algorithms that hash and sign a message in one (OpenSSL 3.4+: RSA-SHA2-256
 * and the others below), fetched by EVP_PKEY_sign_message_init/verify_message_init, by
 * EVP_PKEY_sign_init_ex2 and friends, and by name through EVP_SIGNATURE_fetch. Each is
 * PKCS#1 v1.5 with a fixed digest, as the default provider's (providers/implementations/
 * signature/rsa_sig.c, its "sigalgs"), with the same names and aliases so that one name
 * finds both providers' implementations.
 *
 * The signing itself is the "RSA" signature operation of provider/ops/signature.c: each context
 * here holds one of its contexts, driven through its own dispatch table (looked up by
 * function id), set to pad-mode pkcs1 and the algorithm's digest. This file only adds the
 * hashing of the message (update/final and the one-shot forms), the signature given as a
 * parameter for verify-message-final, and the state rules: after a final or a one-shot the
 * context must be initialised again; a one-shot is refused after an update.
 *
 * Built only with headers that have the message API (OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT,
 * OpenSSL 3.4+), and offered only when the core that loaded the module is 3.4 or later
 * (provider/core_version.c): an older core would list the algorithms but could not drive
 * them. RSA-SM3 is among them: a 3.4+ default provider signs RSA with SM3 (signature.c's
 * digest_info allows it for PKCS#1 v1.5 on such cores; 3.0's refuses it).
 *
 * Nothing here touches a secret: the message and its digest are public (the signature
 * reveals them), and the private operation is signature.c's.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include "core_version.h"
#include "dispatch.h"
#include "prov.h"

#ifdef OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT

enum msg_op {
    MSG_OP_NONE = 0,
    MSG_OP_SIGN,           /* sign_init: sign a digest */
    MSG_OP_VERIFY,         /* verify_init: verify against a digest */
    MSG_OP_VERIFY_RECOVER, /* verify_recover_init */
    MSG_OP_SIGN_MSG,       /* sign_message_init: hash the message, then sign */
    MSG_OP_VERIFY_MSG,     /* verify_message_init */
};

/* Where a message operation stands; the rules are the default provider's. */
enum msg_state {
    MSG_READY = 0,  /* update, final and one-shot allowed */
    MSG_UPDATING,   /* an update happened: update and final allowed, one-shot not */
    MSG_DONE,       /* a final or one-shot happened: nothing until the next init */
};

typedef struct msg_ctx {
    CTRSA_PROVCTX *prov;
    const char *mdname;     /* the algorithm's digest, fixed at newctx */
    char *propq;            /* from newctx, for fetching the digest */
    void *inner;            /* the "RSA" signature context of provider/ops/signature.c */
    EVP_MD *md;             /* the digest that hashes messages, fetched on first use */
    EVP_MD_CTX *mdctx;
    enum msg_op op;
    enum msg_state state;
    unsigned char *sig;     /* verify-message: the "signature" parameter */
    size_t siglen;
} msg_ctx;

/* ---- the "RSA" signature operation's handlers, from its dispatch table ---------------- */

static struct {
    OSSL_FUNC_signature_newctx_fn *newctx;
    OSSL_FUNC_signature_freectx_fn *freectx;
    OSSL_FUNC_signature_dupctx_fn *dupctx;
    OSSL_FUNC_signature_sign_init_fn *sign_init;
    OSSL_FUNC_signature_sign_fn *sign;
    OSSL_FUNC_signature_verify_init_fn *verify_init;
    OSSL_FUNC_signature_verify_fn *verify;
    OSSL_FUNC_signature_verify_recover_init_fn *verify_recover_init;
    OSSL_FUNC_signature_verify_recover_fn *verify_recover;
    OSSL_FUNC_signature_get_ctx_params_fn *get_ctx_params;
    OSSL_FUNC_signature_gettable_ctx_params_fn *gettable_ctx_params;
    OSSL_FUNC_signature_set_ctx_params_fn *set_ctx_params;
} rsa;
static CRYPTO_ONCE rsa_once = CRYPTO_ONCE_STATIC_INIT;
static int rsa_found;

static void find_rsa_handlers(void)
{
    const OSSL_DISPATCH *f;

    for (f = ctrsa_rsa_signature_functions; f->function_id != 0; f++) {
        switch (f->function_id) {
        case OSSL_FUNC_SIGNATURE_NEWCTX:
            rsa.newctx = OSSL_FUNC_signature_newctx(f);
            break;
        case OSSL_FUNC_SIGNATURE_FREECTX:
            rsa.freectx = OSSL_FUNC_signature_freectx(f);
            break;
        case OSSL_FUNC_SIGNATURE_DUPCTX:
            rsa.dupctx = OSSL_FUNC_signature_dupctx(f);
            break;
        case OSSL_FUNC_SIGNATURE_SIGN_INIT:
            rsa.sign_init = OSSL_FUNC_signature_sign_init(f);
            break;
        case OSSL_FUNC_SIGNATURE_SIGN:
            rsa.sign = OSSL_FUNC_signature_sign(f);
            break;
        case OSSL_FUNC_SIGNATURE_VERIFY_INIT:
            rsa.verify_init = OSSL_FUNC_signature_verify_init(f);
            break;
        case OSSL_FUNC_SIGNATURE_VERIFY:
            rsa.verify = OSSL_FUNC_signature_verify(f);
            break;
        case OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT:
            rsa.verify_recover_init = OSSL_FUNC_signature_verify_recover_init(f);
            break;
        case OSSL_FUNC_SIGNATURE_VERIFY_RECOVER:
            rsa.verify_recover = OSSL_FUNC_signature_verify_recover(f);
            break;
        case OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS:
            rsa.get_ctx_params = OSSL_FUNC_signature_get_ctx_params(f);
            break;
        case OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS:
            rsa.gettable_ctx_params = OSSL_FUNC_signature_gettable_ctx_params(f);
            break;
        case OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS:
            rsa.set_ctx_params = OSSL_FUNC_signature_set_ctx_params(f);
            break;
        default:
            break;
        }
    }
    rsa_found = rsa.newctx != NULL && rsa.freectx != NULL && rsa.dupctx != NULL
                && rsa.sign_init != NULL && rsa.sign != NULL && rsa.verify_init != NULL
                && rsa.verify != NULL && rsa.verify_recover_init != NULL
                && rsa.verify_recover != NULL && rsa.get_ctx_params != NULL
                && rsa.gettable_ctx_params != NULL && rsa.set_ctx_params != NULL;
}

static int have_rsa_handlers(const CTRSA_PROVCTX *prov)
{
    if (!CRYPTO_THREAD_run_once(&rsa_once, find_rsa_handlers) || !rsa_found) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "the RSA signature operation is incomplete");
        return 0;
    }
    return 1;
}

/* ---- life cycle ---------------------------------------------------------------------- */

static OSSL_FUNC_signature_freectx_fn msg_freectx;
static OSSL_FUNC_signature_dupctx_fn msg_dupctx;
static OSSL_FUNC_signature_sign_init_fn msg_sign_init;
static OSSL_FUNC_signature_sign_fn msg_sign;
static OSSL_FUNC_signature_sign_message_init_fn msg_sign_message_init;
static OSSL_FUNC_signature_sign_message_update_fn msg_update;
static OSSL_FUNC_signature_sign_message_final_fn msg_sign_message_final;
static OSSL_FUNC_signature_verify_init_fn msg_verify_init;
static OSSL_FUNC_signature_verify_fn msg_verify;
static OSSL_FUNC_signature_verify_message_init_fn msg_verify_message_init;
static OSSL_FUNC_signature_verify_message_final_fn msg_verify_message_final;
static OSSL_FUNC_signature_verify_recover_init_fn msg_verify_recover_init;
static OSSL_FUNC_signature_verify_recover_fn msg_verify_recover;
static OSSL_FUNC_signature_query_key_types_fn msg_query_key_types;
static OSSL_FUNC_signature_get_ctx_params_fn msg_get_ctx_params;
static OSSL_FUNC_signature_gettable_ctx_params_fn msg_gettable_ctx_params;
static OSSL_FUNC_signature_set_ctx_params_fn msg_set_ctx_params;
static OSSL_FUNC_signature_settable_ctx_params_fn msg_settable_ctx_params;

static void *msg_newctx(void *provctx, const char *propq, const char *mdname)
{
    msg_ctx *c;

    if (!have_rsa_handlers(provctx))
        return NULL;
    if ((c = OPENSSL_zalloc(sizeof(*c))) == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "message signature context");
        return NULL;
    }
    c->prov = provctx;
    c->mdname = mdname;
    if ((propq != NULL && (c->propq = OPENSSL_strdup(propq)) == NULL)
        || (c->inner = rsa.newctx(provctx, propq)) == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "message signature context");
        OPENSSL_free(c->propq);
        OPENSSL_free(c);
        return NULL;
    }
    return c;
}

static void msg_freectx(void *vctx)
{
    msg_ctx *c = vctx;

    if (c == NULL)
        return;
    if (c->inner != NULL)
        rsa.freectx(c->inner);
    EVP_MD_CTX_free(c->mdctx);
    EVP_MD_free(c->md);
    OPENSSL_free(c->propq);
    OPENSSL_free(c->sig);
    OPENSSL_free(c);
}

static void *msg_dupctx(void *vctx)
{
    const msg_ctx *src = vctx;
    msg_ctx *c;

    if (src == NULL)
        return NULL;
    if ((c = OPENSSL_zalloc(sizeof(*c))) == NULL)
        goto err;
    c->prov = src->prov;
    c->mdname = src->mdname;
    c->op = src->op;
    c->state = src->state;
    if ((src->propq != NULL && (c->propq = OPENSSL_strdup(src->propq)) == NULL)
        || (c->inner = rsa.dupctx(src->inner)) == NULL)
        goto err;
    if (src->md != NULL) {
        if (!EVP_MD_up_ref(src->md))
            goto err;
        c->md = src->md;
    }
    if (src->mdctx != NULL
        && ((c->mdctx = EVP_MD_CTX_new()) == NULL || !EVP_MD_CTX_copy_ex(c->mdctx, src->mdctx)))
        goto err;
    if (src->sig != NULL) {
        if ((c->sig = OPENSSL_memdup(src->sig, src->siglen)) == NULL)
            goto err;
        c->siglen = src->siglen;
    }
    return c;
err:
    CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "duplicating the message signature context");
    msg_freectx(c);
    return NULL;
}

/* Each algorithm's newctx fixes its digest. X(suffix, digest name, algorithm names) */
#define MSG_ALGS(X)                                                                          \
    X(sha1, "SHA1", "RSA-SHA1:RSA-SHA-1:sha1WithRSAEncryption:1.2.840.113549.1.1.5")         \
    X(sha224, "SHA2-224",                                                                    \
      "RSA-SHA2-224:RSA-SHA224:sha224WithRSAEncryption:1.2.840.113549.1.1.14")               \
    X(sha256, "SHA2-256",                                                                    \
      "RSA-SHA2-256:RSA-SHA256:sha256WithRSAEncryption:1.2.840.113549.1.1.11")               \
    X(sha384, "SHA2-384",                                                                    \
      "RSA-SHA2-384:RSA-SHA384:sha384WithRSAEncryption:1.2.840.113549.1.1.12")               \
    X(sha512, "SHA2-512",                                                                    \
      "RSA-SHA2-512:RSA-SHA512:sha512WithRSAEncryption:1.2.840.113549.1.1.13")               \
    X(sha512_224, "SHA2-512/224",                                                            \
      "RSA-SHA2-512/224:RSA-SHA512-224:sha512-224WithRSAEncryption:1.2.840.113549.1.1.15")   \
    X(sha512_256, "SHA2-512/256",                                                            \
      "RSA-SHA2-512/256:RSA-SHA512-256:sha512-256WithRSAEncryption:1.2.840.113549.1.1.16")   \
    X(sha3_224, "SHA3-224",                                                                  \
      "RSA-SHA3-224:id-rsassa-pkcs1-v1_5-with-sha3-224:2.16.840.1.101.3.4.3.13")             \
    X(sha3_256, "SHA3-256",                                                                  \
      "RSA-SHA3-256:id-rsassa-pkcs1-v1_5-with-sha3-256:2.16.840.1.101.3.4.3.14")             \
    X(sha3_384, "SHA3-384",                                                                  \
      "RSA-SHA3-384:id-rsassa-pkcs1-v1_5-with-sha3-384:2.16.840.1.101.3.4.3.15")             \
    X(sha3_512, "SHA3-512",                                                                  \
      "RSA-SHA3-512:id-rsassa-pkcs1-v1_5-with-sha3-512:2.16.840.1.101.3.4.3.16")             \
    X(ripemd160, "RIPEMD-160", "RSA-RIPEMD160:ripemd160WithRSA:1.3.36.3.3.1.2")            \
    MSG_ALG_SM3(X)
#ifndef OPENSSL_NO_SM3
#define MSG_ALG_SM3(X) X(sm3, "SM3", "RSA-SM3:sm3WithRSAEncryption:1.2.156.10197.1.504")
#else
#define MSG_ALG_SM3(X)
#endif

#define MSG_NEWCTX(sfx, md, names)                                                           \
    static OSSL_FUNC_signature_newctx_fn msg_newctx_##sfx;                                   \
    static void *msg_newctx_##sfx(void *provctx, const char *propq)                          \
    {                                                                                        \
        return msg_newctx(provctx, propq, md);                                               \
    }
MSG_ALGS(MSG_NEWCTX)
#undef MSG_NEWCTX

/* ---- parameters ---------------------------------------------------------------------- */

static const OSSL_PARAM settable_verify_msg[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_SIGNATURE, NULL, 0),
    OSSL_PARAM_END
};
static const OSSL_PARAM settable_none[] = {
    OSSL_PARAM_END
};

static const OSSL_PARAM *msg_settable_ctx_params(void *vctx, void *provctx)
{
    const msg_ctx *c = vctx;

    (void)provctx;
    return c != NULL && c->op == MSG_OP_VERIFY_MSG ? settable_verify_msg : settable_none;
}

/*
 * The one parameter these algorithms take: "signature", for verify-message-final. The
 * padding and the digest are fixed by the algorithm; other names are ignored, as OpenSSL
 * ignores parameters it does not know.
 */
static int msg_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    msg_ctx *c = vctx;
    const OSSL_PARAM *p;

    if (c == NULL)
        return 0;
    if (params == NULL
        || (p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_SIGNATURE)) == NULL)
        return 1;
    if (c->op != MSG_OP_VERIFY_MSG) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "\"%s\" is set only for verify-message", p->key);
        return 0;
    }
    OPENSSL_free(c->sig);
    c->sig = NULL;
    c->siglen = 0;
    if (!OSSL_PARAM_get_octet_string(p, (void **)&c->sig, 0, &c->siglen)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "\"%s\" must be an octet string",
                    p->key);
        return 0;
    }
    return 1;
}

/* What can be read is the "RSA" operation's: algorithm-id, digest, pad-mode... */
static int msg_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    msg_ctx *c = vctx;

    return c != NULL && rsa.get_ctx_params(c->inner, params);
}

static const OSSL_PARAM *msg_gettable_ctx_params(void *vctx, void *provctx)
{
    msg_ctx *c = vctx;

    return rsa.gettable_ctx_params(c != NULL ? c->inner : NULL, provctx);
}

static const char **msg_query_key_types(void)
{
    static const char *keytypes[] = { "RSA", NULL };

    return keytypes;
}

/* ---- initialisation ------------------------------------------------------------------ */

/*
 * The algorithm's digest from the child library context: with the context's property query
 * if a digest matches it, else with none (the query is the one that chose this provider,
 * "provider=ctrsa" typically, which no digest matches), as signature.c fetches its digests.
 */
static EVP_MD *fetch_md(const msg_ctx *c)
{
    EVP_MD *md = NULL;

    if (c->propq != NULL && c->propq[0] != '\0') {
        ERR_set_mark();
        md = EVP_MD_fetch(c->prov->libctx, c->mdname, c->propq);
        if (md != NULL) {
            ERR_clear_last_mark();
            return md;
        }
        ERR_pop_to_mark();
    }
    return EVP_MD_fetch(c->prov->libctx, c->mdname, NULL);
}

/*
 * Initialise the inner "RSA" context for `op` with provkey, fix pad-mode pkcs1 and the
 * digest (an RSA-PSS key is refused there: it signs with PSS only), then apply params; for
 * the message operations start the digest.
 */
static int msg_init(msg_ctx *c, void *provkey, const OSSL_PARAM params[], enum msg_op op)
{
    OSSL_PARAM fixed[3];
    int ok;

    if (c == NULL)
        return 0;
    c->op = MSG_OP_NONE;
    switch (op) {
    case MSG_OP_SIGN:
    case MSG_OP_SIGN_MSG:
        ok = rsa.sign_init(c->inner, provkey, NULL);
        break;
    case MSG_OP_VERIFY:
    case MSG_OP_VERIFY_MSG:
        ok = rsa.verify_init(c->inner, provkey, NULL);
        break;
    default:
        ok = rsa.verify_recover_init(c->inner, provkey, NULL);
        break;
    }
    if (!ok)
        return 0;
    fixed[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE,
                                                (char *)OSSL_PKEY_RSA_PAD_MODE_PKCSV15, 0);
    fixed[1] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,
                                                (char *)c->mdname, 0);
    fixed[2] = OSSL_PARAM_construct_end();
    if (!rsa.set_ctx_params(c->inner, fixed))
        return 0;
    c->op = op;
    c->state = MSG_READY;
    OPENSSL_free(c->sig);
    c->sig = NULL;
    c->siglen = 0;
    if (!msg_set_ctx_params(c, params)) {
        c->op = MSG_OP_NONE;
        return 0;
    }
    if (op != MSG_OP_SIGN_MSG && op != MSG_OP_VERIFY_MSG)
        return 1;
    if (c->md == NULL && (c->md = fetch_md(c)) == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_UNKNOWN_DIGEST, "digest %s is not available", c->mdname);
        c->op = MSG_OP_NONE;
        return 0;
    }
    if ((c->mdctx == NULL && (c->mdctx = EVP_MD_CTX_new()) == NULL)
        || !EVP_DigestInit_ex2(c->mdctx, c->md, NULL)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "cannot start digest %s", c->mdname);
        c->op = MSG_OP_NONE;
        return 0;
    }
    return 1;
}

static int msg_sign_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return msg_init(vctx, provkey, params, MSG_OP_SIGN);
}

static int msg_sign_message_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return msg_init(vctx, provkey, params, MSG_OP_SIGN_MSG);
}

static int msg_verify_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return msg_init(vctx, provkey, params, MSG_OP_VERIFY);
}

static int msg_verify_message_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return msg_init(vctx, provkey, params, MSG_OP_VERIFY_MSG);
}

static int msg_verify_recover_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return msg_init(vctx, provkey, params, MSG_OP_VERIFY_RECOVER);
}

/* ---- hashing the message ------------------------------------------------------------- */

static const char *op_label(enum msg_op op)
{
    return op == MSG_OP_SIGN_MSG ? "sign-message" : "verify-message";
}

/* 1 if c is set up for the message operation `op`; raises otherwise. */
static int check_msg_op(const msg_ctx *c, enum msg_op op)
{
    if (c == NULL || c->op != op || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "%s was not initialised", op_label(op));
        return 0;
    }
    if (c->state == MSG_DONE) {
        CTRSA_RAISE(c->prov, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "%s is finished: initialise it again", op_label(op));
        return 0;
    }
    return 1;
}

/* The same update serves sign-message and verify-message. */
static int msg_update(void *vctx, const unsigned char *data, size_t datalen)
{
    msg_ctx *c = vctx;

    if (c == NULL || (c->op != MSG_OP_SIGN_MSG && c->op != MSG_OP_VERIFY_MSG)) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "sign-message or verify-message was not initialised");
        return 0;
    }
    if (!check_msg_op(c, c->op))
        return 0;
    c->state = MSG_UPDATING;
    if (!EVP_DigestUpdate(c->mdctx, data, datalen)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "digest %s failed", c->mdname);
        return 0;
    }
    return 1;
}

/* digest[0..*len) := the message's digest; the operation is then finished. */
static int finish(msg_ctx *c, unsigned char digest[EVP_MAX_MD_SIZE], size_t *len)
{
    unsigned int n = 0;

    c->state = MSG_DONE;
    if (!EVP_DigestFinal_ex(c->mdctx, digest, &n)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "digest %s failed", c->mdname);
        return 0;
    }
    *len = n;
    return 1;
}

static int msg_sign_message_final(void *vctx, unsigned char *sig, size_t *siglen,
                                  size_t sigsize)
{
    msg_ctx *c = vctx;
    unsigned char digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (!check_msg_op(c, MSG_OP_SIGN_MSG))
        return 0;
    /* A size query finishes nothing. */
    if (sig == NULL)
        return rsa.sign(c->inner, NULL, siglen, 0, NULL, 0);
    return finish(c, digest, &dlen) && rsa.sign(c->inner, sig, siglen, sigsize, digest, dlen);
}

static int msg_verify_message_final(void *vctx)
{
    msg_ctx *c = vctx;
    unsigned char digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (!check_msg_op(c, MSG_OP_VERIFY_MSG))
        return 0;
    if (c->sig == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "verify-message-final needs the signature (the \"%s\" parameter)",
                    OSSL_SIGNATURE_PARAM_SIGNATURE);
        return 0;
    }
    return finish(c, digest, &dlen) && rsa.verify(c->inner, c->sig, c->siglen, digest, dlen);
}

/* A one-shot on a message context: refused once an update has begun the message. */
static int check_oneshot(const msg_ctx *c)
{
    if (!check_msg_op(c, c->op))
        return 0;
    if (c->state != MSG_READY) {
        CTRSA_RAISE(c->prov, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "a one-shot %s cannot follow an update", op_label(c->op));
        return 0;
    }
    return 1;
}

/* sign_init: tbs is the digest. sign_message_init: tbs is the whole message. */
static int msg_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize,
                    const unsigned char *tbs, size_t tbslen)
{
    msg_ctx *c = vctx;

    if (c != NULL && c->op == MSG_OP_SIGN)
        return rsa.sign(c->inner, sig, siglen, sigsize, tbs, tbslen);
    if (c == NULL || c->op != MSG_OP_SIGN_MSG) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "sign was not initialised");
        return 0;
    }
    if (!check_oneshot(c))
        return 0;
    if (sig == NULL)
        return rsa.sign(c->inner, NULL, siglen, 0, NULL, 0);
    return msg_update(c, tbs, tbslen) && msg_sign_message_final(c, sig, siglen, sigsize);
}

/* verify_init: tbs is the digest. verify_message_init: tbs is the whole message. */
static int msg_verify(void *vctx, const unsigned char *sig, size_t siglen,
                      const unsigned char *tbs, size_t tbslen)
{
    msg_ctx *c = vctx;
    unsigned char digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (c != NULL && c->op == MSG_OP_VERIFY)
        return rsa.verify(c->inner, sig, siglen, tbs, tbslen);
    if (c == NULL || c->op != MSG_OP_VERIFY_MSG) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "verify was not initialised");
        return 0;
    }
    if (!check_oneshot(c))
        return 0;
    return msg_update(c, tbs, tbslen) && finish(c, digest, &dlen)
           && rsa.verify(c->inner, sig, siglen, digest, dlen);
}

static int msg_verify_recover(void *vctx, unsigned char *rout, size_t *routlen,
                              size_t routsize, const unsigned char *sig, size_t siglen)
{
    msg_ctx *c = vctx;

    if (c == NULL || c->op != MSG_OP_VERIFY_RECOVER) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "verify-recover was not initialised");
        return 0;
    }
    return rsa.verify_recover(c->inner, rout, routlen, routsize, sig, siglen);
}

/* ---- the algorithms ------------------------------------------------------------------ */

#define MSG_DISPATCH(sfx, md, names)                                                         \
    static const OSSL_DISPATCH msg_functions_##sfx[] = {                                     \
        { OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))msg_newctx_##sfx },                    \
        { OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))msg_freectx },                        \
        { OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))msg_dupctx },                          \
        { OSSL_FUNC_SIGNATURE_SIGN_INIT, (void (*)(void))msg_sign_init },                    \
        { OSSL_FUNC_SIGNATURE_SIGN, (void (*)(void))msg_sign },                              \
        { OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT, (void (*)(void))msg_sign_message_init },    \
        { OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_UPDATE, (void (*)(void))msg_update },             \
        { OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_FINAL, (void (*)(void))msg_sign_message_final },  \
        { OSSL_FUNC_SIGNATURE_VERIFY_INIT, (void (*)(void))msg_verify_init },                \
        { OSSL_FUNC_SIGNATURE_VERIFY, (void (*)(void))msg_verify },                          \
        { OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT,                                           \
          (void (*)(void))msg_verify_message_init },                                         \
        { OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_UPDATE, (void (*)(void))msg_update },           \
        { OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL,                                          \
          (void (*)(void))msg_verify_message_final },                                        \
        { OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT,                                           \
          (void (*)(void))msg_verify_recover_init },                                         \
        { OSSL_FUNC_SIGNATURE_VERIFY_RECOVER, (void (*)(void))msg_verify_recover },          \
        { OSSL_FUNC_SIGNATURE_QUERY_KEY_TYPES, (void (*)(void))msg_query_key_types },        \
        { OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))msg_get_ctx_params },          \
        { OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS,                                           \
          (void (*)(void))msg_gettable_ctx_params },                                         \
        { OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))msg_set_ctx_params },          \
        { OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS,                                           \
          (void (*)(void))msg_settable_ctx_params },                                         \
        OSSL_DISPATCH_END                                                                    \
    };
MSG_ALGS(MSG_DISPATCH)
#undef MSG_DISPATCH

static const OSSL_ALGORITHM signature_algs_with_messages[] = {
    CTRSA_RSA_SIGNATURE_ALGORITHM,
#define MSG_ENTRY(sfx, md, names)                                                            \
    { names, CTRSA_ALG_PROPS, msg_functions_##sfx, "ctrsa RSA PKCS#1 v1.5 with " md },
    MSG_ALGS(MSG_ENTRY)
#undef MSG_ENTRY
    { NULL, NULL, NULL, NULL }
};

const OSSL_ALGORITHM *ctrsa_message_signature_algorithms(const CTRSA_PROVCTX *prov)
{
    return prov != NULL && prov->core_version >= CTRSA_CORE_3_4 ? signature_algs_with_messages
                                                                : NULL;
}

#else /* headers older than OpenSSL 3.4: no message API to build against */

const OSSL_ALGORITHM *ctrsa_message_signature_algorithms(const CTRSA_PROVCTX *prov)
{
    (void)prov;
    return NULL;
}

#endif
