/*
 * Backend selection: which kernels ctbn_mont_mul and friends run on. Contracts in bignum.h
 * (ctbn_backend_select, ctbn_backend_name, ctbn_backend_supported) and backend.h.
 *
 * The active backend is one atomic pointer, read once per call by the dispatching functions.
 * Before the first ctbn_backend_select it is initialised from CTRSA_CPU (if set and
 * supported; see initial() for CTRSA_CPU_TRUST), else to the portable reference, so that
 * engine tests and tools that never select run the reference unless told otherwise.
 *
 * CT: public (CPU features and backend names only).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/*
 * Every backend this source knows, in the order of ctbn_backend_supported (worst first):
 * "auto" takes the last usable one whose auto_needs the core also has. avx512y (the avx512
 * kernels at 256 bits, for tests and valgrind) needs exactly what avx2 needs and sits below
 * it, so "auto" never picks it. ifmaz (the IFMA kernels on 512-bit registers at every size)
 * sits above ifma and is picked only on a core with CTBN_CPU_ZMM_IFMA_FULL_RATE.
 */
static const ctbn_backend *known(size_t i)
{
    switch (i) {
    case 0:
        return ctbn_backend_portable();
    case 1:
        return ctbn_backend_adx();
    case 2:
        return ctbn_backend_avx512y();
    case 3:
        return ctbn_backend_avx2();
    case 4:
        return ctbn_backend_avx512();
    case 5:
        return ctbn_backend_ifma();
    case 6:
        return ctbn_backend_ifmaz();
    default:
        return NULL;
    }
}
#define N_KNOWN 7

static int usable(const ctbn_backend *be)
{
    return be != NULL && (ctbn_cpu_features() & be->cpu_needs) == be->cpu_needs;
}

/* What "auto" may pick: usable, and the core has the traits the backend is for. */
static int preferred(const ctbn_backend *be)
{
    unsigned want = be != NULL ? be->cpu_needs | be->auto_needs : 0;
    return usable(be) && (ctbn_cpu_features() & want) == want;
}

/* The usable backend of that name, "auto" for the best one; NULL if none. */
static const ctbn_backend *find(const char *name)
{
    if (name == NULL || strcmp(name, "auto") == 0) {
        for (size_t i = N_KNOWN; i-- > 0;)
            if (preferred(known(i)))
                return known(i);
        return ctbn_backend_portable();
    }
    for (size_t i = 0; i < N_KNOWN; i++) {
        const ctbn_backend *be = known(i);
        if (be != NULL && strcmp(be->name, name) == 0)
            return usable(be) ? be : NULL;
    }
    return NULL;
}

static _Atomic(const ctbn_backend *) active;

/*
 * The initial backend: CTRSA_CPU if set and usable, else portable. Both variables are read
 * with secure_getenv: a setuid or otherwise AT_SECURE process ignores them, so its caller
 * cannot choose its backend. With CTRSA_CPU_TRUST=1
 * the CPU check is skipped for the backend CTRSA_CPU names (it must still be built): for
 * running the ADX kernels under valgrind, whose virtual CPU hides ADX from CPUID although
 * it executes ADCX/ADOX. On a CPU without the instructions that ends in SIGILL: a test
 * facility, like OPENSSL_ia32cap; the provider's selection always checks.
 */
static const ctbn_backend *initial(void)
{
    const char *env = secure_getenv("CTRSA_CPU");
    const char *trust = secure_getenv("CTRSA_CPU_TRUST");
    if (env == NULL)
        return ctbn_backend_portable();
    if (trust != NULL && strcmp(trust, "1") == 0) {
        for (size_t i = 0; i < N_KNOWN; i++) {
            const ctbn_backend *be = known(i);
            if (be != NULL && strcmp(be->name, env) == 0)
                return be;
        }
    }
    const ctbn_backend *be = find(env);
    return be != NULL ? be : ctbn_backend_portable();
}

const ctbn_backend *ctbn_backend_active(void)
{
    const ctbn_backend *be = atomic_load_explicit(&active, memory_order_acquire);
    if (be == NULL) {
        be = initial();
        /* keep an explicit selection made meanwhile by another thread */
        const ctbn_backend *expected = NULL;
        if (!atomic_compare_exchange_strong_explicit(&active, &expected, be,
                                                     memory_order_acq_rel,
                                                     memory_order_acquire))
            be = expected;
    }
    return be;
}

int ctbn_backend_select(const char *name)
{
    const ctbn_backend *be = find(name);
    if (be == NULL)
        return -1;
    atomic_store_explicit(&active, be, memory_order_release);
    return 0;
}

const char *ctbn_backend_name(void)
{
    return ctbn_backend_active()->name;
}

size_t ctbn_backend_supported(const char **names, size_t max)
{
    size_t count = 0;
    for (size_t i = 0; i < N_KNOWN; i++) {
        const ctbn_backend *be = known(i);
        if (!usable(be))
            continue;
        if (count < max)
            names[count] = be->name;
        count++;
    }
    return count;
}
