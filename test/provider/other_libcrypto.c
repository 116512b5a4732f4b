/*
 * ctrsa in a program with its own copy of libcrypto (issue 21, item 10).
 *
 * This program is linked with libcrypto.a: its OpenSSL is the core, and loading ctrsa.so
 * through the configuration brings the shared libcrypto.so.3 that ctrsa links in beside
 * it. Before the fix, such a program died with SIGSEGV at exit: the shared copy's
 * OPENSSL_cleanup (registered last, so run first) ran before the core's, which then tore
 * ctrsa down into the cleaned-up copy. The verdict is the process's exit status, exit
 * handlers included: meson fails the test on a signal or a non-zero status.
 *
 *   other_libcrypto first    ctrsa is the first user of the shared copy. An exit handler
 *                            registered before ctrsa loaded (so it runs after any handler
 *                            the shared copy would register) checks that the shared copy
 *                            is still running and signs through ctrsa once more; then the
 *                            core's cleanup tears ctrsa down.
 *   other_libcrypto second   the program itself initialises the shared copy (dlopen) after
 *                            its own and before loading ctrsa, so that copy's exit handler
 *                            runs before the core's: ctrsa's teardown finds it cleaned up
 *                            and must leave it alone.
 *
 * In both, the shared copy then loads ctrsa.so as well, and a refusal ctrsa makes for the
 * program's core must be the first error on the program's queue.
 *
 * Environment (meson sets it): OPENSSL_CONF = the repository's provider.cnf,
 * CTRSA_MODULE_DIR = the folder of ctrsa.so.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr */
#endif
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

static EVP_PKEY *key;

static void fail(const char *what)
{
    fprintf(stderr, "other_libcrypto: FAIL: %s\n", what);
    ERR_print_errors_fp(stderr);
    fflush(stderr);
    _exit(1);
}

/* dl_iterate_phdr callback: counts the loaded objects whose name holds "libcrypto.so". */
static int count_shared_libcrypto(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libcrypto.so") != NULL)
        (*(int *)arg)++;
    return 0;
}

/* Signs a digest with `key` through ctrsa and verifies it with the default provider. */
static void sign_through_ctrsa(const char *when)
{
    unsigned char md[32], sig[512];
    size_t siglen = sizeof(sig);
    EVP_PKEY_CTX *s = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    EVP_PKEY_CTX *v = EVP_PKEY_CTX_new_from_pkey(NULL, key, "provider=default");
    const OSSL_PROVIDER *p;

    memset(md, 0x5a, sizeof(md));
    if (s == NULL || v == NULL || EVP_PKEY_sign_init(s) <= 0
        || EVP_PKEY_CTX_set_signature_md(s, EVP_sha256()) <= 0
        || EVP_PKEY_sign(s, sig, &siglen, md, sizeof(md)) <= 0)
        fail(when);
    p = EVP_PKEY_CTX_get0_provider(s);
    if (p == NULL || strcmp(OSSL_PROVIDER_get0_name(p), "ctrsa") != 0)
        fail("the signature was not made by ctrsa");
    if (EVP_PKEY_verify_init(v) <= 0 || EVP_PKEY_CTX_set_signature_md(v, EVP_sha256()) <= 0
        || EVP_PKEY_verify(v, sig, siglen, md, sizeof(md)) != 1)
        fail("the default provider does not verify ctrsa's signature");
    p = EVP_PKEY_CTX_get0_provider(v);
    if (p == NULL || strcmp(OSSL_PROVIDER_get0_name(p), "default") != 0)
        fail("the verification was not made by the default provider");
    EVP_PKEY_CTX_free(s);
    EVP_PKEY_CTX_free(v);
}

typedef int init_fn(uint64_t, const OPENSSL_INIT_SETTINGS *);
typedef int search_path_fn(OSSL_LIB_CTX *, const char *);
typedef OSSL_PROVIDER *load_fn(OSSL_LIB_CTX *, const char *);
typedef int unload_fn(OSSL_PROVIDER *);

/*
 * The shared copy loads ctrsa.so too (into its own default library context): the module
 * then has two instances, each with its own core. A refusal made for this program's core
 * must reach this program's error queue, as the first error on it with the default
 * provider's code (OpenSSL's test_RSA_verify_recover_rejects_short_buffer reads it so).
 */
static void refusal_reaches_own_queue(void)
{
    void *shared = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD);
    search_path_fn *set_path = shared != NULL
        ? (search_path_fn *)dlsym(shared, "OSSL_PROVIDER_set_default_search_path") : NULL;
    load_fn *load = shared != NULL ? (load_fn *)dlsym(shared, "OSSL_PROVIDER_load") : NULL;
    unload_fn *unload = shared != NULL ? (unload_fn *)dlsym(shared, "OSSL_PROVIDER_unload")
                                       : NULL;
    OSSL_PROVIDER *second_instance;
    unsigned char md[32], sig[512], shortbuf[1];
    size_t siglen = sizeof(sig), outlen = sizeof(shortbuf);
    EVP_PKEY_CTX *s, *r;
    unsigned long err;

    if (set_path == NULL || load == NULL || unload == NULL
        || (void *)load == (void *)OSSL_PROVIDER_load
        || !set_path(NULL, getenv("CTRSA_MODULE_DIR"))
        || (second_instance = load(NULL, "ctrsa")) == NULL)
        fail("loading ctrsa into the shared libcrypto as well");
    memset(md, 0x5a, sizeof(md));
    s = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    r = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (s == NULL || r == NULL || EVP_PKEY_sign_init(s) <= 0
        || EVP_PKEY_CTX_set_signature_md(s, EVP_sha256()) <= 0
        || EVP_PKEY_sign(s, sig, &siglen, md, sizeof(md)) <= 0
        || EVP_PKEY_verify_recover_init(r) <= 0
        || EVP_PKEY_CTX_set_signature_md(r, EVP_sha256()) <= 0)
        fail("signing and verify-recover set-up through ctrsa");
    if (strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_CTX_get0_provider(r)), "ctrsa") != 0)
        fail("verify-recover is not ctrsa's");
    ERR_clear_error();
    if (EVP_PKEY_verify_recover(r, shortbuf, &outlen, sig, siglen) > 0)
        fail("verify-recover into a 1-byte buffer succeeded");
    err = ERR_peek_error();
    if (ERR_GET_LIB(err) != ERR_LIB_PROV || ERR_GET_REASON(err) != PROV_R_OUTPUT_BUFFER_TOO_SMALL)
        fail("the first error on the program's queue is not ctrsa's refusal "
             "(PROV, output buffer too small)");
    ERR_clear_error();
    EVP_PKEY_CTX_free(s);
    EVP_PKEY_CTX_free(r);
    if (!unload(second_instance)) /* its teardown, while the shared copy runs */
        fail("unloading ctrsa from the shared libcrypto");
}

/*
 * The shared libcrypto.so.3's OPENSSL_init_crypto, called with a harmless option: 1 while
 * that copy runs, 0 once its OPENSSL_cleanup has run (or -1 if it cannot be found).
 */
static int shared_copy_alive(void)
{
    void *shared = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD);
    init_fn *shared_init = shared != NULL ? (init_fn *)dlsym(shared, "OPENSSL_init_crypto")
                                          : NULL;

    if (shared_init == NULL || (void *)shared_init == (void *)OPENSSL_init_crypto)
        return -1;
    return shared_init(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL);
}

/*
 * Registered before ctrsa loads in "first": runs after any exit handler ctrsa's copy has.
 * ctrsa is that copy's first user, so the copy must still be running (it was cleaned up
 * before this handler when it had an exit handler of its own, and ctrsa then ran in a
 * library that OpenSSL says must no longer be called).
 */
static void sign_at_exit(void)
{
    if (shared_copy_alive() != 1)
        fail("the shared libcrypto that ctrsa runs in was cleaned up before the program's "
             "exit handlers");
    sign_through_ctrsa("signing through ctrsa in an exit handler");
    EVP_PKEY_free(key);
    printf("other_libcrypto: signed through ctrsa in an exit handler\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int first = argc == 2 && strcmp(argv[1], "first") == 0;
    int second = argc == 2 && strcmp(argv[1], "second") == 0;
    int copies = 0;
    Dl_info self;
    EVP_PKEY_CTX *g;

    if (!first && !second) {
        fprintf(stderr, "usage: other_libcrypto first|second\n");
        return 2;
    }
    if (getenv("OPENSSL_CONF") == NULL || getenv("CTRSA_MODULE_DIR") == NULL)
        fail("OPENSSL_CONF and CTRSA_MODULE_DIR must name provider.cnf and ctrsa.so's folder");
    /* This program's OpenSSL is its own: linked in, not the shared library. */
    if (dladdr((void *)OPENSSL_init_crypto, &self) == 0 || self.dli_fname == NULL
        || strstr(self.dli_fname, "libcrypto.so") != NULL)
        fail("this program must be linked with libcrypto.a");
    dl_iterate_phdr(count_shared_libcrypto, &copies);
    if (copies != 0)
        fail("libcrypto.so is loaded before ctrsa: the test would not test two copies");

    /* The core first, with its exit handler (not the configuration yet). */
    if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL))
        fail("OPENSSL_init_crypto");
    if (first) {
        if (atexit(sign_at_exit) != 0)
            fail("atexit");
    } else {
        void *shared = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
        init_fn *shared_init = shared != NULL
                               ? (init_fn *)dlsym(shared, "OPENSSL_init_crypto") : NULL;

        if (shared_init == NULL || (void *)shared_init == (void *)OPENSSL_init_crypto
            || !shared_init(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL))
            fail("initialising the shared libcrypto.so.3");
    }
    if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL))
        fail("loading the configuration");
    if (!OSSL_PROVIDER_available(NULL, "ctrsa"))
        fail("ctrsa did not load from the configuration");
    dl_iterate_phdr(count_shared_libcrypto, &copies);
    if (copies != 1)
        fail("ctrsa.so did not bring libcrypto.so in: not two copies");

    g = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (g == NULL || EVP_PKEY_keygen_init(g) <= 0
        || EVP_PKEY_CTX_set_rsa_keygen_bits(g, 2048) <= 0 || EVP_PKEY_keygen(g, &key) <= 0)
        fail("RSA key generation");
    if (strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_CTX_get0_provider(g)), "ctrsa") != 0)
        fail("the key was not generated by ctrsa");
    EVP_PKEY_CTX_free(g);
    sign_through_ctrsa("signing through ctrsa");
    refusal_reaches_own_queue();
    printf("other_libcrypto %s: two copies of libcrypto, signed through ctrsa, its refusal on "
           "the program's error queue\n", argv[1]);
    fflush(stdout);
    if (second)
        EVP_PKEY_free(key);
    return 0; /* the exit handlers and ctrsa's teardown run after this */
}
