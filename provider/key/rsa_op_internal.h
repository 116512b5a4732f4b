/*
 * Shared by the files of provider/key/ that compute with the key object: the private
 * operation (rsa_private.c), the public operation (rsa_public.c), the blinding cache
 * (blinding.c), the CRT exponentiation both of the first and the third use (crt_exp.c), the
 * thread's scratch area (scratch.c), the checks (rsa_check.c) and RSASVE (rsasve.c). They
 * read the key's inside (rsa_key_internal.h); rsa_key.c includes neither this header nor
 * rsa_op.h, so the key object calls none of them. Nothing outside provider/key/ sees it.
 *
 * Who calls whom, one way only:
 *   rsa_check.c, rsasve.c -> rsa_private.c, rsa_public.c
 *   rsa_private.c -> blinding.c -> crt_exp.c (and rsa_private.c -> crt_exp.c, scratch.c)
 *   every one of them -> rsa_key.c, blinding_slots.c, secret_stack.c (the key object)
 */
#ifndef CTRSA_RSA_OP_INTERNAL_H
#define CTRSA_RSA_OP_INTERNAL_H

#include "rsa_key_internal.h"
#include "rsa_op.h"

/*
 * blinding.c: take a blinding slot for one private operation: locked, its pair fresh for
 * this process and ready. scratch (key->scratch_limbs limbs, the calling thread's) serves a
 * refresh and is wiped after it. Returns NULL (error raised) on failure.
 * CT: which slot is taken depends on thread scheduling only, never on secrets.
 */
ctrsa_blinding_slot *ctrsa_blinding_acquire(CTRSA_KEY *key, ctbn_limb *scratch);
/* Square the pair for its next use (A := A^2, Ai := Ai^2) and unlock. */
void ctrsa_blinding_release(CTRSA_KEY *key, ctrsa_blinding_slot *slot);

/*
 * rsa_public.c: ctrsa_key_public_op without the bound on e's size, for the pairwise test of
 * a key pair (OpenSSL bounds e in its public operations only). Contract otherwise as
 * ctrsa_key_public_op's.
 */
int ctrsa_key_public_op_unbounded(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in);

/* rsa_public.c: 1 if e is within OpenSSL's bound for public operations on this key (at
 * most 64 bits once n has more than 3072); else 0 with the error raised. Every public
 * operation checks it first (ctrsa_key_public_op, RSASVE's encapsulation). Public values
 * only. */
int ctrsa_key_public_exponent_ok(const CTRSA_KEY *key);

/*
 * scratch.c: the calling thread's scratch area of at least `limbs` limbs, grown (never
 * shrunk) to the largest private operation the thread has run, freed (wiped) when the thread
 * exits. Its contents are secret while an operation runs; the caller wipes what it used
 * before returning. NULL (error raised) if it cannot grow. Fork-safe by construction: a
 * child's only thread keeps the forking thread's area, which holds nothing between
 * operations.
 */
ctbn_limb *ctrsa_thread_scratch(CTRSA_PROVCTX *prov, size_t limbs);

/*
 * crt_exp.c: out (nl limbs) := x^E mod n by CRT, for the exponent E given by its residues
 * ep mod (p-1) (plimbs, public length pbits) and eq mod (q-1): x mod p and mod q, both
 * half-size modexps in one two-at-once call, Garner's recombination with qInv. Used with
 * (dP, dQ) for the private operation and with (p-2, q-2) for the blinding cache's Fermat
 * inverses. x < n. crt keys only.
 * tmp: the CRT temporaries (15 nl limbs); work: CTBN_MODEXP2_SCRATCH(plimbs, qlimbs).
 * CT: only the key's lengths leak.
 */
void ctrsa_key_crt_exp(const CTRSA_KEY *key, ctbn_limb *out, const ctbn_limb *x,
                       const ctbn_limb *ep, const ctbn_limb *eq, ctbn_limb *tmp,
                       ctbn_limb *work);

/*
 * rsa_check_given.c: the key-pair check of a key the engine cannot compute with
 * (key->unusable), on key->factors, with the verdicts of OpenSSL 3.0's
 * rsa_validate_keypair_multiprime: at least two factors and d; no more primes than
 * OpenSSL's cap for the modulus size; e odd and not 1; each factor prime (Miller-Rabin, as
 * many rounds as BN_check_prime); n the product of the factors; e * d = 1 modulo
 * lambda(n); and when given, each CRT exponent d mod (r_i - 1) and each coefficient the
 * inverse of the product of the earlier primes modulo r_i (qInv = q^-1 mod p). Runs on the
 * secret stack. 1 if it passes; else raises why and returns 0.
 * CT: d and the factors' values go through constant-time engine paths; their announced
 * lengths leak, and a failing step's verdict (the key is refused) ends the check.
 */
int ctrsa_key_check_given_pair(const CTRSA_KEY *key);

#endif
