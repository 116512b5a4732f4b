/* HMAC (RFC 2104) over the ctrsa_hash interface, for the implicit-rejection KDF. */
#ifndef CTRSA_HMAC_H
#define CTRSA_HMAC_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"

#define CTRSA_HMAC_MAX_BLOCK 168  /* largest hash block accepted (SHA3-224's is 144) */
#define CTRSA_HMAC_MAX_SIZE 64    /* largest hash output accepted */
#define CTRSA_HMAC_MAX_PARTS 6    /* most message parts one call accepts */

/*
 * out[0..h->size) := HMAC-H(key[0..keylen), parts[0] || ... || parts[count-1]).
 * A key longer than the block is hashed first, as RFC 2104 says.
 * Returns 1 on success; 0 if the hash has an unusable size or block (0, or above the
 * maxima), count > CTRSA_HMAC_MAX_PARTS, or the hash fails (out is then wiped).
 * out MAY alias key.
 * CT: only keylen, the part lengths and the hash sizes leak; key and message are secret.
 */
int ctrsa_hmac(const ctrsa_hash *h, const uint8_t *key, size_t keylen,
               const ctrsa_span *parts, size_t count, uint8_t *out);

#endif
