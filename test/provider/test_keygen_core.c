/*
 * Key generation's refusal of more than 3 primes follows the version of the core that loaded
 * ctrsa (provider/ops/keygen.c, provider/core_version.c), not the libcrypto ctrsa links:
 * the core's default provider is the one that imports (and, from OpenSSL 3.3 on, reorders)
 * the primes. Here ctrsa.so is started through this process's core with the core's version
 * parameter ("openssl-version") rewritten, so the libcrypto both share stays what it is
 * while ctrsa hears 3.3.0 (refuses 4 primes), 3.2.0 (generates them) or a version it cannot
 * read, 3.x.1000 (refuses: unknown counts as reordering). ctrsa loads only in a core of its
 * build's major version and at least its minor (provider.c), so built for a later OpenSSL
 * the test hears that version (x.y.0) instead of 3.3.0, and skips 3.2.0.
 *
 * Environment (meson sets it): CTRSA_MODULE_DIR = the folder of ctrsa.so.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include <openssl/provider.h>

static OSSL_provider_init_fn *module_init;
static OSSL_FUNC_core_get_params_fn *core_get_params;
static const char *fake_version;     /* what ctrsa hears as the core's version */
static OSSL_DISPATCH in_copy[128];   /* the core's dispatch table, get_params replaced */

/* The core's get_params, with the version parameter rewritten. */
static int fake_get_params(const OSSL_CORE_HANDLE *handle, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    if (!core_get_params(handle, params))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_CORE_VERSION);
    return p == NULL || OSSL_PARAM_set_utf8_ptr(p, fake_version);
}

/* ctrsa's OSSL_provider_init, given the core's dispatch table with fake_get_params. */
static int fake_core_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                          const OSSL_DISPATCH **out, void **provctx)
{
    size_t i;

    for (i = 0; in[i].function_id != 0; i++) {
        assert_true(i + 1 < sizeof(in_copy) / sizeof(in_copy[0]));
        in_copy[i] = in[i];
        if (in[i].function_id == OSSL_FUNC_CORE_GET_PARAMS) {
            core_get_params = OSSL_FUNC_core_get_params(&in[i]);
            in_copy[i].function = (void (*)(void))fake_get_params;
        }
    }
    in_copy[i] = in[i];
    return module_init(handle, in_copy, out, provctx);
}

/*
 * A 4096-bit 4-prime key from ctrsa, started in a new library context as if loaded by a core
 * of version `version`. 1 if generated (by ctrsa); 0 if refused with an error that contains
 * `needle`.
 */
static int gen_four_primes(const char *version, const char *needle)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *deflt, *ctrsa;
    EVP_PKEY_CTX *ctx;
    EVP_PKEY *key = NULL;
    size_t bits = 4096, primes = 4;
    OSSL_PARAM params[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
                            OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes),
                            OSSL_PARAM_construct_end() };
    int generated;

    fake_version = version;
    assert_non_null(libctx);
    assert_int_equal(OSSL_PROVIDER_add_builtin(libctx, "ctrsa", fake_core_init), 1);
    deflt = OSSL_PROVIDER_load(libctx, "default");
    ctrsa = OSSL_PROVIDER_load(libctx, "ctrsa");
    assert_non_null(deflt);
    assert_non_null(ctrsa);
    ctx = EVP_PKEY_CTX_new_from_name(libctx, "RSA", "provider=ctrsa");
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    assert_ptr_equal(EVP_PKEY_CTX_get0_provider(ctx), ctrsa);
    assert_int_equal(EVP_PKEY_CTX_set_params(ctx, params), 1);
    ERR_clear_error();
    generated = EVP_PKEY_generate(ctx, &key) == 1;
    if (generated) {
        assert_ptr_equal(EVP_PKEY_get0_provider(key), ctrsa);
    } else {
        const char *data = NULL;
        int flags = 0, found = 0;
        while (ERR_get_error_all(NULL, NULL, NULL, &data, &flags) != 0)
            if ((flags & ERR_TXT_STRING) && data != NULL && strstr(data, needle) != NULL)
                found = 1;
        if (!found)
            fail_msg("core %s: refused, but no error says \"%s\"", version, needle);
    }
    print_message("core %s: a 4-prime key %s\n", version, generated ? "generated" : "refused");
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PROVIDER_unload(ctrsa);
    OSSL_PROVIDER_unload(deflt);
    OSSL_LIB_CTX_free(libctx);
    return generated;
}

/* The oldest core ctrsa loads in: the OpenSSL it was built against (these headers), M.N. */
#define BUILT_MINOR_AT_LEAST(n) (OPENSSL_VERSION_MAJOR > 3 || OPENSSL_VERSION_MINOR >= (n))

static void test_core_3_3_refuses(void **state)
{
    char version[32], needle[96];

    (void)state;
    if (BUILT_MINOR_AT_LEAST(3))
        snprintf(version, sizeof(version), "%d.%d.0", OPENSSL_VERSION_MAJOR,
                 OPENSSL_VERSION_MINOR);
    else
        snprintf(version, sizeof(version), "3.3.0");
    snprintf(needle, sizeof(needle), "4 primes: not generated with OpenSSL %s", version);
    assert_false(gen_four_primes(version, needle));
}

static void test_core_3_2_generates(void **state)
{
    (void)state;
    if (BUILT_MINOR_AT_LEAST(3))
        skip(); /* ctrsa built for 3.3+ does not load in a 3.2 core */
    assert_true(gen_four_primes("3.2.0", ""));
}

static void test_core_unknown_refuses(void **state)
{
    char version[32];

    (void)state;
    snprintf(version, sizeof(version), "%d.%d.1000", OPENSSL_VERSION_MAJOR,
             OPENSSL_VERSION_MINOR);
    assert_false(gen_four_primes(version, "4 primes: not generated with OpenSSL 0.0.0"));
}

int main(void)
{
    const char *dir = getenv("CTRSA_MODULE_DIR");
    char path[4096];
    void *module;

    if (dir == NULL) {
        fprintf(stderr, "CTRSA_MODULE_DIR is not set\n");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/ctrsa.so", dir);
    module = dlopen(path, RTLD_NOW);
    if (module == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    module_init = (OSSL_provider_init_fn *)dlsym(module, "OSSL_provider_init");
    if (module_init == NULL) {
        fprintf(stderr, "no OSSL_provider_init in %s\n", path);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_core_3_3_refuses),
        cmocka_unit_test(test_core_3_2_generates),
        cmocka_unit_test(test_core_unknown_refuses),
    };
    return cmocka_run_group_tests_name("keygen_core", tests, NULL, NULL);
}
