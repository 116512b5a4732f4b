/*
 * RSA and RSA-PSS key generation on the engine (bignum/prime.h): the key object's side of
 * it, implemented in provider/key/rsa_keygen.c. The key managers' side (the parameters,
 * their limits and OpenSSL's progress callback) is provider/ops/keygen.c, which checks the
 * request before it calls here.
 */
#ifndef CTRSA_RSA_KEYGEN_H
#define CTRSA_RSA_KEYGEN_H

#include <stddef.h>
#include <stdint.h>
#include "bignum.h"
#include "prime.h"
#include "rsa_key.h"

/* What to generate; every field is public. */
typedef struct ctrsa_keygen_req {
    size_t bits;                /* of n: CTRSA_GEN_MIN_BITS..CTRSA_GEN_MAX_BITS (keygen.h) */
    size_t primes;              /* 2..5, within OpenSSL's cap for the size */
    const uint8_t *e;           /* big-endian, e_len bytes, no leading zero, odd, >= 3 */
    size_t e_len;               /* at most 8 * CTBN_PRIME_MAX_E_LIMBS (e < 2^256) */
    uint32_t mod8[2];           /* rsa-a, rsa-b: 0 (none) or 1, 3, 5, 7; two-prime keys only */
    const ctrsa_pss_restriction *pss;   /* NULL: an "RSA" key; else an RSA-PSS key with these */
    ctbn_progress_fn progress;  /* "potential"/"iteration" reports; 0 stops; never NULL */
    void *progress_arg;
} ctrsa_keygen_req;

/*
 * A new key as the request asks: the primes one by one (ctbn_prime_gen), each at distance
 * > 2^(bits_i - 100) from the earlier ones; d, the CRT exponents and coefficients
 * (ctbn_rsa_derive_ct) with d > 2^(nlen/2); then the numbers go through ctrsa_key_set like
 * an imported key and the pairwise test of ctrsa_key_validate. NULL with an error raised
 * on failure (random source, callback, allocation, or a check).
 * CT: the secrets (primes, d, CRT values, intermediates) steer nothing but the verdicts of
 * rejected candidates and of the distance and d-size checks (rsa_keygen.c says which);
 * the request is public.
 */
CTRSA_KEY *ctrsa_key_generate(CTRSA_PROVCTX *prov, const ctrsa_keygen_req *req);

#endif
