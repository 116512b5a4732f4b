/*
 * RSASVE (NIST SP 800-56B rev. 2, 7.2.1) on the key object, for the "RSA" KEM
 * (provider/ops/kem.c). Implemented in provider/key/rsasve.c.
 */
#ifndef CTRSA_RSASVE_H
#define CTRSA_RSASVE_H

#include <stdint.h>
#include "rsa_key.h"

/*
 * z[0..k) := a fresh secret, uniform in [2, n-2], as k = ctrsa_key_size() bytes big-endian;
 * c[0..k) := z^e mod n. 1 on success; on failure an error is raised and z is wiped.
 * z and c MUST NOT alias.
 * CT: z is secret (drawn by rejection sampling whose draw count is public and independent
 * of the z kept); n, e, k and c are public.
 */
int ctrsa_rsasve_generate(CTRSA_KEY *key, uint8_t *z, uint8_t *c);

/*
 * z[0..k) := c^d mod n, through ctrsa_key_private_op (blinded, CRT, checked with e).
 * c must be exactly k bytes with 1 < c < n-1 (SP 800-56B's RSADP range, checked as OpenSSL
 * 3.5's default provider does): c >= n-1 fails with CTRSA_R_INPUT_TOO_LARGE, c = 0 or 1
 * with CTRSA_R_INVALID_PARAMETER.
 * CT: c is public; z is secret (see ctrsa_key_private_op).
 */
int ctrsa_rsasve_recover(CTRSA_KEY *key, uint8_t *z, const uint8_t *c);

#endif
