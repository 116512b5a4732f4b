/*
 * Shared by the end-to-end tests: a library context holding the provider under test and
 * OpenSSL's default provider (the oracle), and checks that an operation really ran in the
 * provider under test.
 *
 * The provider under test is named by the environment variable CTRSA_TEST_PROVIDER
 * (default "ctrsa"); with "default" the same tests run against OpenSSL alone, which is how
 * they were validated before the module existed. ctrsa is loaded from $CTRSA_MODULE_DIR.
 */
#ifndef CTRSA_TESTUTIL_H
#define CTRSA_TESTUTIL_H

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

typedef struct tu_env {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *under_test;  /* NULL when the provider under test is "default" */
    OSSL_PROVIDER *deflt;
} tu_env;

/* Name of the provider under test ("ctrsa" unless CTRSA_TEST_PROVIDER says otherwise). */
const char *tu_provider_name(void);

/* full scaled by CTRSA_TEST_SCALE (a multiplier, default 1: the cross runs under qemu and
 * the ASan stage use 0.25), at least at_least: for tests whose count of keys or rounds
 * sets their cost, not what they check. */
size_t tu_scaled(size_t full, size_t at_least);

/*
 * "provider=<name under test>": the property query that forces the provider under test.
 * CTRSA_TEST_PROPQ overrides it (e.g. "?provider=ctrsa", a mere preference); the checks that
 * each operation ran in the provider under test still apply.
 */
const char *tu_propq(void);

/* "provider=default": the oracle's property query. */
#define TU_PROPQ_DEFAULT "provider=default"

/*
 * A new library context with the provider under test and the default provider loaded.
 * 1 on success; on failure prints why (with OpenSSL's error queue) and returns 0.
 */
int tu_env_init(tu_env *env);
void tu_env_free(tu_env *env);

/* 1 if the operation behind ctx ran in the provider under test; prints what ran if not. */
int tu_ctx_in_provider(const EVP_PKEY_CTX *ctx);

/* 1 if the operation behind ctx ran in the provider called `name`. */
int tu_ctx_in_named_provider(const EVP_PKEY_CTX *ctx, const char *name);

/* 1 if key's key management lives in the provider called `name`. */
int tu_pkey_in_named_provider(const EVP_PKEY *key, const char *name);

/*
 * 1 if at least one error is on the queue and the most recent carries a reason string
 * (from OpenSSL or from the provider's reason table). Prints the error, then clears the
 * queue either way.
 */
int tu_error_with_reason(void);

/* A copy of `key` (public only, or the key pair) owned by the provider called `provname`. */
EVP_PKEY *tu_pkey_copy_to(OSSL_LIB_CTX *libctx, const EVP_PKEY *key, int with_private,
                          const char *provname);

/* Print OpenSSL's error queue to stderr with a prefix and clear it. */
void tu_print_errors(const char *prefix);

/* buf[0..len) := bytes of hex (len = strlen(hex) / 2). 1 on success, 0 on a bad digit. */
int tu_unhex(const char *hex, unsigned char *buf, size_t len);

#endif
