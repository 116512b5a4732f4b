/*
 * The blinding cache's storage, part of the key object: CTRSA_BLINDING_SLOTS slots per key,
 * each with its lock and one allocation for its pair (A, Ai), allocated at the key's first
 * private operation and wiped and freed with the key (rsa_key.c) or when a key is
 * re-imported. Filling and using the pairs is blinding.c's, which calls this file; this
 * file calls nothing above the key object. Contracts in rsa_key_internal.h.
 *
 * Secret: the pairs, wiped here before their memory is freed. Public: the slot count and
 * the key's limb count, which size everything.
 */
#include <pthread.h>
#include <openssl/crypto.h>
#include "rsa_key_internal.h"

/* Wipe and free n slots' pairs and the slots themselves. */
static void slots_free(ctrsa_blinding_slot *slots, size_t nlimbs)
{
    for (size_t i = 0; i < CTRSA_BLINDING_SLOTS; i++) {
        ctrsa_blinding_slot *slot = &slots[i];
        OPENSSL_clear_free(slot->A, slot->A ? 2 * nlimbs * sizeof(ctbn_limb) : 0);
        pthread_mutex_destroy(&slot->lock);
    }
    OPENSSL_free(slots);
}

void ctrsa_key_blinding_slots_free(CTRSA_KEY *key)
{
    if (key->slots != NULL)
        slots_free(key->slots, key->nlimbs);
    key->slots = NULL;
}

/* Contract in rsa_key_internal.h. */
ctrsa_blinding_slot *ctrsa_key_blinding_slots(CTRSA_KEY *key)
{
    ctrsa_blinding_slot *slots = __atomic_load_n(&key->slots, __ATOMIC_ACQUIRE);
    if (slots != NULL)
        return slots;
    ctrsa_blinding_slot *fresh = OPENSSL_zalloc(CTRSA_BLINDING_SLOTS * sizeof(*fresh));
    if (fresh == NULL) {
        CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "blinding cache");
        return NULL;
    }
    for (size_t i = 0; i < CTRSA_BLINDING_SLOTS; i++)
        pthread_mutex_init(&fresh[i].lock, NULL);
    ctrsa_blinding_slot *expected = NULL;
    if (__atomic_compare_exchange_n(&key->slots, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return fresh;
    slots_free(fresh, key->nlimbs);
    return expected;
}
