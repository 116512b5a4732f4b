/*
 * The small hash interface through which padding code reaches a digest. The provider fills
 * it from an EVP_MD fetched once per operation context; tests may fill it however they like.
 * Padding code never includes OpenSSL headers.
 */
#ifndef CTRSA_PADDING_HASH_H
#define CTRSA_PADDING_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct ctrsa_span {
    const uint8_t *p;
    size_t len;
} ctrsa_span;

typedef struct ctrsa_hash {
    size_t size;        /* output length in bytes (public) */
    size_t block_size;  /* input block length in bytes, for HMAC (public) */
    void *impl;         /* owned by whoever filled the struct */
    /*
     * out[0..size) := H(parts[0] || ... || parts[count-1]).
     * Returns 1 on success, 0 on failure. Time depends only on the part lengths.
     */
    int (*digest)(const struct ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                  uint8_t *out);
} ctrsa_hash;

/*
 * Random bytes for salts, seeds and nonzero padding: buf[0..len) := random.
 * Returns 1 on success, 0 on failure.
 */
typedef struct ctrsa_rand {
    void *impl;
    int (*bytes)(const struct ctrsa_rand *r, uint8_t *buf, size_t len);
} ctrsa_rand;

#endif
