/*
 * The libcrypto ctrsa links against, when it is not the core that loaded ctrsa.
 * Implemented in provider/libcrypto_copy.c, which says why this matters.
 */
#ifndef CTRSA_LIBCRYPTO_COPY_H
#define CTRSA_LIBCRYPTO_COPY_H

#include <openssl/core.h>
#include <openssl/types.h>

/*
 * 1 if the core that passed `in` to OSSL_provider_init is another copy of libcrypto than
 * the one ctrsa is linked with (a program linked with libcrypto.a, or one that bundles its
 * own libcrypto.so elsewhere); 0 if it is the same library. A core that does not pass
 * OSSL_FUNC_CRYPTO_MALLOC (every OpenSSL 3 core does) counts as another copy.
 */
int ctrsa_core_is_other_copy(const OSSL_DISPATCH *in);

/*
 * Called at provider init, before anything else in ctrsa's own libcrypto, when the core is
 * another copy: initialises ctrsa's copy without an exit handler if ctrsa is its first user
 * (OPENSSL_INIT_NO_ATEXIT), so that nothing tears that copy down at exit before the core
 * tears ctrsa down. 1 if ctrsa's copy is usable; 0 if it has already been cleaned up
 * (OPENSSL_cleanup ran in it), in which case ctrsa must not load.
 */
int ctrsa_own_libcrypto_start(void);

/*
 * At teardown when the core is another copy: 1 if ctrsa's copy has not been cleaned up and
 * the child library context can be freed in it; 0 if its OPENSSL_cleanup has run (someone
 * else initialised it first, with the exit handler that ran before the core's): then
 * nothing may be called in it any more and the context is left to the process's exit.
 */
int ctrsa_own_libcrypto_alive(void);

/*
 * Keeps a child library context that could not be freed (ctrsa_own_libcrypto_alive gave 0)
 * reachable until the process ends, with the rest of that cleaned-up copy's state: it is
 * left to the exit, not lost (leak checkers, LeakSanitizer in CI, see the difference).
 */
void ctrsa_own_libcrypto_abandon(OSSL_LIB_CTX *libctx);

#endif
