/*
 * The inside of the RSA key object, for provider/key/ only: rsa_key.c (import, export)
 * and blinding_slots.c (the blinding cache's storage) implement it; the files that
 * compute with the key read it through rsa_op_internal.h, which includes this header.
 * Nothing outside provider/key/ sees it.
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
    /* d was given and is zero (OpenSSL's test_RSA_get_set_params imports n = e = d = 0): the
     * key imports, exports d as 0, and its private operations are refused
     * (ctrsa_key_private_computable). Found by a constant-time test whose verdict only is
     * branched on: for any key that can sign, it is always 0. */
    int d_zero;
    /* d was given not below n, or zero with the factors: the default provider imports such
     * a key (and computes with its CRT values), so it imports, with every number kept as
     * given in `factors` for export, match and duplicate, and no private number in limbs
     * (d, the CRT state are NULL); its public part computes as any key's, and every
     * private operation is refused (ctrsa_key_private_computable) with d_unusable_why. */
    int d_unusable;
    const char *d_unusable_why;
    int crt;                 /* two primes with dP, dQ, qInv: the CRT path */
    int crt_derived;         /* crt, with dP, dQ, qInv derived from d at import without
                              * rsa-derive-from-pq: exported without them, as the default
                              * provider does (public flag) */
    ctbn_limb *d;            /* nlimbs */
    ctbn_mont *mont_p, *mont_q;   /* crt only, each sized to its prime (CTBN_MONT_BYTES) */
    ctbn_limb *crt_secrets;  /* one allocation holding dp, qinv_mont, dq; crt only */
    ctbn_limb *dp, *dq;      /* plimbs, qlimbs, in crt_secrets */
    ctbn_limb *qinv_mont;    /* qInv * R mod p (Montgomery form), plimbs, in crt_secrets */
    size_t plimbs, qlimbs, pbits, qbits;

    /* Keys of 3 to 5 primes: their factors, exponents and coefficients as imported, for
     * export only; unusable keys: every number as imported (one allocation, factors_len
     * bytes, wiped on free), and keys with d_unusable; NULL otherwise. */
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

/*
 * The blinding cache's storage (blinding_slots.c): the key's CTRSA_BLINDING_SLOTS slots,
 * allocated by the first caller, each slot's lock initialised and its pair not ready
 * (threads racing here agree on one array: the losers free theirs). NULL (error raised) on
 * allocation failure. What fills and uses the pairs is blinding.c's (rsa_op_internal.h).
 */
ctrsa_blinding_slot *ctrsa_key_blinding_slots(CTRSA_KEY *key);
/* Wipe and free the slots' pairs and the slots, if any; key->slots is NULL after. */
void ctrsa_key_blinding_slots_free(CTRSA_KEY *key);

/* The private operation's scratch layout (rsa_private.c): five nl-limb values at the start,
 * the CRT temporaries from CTRSA_CRT_TEMPS_AT(nl), the modexp's scratch from
 * CTRSA_WORK_AT(nl). rsa_key.c sizes key->scratch_limbs from it at import. */
#define CTRSA_CRT_TEMPS_AT(nl) (5 * (size_t)(nl))
#define CTRSA_WORK_AT(nl) (20 * (size_t)(nl))

#endif
