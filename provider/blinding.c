/*
 * The blinding cache: per key, CTRSA_BLINDING_SLOTS pairs (A, Ai) = (r^e, r^-1) mod n in
 * Montgomery form, each with its own lock and scratch space. After each use a pair is
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
#include "rsa_key_internal.h"

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
    const char *cache = getenv("CTRSA_BLINDING_CACHE");
    if (cache != NULL && strcmp(cache, "0") == 0)
        max_uses = 1;
}

void ctrsa_blinding_init(CTRSA_KEY *key)
{
    pthread_once(&setup_once, setup);
    for (size_t i = 0; i < CTRSA_BLINDING_SLOTS; i++) {
        ctrsa_blinding_slot *slot = &key->slots[i];
        memset(slot, 0, sizeof(*slot));
        pthread_mutex_init(&slot->lock, NULL);
    }
}

void ctrsa_blinding_free(CTRSA_KEY *key)
{
    for (size_t i = 0; i < CTRSA_BLINDING_SLOTS; i++) {
        ctrsa_blinding_slot *slot = &key->slots[i];
        OPENSSL_clear_free(slot->A, slot->A ? key->nlimbs * sizeof(ctbn_limb) : 0);
        OPENSSL_clear_free(slot->Ai, slot->Ai ? key->nlimbs * sizeof(ctbn_limb) : 0);
        OPENSSL_clear_free(slot->scratch,
                           slot->scratch ? key->scratch_limbs * sizeof(ctbn_limb) : 0);
        slot->A = slot->Ai = slot->scratch = NULL;
        slot->ready = 0;
        pthread_mutex_destroy(&slot->lock);
    }
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
    ctrsa_key_crt_exp(key, ri, r, key->pm2, key->qm2, scratch + CTRSA_CRT_TEMPS_AT(nl),
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
static int slot_refresh(CTRSA_KEY *key, ctrsa_blinding_slot *slot)
{
    size_t nl = key->nlimbs, k = key->k;
    if (slot->A == NULL) {
        /* All or nothing: a slot is either fully allocated or not at all, so that a failed
         * allocation never leaves a NULL buffer behind a set A for the next refresh. */
        ctbn_limb *A = OPENSSL_zalloc(nl * sizeof(ctbn_limb));
        ctbn_limb *Ai = OPENSSL_zalloc(nl * sizeof(ctbn_limb));
        ctbn_limb *scratch = OPENSSL_zalloc(key->scratch_limbs * sizeof(ctbn_limb));
        if (A == NULL || Ai == NULL || scratch == NULL) {
            OPENSSL_free(A); /* zeroed and never used: nothing to wipe */
            OPENSSL_free(Ai);
            OPENSSL_free(scratch);
            CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "blinding cache");
            return 0;
        }
        slot->A = A;
        slot->Ai = Ai;
        slot->scratch = scratch;
    }
    ctbn_limb *r = slot->scratch, *work = slot->scratch + nl;
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
        ctbn_mask invertible = invert(key, slot->Ai, r, slot->scratch);
        CTBN_DECLASSIFY(&invertible, sizeof(invertible));
        if (!invertible)
            continue; /* r shares a factor with n: draw again (r is thrown away) */
        ctbn_modexp_public_vartime(key->mont_n, slot->A, r, key->e, key->en, work);
        ctbn_to_mont(key->mont_n, slot->A, slot->A);
        ctbn_to_mont(key->mont_n, slot->Ai, slot->Ai);
        ok = 1;
    }
    OPENSSL_cleanse(buf, k);
    OPENSSL_cleanse(slot->scratch, key->scratch_limbs * sizeof(ctbn_limb));
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

ctrsa_blinding_slot *ctrsa_blinding_acquire(CTRSA_KEY *key)
{
    static unsigned next_home;
    static _Thread_local unsigned home = UINT_MAX;
    if (home == UINT_MAX)
        home = __atomic_fetch_add(&next_home, 1, __ATOMIC_RELAXED) % CTRSA_BLINDING_SLOTS;

    ctrsa_blinding_slot *slot = NULL;
    for (unsigned i = 0; i < CTRSA_BLINDING_SLOTS && slot == NULL; i++) {
        ctrsa_blinding_slot *s = &key->slots[(home + i) % CTRSA_BLINDING_SLOTS];
        if (pthread_mutex_trylock(&s->lock) == 0)
            slot = s;
    }
    if (slot == NULL) {
        slot = &key->slots[home];
        pthread_mutex_lock(&slot->lock);
    }
    int stale = !slot->ready || slot->uses >= max_uses
                || slot->generation != __atomic_load_n(&fork_generation, __ATOMIC_RELAXED)
                || slot->pid != (long)getpid();
    if (stale && !slot_refresh(key, slot)) {
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
