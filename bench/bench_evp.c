/* See bench_evp.h. */
#include "bench_evp.h"
#include "bench_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

/* The largest modulus in bytes that the buffers hold (16384 bits). */
#define BE_MAXBYTES 2048
#define BE_MSGLEN 32 /* a SHA-256 digest, or the plaintext of an encryption */

struct be_op {
    be_opkind kind;
    const char *prov;
    EVP_PKEY_CTX *ctx;
    size_t modbytes;
    unsigned char msg[BE_MSGLEN];
    unsigned char in[BE_MAXBYTES]; /* ciphertext to decrypt, signature to verify */
    size_t inlen;
    unsigned char out[BE_MAXBYTES]; /* last ciphertext or signature made */
    size_t outlen;
};

void be_die_ssl(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    bu_progress_clear();
    ERR_print_errors_fp(stderr);
    bu_die("%s", msg);
}

static OSSL_PROVIDER *load(OSSL_LIB_CTX *libctx, const char *name, const char *where)
{
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, name);

    if (prov == NULL)
        be_die_ssl("cannot load provider %s from %s", name, where);
    return prov;
}

void be_env_init(be_env *env, const char *module_dir, const char *ref_name)
{
    memset(env, 0, sizeof(*env));
    env->libctx = OSSL_LIB_CTX_new();
    if (env->libctx == NULL)
        be_die_ssl("OSSL_LIB_CTX_new");
    /* The default provider and the reference come from OpenSSL's own module folder... */
    env->deflt = load(env->libctx, "default", "OpenSSL's module folder");
    env->ref = strcmp(ref_name, "default") == 0
                   ? env->deflt
                   : load(env->libctx, ref_name, "OpenSSL's module folder");
    /* ...and ctrsa from the build folder. */
    if (!OSSL_PROVIDER_set_default_search_path(env->libctx, module_dir))
        be_die_ssl("OSSL_PROVIDER_set_default_search_path");
    env->ctrsa = load(env->libctx, BE_CTRSA, module_dir);
    env->name[BE_SIDE_CTRSA] = BE_CTRSA;
    env->name[BE_SIDE_REF] = ref_name;
    for (int s = 0; s < BE_SIDES; s++) {
        char propq[96];
        snprintf(propq, sizeof(propq), "provider=%s", env->name[s]);
        EVP_KEYMGMT *km = EVP_KEYMGMT_fetch(env->libctx, "RSA", propq);
        if (km == NULL)
            be_die_ssl("provider %s offers no RSA key management", env->name[s]);
        EVP_KEYMGMT_free(km);
    }
}

void be_env_free(be_env *env)
{
    if (env->ref != NULL && env->ref != env->deflt)
        OSSL_PROVIDER_unload(env->ref);
    if (env->ctrsa != NULL)
        OSSL_PROVIDER_unload(env->ctrsa);
    if (env->deflt != NULL)
        OSSL_PROVIDER_unload(env->deflt);
    OSSL_LIB_CTX_free(env->libctx);
    memset(env, 0, sizeof(*env));
}

const char *be_buildinfo(OSSL_PROVIDER *prov)
{
    const char *info = NULL;
    OSSL_PARAM params[2];

    params[0] = OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, (char **)&info, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (!OSSL_PROVIDER_get_params(prov, params) || info == NULL) {
        ERR_clear_error();
        return "(none)";
    }
    return info;
}

static const char *provider_of_ctx(const EVP_PKEY_CTX *ctx)
{
    const OSSL_PROVIDER *prov = EVP_PKEY_CTX_get0_provider(ctx);

    return prov != NULL ? OSSL_PROVIDER_get0_name(prov) : "(none)";
}

static const char *provider_of_key(const EVP_PKEY *pkey)
{
    const OSSL_PROVIDER *prov = EVP_PKEY_get0_provider(pkey);

    return prov != NULL ? OSSL_PROVIDER_get0_name(prov) : "(legacy)";
}

/* ---- keys ---- */

/* A copy of the key pair owned by provider `name` (the same object, up-ref'd, if it is). */
static EVP_PKEY *key_in(be_env *env, EVP_PKEY *pkey, const char *name)
{
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx;
    EVP_PKEY *out = NULL;
    char propq[96];

    if (strcmp(provider_of_key(pkey), name) == 0) {
        if (!EVP_PKEY_up_ref(pkey))
            be_die_ssl("EVP_PKEY_up_ref");
        return pkey;
    }
    snprintf(propq, sizeof(propq), "provider=%s", name);
    ctx = EVP_PKEY_CTX_new_from_name(env->libctx, "RSA", propq);
    if (EVP_PKEY_todata(pkey, EVP_PKEY_KEYPAIR, &params) != 1 || ctx == NULL
            || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &out, EVP_PKEY_KEYPAIR, params) != 1)
        be_die_ssl("cannot import a %d-bit key into provider %s", EVP_PKEY_get_bits(pkey),
                   name);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    if (strcmp(provider_of_key(out), name) != 0)
        bu_die("the key imported for %s lives in %s", name, provider_of_key(out));
    return out;
}

void be_key_from(be_env *env, be_key *key, EVP_PKEY *pkey)
{
    key->bits = (size_t)EVP_PKEY_get_bits(pkey);
    for (int s = 0; s < BE_SIDES; s++)
        key->pkey[s] = key_in(env, pkey, env->name[s]);
}

void be_key_generate(be_env *env, be_key *key, size_t bits)
{
    EVP_PKEY *pkey = EVP_PKEY_Q_keygen(env->libctx, "provider=default", "RSA", bits);

    if (pkey == NULL)
        be_die_ssl("the default provider cannot make a %zu-bit key", bits);
    be_key_from(env, key, pkey);
    EVP_PKEY_free(pkey);
}

void be_key_free(be_key *key)
{
    for (int s = 0; s < BE_SIDES; s++)
        EVP_PKEY_free(key->pkey[s]);
    memset(key, 0, sizeof(*key));
}

/* ---- operations ---- */

static const struct {
    const char *name;
    int encrypt, decrypt, sign, verify; /* exactly one is set */
    const char *pad;                    /* the pad-mode parameter's string */
    be_opkind peer; /* makes this one's input, or checks this one's output */
} kinds[BE_NOPS] = {
    [BE_ENC_PKCS1] = { "EncryptPKCS1v15", 1, 0, 0, 0, "pkcs1", BE_DEC_PKCS1 },
    [BE_DEC_PKCS1] = { "DecryptPKCS1v15", 0, 1, 0, 0, "pkcs1", BE_ENC_PKCS1 },
    [BE_ENC_OAEP] = { "EncryptOAEP", 1, 0, 0, 0, "oaep", BE_DEC_OAEP },
    [BE_DEC_OAEP] = { "DecryptOAEP", 0, 1, 0, 0, "oaep", BE_ENC_OAEP },
    [BE_SIGN_PKCS1] = { "SignPKCS1v15", 0, 0, 1, 0, "pkcs1", BE_VERIFY_PKCS1 },
    [BE_VERIFY_PKCS1] = { "VerifyPKCS1v15", 0, 0, 0, 1, "pkcs1", BE_SIGN_PKCS1 },
    [BE_SIGN_PSS] = { "SignPSS", 0, 0, 1, 0, "pss", BE_VERIFY_PSS },
    [BE_VERIFY_PSS] = { "VerifyPSS", 0, 0, 0, 1, "pss", BE_SIGN_PSS },
};

const char *be_op_name(be_opkind kind)
{
    return kinds[kind].name;
}

/* A context for `kind` on pkey in provider `prov`, with its parameters set and checked. */
static EVP_PKEY_CTX *op_ctx(be_env *env, EVP_PKEY *pkey, const char *prov, be_opkind kind)
{
    char propq[96], pad[16], sha256[] = "SHA256", saltlen[] = "digest";
    OSSL_PARAM p_pad[2], p_rest[4];
    EVP_PKEY_CTX *ctx;
    int ok, n = 0;

    snprintf(propq, sizeof(propq), "provider=%s", prov);
    snprintf(pad, sizeof(pad), "%s", kinds[kind].pad);
    ctx = EVP_PKEY_CTX_new_from_pkey(env->libctx, pkey, propq);
    if (ctx == NULL)
        be_die_ssl("%s: no context in %s", kinds[kind].name, prov);
    ok = kinds[kind].encrypt  ? EVP_PKEY_encrypt_init(ctx)
         : kinds[kind].decrypt ? EVP_PKEY_decrypt_init(ctx)
         : kinds[kind].sign    ? EVP_PKEY_sign_init(ctx)
                               : EVP_PKEY_verify_init(ctx);
    if (ok != 1)
        be_die_ssl("%s: init failed in %s", kinds[kind].name, prov);
    if (strcmp(provider_of_ctx(ctx), prov) != 0)
        bu_die("%s: asked for provider %s, got %s", kinds[kind].name, prov,
               provider_of_ctx(ctx));

    /*
     * The pad mode first: the others are checked against it. The asym-cipher names of
     * these parameters ("digest", "mgf1-digest") are the same strings as the signature's.
     */
    p_pad[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_PAD_MODE, pad, 0);
    p_pad[1] = OSSL_PARAM_construct_end();
    if (strcmp(pad, "pkcs1") != 0 || kinds[kind].sign || kinds[kind].verify)
        p_rest[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, sha256, 0);
    if (strcmp(pad, "pkcs1") != 0)
        p_rest[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST,
                                                       sha256, 0);
    if (strcmp(pad, "pss") == 0)
        p_rest[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PSS_SALTLEN,
                                                       saltlen, 0);
    p_rest[n] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_CTX_set_params(ctx, p_pad) != 1 || EVP_PKEY_CTX_set_params(ctx, p_rest) != 1)
        be_die_ssl("%s: parameters refused by %s", kinds[kind].name, prov);
    return ctx;
}

/* One operation of op; 1 if it succeeded and its result is right. */
static int run_once(be_op *op)
{
    size_t outlen = sizeof(op->out);

    if (kinds[op->kind].encrypt) {
        if (EVP_PKEY_encrypt(op->ctx, op->out, &outlen, op->msg, BE_MSGLEN) != 1
                || outlen != op->modbytes)
            return 0;
    } else if (kinds[op->kind].decrypt) {
        if (EVP_PKEY_decrypt(op->ctx, op->out, &outlen, op->in, op->inlen) != 1
                || outlen != BE_MSGLEN || memcmp(op->out, op->msg, BE_MSGLEN) != 0)
            return 0;
    } else if (kinds[op->kind].sign) {
        if (EVP_PKEY_sign(op->ctx, op->out, &outlen, op->msg, BE_MSGLEN) != 1
                || outlen != op->modbytes)
            return 0;
    } else {
        if (EVP_PKEY_verify(op->ctx, op->in, op->inlen, op->msg, BE_MSGLEN) != 1)
            return 0;
    }
    op->outlen = outlen;
    return 1;
}

int be_op_run(void *arg, size_t reps)
{
    be_op *op = arg;

    for (size_t i = 0; i < reps; i++)
        if (!run_once(op))
            return 0;
    return 1;
}

static be_op *op_alloc(be_env *env, EVP_PKEY *pkey, const char *prov, be_opkind kind,
                       const unsigned char *msg)
{
    be_op *op = bu_xmalloc(sizeof(*op));

    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->prov = prov;
    op->modbytes = (size_t)EVP_PKEY_get_size(pkey);
    if (op->modbytes == 0 || op->modbytes > BE_MAXBYTES)
        bu_die("unsupported key size %zu bytes", op->modbytes);
    memcpy(op->msg, msg, BE_MSGLEN);
    op->ctx = op_ctx(env, pkey, prov, kind);
    return op;
}

be_op *be_op_new(be_env *env, const be_key *key, int side, be_opkind kind)
{
    unsigned char msg[BE_MSGLEN];
    be_opkind peer_kind = kinds[kind].peer;
    int producer = kinds[kind].encrypt || kinds[kind].sign;
    be_op *op, *peer;

    if (RAND_bytes_ex(env->libctx, msg, sizeof(msg), 0) != 1)
        be_die_ssl("RAND_bytes_ex");
    op = op_alloc(env, key->pkey[side], env->name[side], kind, msg);
    peer = op_alloc(env, key->pkey[1 - side], env->name[1 - side], peer_kind, msg);
    if (producer) {
        /* this side makes a ciphertext or signature; the other side must accept it */
        if (!run_once(op))
            be_die_ssl("%s failed in %s", kinds[kind].name, op->prov);
        memcpy(peer->in, op->out, op->outlen);
        peer->inlen = op->outlen;
        if (!run_once(peer))
            be_die_ssl("%s: %s does not accept what %s made (%s)", kinds[kind].name,
                       peer->prov, op->prov, kinds[peer_kind].name);
    } else {
        /* the other side makes the ciphertext or signature this side takes */
        if (!run_once(peer))
            be_die_ssl("%s failed in %s", kinds[peer_kind].name, peer->prov);
        memcpy(op->in, peer->out, peer->outlen);
        op->inlen = peer->outlen;
        if (!run_once(op))
            be_die_ssl("%s: %s does not accept what %s made", kinds[kind].name, op->prov,
                       peer->prov);
    }
    be_op_free(peer);
    return op;
}

void be_op_free(be_op *op)
{
    if (op == NULL)
        return;
    EVP_PKEY_CTX_free(op->ctx);
    free(op);
}

/* ---- key generation ---- */

static EVP_PKEY_CTX *keygen_ctx(be_env *env, int side)
{
    char propq[96];
    EVP_PKEY_CTX *ctx;

    snprintf(propq, sizeof(propq), "provider=%s", env->name[side]);
    ctx = EVP_PKEY_CTX_new_from_name(env->libctx, "RSA", propq);
    if (ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1)
        return ctx;
    EVP_PKEY_CTX_free(ctx);
    return NULL;
}

int be_has_keygen(be_env *env, int side)
{
    EVP_PKEY_CTX *ctx = keygen_ctx(env, side);

    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
    return ctx != NULL;
}

EVP_PKEY *be_keygen_timed(be_env *env, int side, size_t bits, double *ns)
{
    const char *name = env->name[side];
    double t0 = bu_cpu_ns();
    EVP_PKEY_CTX *ctx = keygen_ctx(env, side);
    EVP_PKEY *pkey = NULL;

    if (ctx == NULL || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) != 1
            || EVP_PKEY_generate(ctx, &pkey) != 1)
        be_die_ssl("%zu-bit key generation failed in %s", bits, name);
    *ns = bu_cpu_ns() - t0;
    if (strcmp(provider_of_ctx(ctx), name) != 0 || strcmp(provider_of_key(pkey), name) != 0)
        bu_die("key generation asked of %s ran in %s, key in %s", name, provider_of_ctx(ctx),
               provider_of_key(pkey));
    if ((size_t)EVP_PKEY_get_bits(pkey) != bits)
        bu_die("%s made a %d-bit key when asked for %zu bits", name, EVP_PKEY_get_bits(pkey),
               bits);
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

void be_key_check_default(be_env *env, const EVP_PKEY *pkey)
{
    EVP_PKEY *copy = key_in(env, (EVP_PKEY *)pkey, "default");
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env->libctx, copy, "provider=default");

    if (ctx == NULL || EVP_PKEY_check(ctx) != 1)
        be_die_ssl("a %d-bit generated key fails the default provider's EVP_PKEY_check",
                   EVP_PKEY_get_bits(pkey));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(copy);
}
