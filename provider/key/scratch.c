/*
 * The private operation's scratch space, per thread instead of per key: a server holding
 * many keys pays for one area per thread (the largest private operation that thread has
 * run: about 40 KB for RSA-4096 with CRT), not one per key and blinding slot.
 * Contract in rsa_key_internal.h (ctrsa_thread_scratch).
 *
 * Lifetime: the area is freed, wiped, by a thread-specific-data destructor when its thread
 * exits; the calling thread's when a provider instance is torn down (OPENSSL_cleanup in the
 * main thread), or at process exit (module destructor). The module is linked with
 * -z nodelete, so unloading the provider never unmaps the destructor while another thread
 * may still run it.
 *
 * Secret: the contents while an operation runs (wiped by the caller after each use, and
 * here before the area is freed or replaced). Public: the sizes.
 */
#include <pthread.h>
#include <openssl/crypto.h>
#include "rsa_op_internal.h"

typedef struct thread_area {
    size_t limbs;
    ctbn_limb *p;
} thread_area;

static pthread_key_t area_key;
static pthread_once_t area_once = PTHREAD_ONCE_INIT;
static int area_key_ok;

static void area_free(void *arg)
{
    thread_area *a = arg;
    if (a == NULL)
        return;
    OPENSSL_clear_free(a->p, a->limbs * sizeof(ctbn_limb));
    OPENSSL_free(a);
}

static void area_key_create(void)
{
    area_key_ok = pthread_key_create(&area_key, area_free) == 0;
}

void ctrsa_thread_scratch_release(void)
{
    if (!area_key_ok)
        return;
    area_free(pthread_getspecific(area_key));
    pthread_setspecific(area_key, NULL);
}

__attribute__((destructor)) static void area_key_delete(void)
{
    if (area_key_ok) {
        /* This thread's area can still be freed; others' are left to the process. */
        area_free(pthread_getspecific(area_key));
        pthread_setspecific(area_key, NULL);
        pthread_key_delete(area_key);
        area_key_ok = 0;
    }
}

ctbn_limb *ctrsa_thread_scratch(CTRSA_PROVCTX *prov, size_t limbs)
{
    pthread_once(&area_once, area_key_create);
    if (!area_key_ok) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "no thread-specific storage for scratch space");
        return NULL;
    }
    thread_area *a = pthread_getspecific(area_key);
    if (a != NULL && a->limbs >= limbs)
        return a->p;
    ctbn_limb *p = OPENSSL_zalloc(limbs * sizeof(ctbn_limb));
    if (p == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "scratch space (%zu bytes)",
                    limbs * sizeof(ctbn_limb));
        return NULL;
    }
    if (a == NULL) {
        a = OPENSSL_zalloc(sizeof(*a));
        if (a == NULL || pthread_setspecific(area_key, a) != 0) {
            OPENSSL_free(a);
            OPENSSL_free(p);
            CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "scratch space");
            return NULL;
        }
    }
    OPENSSL_clear_free(a->p, a->limbs * sizeof(ctbn_limb));
    a->p = p;
    a->limbs = limbs;
    return p;
}
