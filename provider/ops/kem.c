/*
 * The "RSA" KEM (OpenSSL 3.0's EVP_PKEY_encapsulate/EVP_PKEY_decapsulate), with its one
 * operation, "RSASVE" (NIST SP 800-56B rev. 2, 7.2.1): provider/key/rsasve.c on the key object,
 * decapsulation on the constant-time private path (ctrsa_key_private_op).
 *
 * Behaviour follows OpenSSL's default provider (providers/implementations/kem/rsa_kem.c)
 * where applications can see it: the operation is RSASVE unless set (3.0 required the
 * application to set it; later versions default to it, and so does ctrsa), its name is
 * matched without regard to case; out == NULL reports the sizes (k for both the ciphertext
 * and the secret); a given ciphertext buffer (*outlen on input) must hold k bytes, and so
 * must the secret buffer on decapsulation; the ciphertext must be exactly k bytes with
 * 1 < c < n-1 (SP 800-56B; OpenSSL 3.5 checks this range, 3.0 only c < n). The secret is z
 * as k big-endian bytes.
 */
#include <string.h>
#include <strings.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "core_version.h"
#include "dispatch.h"
#include "prov.h"
#include "rsa_key.h"
#include "rsasve.h"

#ifndef OSSL_KEM_PARAM_OPERATION_RSASVE
#define OSSL_KEM_PARAM_OPERATION_RSASVE "RSASVE"
#endif

static OSSL_FUNC_kem_newctx_fn kem_newctx;
static OSSL_FUNC_kem_freectx_fn kem_freectx;
static OSSL_FUNC_kem_dupctx_fn kem_dupctx;
static OSSL_FUNC_kem_encapsulate_init_fn kem_encapsulate_init;
static OSSL_FUNC_kem_encapsulate_fn kem_encapsulate;
static OSSL_FUNC_kem_decapsulate_init_fn kem_decapsulate_init;
static OSSL_FUNC_kem_decapsulate_fn kem_decapsulate;
static OSSL_FUNC_kem_get_ctx_params_fn kem_get_ctx_params;
static OSSL_FUNC_kem_gettable_ctx_params_fn kem_gettable_ctx_params;
static OSSL_FUNC_kem_set_ctx_params_fn kem_set_ctx_params;
static OSSL_FUNC_kem_settable_ctx_params_fn kem_settable_ctx_params;

enum kem_op { KEM_OP_NONE = 0, KEM_OP_ENCAPSULATE, KEM_OP_DECAPSULATE };
enum kem_mode { KEM_MODE_RSASVE = 0 };

typedef struct kem_ctx {
    CTRSA_PROVCTX *prov;
    CTRSA_KEY *key;      /* one reference held */
    enum kem_op op;
    enum kem_mode mode;  /* the "operation" parameter; RSASVE, the only one */
} kem_ctx;

static void *kem_newctx(void *provctx)
{
    kem_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "KEM context");
        return NULL;
    }
    c->prov = provctx;
    c->mode = KEM_MODE_RSASVE;
    return c;
}

static void kem_freectx(void *vctx)
{
    kem_ctx *c = vctx;

    if (c == NULL)
        return;
    ctrsa_key_free(c->key);
    ctrsa_cleanse(c, sizeof(*c));
    OPENSSL_free(c);
}

static void *kem_dupctx(void *vctx)
{
    const kem_ctx *src = vctx;
    kem_ctx *dst;

    if (src == NULL)
        return NULL;
    if ((dst = OPENSSL_malloc(sizeof(*dst))) == NULL) {
        CTRSA_RAISE(src->prov, CTRSA_R_MALLOC_FAILURE, "duplicating the KEM context");
        return NULL;
    }
    *dst = *src;
    if (dst->key != NULL && !ctrsa_key_up_ref(dst->key)) {
        OPENSSL_free(dst);
        CTRSA_RAISE(src->prov, CTRSA_R_INTERNAL, "cannot reference the key");
        return NULL;
    }
    return dst;
}

/* ---- parameters ---------------------------------------------------------------------- */

static const OSSL_PARAM kem_settable[] = {
    OSSL_PARAM_utf8_string(OSSL_KEM_PARAM_OPERATION, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM kem_gettable[] = {
    OSSL_PARAM_END
};

static const OSSL_PARAM *kem_settable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    return kem_settable;
}

static const OSSL_PARAM *kem_gettable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    return kem_gettable;
}

static int kem_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    (void)params;
    return vctx != NULL;
}

static int kem_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    kem_ctx *c = vctx;
    const OSSL_PARAM *p;

    if (c == NULL)
        return 0;
    if (params == NULL
        || (p = OSSL_PARAM_locate_const(params, OSSL_KEM_PARAM_OPERATION)) == NULL)
        return 1;
    char name[CTRSA_PARAM_NAME_SIZE];
    /* read only within data_size (the string need not end in a NUL) */
    if (!ctrsa_param_get_utf8(c->prov, p, name, sizeof(name)))
        return 0;
    if (strcasecmp(name, OSSL_KEM_PARAM_OPERATION_RSASVE) != 0) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER,
                    "KEM operation \"%.40s\" is unknown (RSASVE is the one RSA has)", name);
        return 0;
    }
    c->mode = KEM_MODE_RSASVE;
    return 1;
}

/* ---- initialisation ------------------------------------------------------------------ */

static int kem_init(kem_ctx *c, void *provkey, const OSSL_PARAM params[], enum kem_op op)
{
    if (c == NULL)
        return 0;
    if (provkey == NULL || !ctrsa_key_has_public(provkey)) {
        CTRSA_RAISE(c->prov, CTRSA_R_MISSING_KEY_PART, "RSASVE needs an RSA key");
        return 0;
    }
    /* (A public key is refused at the decapsulation, as the default provider refuses it.) */
    if (ctrsa_key_is_pss(provkey)) {
        CTRSA_RAISE(c->prov, CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE, "an RSA-PSS key only signs");
        return 0;
    }
    /* As the loading core's default provider: from 3.5.9, 3.6.5 and 4.0.3 it refuses such
     * a key here; before, at the operation (as ctrsa does then: ctrsa_key_computable). */
    if (ctrsa_core_rsasve_refuses_e_below_2(c->prov->core_version)
        && ctrsa_key_e_below_2(provkey)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_KEY, "RSASVE needs e > 1");
        return 0;
    }
    if (!ctrsa_key_up_ref(provkey)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "cannot reference the key");
        return 0;
    }
    ctrsa_key_free(c->key);
    c->key = provkey;
    c->op = op;
    return kem_set_ctx_params(c, params);
}

static int kem_encapsulate_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return kem_init(vctx, provkey, params, KEM_OP_ENCAPSULATE);
}

static int kem_decapsulate_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
    return kem_init(vctx, provkey, params, KEM_OP_DECAPSULATE);
}

static int check_op(const kem_ctx *c, enum kem_op op)
{
    if (c == NULL || c->key == NULL || c->op != op) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "%s was not initialised",
                    op == KEM_OP_ENCAPSULATE ? "encapsulation" : "decapsulation");
        return 0;
    }
    return 1;
}

/* ---- the operations ------------------------------------------------------------------ */

/*
 * out[0..k) := the ciphertext z^e mod n, secret[0..k) := z.
 * CT: z is secret (ctrsa_rsasve_generate); k, the buffer sizes and the ciphertext are public.
 */
static int kem_encapsulate(void *vctx, unsigned char *out, size_t *outlen,
                           unsigned char *secret, size_t *secretlen)
{
    kem_ctx *c = vctx;
    size_t k;

    if (!check_op(c, KEM_OP_ENCAPSULATE))
        return 0;
    k = ctrsa_key_size(c->key);
    if (out == NULL) {
        if (k == 0) {   /* n = 0 (public), as the default provider answers */
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_KEY, "the key has no size (n is zero)");
            return 0;
        }
        if (outlen == NULL && secretlen == NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "no length to report");
            return 0;
        }
        if (outlen != NULL)
            *outlen = k;
        if (secretlen != NULL)
            *secretlen = k;
        return 1;
    }
    if (secret == NULL) {
        CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "no buffer for the secret");
        return 0;
    }
    if (outlen != NULL && *outlen < k) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEM_BUFFER_TOO_SMALL,
                    "ciphertext buffer is %zu bytes, %zu needed", *outlen, k);
        return 0;
    }
    if (secretlen != NULL && *secretlen < k) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEM_BUFFER_TOO_SMALL,
                    "secret buffer is %zu bytes, %zu needed", *secretlen, k);
        return 0;
    }
    if (!ctrsa_key_computable(c->key))
        return 0;
    ctrsa_trace("encapsulate", ctrsa_key_bits(c->key), "rsasve");
    if (!ctrsa_rsasve_generate(c->key, secret, out))
        return 0;
    if (outlen != NULL)
        *outlen = k;
    if (secretlen != NULL)
        *secretlen = k;
    return 1;
}

/*
 * out[0..k) := z = in^d mod n.
 * CT: in, its length, k and the buffer sizes are public; z is secret and comes from the
 * key's constant-time private operation, written out without being looked at.
 */
static int kem_decapsulate(void *vctx, unsigned char *out, size_t *outlen,
                           const unsigned char *in, size_t inlen)
{
    kem_ctx *c = vctx;
    size_t k;

    if (!check_op(c, KEM_OP_DECAPSULATE))
        return 0;
    k = ctrsa_key_size(c->key);
    if (out == NULL) {
        if (k == 0) {   /* n = 0 (public), as the default provider answers */
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_KEY, "the key has no size (n is zero)");
            return 0;
        }
        if (outlen == NULL) {
            CTRSA_RAISE(c->prov, CTRSA_R_INVALID_PARAMETER, "no length to report");
            return 0;
        }
        *outlen = k;
        return 1;
    }
    if (!ctrsa_key_private_computable(c->key))
        return 0;
    if (!ctrsa_key_has_private(c->key)) {
        CTRSA_RAISE(c->prov, CTRSA_R_NOT_PRIVATE_KEY, "decapsulation needs a private key");
        return 0;
    }
    if (in == NULL || inlen != k) {
        CTRSA_RAISE(c->prov, CTRSA_R_WRONG_INPUT_LENGTH,
                    "RSASVE ciphertext is %zu bytes, the key's size is %zu", inlen, k);
        return 0;
    }
    if (outlen != NULL && *outlen < k) {
        CTRSA_RAISE(c->prov, CTRSA_R_KEM_BUFFER_TOO_SMALL,
                    "secret buffer is %zu bytes, %zu needed", *outlen, k);
        return 0;
    }
    ctrsa_trace("decapsulate", ctrsa_key_bits(c->key), "rsasve");
    if (!ctrsa_rsasve_recover(c->key, out, in))
        return 0;
    if (outlen != NULL)
        *outlen = k;
    return 1;
}

const OSSL_DISPATCH ctrsa_rsa_kem_functions[] = {
    { OSSL_FUNC_KEM_NEWCTX, (void (*)(void))kem_newctx },
    { OSSL_FUNC_KEM_FREECTX, (void (*)(void))kem_freectx },
    { OSSL_FUNC_KEM_DUPCTX, (void (*)(void))kem_dupctx },
    { OSSL_FUNC_KEM_ENCAPSULATE_INIT, (void (*)(void))kem_encapsulate_init },
    { OSSL_FUNC_KEM_ENCAPSULATE, (void (*)(void))kem_encapsulate },
    { OSSL_FUNC_KEM_DECAPSULATE_INIT, (void (*)(void))kem_decapsulate_init },
    { OSSL_FUNC_KEM_DECAPSULATE, (void (*)(void))kem_decapsulate },
    { OSSL_FUNC_KEM_GET_CTX_PARAMS, (void (*)(void))kem_get_ctx_params },
    { OSSL_FUNC_KEM_GETTABLE_CTX_PARAMS, (void (*)(void))kem_gettable_ctx_params },
    { OSSL_FUNC_KEM_SET_CTX_PARAMS, (void (*)(void))kem_set_ctx_params },
    { OSSL_FUNC_KEM_SETTABLE_CTX_PARAMS, (void (*)(void))kem_settable_ctx_params },
    OSSL_DISPATCH_END
};
