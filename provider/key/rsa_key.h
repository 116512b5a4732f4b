/*
 * The RSA key object: numbers as imported, Montgomery contexts built once, the storage of
 * the blinding cache. Implemented in provider/key/rsa_key.c (import/validation/export) and
 * provider/key/blinding_slots.c. What computes with the key (the public and private
 * operations, the checks) is declared in rsa_op.h: those files use the key object, and the
 * key object never calls them.
 *
 * Byte strings are big-endian and unsigned, as RSA and OSSL_PARAM's BN encoding (after
 * conversion from native order) use. Every private number is secret; n, e and all lengths
 * are public.
 */
#ifndef CTRSA_RSA_KEY_H
#define CTRSA_RSA_KEY_H

#include <stddef.h>
#include <stdint.h>
#include "prov.h"

#define CTRSA_MIN_BITS 512        /* smallest modulus computed with (tests use 1024+) */
#define CTRSA_MAX_PRIMES 5
/*
 * OpenSSL's bound on the public exponent (RSA_SMALL_MODULUS_BITS, RSA_MAX_PUBEXP_BITS):
 * above 3072 bits of modulus, the public operations refuse an e of more than 64 bits.
 */
#define CTRSA_SMALL_MODULUS_BITS 3072
#define CTRSA_MAX_PUBEXP_BITS 64

typedef struct ctrsa_key CTRSA_KEY;

/* A big-endian number; len 0 means absent. */
typedef struct ctrsa_num {
    const uint8_t *p;
    size_t len;
} ctrsa_num;

/* The numbers of a key, for import (borrowed) and export (pointing into the key). */
typedef struct ctrsa_key_numbers {
    ctrsa_num n, e, d;
    size_t nprimes;                          /* 0 when the key has no factors */
    ctrsa_num primes[CTRSA_MAX_PRIMES];      /* rsa-factor1.. (p, q, r_i) */
    ctrsa_num exps[CTRSA_MAX_PRIMES];        /* rsa-exponent1.. (dP, dQ, d_i) */
    ctrsa_num coeffs[CTRSA_MAX_PRIMES - 1];  /* rsa-coefficient1.. (qInv, t_i) */
    /* Import only (public): the CRT values were asked for (rsa-derive-from-pq, cores from
     * 3.3): a key given with none of them gets them all derived, and exports them. */
    int derive_from_pq;
    uint8_t *blob;       /* set by ctrsa_key_get_numbers: the bytes it wrote (else NULL) */
    size_t blob_len;
} ctrsa_key_numbers;

/* RSA-PSS key restrictions (keymgmt "RSA-PSS"); restricted == 0 means none. */
typedef struct ctrsa_pss_restriction {
    int restricted;
    char mdname[64];
    char mgf1mdname[64];
    int min_saltlen;
} ctrsa_pss_restriction;

CTRSA_KEY *ctrsa_key_new(CTRSA_PROVCTX *prov);
void ctrsa_key_free(CTRSA_KEY *key);            /* drops one reference; wipes on the last */
int ctrsa_key_up_ref(CTRSA_KEY *key);
CTRSA_KEY *ctrsa_key_dup(const CTRSA_KEY *key, int with_private);

/*
 * Import: set the public part (n, e) and, when nums->d is present, the private part.
 * n and e must be present (len > 0: raises CTRSA_R_MISSING_KEY_PART otherwise); a present
 * number may be zero (one or more zero bytes). A key the engine cannot compute with (n
 * zero, outside CTRSA_MIN_BITS..16384 bits or even; e zero, even, 1 or not below n) is kept
 * as given, with nothing computed, and every operation on it is refused before any
 * arithmetic (ctrsa_key_computable). A zero d imports too (without factors, or with n or e
 * unusable) and every private operation is refused (ctrsa_key_private_computable); so does a
 * d not below n, and a zero d with the factors (kept as given, not validated against them).
 * Otherwise validates (with factors: prod(primes) == n, d*e == 1 mod lambda(n) or each
 * e*d_i == 1 mod (p_i - 1), coefficients correct) and builds the Montgomery contexts. A
 * key given without any exponent or coefficient gets them derived from d in constant time
 * (d mod (p_i - 1); q^-1 mod p; for i >= 3 the inverse of p_1 ... p_i-1 mod p_i) and
 * checked as imported ones are: a two-prime key always, exported without them unless
 * nums->derive_from_pq (as OpenSSL's default provider, which derives and exports them only
 * on request); a key of three or more primes only with nums->derive_from_pq, exported with
 * them (without it such a key is refused). On failure raises an error naming what is wrong
 * and returns 0; the key is unchanged.
 */
int ctrsa_key_set(CTRSA_KEY *key, const ctrsa_key_numbers *nums);

/*
 * Export: the key's numbers, written from its working form into out->blob (n and e at their
 * own lengths, secrets at their announced lengths; the private ones only when
 * include_private is set and the key has them), with pointers into the key for the
 * factors of keys of three or more primes. Release with ctrsa_key_numbers_clear, which
 * wipes the blob; valid while the key lives and is not re-imported. 1 on success, 0 with an
 * error raised. CT: only the key's lengths leak.
 */
int ctrsa_key_get_numbers(const CTRSA_KEY *key, ctrsa_key_numbers *out, int include_private);
void ctrsa_key_numbers_clear(ctrsa_key_numbers *nums);

/*
 * 1 if the engine computes with this key; else raises the reason and returns 0. A key of
 * fewer than CTRSA_MIN_BITS or more than CTBN_MAX_BITS bits, with an even n, or with an e
 * that is even, 1 or not below n imports (as in OpenSSL's default provider: has, match,
 * export, bits, security bits and size answer), and every operation calls this before any
 * arithmetic and before any buffer is sized by the key. Public values only.
 */
int ctrsa_key_computable(const CTRSA_KEY *key);
/* The same question without an error: 1 if the engine computes with this key. */
int ctrsa_key_is_computable(const CTRSA_KEY *key);

/*
 * A private operation's question (sign, decrypt, decapsulate, the pairwise test): 1 if the
 * engine computes with the key (ctrsa_key_computable) and its d is not zero; else raises the
 * reason and returns 0. A key with d = 0 imports, as in OpenSSL's default provider (which
 * then "signs" with x^0 = 1); with a computable n and e its public operations run. Call it
 * after the key is known to have a private part. Secret: d, of which only the import's
 * verdict "d is zero" is read (never 0 for a key that can sign).
 */
int ctrsa_key_private_computable(const CTRSA_KEY *key);
/* 1 if the key's d can be used: not zero, and below n when n computes (a key without d:
 * 1); else raises the reason ("d is zero", "d is not below n"), returns 0. */
int ctrsa_key_d_usable(const CTRSA_KEY *key);

/*
 * The private-key check alone (EVP_PKEY_private_check), with the verdict of OpenSSL's
 * ossl_rsa_sp800_56b_check_private: 1 <= d < n, on the numbers as imported (n zero, tiny,
 * even or too large included). 1 if it holds; else raises why and returns 0.
 * CT: d is compared with n over the key's announced lengths; only the verdict leaks.
 */
int ctrsa_key_check_private(const CTRSA_KEY *key);

/*
 * The key-pair check's arithmetic for a key whose d is kept as given (not below n, or zero
 * with the factors; 1 for any other key): the factors multiply to n, the CRT exponents and
 * coefficient are right, and e * d = 1 modulo each p_i - 1, as OpenSSL's default provider
 * checks them (no private operation runs). 1 if they hold; else raises why and returns 0.
 * CT: the checks run on constant-time engine paths; only the verdict leaks.
 */
int ctrsa_key_check_kept_pair(const CTRSA_KEY *key);
/* 1 if the key's e is 0 or 1 (only a key the engine cannot compute with has such an e).
 * Public values only. */
int ctrsa_key_e_below_2(const CTRSA_KEY *key);

/* OpenSSL's ossl_rsa_multip_cap: the most primes a modulus of `bits` bits may have (2 below
 * 1024 bits, 3 below 4096, 4 below 8192, then 5). A key of more primes imports; its security
 * bits are 0 and its key-pair check fails, as with the default provider. */
size_t ctrsa_multiprime_cap(size_t bits);

int ctrsa_key_has_public(const CTRSA_KEY *key);
int ctrsa_key_has_private(const CTRSA_KEY *key);
size_t ctrsa_key_bits(const CTRSA_KEY *key);    /* bit length of n */
size_t ctrsa_key_size(const CTRSA_KEY *key);    /* byte length of n: signature/ciphertext size */
int ctrsa_key_security_bits(const CTRSA_KEY *key);
CTRSA_PROVCTX *ctrsa_key_provctx(const CTRSA_KEY *key);

/* 1 if the public parts (n, e) are equal; with want_private also compares d. */
int ctrsa_key_match(const CTRSA_KEY *a, const CTRSA_KEY *b, int want_private);

ctrsa_pss_restriction *ctrsa_key_pss(CTRSA_KEY *key);
const ctrsa_pss_restriction *ctrsa_key_pss_const(const CTRSA_KEY *key);

/* An RSA-PSS key (keymgmt "RSA-PSS") signs and verifies with PSS only, restricted or not. */
void ctrsa_key_set_pss_type(CTRSA_KEY *key);
int ctrsa_key_is_pss(const CTRSA_KEY *key);

/*
 * For PKCS#1 v1.5 implicit rejection: out := SHA-256(d as a k-byte big-endian string),
 * computed once and cached in the key (the HMAC key from which the per-ciphertext KDK is
 * derived, as in draft-irtf-cfrg-rsa-guidance and OpenSSL 3.2). 1 on success.
 */
int ctrsa_key_d_hash(CTRSA_KEY *key, uint8_t out[32]);

/* Free (wiped) the calling thread's scratch area for private operations, if it has one; a
 * later private operation in the thread makes a new one. The provider's teardown calls it.
 * provider/key/scratch.c, which uses nothing of the key object. */
void ctrsa_thread_scratch_release(void);

/*
 * The engine's kernels keep secret-derived values in their stack frames: the portable and
 * ADX kernels up to 2 * CTBN_MAX_LIMBS limbs, the AVX2 modexp and its kernels about 27 KB
 * on the deepest chain (measured with -fstack-usage, gcc 12 -O3 as the release build:
 * 16.2 KB for the two-half modexp, 9.0 KB for the 72-digit squaring it calls, 8.1 KB for a
 * half's finish, 7.5 KB for the 72-digit AMM, the kernels' arrays being sized for 144
 * digits; the AVX2 public path 12.3 KB plus 10.5 KB for the 144-digit squaring). The AVX2
 * kernels' library is built with -Wstack-usage (bignum/meson.build), a tripwire against a
 * frame outgrowing this unnoticed. The deepest secret chain is a blinding refresh under a
 * private operation: the refresh's 2 KB buffer, the inversion, the CRT exponentiation,
 * the two-half modexp (16.2 KB) and the avx512 backend's 72-digit zmm AMM (12.7 KB), about
 * 31 KB. CTRSA_SCRUB_STACK_BYTES, the part of the secret stack wiped after each use, leaves
 * room for other compilers; CTRSA_SECRET_STACK_BYTES leaves room beyond it for what secret
 * work calls back into (the core's random source, a key generation's progress callback)
 * and for a signal handler's frame.
 */
#define CTRSA_SCRUB_STACK_BYTES (48 * 1024)
#define CTRSA_SECRET_STACK_BYTES (256 * 1024)

/*
 * Run fn(arg) on a secret stack (provider/key/secret_stack.c), then zero what fn's frames
 * could reach of that stack (CTRSA_SCRUB_STACK_BYTES below its top, lower if a nested call
 * went lower) and clear the vector registers, whatever fn returned; returns fn's value, or
 * 0 with an error raised when no stack can be had (fn not run). fn's frames never touch the
 * caller's stack, whose size is the caller's business (an ASYNC job's, a coroutine's), and
 * nothing is written outside the module's own mappings. The stack is the calling thread's
 * (mapped at its first use, CTRSA_SECRET_STACK_BYTES above a guard, unmapped when the
 * thread exits), or one mapped for this call alone when the thread's is held by a call that
 * has not returned (paused or left in a callback). A call made on a secret stack already
 * runs fn in place.
 * Used around: a private operation (its blinding refresh included), an encryption (the
 * padded message is secret), RSASVE, a secret taken out of Montgomery form, key import with
 * a private exponent and key generation.
 * CT: fn's; the switch and the wipe depend on no secret.
 */
int ctrsa_on_secret_stack(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg);

/*
 * ctrsa_on_secret_stack without the wipe, for public work whose frames are large (the
 * public-exponent modexp of a verification, the Montgomery constants of an imported n,
 * the public key check): on the same stacks, so that the caller's stack never needs room
 * for the engine's frames (an ASYNC job's 32 KiB, less once a sanitizer pads every frame).
 * Secret work nested in it is wiped as ctrsa_on_secret_stack wipes.
 * CT: fn's.
 */
int ctrsa_on_module_stack(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg);

/*
 * Run fn(arg) back on the stack of the caller of the innermost ctrsa_on_secret_stack, just
 * below where that call left it, if the calling code runs on a secret stack; else in place.
 * For callbacks into the application (a key generation's progress callback): its code, its
 * stack checks and its garbage collector's stack scan, a pause of its ASYNC job or a
 * longjmp out of it all see the stack it called ctrsa on. Returns fn's value (0 if the
 * switch back failed: a progress callback's "stop").
 */
int ctrsa_off_secret_stack(int (*fn)(void *), void *arg);

#endif
