/*
 * A message digest for one operation context: fetched once from the provider's child
 * library context, with the padding code's ctrsa_hash interface (padding/hash.h) filled
 * from it. Shared by the signature and asym-cipher operations.
 */
#ifndef CTRSA_MD_H
#define CTRSA_MD_H

#include <stddef.h>
#include <openssl/evp.h>
#include "prov.h"
#include "hash.h"

#define CTRSA_MD_MAX_SIZE 64      /* largest digest output accepted (SHA-512, SHA3-512) */

typedef struct ctrsa_md {
    EVP_MD *md;         /* NULL when no digest is set */
    char name[64];      /* the digest's canonical name (first name OpenSSL gives it) */
    char given[64];     /* the name it was fetched by, as the caller spelled it */
    ctrsa_hash hash;    /* hash.impl is an EVP_MD_CTX owned by this struct */
} ctrsa_md;

/*
 * Fetch `name` (with property query `props`, may be NULL) from prov->libctx into *out,
 * replacing what *out held only on success. XOFs (SHAKE) and digests longer than
 * CTRSA_MD_MAX_SIZE are refused. On failure raises CTRSA_R_UNKNOWN_DIGEST (or
 * CTRSA_R_DIGEST_NOT_ALLOWED, CTRSA_R_MALLOC_FAILURE) naming the digest and returns 0;
 * *out is unchanged.
 */
int ctrsa_md_fetch(const CTRSA_PROVCTX *prov, ctrsa_md *out, const char *name,
                   const char *props);

/*
 * The fetch an operation context wants: with `props` when the application set digest
 * properties explicitly ("properties", "mgf1-properties", "digest-props"); otherwise with
 * the context's own property query `ctx_propq` (what newctx received: it selected this
 * provider's operation and often says "provider=ctrsa", which has no digests), falling back
 * to no query, without leaving errors, when nothing matches it. Errors as ctrsa_md_fetch.
 */
int ctrsa_md_fetch_for_ctx(const CTRSA_PROVCTX *prov, ctrsa_md *out, const char *name,
                           const char *props, const char *ctx_propq);

/* Release what *m holds and leave it empty (md == NULL). Safe on an empty or zeroed struct. */
void ctrsa_md_reset(ctrsa_md *m);

/*
 * *dst := a copy of *src that shares the EVP_MD (up-ref'd) and has its own EVP_MD_CTX.
 * *dst must be empty or zeroed (it is reset first). 1 on success; on failure *dst is empty.
 */
int ctrsa_md_copy(ctrsa_md *dst, const ctrsa_md *src);

/* 1 if a digest is set. */
static inline int ctrsa_md_is_set(const ctrsa_md *m) { return m->md != NULL; }

/* Output size in bytes, 0 when no digest is set. */
static inline size_t ctrsa_md_size(const ctrsa_md *m) { return m->md != NULL ? m->hash.size : 0; }

/* The canonical name, "" when no digest is set. */
static inline const char *ctrsa_md_name(const ctrsa_md *m) { return m->md != NULL ? m->name : ""; }

/* The name it was fetched by ("SHA512", "sha512", "SHA2-512": as given), "" when no digest
 * is set. OpenSSL's default provider reports a signature's digest and MGF1 digest this way
 * (its rsa_sig.c keeps the name it was given); its asym-cipher reports the canonical one. */
static inline const char *ctrsa_md_given_name(const ctrsa_md *m)
{
    return m->md != NULL ? m->given : "";
}

/* 1 if *m is set and is the digest named `name` (any of its OpenSSL aliases). */
int ctrsa_md_is(const ctrsa_md *m, const char *name);

#endif
