/*
 * The inside of the RSA key object, shared by rsa_key.c (import, checks, export),
 * rsa_private.c (the private operation), rsa_public.c (the fast verify path) and
 * blinding.c (the blinding cache). Nothing outside these files sees it.
 */
#ifndef CTRSA_RSA_KEY_INTERNAL_H
#define CTRSA_RSA_KEY_INTERNAL_H

#include <pthread.h>
#include "bignum.h"
#include "rsa_key.h"

/* Pairs in the blinding cache: threads take the first free one, so up to this many
 * private operations on one key run without waiting for each other. */
#define CTRSA_BLINDING_SLOTS 8
/* A pair is squared after each use and replaced by a fresh random one after this many. */
#define CTRSA_BLINDING_MAX_USES 32

/*
 * One blinding pair with its own lock. A and Ai are in Montgomery form modulo n: A = r^e * R, Ai = r^-1 * R, for a
 * secret random r. generation/pid record the process that made the pair (fork detection).
 */
typedef struct ctrsa_blinding_slot {
    pthread_mutex_t lock;
    int ready;              /* A and Ai hold a pair */
    unsigned uses;          /* uses since the last fresh pair */
    uint64_t generation;    /* fork generation at creation */
    long pid;
    ctbn_limb *A, *Ai;      /* nlimbs each, one allocation at A (2 nlimbs); secret */
} ctrsa_blinding_slot;

struct ctrsa_key {
    CTRSA_PROVCTX *prov;
    int refs;

    /* Public part (public values). */
    int has_public;
    /* 0 if the engine computes with n and e; else the reason code every operation raises
     * (n too large or too small, even, or e out of range): the key then has no Montgomery
     * context and no limbs at all, its numbers are kept in `factors` as imported, and
     * nothing is computed on it (ctrsa_key_computable). */
    int unusable;
    char unusable_why[96];
    size_t bits, k, nlimbs;  /* bit length of n, its byte length, its limb count */
    ctbn_mont *mont_n;       /* Montgomery context of n, built once */
    ctbn_limb *e;            /* e, en limbs */
    size_t en;

    /* Private part (secret values). */
    int has_private;
    int crt;                 /* two primes with dP, dQ, qInv: the CRT path */
    int crt_derived;         /* crt, with dP, dQ, qInv derived from d at import: exported
                              * without them, as the default provider does (public flag) */
    ctbn_limb *d;            /* nlimbs */
    ctbn_mont *mont_p, *mont_q;   /* crt only, each sized to its prime (CTBN_MONT_BYTES) */
    ctbn_limb *crt_secrets;  /* one allocation holding dp, qinv_mont, dq; crt only */
    ctbn_limb *dp, *dq;      /* plimbs, qlimbs, in crt_secrets */
    ctbn_limb *qinv_mont;    /* qInv * R mod p (Montgomery form), plimbs, in crt_secrets */
    size_t plimbs, qlimbs, pbits, qbits;

    /* Keys of 3 to 5 primes: their factors, exponents and coefficients as imported, for
     * export only; unusable keys: every number as imported (one allocation, factors_len
     * bytes, wiped on free); NULL otherwise. */
    ctrsa_key_numbers *factors;
    size_t factors_len;

    /* Blinding cache: CTRSA_BLINDING_SLOTS slots, allocated at the first private operation
     * (a key that only verifies pays nothing). scratch_limbs is the private operation's
     * need, taken from the calling thread's scratch area (scratch.c), not kept per key. */
    ctrsa_blinding_slot *slots;
    size_t scratch_limbs;

    /* Cached SHA-256(d) for implicit rejection. */
    pthread_mutex_t d_hash_lock;
    int d_hash_ready;
    uint8_t d_hash[32];

    int is_pss;              /* an RSA-PSS key: PSS only */
    ctrsa_pss_restriction pss;
};

/* blinding.c */
void ctrsa_blinding_init(CTRSA_KEY *key);
void ctrsa_blinding_free(CTRSA_KEY *key);
/*
 * Take a blinding slot for one private operation: locked, its pair fresh for this process
 * and ready. scratch (key->scratch_limbs limbs, the calling thread's) serves a refresh and
 * is wiped after it. Returns NULL (error raised) on failure.
 * CT: which slot is taken depends on thread scheduling only, never on secrets.
 */
ctrsa_blinding_slot *ctrsa_blinding_acquire(CTRSA_KEY *key, ctbn_limb *scratch);
/* Square the pair for its next use (A := A^2, Ai := Ai^2) and unlock. */
void ctrsa_blinding_release(CTRSA_KEY *key, ctrsa_blinding_slot *slot);

/*
 * ctrsa_key_public_op without the bound on e's size, for the pairwise test of a key pair
 * (OpenSSL bounds e in its public operations only). Contract otherwise as
 * ctrsa_key_public_op's.
 */
int ctrsa_key_public_op_unbounded(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in);

/* 1 if e is within OpenSSL's bound for public operations on this key (at most 64 bits once n
 * has more than 3072); else 0 with the error raised. Every public operation checks it first
 * (ctrsa_key_public_op, RSASVE's encapsulation). Public values only. */
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

/* Limb-count helpers. */
size_t ctrsa_key_private_scratch_limbs(const CTRSA_KEY *key);

/* The private operation's scratch layout (rsa_private.c): five nl-limb values at the start,
 * the CRT temporaries from CTRSA_CRT_TEMPS_AT(nl), the modexp's scratch from
 * CTRSA_WORK_AT(nl). */
#define CTRSA_CRT_TEMPS_AT(nl) (5 * (size_t)(nl))
#define CTRSA_WORK_AT(nl) (20 * (size_t)(nl))

/*
 * out (nl limbs) := x^E mod n by CRT, for the exponent E given by its residues ep mod (p-1)
 * (plimbs, public length pbits) and eq mod (q-1): x mod p and mod q, both half-size
 * modexps in one two-at-once call, Garner's recombination with qInv. Used with (dP, dQ)
 * for the private operation and with (p-2, q-2) for Fermat inverses. x < n. crt keys only.
 * tmp: the CRT temporaries (15 nl limbs); work: CTBN_MODEXP2_SCRATCH(plimbs, qlimbs).
 * CT: only the key's lengths leak.
 */
void ctrsa_key_crt_exp(const CTRSA_KEY *key, ctbn_limb *out, const ctbn_limb *x,
                       const ctbn_limb *ep, const ctbn_limb *eq, ctbn_limb *tmp,
                       ctbn_limb *work);

#endif
