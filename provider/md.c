/* Digest fetch and the EVP adapter for ctrsa_hash. See md.h. */
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include "md.h"

/*
 * ctrsa_hash.digest over an EVP_MD_CTX initialised with the digest once at fetch: each call
 * re-initialises the same context, so no allocation happens per hash.
 * CT: time depends only on the part lengths (the digest implementations are constant time).
 */
static int evp_hash_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                           uint8_t *out)
{
    EVP_MD_CTX *ctx = h->impl;
    unsigned int outlen = 0;
    size_t i;

    if (ctx == NULL || !EVP_DigestInit_ex2(ctx, EVP_MD_CTX_get0_md(ctx), NULL))
        return 0;
    for (i = 0; i < count; i++)
        if (parts[i].len > 0 && !EVP_DigestUpdate(ctx, parts[i].p, parts[i].len))
            return 0;
    if (!EVP_DigestFinal_ex(ctx, out, &outlen))
        return 0;
    return outlen == h->size;
}

/* Fill m->hash and m->name for m->md, with a fresh EVP_MD_CTX. 1 on success. */
static int md_attach(ctrsa_md *m)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *name = EVP_MD_get0_name(m->md);

    if (ctx == NULL)
        return 0;
    if (!EVP_DigestInit_ex2(ctx, m->md, NULL)) {
        EVP_MD_CTX_free(ctx);
        return 0;
    }
    m->hash.size = (size_t)EVP_MD_get_size(m->md);
    m->hash.block_size = (size_t)EVP_MD_get_block_size(m->md);
    m->hash.impl = ctx;
    m->hash.digest = evp_hash_digest;
    if (name == NULL)
        name = "";
    strncpy(m->name, name, sizeof(m->name) - 1);
    m->name[sizeof(m->name) - 1] = '\0';
    return 1;
}

int ctrsa_md_fetch(const CTRSA_PROVCTX *prov, ctrsa_md *out, const char *name,
                   const char *props)
{
    ctrsa_md fresh;
    int size;

    memset(&fresh, 0, sizeof(fresh));
    if (name == NULL || name[0] == '\0') {
        CTRSA_RAISE(prov, CTRSA_R_UNKNOWN_DIGEST, "empty digest name");
        return 0;
    }
    fresh.md = EVP_MD_fetch(prov != NULL ? prov->libctx : NULL, name, props);
    if (fresh.md == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_UNKNOWN_DIGEST, "digest \"%s\"%s%s is not available",
                    name, props != NULL ? " with properties " : "", props != NULL ? props : "");
        return 0;
    }
    size = EVP_MD_get_size(fresh.md);
    if ((EVP_MD_get_flags(fresh.md) & EVP_MD_FLAG_XOF) != 0 || size <= 0
        || size > CTRSA_MD_MAX_SIZE) {
        CTRSA_RAISE(prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "digest \"%s\" is an XOF or has an unusable size", name);
        EVP_MD_free(fresh.md);
        return 0;
    }
    if (!md_attach(&fresh)) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "cannot set up digest \"%s\"", name);
        EVP_MD_free(fresh.md);
        return 0;
    }
    strncpy(fresh.given, name, sizeof(fresh.given) - 1);
    ctrsa_md_reset(out);
    *out = fresh;
    return 1;
}

int ctrsa_md_fetch_for_ctx(const CTRSA_PROVCTX *prov, ctrsa_md *out, const char *name,
                           const char *props, const char *ctx_propq)
{
    if (props != NULL || ctx_propq == NULL || ctx_propq[0] == '\0')
        return ctrsa_md_fetch(prov, out, name, props);
    ERR_set_mark();
    if (ctrsa_md_fetch(prov, out, name, ctx_propq)) {
        ERR_clear_last_mark();
        return 1;
    }
    ERR_pop_to_mark();
    return ctrsa_md_fetch(prov, out, name, NULL);
}

void ctrsa_md_reset(ctrsa_md *m)
{
    if (m == NULL)
        return;
    EVP_MD_CTX_free(m->hash.impl);
    EVP_MD_free(m->md);
    memset(m, 0, sizeof(*m));
}

int ctrsa_md_copy(ctrsa_md *dst, const ctrsa_md *src)
{
    ctrsa_md_reset(dst);
    if (src->md == NULL)
        return 1;
    if (!EVP_MD_up_ref(src->md))
        return 0;
    dst->md = src->md;
    if (!md_attach(dst)) {
        EVP_MD_free(dst->md);
        memset(dst, 0, sizeof(*dst));
        return 0;
    }
    memcpy(dst->given, src->given, sizeof(dst->given));
    return 1;
}

int ctrsa_md_is(const ctrsa_md *m, const char *name)
{
    return m->md != NULL && name != NULL && EVP_MD_is_a(m->md, name);
}
