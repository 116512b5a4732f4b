/*
 * What computes with the RSA key object (rsa_key.h): the public operation
 * (provider/key/rsa_public.c), the private operation (provider/key/rsa_private.c, with the
 * blinding cache of provider/key/blinding.c) and the key checks (provider/key/rsa_check.c).
 * These files use the key object; the key object calls none of them (the one direction
 * between the two headers: rsa_op.h includes rsa_key.h, never the reverse).
 *
 * Byte strings are big-endian and unsigned, of exactly k = ctrsa_key_size() bytes. Every
 * private number is secret; n, e and all lengths are public.
 */
#ifndef CTRSA_RSA_OP_H
#define CTRSA_RSA_OP_H

#include <stdint.h>
#include "rsa_key.h"

/*
 * The public-key check (provider/key/rsa_check.c), EVP_PKEY_public_check, with the verdicts
 * of OpenSSL 3.0's ossl_rsa_sp800_56b_check_public: n of at most 16384 bits, odd, without a
 * prime factor below 752, composite and not a prime power (enhanced Miller-Rabin with
 * random bases from the public DRBG; below 512 bits also a prime power), e odd > 1. For any
 * key that imports, the engine computing with it or not (then on n and e as imported). 1 if
 * the key passes; otherwise CTRSA_R_INVALID_KEY (CTRSA_R_MODULUS_TOO_LARGE above 16384
 * bits) is raised saying why. CT: variable time; n and e are public.
 */
int ctrsa_key_check_public(const CTRSA_KEY *key);
/*
 * The key-pair check (EVP_PKEY_check, EVP_PKEY_pairwise_check): for a key the engine
 * computes with, the public check and ctrsa_key_validate(key, 1); for any other, the
 * verdict of OpenSSL 3.0's rsa_validate_keypair_multiprime on the numbers as imported
 * (rsa_check_given.c), with no RSA operation. 1 if it passes; else raises why, returns 0.
 * CT: the private numbers are used on constant-time paths; only the verdict leaks.
 */
int ctrsa_key_check_pair(const CTRSA_KEY *key);
/* Full check of the private key plus a pairwise test (x^e^d == x for a random x), in
 * provider/key/rsa_check.c: it runs both operations below. */
int ctrsa_key_validate(const CTRSA_KEY *key, int check_private);

/* The blinding cache's process-wide set-up, once (provider/key/blinding.c): the fork
 * handler that makes a child refresh every pair it inherited, and the CTRSA_BLINDING_CACHE
 * switch, read with secure_getenv. The provider's init calls it, so the environment is read
 * while the program loads ctrsa rather than in whichever thread makes the first private
 * operation (a concurrent setenv there would race getenv); the first blinding acquire
 * calls it too (pthread_once), so no pair can exist before the fork handler. */
void ctrsa_blinding_setup(void);

/*
 * out[0..k) := in^e mod n, with in and out of exactly k = ctrsa_key_size() bytes.
 * Fails with CTRSA_R_INPUT_TOO_LARGE if in >= n, and with CTRSA_R_INVALID_KEY (before any
 * arithmetic) if n has more than CTRSA_SMALL_MODULUS_BITS bits and e more than
 * CTRSA_MAX_PUBEXP_BITS. in and out MAY alias. Public data only.
 */
int ctrsa_key_public_op(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in);

/*
 * The same for an encryption: in is the padded message, secret. The arithmetic treats it as
 * such (every public-exponent path keeps its base in constant-time arithmetic) and the
 * stack the engine's kernels used is scrubbed afterwards. CT: the key, the lengths and
 * whether in < n (a property of the padding's output size) leak; in does not.
 */
int ctrsa_key_encrypt_op(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in);

/*
 * out[0..k) := in^d mod n: blinded, by CRT when the key has two primes, checked with the
 * public exponent before anything is written. Fails with CTRSA_R_INPUT_TOO_LARGE if in >= n,
 * CTRSA_R_NOT_PRIVATE_KEY, or CTRSA_R_FAULT_DETECTED. in and out MAY alias.
 * CT: only the key's public lengths and the success of the check leak; in and out are
 * treated as secret (the decrypted block is).
 */
int ctrsa_key_private_op(CTRSA_KEY *key, uint8_t *out, const uint8_t *in);

#endif
