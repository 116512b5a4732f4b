/*
 * A library context freed before the keys made in it: OpenSSL calls the order undefined,
 * but programs do it (OpenSSL 3.0's threadstest test_multi frees its library context, then
 * the shared key it signed with from three threads), and OpenSSL's default provider
 * survives it. Each case runs in a child process, once with the default provider and once
 * with the provider under test, and the provider under test must end as the default does
 * (exit 0, no signal): the last key's free tears the provider down after its library
 * context is gone.
 *
 * The cases: a key pair generated and one signature made; the providers unloaded or left
 * loaded before the context is freed; the blinding cache in use (private operations from
 * several threads, each with its own scratch area, a pair per thread); a public key only;
 * two keys freed one after the other; a signature context freed after the library context.
 */
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "testutil.h"

enum {
    CASE_UNLOADED,      /* OSSL_PROVIDER_unload, then OSSL_LIB_CTX_free, then the key */
    CASE_LOADED,        /* OSSL_LIB_CTX_free with the providers still loaded */
    CASE_THREADS,       /* the blinding cache and per-thread scratch in use */
    CASE_PUBLIC,        /* a public key made from the pair, freed last */
    CASE_TWO_KEYS,      /* two keys, freed one after the other */
    CASE_SIGN_CTX,      /* a signature context outlives the library context */
    CASE_COUNT
};
static const char *const case_name[] = { "providers unloaded", "providers loaded",
                                         "signing threads", "public key", "two keys",
                                         "signature context" };

#define THREADS 3

static OSSL_LIB_CTX *libctx;
static EVP_PKEY *shared;
static const char *propq;
static int thread_ok[THREADS];

static int sign_once(EVP_PKEY *key)
{
    unsigned char md[32] = { 1 }, sig[512];
    size_t len = sizeof(sig);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(libctx, key, propq);
    int ok = c != NULL && EVP_PKEY_sign_init(c) == 1
             && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1
             && EVP_PKEY_sign(c, sig, &len, md, sizeof(md)) == 1;

    EVP_PKEY_CTX_free(c);
    return ok;
}

static void *signer(void *arg)
{
    int *ok = arg;

    *ok = 1;
    for (int i = 0; i < 8; i++)
        *ok &= sign_once(shared);
    return NULL;
}

static EVP_PKEY *generate(void)
{
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(libctx, "RSA", propq);

    if (g == NULL || EVP_PKEY_keygen_init(g) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_bits(g, 1024) != 1 || EVP_PKEY_generate(g, &key) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(g);
    return key;
}

static EVP_PKEY *public_of(EVP_PKEY *pair)
{
    OSSL_PARAM *params = NULL;
    EVP_PKEY *pub = NULL;
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(libctx, "RSA", propq);

    if (c != NULL && EVP_PKEY_todata(pair, EVP_PKEY_PUBLIC_KEY, &params) == 1
        && EVP_PKEY_fromdata_init(c) == 1)
        (void)EVP_PKEY_fromdata(c, &pub, EVP_PKEY_PUBLIC_KEY, params);
    OSSL_PARAM_free(params);
    EVP_PKEY_CTX_free(c);
    return pub;
}

/* The child's work: 0 if every step before the frees succeeded, 2 if one failed. A crash in
 * the frees ends the child with a signal. */
static int run_case(int which, const char *provname)
{
    OSSL_PROVIDER *deflt, *tested = NULL;
    EVP_PKEY *second = NULL, *pub = NULL;
    EVP_MD_CTX *mdctx = NULL;
    char query[64];
    const char *dir = getenv("CTRSA_MODULE_DIR");

    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL || (dir != NULL && !OSSL_PROVIDER_set_default_search_path(libctx, dir)))
        return 2;
    if (strcmp(provname, "default") != 0 && (tested = OSSL_PROVIDER_load(libctx, provname)) == NULL)
        return 2;
    if ((deflt = OSSL_PROVIDER_load(libctx, "default")) == NULL)
        return 2;
    snprintf(query, sizeof(query), "provider=%s", provname);
    propq = query;
    if ((shared = generate()) == NULL || !sign_once(shared))
        return 2;
    if (which == CASE_THREADS) {
        pthread_t t[THREADS];

        for (int i = 0; i < THREADS; i++)
            if (pthread_create(&t[i], NULL, signer, &thread_ok[i]) != 0)
                return 2;
        for (int i = 0; i < THREADS; i++) {
            pthread_join(t[i], NULL);
            if (!thread_ok[i])
                return 2;
        }
    }
    if (which == CASE_PUBLIC && (pub = public_of(shared)) == NULL)
        return 2;
    if (which == CASE_TWO_KEYS && ((second = generate()) == NULL || !sign_once(second)))
        return 2;
    if (which == CASE_SIGN_CTX
        && ((mdctx = EVP_MD_CTX_new()) == NULL
            || EVP_DigestSignInit_ex(mdctx, NULL, "SHA256", libctx, propq, shared, NULL) != 1))
        return 2;
    if (which != CASE_LOADED) {
        OSSL_PROVIDER_unload(tested);
        OSSL_PROVIDER_unload(deflt);
    }
    OSSL_LIB_CTX_free(libctx);
    /* undefined by OpenSSL from here on; the default provider survives it */
    EVP_MD_CTX_free(mdctx);
    EVP_PKEY_free(shared);
    EVP_PKEY_free(second);
    EVP_PKEY_free(pub);
    return 0;
}

/* The child's end: its exit status (0 or 2), or 128 + the signal that ended it. */
static int in_child(int which, const char *provname)
{
    int status = 0;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc;

        /* cmocka's handlers would turn a crash into a failed test and exit 1: the child
         * dies of the signal instead, so the parent sees which */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGABRT, SIG_DFL);
        rc = run_case(which, provname);
        if (rc != 0)
            ERR_print_errors_fp(stderr);
        fflush(NULL);
        _exit(rc);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static void test_free_order(void **state)
{
    int failed = 0;

    (void)state;
    for (int which = 0; which < CASE_COUNT; which++) {
        int d = in_child(which, "default");
        int t = in_child(which, tu_provider_name());

        fprintf(stderr, "%-20s default: %d, %s: %d (128 + signal when killed)\n",
                case_name[which], d, tu_provider_name(), t);
        if (d != 0)
            fail_msg("%s: the default provider ended with %d (the case is not what the test "
                     "says)", case_name[which], d);
        failed += t != 0;
    }
    if (failed != 0)
        fail_msg("%d of %d cases: the provider under test did not end as the default did",
                 failed, CASE_COUNT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
