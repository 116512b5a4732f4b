/*
 * RSA and RSA-PSS key generation for the key managers: the generation context, its
 * parameters (keygen.h lists them) and OpenSSL's progress callback. The generation itself
 * is the key object's side, provider/key/rsa_keygen.c, which this file calls with a checked
 * request; that file gives the steps and what is secret in them. Everything here is
 * public: sizes, e, the number of primes, rsa-a and rsa-b, the RSA-PSS restrictions.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "core_version.h"
#include "keygen.h"
#include "keymgmt_pss.h"
#include "prime.h"
#include "prov.h"
#include "rsa_key.h"
#include "rsa_keygen.h"

#define GEN_MAX_E_BYTES (8 * CTBN_PRIME_MAX_E_LIMBS)   /* e < 2^256 */

typedef struct ctrsa_genctx {
    CTRSA_PROVCTX *prov;
    size_t bits, primes;
    uint8_t e[GEN_MAX_E_BYTES];     /* big-endian, e_len bytes, no leading zero */
    size_t e_len;
    uint32_t mod8[2];               /* rsa-a, rsa-b (4.0+ cores): 0 or 1, 3, 5, 7; public */
    int pss_key;                    /* "RSA-PSS" key manager */
    ctrsa_pss_restriction pss;      /* its restrictions (restricted == 0: none) */
    OSSL_CALLBACK *cb;              /* progress, during ctrsa_gen only */
    void *cbarg;
} ctrsa_genctx;

/* OpenSSL's cap on the number of primes for a modulus size (ossl_rsa_multip_cap). */
static size_t primes_cap(size_t bits)
{
    if (bits < 1024)
        return 2;
    if (bits < 4096)
        return 3;
    if (bits < 8192)
        return 4;
    return 5;
}

/*
 * Whether the loading core mangles keys of more than 3 primes on import. Since OpenSSL 3.3,
 * ossl_rsa_set0_all_params() takes the primes from the third on with sk_BIGNUM_pop(),
 * storing them in reverse order while each keeps its own exponent and coefficient, so a
 * valid 4- or 5-prime key imported into the default provider (which the default encoders,
 * EVP_PKEY_check, and every copy to it do) fails its check ("mp coefficient not inverse of
 * r") and is written out invalid. 3.0 to 3.2 store them in order. ctrsa then does not
 * generate such keys (docs/testing.md: OpenSSL versions). The default provider that imports
 * them is the core's, so the core's version decides (provider/core_version.c: not the
 * libcrypto ctrsa links); a core of unknown version counts as mangling them.
 * Public: the core's version only.
 */
static int multiprime_import_broken(const CTRSA_PROVCTX *prov)
{
    return prov == NULL || prov->core_version == 0 || prov->core_version >= CTRSA_CORE_3_3;
}

/* ---- life cycle and parameters ------------------------------------------------------ */

static void *gen_init(void *provctx, int selection, const OSSL_PARAM params[], int pss_key)
{
    ctrsa_genctx *ctx;

    if ((selection & (OSSL_KEYMGMT_SELECT_KEYPAIR | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)) == 0)
        return NULL;
    ctx = OPENSSL_zalloc(sizeof(*ctx));
    if (ctx == NULL) {
        CTRSA_RAISE(provctx, CTRSA_R_MALLOC_FAILURE, "key generation context");
        return NULL;
    }
    ctx->prov = provctx;
    ctx->bits = CTRSA_GEN_DEFAULT_BITS;
    ctx->primes = 2;
    ctx->e[0] = (CTRSA_GEN_DEFAULT_E >> 16) & 0xff;
    ctx->e[1] = (CTRSA_GEN_DEFAULT_E >> 8) & 0xff;
    ctx->e[2] = CTRSA_GEN_DEFAULT_E & 0xff;
    ctx->e_len = 3;
    ctx->pss_key = pss_key;
    if (!ctrsa_gen_set_params(ctx, params)) {
        ctrsa_gen_cleanup(ctx);
        return NULL;
    }
    return ctx;
}

void *ctrsa_rsa_gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    return gen_init(provctx, selection, params, 0);
}

void *ctrsa_rsapss_gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    return gen_init(provctx, selection, params, 1);
}

void ctrsa_gen_cleanup(void *genctx)
{
    OPENSSL_clear_free(genctx, sizeof(ctrsa_genctx));
}

/* A size_t parameter; raises and returns 0 if it is not a non-negative integer. */
static int get_size(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, size_t *out)
{
    /* OpenSSL 3.0's getter reads p->data without checking it (fuzz_params). */
    if (p->data != NULL && OSSL_PARAM_get_size_t(p, out))
        return 1;
    CTRSA_RAISE(prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                "parameter \"%s\" must be a non-negative integer", p->key);
    return 0;
}

/*
 * e from an unsigned (BN) or signed integer parameter, native byte order, into ctx->e.
 * Checks: odd, at least 3, below 2^256. e is public.
 */
static int get_e(ctrsa_genctx *ctx, const OSSL_PARAM *p)
{
    uint8_t be[GEN_MAX_E_BYTES];
    size_t len = 0;
    const uint16_t probe = 1;
    int little = *(const uint8_t *)&probe == 1;

    if (p->data == NULL || p->data_size == 0
        || (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER && p->data_type != OSSL_PARAM_INTEGER)) {
        CTRSA_RAISE(ctx->prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "parameter \"e\" must be an unsigned integer");
        return 0;
    }
    const uint8_t *src = p->data;
    if (p->data_type == OSSL_PARAM_INTEGER
        && (src[little ? p->data_size - 1 : 0] & 0x80) != 0) {
        CTRSA_RAISE(ctx->prov, CTRSA_R_BAD_KEYGEN_PARAMETER, "e must be positive");
        return 0;
    }
    /* most significant byte first, leading zeros skipped */
    for (size_t i = 0; i < p->data_size; i++) {
        uint8_t b = src[little ? p->data_size - 1 - i : i];
        if (len == 0 && b == 0)
            continue;
        if (len == sizeof(be)) {
            CTRSA_RAISE(ctx->prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                        "e is larger than 2^256 (FIPS 186-5 bound), not supported");
            return 0;
        }
        be[len++] = b;
    }
    if (len == 0 || (be[len - 1] & 1) == 0 || (len == 1 && be[0] < 3)) {
        CTRSA_RAISE(ctx->prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "e must be odd and at least 3");
        return 0;
    }
    memcpy(ctx->e, be, len);
    ctx->e_len = len;
    return 1;
}

/* 1 if the loading core has key generation's rsa-a and rsa-b (OpenSSL 4.0+). */
static int core_has_mod8(const CTRSA_PROVCTX *prov)
{
    return prov != NULL && prov->core_version >= CTRSA_CORE_4_0;
}

/*
 * rsa-a or rsa-b: an unsigned integer 0, 1, 3, 5 or 7 (the default provider's check) into
 * *out. Public.
 */
static int get_mod8(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, uint32_t *out)
{
    uint32_t v;

    /* OpenSSL 3.0's getter reads p->data without checking it (fuzz_params) */
    if (p->data == NULL || !OSSL_PARAM_get_uint32(p, &v)) {
        CTRSA_RAISE(prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "parameter \"%s\" must be an unsigned integer", p->key);
        return 0;
    }
    if (v != 0 && (v > 7 || (v & 1) == 0)) {
        CTRSA_RAISE(prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "parameter \"%s\" is %u: a prime's residue mod 8 is 1, 3, 5 or 7 "
                    "(0: none asked)", p->key, (unsigned)v);
        return 0;
    }
    *out = v;
    return 1;
}

int ctrsa_gen_set_params(void *genctx, const OSSL_PARAM params[])
{
    ctrsa_genctx *ctx = genctx;
    const OSSL_PARAM *p;
    size_t v;

    if (ctx == NULL)
        return 0;
    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_BITS)) != NULL) {
        if (!get_size(ctx->prov, p, &v))
            return 0;
        if (v < CTRSA_GEN_MIN_BITS || v > CTRSA_GEN_MAX_BITS) {
            CTRSA_RAISE(ctx->prov, v < CTRSA_GEN_MIN_BITS ? CTRSA_R_KEY_SIZE_TOO_SMALL
                                                          : CTRSA_R_KEY_TOO_LARGE,
                        "%zu-bit keys: ctrsa generates keys of %d to %d bits", v,
                        CTRSA_GEN_MIN_BITS, CTRSA_GEN_MAX_BITS);
            return 0;
        }
        ctx->bits = v;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_PRIMES)) != NULL) {
        if (!get_size(ctx->prov, p, &v))
            return 0;
        if (v < 2 || v > CTBN_RSA_MAX_PRIMES) {
            CTRSA_RAISE(ctx->prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                        "%zu primes: ctrsa generates keys of 2 to %d primes", v,
                        CTBN_RSA_MAX_PRIMES);
            return 0;
        }
        ctx->primes = v;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_E)) != NULL && !get_e(ctx, p))
        return 0;
    if (core_has_mod8(ctx->prov)) {
        static const char *const names[2] = { "rsa-a", "rsa-b" };   /* OpenSSL 4.0's names */
        for (size_t i = 0; i < 2; i++)
            if ((p = OSSL_PARAM_locate_const(params, names[i])) != NULL
                    && !get_mod8(ctx->prov, p, &ctx->mod8[i]))
                return 0;
    }
    if (ctx->pss_key) {
        int found = 0;
        if (!ctrsa_pss_read(ctx->prov, params, &ctx->pss, &ctx->pss, &found))
            return 0;
    }
    return 1;
}

#define GEN_RSA_SETTABLE \
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_BITS, NULL), \
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, NULL), \
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0),

/* OpenSSL 4.0's additions (its names: no macro for them in 3.x headers) */
#define GEN_MOD8_SETTABLE \
    OSSL_PARAM_uint32("rsa-a", NULL), \
    OSSL_PARAM_uint32("rsa-b", NULL),
#define GEN_PSS_SETTABLE \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST_PROPS, NULL, 0), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, NULL, 0), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0), \
    OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL),

static const OSSL_PARAM rsa_settable[] = { GEN_RSA_SETTABLE OSSL_PARAM_END };
static const OSSL_PARAM rsa_settable_40[] = {
    GEN_RSA_SETTABLE GEN_MOD8_SETTABLE OSSL_PARAM_END
};
static const OSSL_PARAM rsapss_settable[] = {
    GEN_RSA_SETTABLE GEN_PSS_SETTABLE OSSL_PARAM_END
};
static const OSSL_PARAM rsapss_settable_40[] = {
    GEN_RSA_SETTABLE GEN_MOD8_SETTABLE GEN_PSS_SETTABLE OSSL_PARAM_END
};

const OSSL_PARAM *ctrsa_rsa_gen_settable_params(void *genctx, void *provctx)
{
    (void)genctx;
    return core_has_mod8(provctx) ? rsa_settable_40 : rsa_settable;
}

const OSSL_PARAM *ctrsa_rsapss_gen_settable_params(void *genctx, void *provctx)
{
    (void)genctx;
    return core_has_mod8(provctx) ? rsapss_settable_40 : rsapss_settable;
}

/* ---- generation: the request for the key object's side (provider/key/rsa_keygen.c) ---- */

typedef struct progress_call {
    ctrsa_genctx *ctx;
    OSSL_PARAM *params;
} progress_call;

static int progress_call_fn(void *arg)
{
    progress_call *p = arg;
    return p->ctx->cb(p->params, p->ctx->cbarg);
}

/* Progress to OpenSSL's callback as "potential" / "iteration", like the default provider;
 * the callback runs on the stack the application called ctrsa on. */
static int gen_progress(void *arg, int stage, int count)
{
    ctrsa_genctx *ctx = arg;
    OSSL_PARAM params[3];

    if (ctx->cb == NULL)
        return 1;
    params[0] = OSSL_PARAM_construct_int(OSSL_GEN_PARAM_POTENTIAL, &stage);
    params[1] = OSSL_PARAM_construct_int(OSSL_GEN_PARAM_ITERATION, &count);
    params[2] = OSSL_PARAM_construct_end();
    progress_call p = { ctx, params };
    return ctrsa_off_secret_stack(progress_call_fn, &p);
}

void *ctrsa_gen(void *genctx, OSSL_CALLBACK *cb, void *cbarg)
{
    ctrsa_genctx *ctx = genctx;
    CTRSA_PROVCTX *prov;
    CTRSA_KEY *key;

    if (ctx == NULL)
        return NULL;
    prov = ctx->prov;
    if (ctx->primes > primes_cap(ctx->bits)) {
        CTRSA_RAISE(prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "%zu primes for a %zu-bit key: at most %zu (as OpenSSL)", ctx->primes,
                    ctx->bits, primes_cap(ctx->bits));
        return NULL;
    }
    if (ctx->primes > 3 && multiprime_import_broken(prov)) {
        unsigned long v = prov != NULL ? prov->core_version : 0;
        CTRSA_RAISE(prov, CTRSA_R_BAD_KEYGEN_PARAMETER,
                    "%zu primes: not generated with OpenSSL %lu.%lu.%lu (the core that loaded "
                    "ctrsa; 0.0.0: unknown), which reorders primes 3 and up on import "
                    "(OpenSSL 3.3 and later), so such a key would fail its checks and be "
                    "encoded invalid outside ctrsa; use 2 or 3 primes", ctx->primes, v >> 28,
                    v >> 20 & 0xff, v >> 4 & 0xff);
        return NULL;
    }
    ctrsa_trace("keygen", ctx->bits, "-");

    ctrsa_keygen_req req = {
        .bits = ctx->bits, .primes = ctx->primes, .e = ctx->e, .e_len = ctx->e_len,
        .mod8 = { ctx->mod8[0], ctx->mod8[1] }, .pss = ctx->pss_key ? &ctx->pss : NULL,
        .progress = gen_progress, .progress_arg = ctx,
    };
    ctx->cb = cb;
    ctx->cbarg = cbarg;
    key = ctrsa_key_generate(prov, &req);
    ctx->cb = NULL;
    ctx->cbarg = NULL;
    return key;
}
