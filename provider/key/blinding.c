/*
 * The blinding cache: per key, CTRSA_BLINDING_SLOTS pairs (A, Ai) = (r^e, r^-1) mod n in
 * Montgomery form, each with its own lock. The slots are allocated at the key's first
 * private operation and each pair at the slot's first use, so a key that only verifies pays
 * nothing for them; the operation's scratch space is the thread's (scratch.c). The slots'
 * storage belongs to the key object (blinding_slots.c, freed with the key); this file
 * fills and uses the pairs, and the key object never calls it. After each use a pair is
 * squared ((r^2)^e = A^2, (r^2)^-1 = Ai^2: Gutmann's trick, a cost of two Montgomery
 * squarings instead of a modexp and an inverse); after CTRSA_BLINDING_MAX_USES uses, or in
 * a process other than the one that made it (fork), it is replaced by a fresh random pair.
 *
 * For measurement only, CTRSA_BLINDING_CACHE=0 in the environment makes every private
 * operation draw a fresh pair (what blinding costs without the cache); the default is on.
 *
 * Secret: r, A, Ai, and the scratch contents. Public: which slot a thread takes (scheduling
 * only), the use counts, and whether a fresh r happened to share a factor with n (it then
 * reveals nothing: it is thrown away; the chance is negligible for a real key).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include "rsa_op_internal.h"

static uint64_t fork_generation;
static unsigned max_uses = CTRSA_BLINDING_MAX_USES;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    __atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
}

static void setup(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
    /* A benchmark's switch; a setuid (AT_SECURE) process ignores it (secure_getenv). */
    const char *cache = secure_getenv("CTRSA_BLINDING_CACHE");
    if (cache != NULL && strcmp(cache, "0") == 0)
        max_uses = 1;
}

void ctrsa_blinding_setup(void)
{
    pthread_once(&setup_once, setup);
}

/*
 * ri := r^-1 mod n for 0 < r < n, returning all ones if r is invertible. With the factors:
 * Fermat's r^(p-2) mod p and r^(q-2) mod q through the CRT path (one two-at-once modexp,
 * about a third of the binary GCD's time at RSA-2048 on the fast backends), then checked:
 * r * ri = 1 mod n (it is not when r is a multiple of p or q). Without: the constant-time
 * binary extended GCD. scratch: the slot's; r sits in its first nl limbs, which stay.
 * CT: only the key's lengths leak; the returned mask is secret until declassified.
 */
static ctbn_mask invert(const CTRSA_KEY *key, ctbn_limb *ri, const ctbn_limb *r,
                        ctbn_limb *scratch)
{
    size_t nl = key->nlimbs;
    if (!key->crt)
        return ctbn_mod_inverse_ct(ri, r, key->mont_n->m, nl, scratch + nl);
    ctbn_limb *rm = scratch + nl, *prod = scratch + 2 * nl, *one = scratch + 3 * nl;
    /* p - 2 and q - 2 (each at most nl limbs), where rm and prod go once the exponentiation
     * is done; the borrow runs through every limb (a prime may be 1 mod 2^64). */
    ctbn_limb *pm2 = scratch + nl, *qm2 = scratch + 2 * nl;
    ctbn_sub_word(pm2, key->mont_p->m, 2, key->plimbs);
    ctbn_sub_word(qm2, key->mont_q->m, 2, key->qlimbs);
    ctrsa_key_crt_exp(key, ri, r, pm2, qm2, scratch + CTRSA_CRT_TEMPS_AT(nl),
                      scratch + CTRSA_WORK_AT(nl));
    ctbn_to_mont(key->mont_n, rm, r);
    ctbn_mont_mul(key->mont_n, prod, rm, ri); /* r * ri mod n */
    ctbn_set_u64(one, nl, 1);
    return ctbn_eq(prod, one, nl);
}

/*
 * A fresh pair from a new random r in [1, 2^(bits-1)) (so r < n), drawn from the private
 * DRBG as OpenSSL draws its blinding values (what goes on the wire comes from the public
 * one). 1 on success.
 */
static int slot_refresh(CTRSA_KEY *key, ctrsa_blinding_slot *slot, ctbn_limb *scratch)
{
    size_t nl = key->nlimbs, k = key->k;
    if (slot->A == NULL) {
        /* A and Ai in one allocation: a slot has both or neither. */
        slot->A = OPENSSL_zalloc(2 * nl * sizeof(ctbn_limb));
        if (slot->A == NULL) {
            CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "blinding pair");
            return 0;
        }
        slot->Ai = slot->A + nl;
    }
    ctbn_limb *r = scratch, *work = scratch + nl;
    uint8_t buf[CTBN_MAX_BITS / 8];
    int ok = 0, drawn = 0;
    for (int attempt = 0; attempt < 8 && !ok; attempt++) {
        if (!ctrsa_random_priv_bytes(key->prov, buf, k)) {
            CTRSA_RAISE(key->prov, CTRSA_R_RANDOM_FAILURE, "no randomness for blinding");
            break;
        }
        drawn++;
        ctbn_from_bytes(r, nl, buf, k);
        /* Keep bits-1 bits: r < 2^(bits-1) <= n. */
        size_t top = key->bits - 1;
        for (size_t i = 0; i < nl; i++) {
            size_t lo = 64 * i;
            if (lo >= top)
                r[i] = 0;
            else if (top - lo < 64)
                r[i] &= ((uint64_t)1 << (top - lo)) - 1;
        }
        r[0] |= ctbn_is_zero(r, nl) & 1; /* r = 0 would not invert: make it 1 */
        ctbn_mask invertible = invert(key, slot->Ai, r, scratch);
        CTBN_DECLASSIFY(&invertible, sizeof(invertible));
        if (!invertible)
            continue; /* r shares a factor with n: draw again (r is thrown away) */
        ctbn_modexp_public_vartime(key->mont_n, slot->A, r, key->e, key->en, work);
        ctbn_to_mont(key->mont_n, slot->A, slot->A);
        ctbn_to_mont(key->mont_n, slot->Ai, slot->Ai);
        ok = 1;
    }
    OPENSSL_cleanse(buf, k);
    OPENSSL_cleanse(scratch, key->scratch_limbs * sizeof(ctbn_limb));
    if (!ok && drawn == 8)
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY,
                    "blinding: no invertible value in 8 draws (a factor of the key is not "
                    "prime)");
    if (!ok)
        return 0;
    slot->ready = 1;
    slot->uses = 0;
    slot->generation = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
    slot->pid = (long)getpid();
    return 1;
}

ctrsa_blinding_slot *ctrsa_blinding_acquire(CTRSA_KEY *key, ctbn_limb *scratch)
{
    static unsigned next_home;
    static _Thread_local unsigned home = UINT_MAX;
    if (home == UINT_MAX)
        home = __atomic_fetch_add(&next_home, 1, __ATOMIC_RELAXED) % CTRSA_BLINDING_SLOTS;

    /* The fork handler and the CTRSA_BLINDING_CACHE switch, once per process, before any
     * pair exists (so every pair's generation is counted from the handler's registration). */
    ctrsa_blinding_setup();
    ctrsa_blinding_slot *slots = ctrsa_key_blinding_slots(key), *slot = NULL;
    if (slots == NULL)
        return NULL;
    for (unsigned i = 0; i < CTRSA_BLINDING_SLOTS && slot == NULL; i++) {
        ctrsa_blinding_slot *s = &slots[(home + i) % CTRSA_BLINDING_SLOTS];
        if (pthread_mutex_trylock(&s->lock) == 0)
            slot = s;
    }
    if (slot == NULL) {
        slot = &slots[home];
        pthread_mutex_lock(&slot->lock);
    }
    int stale = !slot->ready || slot->uses >= max_uses
                || slot->generation != __atomic_load_n(&fork_generation, __ATOMIC_RELAXED)
                || slot->pid != (long)getpid();
    if (stale && !slot_refresh(key, slot, scratch)) {
        slot->ready = 0;
        pthread_mutex_unlock(&slot->lock);
        return NULL;
    }
    return slot;
}

void ctrsa_blinding_release(CTRSA_KEY *key, ctrsa_blinding_slot *slot)
{
    ctbn_mont_sqr(key->mont_n, slot->A, slot->A);
    ctbn_mont_sqr(key->mont_n, slot->Ai, slot->Ai);
    slot->uses++;
    pthread_mutex_unlock(&slot->lock);
}
