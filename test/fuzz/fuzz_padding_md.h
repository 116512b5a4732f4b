/*
 * The padding harnesses' hashes: padding/hash.h's interface over OpenSSL digests fetched
 * from the default provider, as the provider fills it.
 */
#ifndef CTRSA_FUZZ_PADDING_MD_H
#define CTRSA_FUZZ_PADDING_MD_H

#include <openssl/evp.h>

#include "fuzz_util.h"
#include "hash.h"

#define FZ_N_MD 9

static const char *const fz_md_names[FZ_N_MD] = {
    "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA512-224", "SHA512-256", "SHA3-256",
    "SHA3-512",
};

static int fz_md_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                        uint8_t *out)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c != NULL && EVP_DigestInit_ex2(c, (const EVP_MD *)h->impl, NULL) == 1;

    for (size_t i = 0; ok && i < count; i++)
        ok = EVP_DigestUpdate(c, parts[i].p, parts[i].len) == 1;
    ok = ok && EVP_DigestFinal_ex(c, out, NULL) == 1;
    EVP_MD_CTX_free(c);
    return ok;
}

/* The i-th digest (i < FZ_N_MD) as an EVP_MD (*md) and a ctrsa_hash (*h). */
static void fz_md_get(unsigned i, const EVP_MD **md, ctrsa_hash *h)
{
    static EVP_MD *cache[FZ_N_MD];

    if (cache[i] == NULL
        && (cache[i] = EVP_MD_fetch(fz_libctx(), fz_md_names[i], FZ_PROPQ_DEFAULT)) == NULL)
        fz_fail("cannot fetch %s", fz_md_names[i]);
    *md = cache[i];
    h->size = (size_t)EVP_MD_get_size(cache[i]);
    h->block_size = (size_t)EVP_MD_get_block_size(cache[i]);
    h->impl = cache[i];
    h->digest = fz_md_digest;
}

#endif
