/*
 * Numeric parameters with NULL data (found by test/fuzz/fuzz_params). OSSL_PARAM_get_int,
 * _get_uint and _get_size_t of OpenSSL 3.0 read p->data without checking it, so a setter
 * that hands them a parameter whose data is NULL dereferences NULL. Every ctrsa setter that
 * reads a number must refuse such a parameter with an error on the queue instead: the
 * asym-cipher TLS versions and implicit-rejection flag, the integer pad mode (signature and
 * asym-cipher), the signature salt length, key generation's bits and primes, and the RSA-PSS
 * import's salt length. The same holds for a UTF8_PTR parameter with NULL data, which
 * OSSL_PARAM_get_utf8_ptr dereferences: the asym-cipher digest names and properties, the
 * signature digest, and the RSA-PSS import's digest names.
 *
 * Only meaningful for ctrsa: the default provider of 3.0 crashes on the same input, so the
 * tests are skipped when CTRSA_TEST_PROVIDER=default.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include "testutil.h"

#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif

static tu_env env;
static EVP_PKEY *key;

static int group_setup(void **state)
{
    EVP_PKEY_CTX *g;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    if (g == NULL || EVP_PKEY_keygen_init(g) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_bits(g, 2048) != 1
        || EVP_PKEY_generate(g, &key) != 1) {
        tu_print_errors("keygen");
        EVP_PKEY_CTX_free(g);
        return -1;
    }
    EVP_PKEY_CTX_free(g);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(key);
    tu_env_free(&env);
    return 0;
}

static void skip_unless_ctrsa(void)
{
    if (strcmp(tu_provider_name(), "default") == 0)
        skip();
}

/* A parameter of `type` named `name` whose data is NULL and data_size `size`. */
static OSSL_PARAM null_param(const char *name, unsigned int type, size_t size)
{
    OSSL_PARAM p = OSSL_PARAM_DEFN(name, type, NULL, size);
    return p;
}

/* set_params on ctx with the one NULL-data parameter: refused, with an error queued. */
static void expect_refused(EVP_PKEY_CTX *ctx, const char *name, unsigned int type,
                           size_t size)
{
    OSSL_PARAM p[2] = { null_param(name, type, size), OSSL_PARAM_END };

    ERR_clear_error();
    if (EVP_PKEY_CTX_set_params(ctx, p) == 1)
        fail_msg("\"%s\" (type %u) with NULL data accepted", name, type);
    assert_true(tu_error_with_reason());
}

static void test_asym_cipher_numbers(void **state)
{
    static const char *const names[] = {
        OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION,
        OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION,
        OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION,
        OSSL_ASYM_CIPHER_PARAM_PAD_MODE,
    };
    (void)state;
    skip_unless_ctrsa();
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        for (unsigned int type = OSSL_PARAM_INTEGER; type <= OSSL_PARAM_UNSIGNED_INTEGER;
             type++) {
            EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
            assert_non_null(ctx);
            assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
            assert_true(tu_ctx_in_provider(ctx));
            expect_refused(ctx, names[i], type, sizeof(unsigned int));
            EVP_PKEY_CTX_free(ctx);
        }
    }
}

static void test_signature_numbers(void **state)
{
    (void)state;
    skip_unless_ctrsa();
    for (unsigned int type = OSSL_PARAM_INTEGER; type <= OSSL_PARAM_UNSIGNED_INTEGER; type++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
        assert_true(tu_ctx_in_provider(ctx));
        expect_refused(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, type, sizeof(int));
        /* the salt length needs PSS first */
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
        expect_refused(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, type, sizeof(int));
        EVP_PKEY_CTX_free(ctx);
    }
}

static void test_utf8_ptr_strings(void **state)
{
    static const char *const asym[] = {
        OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST,
        OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS, OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS,
    };
    EVP_PKEY_CTX *ctx;

    (void)state;
    skip_unless_ctrsa();
    for (size_t i = 0; i < sizeof(asym) / sizeof(asym[0]); i++) {
        ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
        assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
        expect_refused(ctx, asym[i], OSSL_PARAM_UTF8_PTR, sizeof(char *));
        EVP_PKEY_CTX_free(ctx);
    }
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    expect_refused(ctx, OSSL_SIGNATURE_PARAM_DIGEST, OSSL_PARAM_UTF8_PTR, sizeof(char *));
    EVP_PKEY_CTX_free(ctx);
}

static void test_keygen_numbers(void **state)
{
    static const char *const names[] = { OSSL_PKEY_PARAM_RSA_BITS, OSSL_PKEY_PARAM_RSA_PRIMES };
    (void)state;
    skip_unless_ctrsa();
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
        assert_non_null(g);
        assert_int_equal(EVP_PKEY_keygen_init(g), 1);
        expect_refused(g, names[i], OSSL_PARAM_UNSIGNED_INTEGER, sizeof(size_t));
        EVP_PKEY_CTX_free(g);
    }
}

/* An RSA-PSS public key import with restriction parameter `bad` (NULL data): refused. */
static void pss_import_refused(OSSL_PARAM bad)
{
    BIGNUM *n = NULL, *e = NULL;
    OSSL_PARAM p[4];
    unsigned char nbuf[256], ebuf[4];
    EVP_PKEY_CTX *ctx;
    EVP_PKEY *pss = NULL;

    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &n), 1);
    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &e), 1);
    assert_true(BN_bn2nativepad(n, nbuf, sizeof(nbuf)) > 0);
    assert_true(BN_bn2nativepad(e, ebuf, sizeof(ebuf)) > 0);
    p[0] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_N, nbuf, sizeof(nbuf));
    p[1] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, ebuf, sizeof(ebuf));
    p[2] = bad;
    p[3] = (OSSL_PARAM)OSSL_PARAM_END;
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", tu_propq());
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    ERR_clear_error();
    if (EVP_PKEY_fromdata(ctx, &pss, EVP_PKEY_PUBLIC_KEY, p) == 1)
        fail_msg("RSA-PSS import with a NULL-data \"%s\" accepted", bad.key);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(ctx);
    BN_free(n);
    BN_free(e);
}

static void test_pss_import(void **state)
{
    (void)state;
    skip_unless_ctrsa();
    pss_import_refused(null_param(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, OSSL_PARAM_INTEGER,
                                  sizeof(int)));
    pss_import_refused(null_param(OSSL_PKEY_PARAM_RSA_DIGEST, OSSL_PARAM_UTF8_PTR,
                                  sizeof(char *)));
    pss_import_refused(null_param(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, OSSL_PARAM_UTF8_PTR,
                                  sizeof(char *)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asym_cipher_numbers),
        cmocka_unit_test(test_signature_numbers),
        cmocka_unit_test(test_keygen_numbers),
        cmocka_unit_test(test_utf8_ptr_strings),
        cmocka_unit_test(test_pss_import),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
