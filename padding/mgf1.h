/* MGF1, the mask generation function of RFC 8017 B.2.1, over the ctrsa_hash interface. */
#ifndef CTRSA_MGF1_H
#define CTRSA_MGF1_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"

#define CTRSA_MGF1_MAX_HASH 64  /* largest hash output MGF1 accepts */

/*
 * out[0..outlen) ^= MGF1(seed[0..seedlen), outlen) with hash h.
 * Returns 1 on success; 0 if h->size is 0 or above CTRSA_MGF1_MAX_HASH, outlen needs more
 * than 2^32 blocks, or the hash fails (out is then partly masked: callers discard it).
 * seed and out MUST NOT overlap.
 * CT: only h->size, seedlen and outlen leak; seed and out may be secret (OAEP).
 */
int ctrsa_mgf1_xor(const ctrsa_hash *h, uint8_t *out, size_t outlen,
                   const uint8_t *seed, size_t seedlen);

#endif
