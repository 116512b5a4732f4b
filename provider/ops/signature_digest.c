/*
 * The "RSA" signature operation's digest-sign and digest-verify (signature.h): init with a
 * digest, streaming update and final, the one-shot forms, and the digest parameters passed
 * through to the streaming digest. The signing and verifying are signature_sign.c's.
 * Public data only (the message is hashed, then signed as in sign/verify).
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
        && !sig_replace_md(c, &c->md, mdname, c->mdprops, sig_check_sig_digest))
        return 0;
    if ((c->mdctx = EVP_MD_CTX_new()) == NULL || !EVP_DigestInit_ex2(c->mdctx, c->md.md, NULL)) {
        CTRSA_RAISE(c->prov, CTRSA_R_INTERNAL, "cannot start digest %s", ctrsa_md_name(&c->md));
        return 0;
    }
    c->streaming = 1;
    return 1;
}

int sig_digest_sign_init(void *vctx, const char *mdname, void *provkey,
                         const OSSL_PARAM params[])
{
    return digest_init(vctx, mdname, provkey, params, SIG_OP_SIGN);
}

int sig_digest_verify_init(void *vctx, const char *mdname, void *provkey,
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
int sig_digest_update(void *vctx, const unsigned char *data, size_t datalen)
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

int sig_digest_sign_final(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize)
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

int sig_digest_verify_final(void *vctx, const unsigned char *sig, size_t siglen)
{
    sig_ctx *c = vctx;
    uint8_t digest[EVP_MAX_MD_SIZE];
    size_t dlen = 0;

    if (!check_streaming(c))
        return 0;
    return finish_digest(c, digest, &dlen) && sig_verify(c, sig, siglen, digest, dlen);
}

int sig_digest_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize,
                    const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;

    if (!check_streaming(c))
        return 0;
    if (sig == NULL)
        return sig_sign(c, NULL, siglen, 0, NULL, 0);
    return sig_digest_update(c, tbs, tbslen) && sig_digest_sign_final(c, sig, siglen, sigsize);
}

int sig_digest_verify(void *vctx, const unsigned char *sig, size_t siglen,
                      const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vctx;

    if (!check_streaming(c))
        return 0;
    return sig_digest_update(c, tbs, tbslen) && sig_digest_verify_final(c, sig, siglen);
}

/* ------------------------------------------------------------------------------------ */
/* Digest parameters, passed through to the streaming digest                            */

int sig_get_ctx_md_params(void *vctx, OSSL_PARAM params[])
{
    sig_ctx *c = vctx;

    if (c == NULL || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "digest parameters need digest-sign/verify to be initialised");
        return 0;
    }
    return EVP_MD_CTX_get_params(c->mdctx, params);
}

const OSSL_PARAM *sig_gettable_ctx_md_params(void *vctx)
{
    sig_ctx *c = vctx;

    if (c == NULL || !ctrsa_md_is_set(&c->md))
        return NULL;
    return EVP_MD_gettable_ctx_params(c->md.md);
}

int sig_set_ctx_md_params(void *vctx, const OSSL_PARAM params[])
{
    sig_ctx *c = vctx;

    if (c == NULL || c->mdctx == NULL) {
        CTRSA_RAISE(c != NULL ? c->prov : NULL, CTRSA_R_OPERATION_NOT_INITIALIZED,
                    "digest parameters need digest-sign/verify to be initialised");
        return 0;
    }
    return EVP_MD_CTX_set_params(c->mdctx, params);
}

const OSSL_PARAM *sig_settable_ctx_md_params(void *vctx)
{
    sig_ctx *c = vctx;

    if (c == NULL || !ctrsa_md_is_set(&c->md))
        return NULL;
    return EVP_MD_settable_ctx_params(c->md.md);
}

