/*
 * Two copies of libcrypto in one process (see libcrypto_copy.h).
 *
 * ctrsa reaches the core through its dispatch functions (errors, parameters, the child
 * library context's upcalls), but it also links libcrypto itself: the child library
 * context that fetches digests and randomness lives in that library, as do the OSSL_PARAM
 * helpers and the allocator. In the usual program both are the one libcrypto.so.3. A
 * program linked with libcrypto.a (OpenSSL 3.0's own ssl_old_test, or any application that
 * bundles OpenSSL and reads the system's configuration) is a core of its own, and ctrsa.so
 * pulls in the shared libcrypto beside it. That copy is initialised by ctrsa's first call
 * into it, after the core was, so its OPENSSL_cleanup exit handler (atexit, last in, first
 * out) ran before the core's; the core's cleanup then tore ctrsa down, whose
 * OSSL_LIB_CTX_free ran in a cleaned-up library: ERR_unload_strings ->
 * CRYPTO_THREAD_write_lock(NULL), SIGSEGV at exit (issue 21, item 10).
 *
 * So, when the core is another copy: ctrsa initialises its copy first, with
 * OPENSSL_INIT_NO_ATEXIT, and that copy is never cleaned up (the process's exit reclaims
 * it, as OPENSSL_INIT_NO_ATEXIT documents); and if someone else did initialise it with the
 * exit handler, teardown finds it stopped and leaves the context alone rather than call into
 * it. When the core is the same library nothing changes: ctrsa is torn down from inside that
 * library's OPENSSL_cleanup, where freeing the context is what must happen.
 *
 * Nothing here touches key material.
 */
#include <stdatomic.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>
#include "libcrypto_copy.h"

/* The last abandoned context (one per load and teardown; a process rarely has two). */
static _Atomic(OSSL_LIB_CTX *) abandoned;

int ctrsa_core_is_other_copy(const OSSL_DISPATCH *in)
{
    for (; in != NULL && in->function_id != 0; in++)
        if (in->function_id == OSSL_FUNC_CRYPTO_MALLOC)
            return OSSL_FUNC_CRYPTO_malloc(in) != CRYPTO_malloc;
    return 1;
}

/*
 * OPENSSL_init_crypto returns 0 once OPENSSL_cleanup has run in that library, and 1
 * otherwise. Its NO_ATEXIT option only counts on the call that initialises the library;
 * later calls with it return 1 at once. It loads no configuration (no LOAD_CONFIG).
 */
int ctrsa_own_libcrypto_start(void)
{
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int ctrsa_own_libcrypto_alive(void)
{
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

void ctrsa_own_libcrypto_abandon(OSSL_LIB_CTX *libctx)
{
    atomic_store(&abandoned, libctx);
}
