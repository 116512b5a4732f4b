/*
 * The "RSA" signature operation's parameters and life cycle, through the EVP API:
 * pad-mode and saltlen as integers and strings, digests and their properties, the
 * settable/gettable lists, algorithm-id compared byte for byte with OpenSSL's default
 * provider, RSA-PSS key restrictions, streaming digest-sign with context duplication, the
 * TLS 1.3 call pattern, size and input errors, and the operation trace.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

#include "testutil.h"

#define KEY_BITS 2048
#define K (KEY_BITS / 8)

static tu_env env;
static EVP_PKEY *key_default;   /* the key pair in the default provider (oracle) */
static EVP_PKEY *key_test;      /* the same key pair in the provider under test */
static char trace_path[64];

static int under_ctrsa(void)
{
    return strcmp(tu_provider_name(), "default") != 0;
}

static int group_setup(void **state)
{
    EVP_PKEY_CTX *g;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    if (g == NULL || EVP_PKEY_keygen_init(g) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_bits(g, KEY_BITS) != 1
        || EVP_PKEY_generate(g, &key_default) != 1) {
        tu_print_errors("keygen");
        EVP_PKEY_CTX_free(g);
        return -1;
    }
    EVP_PKEY_CTX_free(g);
    key_test = tu_pkey_copy_to(env.libctx, key_default, 1, tu_provider_name());
    return key_test != NULL ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(key_test);
    EVP_PKEY_free(key_default);
    tu_env_free(&env);
    if (trace_path[0] != '\0')
        unlink(trace_path);
    return 0;
}

/* A sign context on `key` in the provider `propq` names. */
static EVP_PKEY_CTX *sign_ctx(EVP_PKEY *key, const char *propq)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);

    assert_non_null(ctx);
    if (EVP_PKEY_sign_init(ctx) != 1)
        tu_print_errors("sign_init");
    return ctx;
}

static int set_utf8(EVP_PKEY_CTX *ctx, const char *name, const char *value)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_utf8_string(name, (char *)value, 0);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, p);
}

static int set_int(EVP_PKEY_CTX *ctx, const char *name, int value)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_int(name, &value);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, p);
}

static int get_utf8(EVP_PKEY_CTX *ctx, const char *name, char *buf, size_t size)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_utf8_string(name, buf, size);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_get_params(ctx, p);
}

static int get_int(EVP_PKEY_CTX *ctx, const char *name, int *value)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_int(name, value);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_get_params(ctx, p);
}

/* A failure that left an error with a reason on the queue. */
#define assert_fails_with_reason(expr)            \
    do {                                          \
        ERR_clear_error();                        \
        assert_int_not_equal((expr), 1);          \
        assert_true(tu_error_with_reason());      \
    } while (0)

static void test_pad_mode_int_and_string(void **state)
{
    EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq());
    char buf[32];
    int mode = -1;
    (void)state;

    assert_true(tu_ctx_in_provider(ctx));
    /* Default after init: pkcs1. */
    assert_true(EVP_PKEY_CTX_get_rsa_padding(ctx, &mode) > 0);
    assert_int_equal(mode, RSA_PKCS1_PADDING);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "pkcs1");
    /* String in, integer and string out. */
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, "none"), 1);
    assert_int_equal(get_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, &mode), 1);
    assert_int_equal(mode, RSA_NO_PADDING);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "none");
    /* Integer in. */
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "pss");
    assert_int_equal(get_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, &mode), 1);
    assert_int_equal(mode, RSA_PKCS1_PSS_PADDING);
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, "pkcs1"), 1);
    assert_int_equal(get_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, &mode), 1);
    assert_int_equal(mode, RSA_PKCS1_PADDING);
    /*
     * Not for signatures, or not a mode at all: as integers refused; as names not in the
     * default provider's signature table ("oaep" among them) taken, the mode left as it
     * was (test_defects' test_pad_mode_values compares every value with the default).
     */
    assert_fails_with_reason(set_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE,
                                     RSA_PKCS1_OAEP_PADDING));
    assert_fails_with_reason(set_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, 99));
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, "oaep"), 1);
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, "bogus"), 1);
    /* A failed set, or an unknown name, leaves the mode as it was. */
    assert_int_equal(get_int(ctx, OSSL_SIGNATURE_PARAM_PAD_MODE, &mode), 1);
    assert_int_equal(mode, RSA_PKCS1_PADDING);
    /* Unknown parameters are ignored. */
    assert_int_equal(set_int(ctx, "no-such-parameter", 7), 1);
    EVP_PKEY_CTX_free(ctx);

    /* verify-recover has no PSS. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key_test, tu_propq());
    assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
    assert_fails_with_reason(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING));
    EVP_PKEY_CTX_free(ctx);
}

static void test_saltlen_int_and_string(void **state)
{
    static const struct { const char *in; int value; const char *out; } cases[] = {
        { "digest", RSA_PSS_SALTLEN_DIGEST, "digest" },
        { "max", RSA_PSS_SALTLEN_MAX, "max" },
        { "auto", RSA_PSS_SALTLEN_AUTO, "auto" },
        { "17", 17, "17" },
        { "0", 0, "0" },
        /*
         * OpenSSL 3.1's name. Where the default provider knows it, ctrsa reads back what
         * it reads back. On 3.0 both refuse the number -4 and ctrsa refuses the name too
         * (3.0's default provider reads an unknown name with atoi, as salt length 0).
         */
        { "auto-digestmax", -4, NULL },
    };
    EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq());
    EVP_PKEY_CTX *dctx = sign_ctx(key_default, TU_PROPQ_DEFAULT);
    char buf[32], dbuf[32];
    int v, dv;
    size_t i, n = sizeof(cases) / sizeof(cases[0]);
    (void)state;

    /* saltlen needs pad-mode pss. */
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "digest"));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(dctx, RSA_PKCS1_PSS_PADDING), 1);
    for (i = 0; i < n; i++) {
        /* The default provider on this version: does it take the name, and keep it? */
        int oracle = set_utf8(dctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, cases[i].in) == 1
            && get_utf8(dctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, dbuf, sizeof(dbuf)) == 1
            && strcmp(dbuf, cases[i].in) == 0
            && EVP_PKEY_CTX_get_rsa_pss_saltlen(dctx, &dv) > 0;

        ERR_clear_error();
        if (cases[i].out == NULL && !oracle) {
            /* 3.0's default provider lacks the name: ctrsa refuses it, saying why */
            assert_true(OpenSSL_version_num() < 0x30100000L);
            if (under_ctrsa())
                assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN,
                                                  cases[i].in));
            continue;
        }
        assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, cases[i].in), 1);
        assert_true(EVP_PKEY_CTX_get_rsa_pss_saltlen(ctx, &v) > 0);
        assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, buf, sizeof(buf)), 1);
        if (cases[i].out != NULL) {
            assert_int_equal(v, cases[i].value);
            assert_string_equal(buf, cases[i].out);
        }
        if (oracle) {
            assert_int_equal(v, dv);
            assert_string_equal(buf, dbuf);
        } else {
            assert_non_null(cases[i].out);      /* the names every version knows */
        }
    }
    /* The number -4: the same verdict as the default provider's (refused on 3.0). */
    {
        int theirs = EVP_PKEY_CTX_set_rsa_pss_saltlen(dctx, -4);
        int ours;

        ERR_clear_error();
        ours = EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, -4);
        assert_int_equal(ours > 0, theirs > 0);
        assert_int_equal(ours > 0, OpenSSL_version_num() >= 0x30100000L);
        if (ours <= 0)
            assert_true(ERR_peek_error() != 0);
        ERR_clear_error();
        /* Below -4 nobody takes. */
        assert_true(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, -5) <= 0);
        ERR_clear_error();
    }
    EVP_PKEY_CTX_free(dctx);
    /* Integer in. */
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 32), 1);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "32");
    if (under_ctrsa()) {
        /* Garbage is refused (OpenSSL 3.0 itself reads it with atoi). */
        assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "12x"));
        assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, ""));
        assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "-5"));
        assert_fails_with_reason(set_int(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, -5));
        assert_true(EVP_PKEY_CTX_get_rsa_pss_saltlen(ctx, &v) > 0);
        assert_int_equal(v, 32);
    }
    EVP_PKEY_CTX_free(ctx);
}

static void test_digest_params(void **state)
{
    EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq());
    const EVP_MD *md = NULL;
    char buf[64];
    size_t dsize = 0;
    OSSL_PARAM p[2];
    (void)state;

    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHA256"), 1);
    assert_true(EVP_PKEY_CTX_get_signature_md(ctx, &md) > 0);
    assert_non_null(md);
    assert_true(EVP_MD_is_a(md, "SHA256"));
    if (under_ctrsa()) {
        p[0] = OSSL_PARAM_construct_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, &dsize);
        p[1] = OSSL_PARAM_construct_end();
        assert_int_equal(EVP_PKEY_CTX_get_params(ctx, p), 1);
        assert_int_equal(dsize, 32);
    }
    /* Unknown digests, XOFs. */
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "NO-SUCH-DIGEST"));
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHAKE256"));
    /* Still SHA-256. */
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, buf, sizeof(buf)), 1);
    md = EVP_MD_fetch(env.libctx, buf, NULL);
    assert_non_null(md);
    assert_true(EVP_MD_is_a(md, "SHA256"));
    EVP_MD_free((EVP_MD *)md);
    /* Digest with explicit properties: ones that match, and ones nothing matches. */
    {
        OSSL_PARAM q[3];

        q[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, "SHA384", 0);
        q[1] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PROPERTIES,
                                                "provider=default", 0);
        q[2] = OSSL_PARAM_construct_end();
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, q), 1);
        q[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, "SHA512", 0);
        q[1] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PROPERTIES,
                                                "provider=no-such-provider", 0);
        assert_fails_with_reason(EVP_PKEY_CTX_set_params(ctx, q));
    }
    /* mgf1-digest needs pss, then follows the digest unless set. */
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "SHA1"));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, buf, sizeof(buf)), 1);
    md = EVP_MD_fetch(env.libctx, buf, NULL);
    assert_non_null(md);
    assert_true(EVP_MD_is_a(md, "SHA384"));
    EVP_MD_free((EVP_MD *)md);
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "SHA1"), 1);
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, buf, sizeof(buf)), 1);
    md = EVP_MD_fetch(env.libctx, buf, NULL);
    assert_non_null(md);
    assert_true(EVP_MD_is_a(md, "SHA1"));
    EVP_MD_free((EVP_MD *)md);
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "NO-SUCH"));
    /* pad-mode none refuses a digest, either way round. */
    assert_fails_with_reason(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING));
    EVP_PKEY_CTX_free(ctx);
    ctx = sign_ctx(key_test, tu_propq());
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHA256"));
    EVP_PKEY_CTX_free(ctx);
}

/*
 * The digest and MGF1 digest read back by the names they were set with, as on the default
 * provider (its signature keeps the name as given; OpenSSL's evp_extra_test
 * test_EVP_PKEY_CTX_get_set_params sets "SHA512" and compares the string it reads back).
 */
static void test_digest_names_as_given(void **state)
{
    static const char *const names[] = { "SHA512", "SHA2-512", "sha512", "SHA256", "SHA1" };
    static const char *const params[] = { OSSL_SIGNATURE_PARAM_DIGEST,
                                          OSSL_SIGNATURE_PARAM_MGF1_DIGEST };
    (void)state;

    for (int pss = 0; pss < 2; pss++)
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            EVP_PKEY_CTX *d = sign_ctx(key_default, TU_PROPQ_DEFAULT);
            EVP_PKEY_CTX *t = sign_ctx(key_test, tu_propq());

            assert_true(tu_ctx_in_provider(t));
            assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(d, pss ? RSA_PKCS1_PSS_PADDING
                                                                 : RSA_PKCS1_PADDING), 1);
            assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(t, pss ? RSA_PKCS1_PSS_PADDING
                                                                 : RSA_PKCS1_PADDING), 1);
            assert_int_equal(set_utf8(d, OSSL_SIGNATURE_PARAM_DIGEST, names[i]), 1);
            assert_int_equal(set_utf8(t, OSSL_SIGNATURE_PARAM_DIGEST, names[i]), 1);
            /* with PSS the MGF1 digest follows the digest, then is set on its own */
            for (int round = 0; round < (pss ? 2 : 1); round++) {
                if (round == 1) {
                    assert_int_equal(set_utf8(d, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "sha384"), 1);
                    assert_int_equal(set_utf8(t, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "sha384"), 1);
                }
                for (int j = 0; j < 1 + pss; j++) {
                    char bd[64] = "", bt[64] = "";

                    assert_int_equal(get_utf8(d, params[j], bd, sizeof(bd)), 1);
                    assert_int_equal(get_utf8(t, params[j], bt, sizeof(bt)), 1);
                    if (strcmp(bd, bt) != 0)
                        fail_msg("%s set to %s (%s): the default reads \"%s\", the provider "
                                 "under test \"%s\"", params[j], names[i],
                                 pss ? "pss" : "pkcs1", bd, bt);
                }
            }
            EVP_PKEY_CTX_free(d);
            EVP_PKEY_CTX_free(t);
        }
}

static int list_has(const OSSL_PARAM *list, const char *name)
{
    return list != NULL && OSSL_PARAM_locate_const(list, name) != NULL;
}

static void test_settable_gettable_lists(void **state)
{
    EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq());
    const OSSL_PARAM *s = EVP_PKEY_CTX_settable_params(ctx);
    const OSSL_PARAM *g = EVP_PKEY_CTX_gettable_params(ctx);
    EVP_MD_CTX *mctx;
    EVP_PKEY_CTX *pctx = NULL;
    (void)state;

    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_PAD_MODE));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_DIGEST));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_PROPERTIES));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_MGF1_DIGEST));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_PSS_SALTLEN));
    assert_false(list_has(s, OSSL_SIGNATURE_PARAM_ALGORITHM_ID));
    assert_true(list_has(g, OSSL_SIGNATURE_PARAM_ALGORITHM_ID));
    assert_true(list_has(g, OSSL_SIGNATURE_PARAM_PAD_MODE));
    assert_true(list_has(g, OSSL_SIGNATURE_PARAM_DIGEST));
    assert_true(list_has(g, OSSL_SIGNATURE_PARAM_MGF1_DIGEST));
    assert_true(list_has(g, OSSL_SIGNATURE_PARAM_PSS_SALTLEN));
    assert_false(list_has(g, OSSL_SIGNATURE_PARAM_PROPERTIES));
    EVP_PKEY_CTX_free(ctx);

    /* While digest-signing, the digest is fixed: not settable, and setting it fails. */
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestSignInit_ex(mctx, &pctx, "SHA256", env.libctx, tu_propq(),
                                           key_test, NULL), 1);
    s = EVP_PKEY_CTX_settable_params(pctx);
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_PAD_MODE));
    assert_true(list_has(s, OSSL_SIGNATURE_PARAM_PSS_SALTLEN));
    assert_false(list_has(s, OSSL_SIGNATURE_PARAM_DIGEST));
    assert_fails_with_reason(set_utf8(pctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHA512"));
    EVP_MD_CTX_free(mctx);
}

/* algorithm-id of a context set up with the given settings, into buf; its length or 0. */
static size_t algorithm_id(EVP_PKEY *key, const char *propq, int pad, const char *md,
                           const char *mgf1, const char *saltlen, unsigned char *buf, size_t size)
{
    EVP_PKEY_CTX *ctx = sign_ctx(key, propq);
    OSSL_PARAM p[2];
    size_t len = 0;

    if (EVP_PKEY_CTX_set_rsa_padding(ctx, pad) != 1
        || set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, md) != 1
        || (mgf1 != NULL && set_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, mgf1) != 1)
        || (saltlen != NULL && set_utf8(ctx, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, saltlen) != 1))
        goto done;
    p[0] = OSSL_PARAM_construct_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, buf, size);
    p[1] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_CTX_get_params(ctx, p) == 1 && OSSL_PARAM_modified(p))
        len = p[0].return_size;
done:
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return len;
}

static const char *all_digests[] = {
    "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA512-224", "SHA512-256",
    "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512",
};

static void test_algorithm_id_pkcs1_matches_default(void **state)
{
    unsigned char ours[128], theirs[128];
    size_t i, n, m;
    (void)state;

    for (i = 0; i < sizeof(all_digests) / sizeof(all_digests[0]); i++) {
        n = algorithm_id(key_test, tu_propq(), RSA_PKCS1_PADDING, all_digests[i], NULL, NULL,
                         ours, sizeof(ours));
        m = algorithm_id(key_default, TU_PROPQ_DEFAULT, RSA_PKCS1_PADDING, all_digests[i], NULL,
                         NULL, theirs, sizeof(theirs));
        print_message("pkcs1 %s: ours %zu bytes, default %zu bytes\n", all_digests[i], n, m);
        assert_int_not_equal(n, 0);
        assert_int_not_equal(m, 0);
        assert_int_equal(n, m);
        assert_memory_equal(ours, theirs, n);
    }
}

/*
 * PKCS#1 v1.5 with SM3 (EVP_PKEY_sign, digest set on the context): accepted or refused as
 * the running OpenSSL's default provider does (3.0 refuses it; 3.4 and later sign with it,
 * and list RSA-SM3), and when accepted, the same signature byte for byte. 1 if it signed.
 */
static int sign_pkcs1_sm3(EVP_PKEY *key, const char *propq, const char *prov,
                          unsigned char *sig, size_t *siglen)
{
    static const unsigned char digest[32] = "0123456789abcdef0123456789abcde";
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    EVP_MD *sm3 = EVP_MD_fetch(env.libctx, "SM3", NULL);
    int ok;

    assert_non_null(ctx);
    assert_non_null(sm3);
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_true(tu_ctx_in_named_provider(ctx, prov));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    ok = EVP_PKEY_CTX_set_signature_md(ctx, sm3) == 1
         && EVP_PKEY_sign(ctx, sig, siglen, digest, sizeof(digest)) == 1;
    if (!ok)
        tu_print_errors(prov);
    EVP_MD_free(sm3);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static void test_pkcs1_sm3_follows_default(void **state)
{
    unsigned char ours[512], theirs[512];
    size_t n = sizeof(ours), m = sizeof(theirs);
    EVP_MD *probe = EVP_MD_fetch(env.libctx, "SM3", NULL);
    (void)state;

    if (probe == NULL) {
        ERR_clear_error();
        skip();
    }
    EVP_MD_free(probe);
    int ok_ours = sign_pkcs1_sm3(key_test, tu_propq(), tu_provider_name(), ours, &n);
    int ok_theirs = sign_pkcs1_sm3(key_default, TU_PROPQ_DEFAULT, "default", theirs, &m);
    print_message("%s: PKCS#1 v1.5 with SM3: default %s, %s %s\n",
                  OpenSSL_version(OPENSSL_VERSION), ok_theirs ? "signs" : "refuses",
                  tu_provider_name(), ok_ours ? "signs" : "refuses");
    assert_int_equal(ok_ours, ok_theirs);
    if (ok_ours) {
        assert_int_equal(n, m);
        assert_memory_equal(ours, theirs, n);
    }
    ERR_clear_error();
}

/* Parse a PSS identifier with OpenSSL's ASN.1 and check what it says. */
static void check_pss_der(const unsigned char *der, size_t len, const char *md,
                          const char *mgf1, long saltlen)
{
    const unsigned char *p = der;
    X509_ALGOR *alg = d2i_X509_ALGOR(NULL, &p, (long)len);
    const ASN1_OBJECT *oid;
    const void *pval;
    int ptype;
    RSA_PSS_PARAMS *pss;
    const unsigned char *q;
    const ASN1_STRING *seq;

    assert_non_null(alg);
    assert_ptr_equal(p, der + len);
    X509_ALGOR_get0(&oid, &ptype, &pval, alg);
    assert_int_equal(OBJ_obj2nid(oid), NID_rsassaPss);
    assert_int_equal(ptype, V_ASN1_SEQUENCE);
    seq = pval;
    q = ASN1_STRING_get0_data(seq);
    pss = d2i_RSA_PSS_PARAMS(NULL, &q, ASN1_STRING_length(seq));
    assert_non_null(pss);
    if (pss->hashAlgorithm != NULL)
        assert_int_equal(OBJ_obj2nid(pss->hashAlgorithm->algorithm), OBJ_txt2nid(md));
    else
        assert_int_equal(OBJ_txt2nid(md), NID_sha1);
    if (pss->maskGenAlgorithm != NULL) {
        /* MaskGenAlgorithm { id-mgf1, AlgorithmIdentifier of the hash } */
        const ASN1_TYPE *param = pss->maskGenAlgorithm->parameter;
        const unsigned char *h;
        X509_ALGOR *mh;

        assert_int_equal(OBJ_obj2nid(pss->maskGenAlgorithm->algorithm), NID_mgf1);
        assert_non_null(param);
        assert_int_equal(param->type, V_ASN1_SEQUENCE);
        h = ASN1_STRING_get0_data(param->value.sequence);
        mh = d2i_X509_ALGOR(NULL, &h, ASN1_STRING_length(param->value.sequence));
        assert_non_null(mh);
        assert_int_equal(OBJ_obj2nid(mh->algorithm), OBJ_txt2nid(mgf1));
        X509_ALGOR_free(mh);
    } else {
        assert_int_equal(OBJ_txt2nid(mgf1), NID_sha1);
    }
    if (pss->saltLength != NULL)
        assert_int_equal(ASN1_INTEGER_get(pss->saltLength), saltlen);
    else
        assert_int_equal(saltlen, 20);
    assert_null(pss->trailerField);
    RSA_PSS_PARAMS_free(pss);
    X509_ALGOR_free(alg);
}

static void test_algorithm_id_pss_matches_default(void **state)
{
    static const struct {
        const char *md, *mgf1, *saltlen;
        long expect_salt;
    } cases[] = {
        { "SHA1", NULL, "20", 20 },            /* every field is the default: empty params */
        { "SHA1", NULL, "digest", 20 },
        { "SHA256", NULL, "digest", 32 },
        { "SHA256", "SHA1", "digest", 32 },
        { "SHA1", "SHA256", "20", 20 },
        { "SHA256", NULL, "max", K - 32 - 2 },
        { "SHA256", NULL, "auto", K - 32 - 2 },
        { "SHA384", "SHA512", "0", 0 },
        { "SHA512", NULL, "190", 190 },          /* the largest that fits; > 127 */
        { "SHA224", NULL, "128", 128 },          /* needs a leading zero byte */
        { "SHA512-256", NULL, "digest", 32 },
        { "SHA512-224", "SHA224", "1", 1 },
    };
    unsigned char ours[128], theirs[128];
    size_t i, n, m;
    (void)state;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *mgf1 = cases[i].mgf1 != NULL ? cases[i].mgf1 : cases[i].md;

        n = algorithm_id(key_test, tu_propq(), RSA_PKCS1_PSS_PADDING, cases[i].md,
                         cases[i].mgf1, cases[i].saltlen, ours, sizeof(ours));
        m = algorithm_id(key_default, TU_PROPQ_DEFAULT, RSA_PKCS1_PSS_PADDING, cases[i].md,
                         cases[i].mgf1, cases[i].saltlen, theirs, sizeof(theirs));
        print_message("pss %s mgf1 %s salt %s: ours %zu bytes, default %zu bytes\n",
                      cases[i].md, mgf1, cases[i].saltlen, n, m);
        assert_int_not_equal(n, 0);
        assert_int_equal(n, m);
        assert_memory_equal(ours, theirs, n);
        check_pss_der(ours, n, cases[i].md, mgf1, cases[i].expect_salt);
    }
    /* SHA-3 in PSS: OpenSSL 3.0 cannot say it; ours must still be well formed. */
    if (under_ctrsa()) {
        n = algorithm_id(key_test, tu_propq(), RSA_PKCS1_PSS_PADDING, "SHA3-256", "SHA3-512",
                         "digest", ours, sizeof(ours));
        assert_int_not_equal(n, 0);
        check_pss_der(ours, n, "SHA3-256", "SHA3-512", 32);
        /* A salt that cannot fit the key has no identifier (OpenSSL 3.0 writes one). */
        assert_int_equal(algorithm_id(key_test, tu_propq(), RSA_PKCS1_PSS_PADDING, "SHA512",
                                      NULL, "191", ours, sizeof(ours)), 0);
        /* auto-digestmax (3.1+) resolves to the digest length when it fits. */
        if (OpenSSL_version_num() >= 0x30100000L) {
            n = algorithm_id(key_test, tu_propq(), RSA_PKCS1_PSS_PADDING, "SHA256", NULL,
                             "auto-digestmax", ours, sizeof(ours));
            assert_int_not_equal(n, 0);
            check_pss_der(ours, n, "SHA256", "SHA256", 32);
        }
    }
    /*
     * No salt length set: each version's default (3.0: auto, the longest salt; 3.1+:
     * auto-digestmax, the digest's length), as the default provider's identifier says.
     */
    n = algorithm_id(key_test, tu_propq(), RSA_PKCS1_PSS_PADDING, "SHA256", NULL, NULL,
                     ours, sizeof(ours));
    m = algorithm_id(key_default, TU_PROPQ_DEFAULT, RSA_PKCS1_PSS_PADDING, "SHA256", NULL,
                     NULL, theirs, sizeof(theirs));
    assert_int_not_equal(n, 0);
    assert_int_equal(n, m);
    assert_memory_equal(ours, theirs, n);
    check_pss_der(ours, n, "SHA256", "SHA256",
                  OpenSSL_version_num() >= 0x30100000L ? 32 : K - 32 - 2);
    /* No identifier for pad-mode none, or without a digest. */
    {
        EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq());
        OSSL_PARAM p[2];

        p[0] = OSSL_PARAM_construct_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, ours,
                                                 sizeof(ours));
        p[1] = OSSL_PARAM_construct_end();
        ERR_clear_error();
        assert_int_not_equal(EVP_PKEY_CTX_get_params(ctx, p), 1);
        ERR_clear_error();
        EVP_PKEY_CTX_free(ctx);
    }
}

/* ---- RSA-PSS restricted keys ---- */

static EVP_PKEY *restricted_pss_key(void)
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", TU_PROPQ_DEFAULT);
    EVP_PKEY *k = NULL, *copy;
    const EVP_MD *sha256 = EVP_sha256();

    assert_non_null(g);
    assert_int_equal(EVP_PKEY_keygen_init(g), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(g, KEY_BITS), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_keygen_md(g, sha256), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_keygen_mgf1_md(g, sha256), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_keygen_saltlen(g, 32), 1);
    assert_int_equal(EVP_PKEY_generate(g, &k), 1);
    EVP_PKEY_CTX_free(g);
    copy = tu_pkey_copy_to(env.libctx, k, 1, tu_provider_name());
    assert_non_null(copy);
    EVP_PKEY_free(k);
    return copy;
}

static void test_pss_restrictions(void **state)
{
    EVP_PKEY *pss = restricted_pss_key();
    EVP_PKEY *pss_pub_default = tu_pkey_copy_to(env.libctx, pss, 0, "default");
    EVP_PKEY_CTX *ctx = sign_ctx(pss, tu_propq());
    const EVP_MD *md = NULL;
    unsigned char digest[32], sig[K];
    size_t siglen = sizeof(sig);
    int v = 0;
    char buf[64];
    (void)state;

    assert_non_null(pss_pub_default);
    /* Init applies the restriction: pss, SHA-256, MGF1-SHA-256, salt 32. */
    assert_true(EVP_PKEY_CTX_get_rsa_padding(ctx, &v) > 0);
    assert_int_equal(v, RSA_PKCS1_PSS_PADDING);
    assert_true(EVP_PKEY_CTX_get_signature_md(ctx, &md) > 0);
    assert_true(EVP_MD_is_a(md, "SHA256"));
    assert_int_equal(get_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, buf, sizeof(buf)), 1);
    assert_true(strcmp(buf, "SHA2-256") == 0 || strcmp(buf, "SHA256") == 0);
    assert_true(EVP_PKEY_CTX_get_rsa_pss_saltlen(ctx, &v) > 0);
    assert_int_equal(v, 32);
    /* Violations are refused. */
    assert_fails_with_reason(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING));
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHA512"));
    assert_fails_with_reason(set_utf8(ctx, OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "SHA1"));
    assert_fails_with_reason(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 20));
    /* Within the restriction: a longer salt, verified by the default provider. */
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 40), 1);
    memset(digest, 0x5c, sizeof(digest));
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, pss_pub_default, TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 40), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);
    /* Digest-sign with another digest is refused; with SHA-256 it works. */
    {
        EVP_MD_CTX *mctx = EVP_MD_CTX_new();

        ERR_clear_error();
        assert_int_not_equal(EVP_DigestSignInit_ex(mctx, NULL, "SHA512", env.libctx, tu_propq(),
                                                   pss, NULL), 1);
        ERR_clear_error();
        EVP_MD_CTX_free(mctx);
        mctx = EVP_MD_CTX_new();
        assert_int_equal(EVP_DigestSignInit_ex(mctx, NULL, "SHA256", env.libctx, tu_propq(),
                                               pss, NULL), 1);
        siglen = sizeof(sig);
        assert_int_equal(EVP_DigestSign(mctx, sig, &siglen, (const unsigned char *)"m", 1), 1);
        EVP_MD_CTX_free(mctx);
        mctx = EVP_MD_CTX_new();
        assert_int_equal(EVP_DigestVerifyInit_ex(mctx, NULL, "SHA256", env.libctx,
                                                 TU_PROPQ_DEFAULT, pss_pub_default, NULL), 1);
        assert_int_equal(EVP_DigestVerify(mctx, sig, siglen, (const unsigned char *)"m", 1), 1);
        EVP_MD_CTX_free(mctx);
    }
    EVP_PKEY_free(pss_pub_default);
    EVP_PKEY_free(pss);
}

/* An RSA-PSS key without restrictions still signs with PSS only. */
static void test_unrestricted_pss_key_is_pss_only(void **state)
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", TU_PROPQ_DEFAULT);
    EVP_PKEY *k = NULL, *pss, *pub_default;
    EVP_PKEY_CTX *ctx;
    unsigned char digest[32], sig[K];
    size_t siglen = sizeof(sig);
    int v = 0;
    (void)state;

    assert_non_null(g);
    assert_int_equal(EVP_PKEY_keygen_init(g), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(g, KEY_BITS), 1);
    assert_int_equal(EVP_PKEY_generate(g, &k), 1);
    EVP_PKEY_CTX_free(g);
    pss = tu_pkey_copy_to(env.libctx, k, 1, tu_provider_name());
    pub_default = tu_pkey_copy_to(env.libctx, k, 0, "default");
    assert_non_null(pss);
    assert_non_null(pub_default);

    ctx = sign_ctx(pss, tu_propq());
    assert_true(EVP_PKEY_CTX_get_rsa_padding(ctx, &v) > 0);
    assert_int_equal(v, RSA_PKCS1_PSS_PADDING);
    assert_fails_with_reason(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING));
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    memset(digest, 0x3a, sizeof(digest));
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);

    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, pub_default, TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, digest, sizeof(digest)), 1);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pub_default);
    EVP_PKEY_free(pss);
    EVP_PKEY_free(k);
}

/* ---- digest-sign: streaming, duplication, one-shot, TLS 1.3 ---- */

static void digest_sign_pkcs1(EVP_PKEY *key, const char *propq, const char *const *parts,
                              size_t nparts, unsigned char *sig, size_t *siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    size_t i, need = 0;

    assert_int_equal(EVP_DigestSignInit_ex(mctx, NULL, "SHA256", env.libctx, propq, key, NULL),
                     1);
    for (i = 0; i < nparts; i++)
        assert_int_equal(EVP_DigestSignUpdate(mctx, parts[i], strlen(parts[i])), 1);
    assert_int_equal(EVP_DigestSignFinal(mctx, NULL, &need), 1);
    assert_int_equal(need, K);
    /* Final with a buffer duplicates the context in OpenSSL 3.0 and signs the copy. */
    assert_int_equal(EVP_DigestSignFinal(mctx, sig, siglen), 1);
    EVP_MD_CTX_free(mctx);
}

static void test_digest_sign_streaming_and_dup(void **state)
{
    static const char *const parts[] = { "The quick ", "brown fox ", "", "jumps" };
    static const char *const whole[] = { "The quick brown fox jumps" };
    unsigned char ours[K], theirs[K], a[K], b[K];
    size_t n = sizeof(ours), m = sizeof(theirs), la = sizeof(a), lb = sizeof(b);
    EVP_MD_CTX *mctx, *copy;
    (void)state;

    /* PKCS#1 v1.5 is deterministic: byte-identical to the default provider. */
    digest_sign_pkcs1(key_test, tu_propq(), parts, 4, ours, &n);
    digest_sign_pkcs1(key_default, TU_PROPQ_DEFAULT, whole, 1, theirs, &m);
    assert_int_equal(n, K);
    assert_int_equal(m, K);
    assert_memory_equal(ours, theirs, K);

    /* Duplicate mid-stream; both halves finish independently. */
    mctx = EVP_MD_CTX_new();
    copy = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestSignInit_ex(mctx, NULL, "SHA256", env.libctx, tu_propq(),
                                           key_test, NULL), 1);
    assert_int_equal(EVP_DigestSignUpdate(mctx, "The quick ", 10), 1);
    assert_int_equal(EVP_MD_CTX_copy_ex(copy, mctx), 1);
    assert_int_equal(EVP_DigestSignUpdate(mctx, "brown fox jumps", 15), 1);
    assert_int_equal(EVP_DigestSignUpdate(copy, "red fox", 7), 1);
    assert_int_equal(EVP_DigestSignFinal(mctx, a, &la), 1);
    assert_int_equal(EVP_DigestSignFinal(copy, b, &lb), 1);
    assert_memory_equal(a, theirs, K);
    EVP_MD_CTX_free(mctx);
    EVP_MD_CTX_free(copy);
    /* The copy signed "The quick red fox". */
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit_ex(mctx, NULL, "SHA256", env.libctx, TU_PROPQ_DEFAULT,
                                             key_default, NULL), 1);
    assert_int_equal(EVP_DigestVerify(mctx, b, lb, (const unsigned char *)"The quick red fox",
                                      17), 1);
    EVP_MD_CTX_free(mctx);

    /* Streaming verify in the provider under test, good and bad. */
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit_ex(mctx, NULL, "SHA256", env.libctx, tu_propq(),
                                             key_test, NULL), 1);
    assert_int_equal(EVP_DigestVerifyUpdate(mctx, "The quick brown", 15), 1);
    assert_int_equal(EVP_DigestVerifyUpdate(mctx, " fox jumps", 10), 1);
    assert_int_equal(EVP_DigestVerifyFinal(mctx, theirs, K), 1);
    EVP_MD_CTX_free(mctx);
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit_ex(mctx, NULL, "SHA256", env.libctx, tu_propq(),
                                             key_test, NULL), 1);
    assert_int_equal(EVP_DigestVerifyUpdate(mctx, "The quick brown fox jump", 24), 1);
    ERR_clear_error();
    assert_int_not_equal(EVP_DigestVerifyFinal(mctx, theirs, K), 1);
    ERR_clear_error();
    EVP_MD_CTX_free(mctx);
}

/* What libssl does for TLS 1.3 CertificateVerify: pss, saltlen digest, one-shot. */
static void test_tls13_pattern(void **state)
{
    static const unsigned char tbs[] = "TLS 1.3, server CertificateVerify";
    unsigned char sig[K];
    size_t siglen = 0;
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    (void)state;

    assert_int_equal(EVP_DigestSignInit_ex(mctx, &pctx, "SHA256", env.libctx, tu_propq(),
                                           key_test, NULL), 1);
    assert_true(tu_ctx_in_provider(pctx));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST), 1);
    assert_int_equal(EVP_DigestSign(mctx, NULL, &siglen, tbs, sizeof(tbs)), 1);
    assert_int_equal(siglen, K);
    assert_int_equal(EVP_DigestSign(mctx, sig, &siglen, tbs, sizeof(tbs)), 1);
    EVP_MD_CTX_free(mctx);

    mctx = EVP_MD_CTX_new();
    pctx = NULL;
    assert_int_equal(EVP_DigestVerifyInit_ex(mctx, &pctx, "SHA256", env.libctx,
                                             TU_PROPQ_DEFAULT, key_default, NULL), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST), 1);
    assert_int_equal(EVP_DigestVerify(mctx, sig, siglen, tbs, sizeof(tbs)), 1);
    EVP_MD_CTX_free(mctx);

    /* And the other way: the default provider signs, ours verifies one-shot. */
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestSignInit_ex(mctx, &pctx, "SHA384", env.libctx, TU_PROPQ_DEFAULT,
                                           key_default, NULL), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST), 1);
    siglen = sizeof(sig);
    assert_int_equal(EVP_DigestSign(mctx, sig, &siglen, tbs, sizeof(tbs)), 1);
    EVP_MD_CTX_free(mctx);
    mctx = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit_ex(mctx, &pctx, "SHA384", env.libctx, tu_propq(),
                                             key_test, NULL), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST), 1);
    assert_int_equal(EVP_DigestVerify(mctx, sig, siglen, tbs, sizeof(tbs)), 1);
    EVP_MD_CTX_free(mctx);
}

/* ---- sizes and inputs ---- */

static void test_sizes_and_inputs(void **state)
{
    EVP_PKEY_CTX *ctx = sign_ctx(key_test, tu_propq()), *dup;
    unsigned char in[K], sig[K];
    size_t siglen = 0;
    (void)state;

    memset(in, 0x11, sizeof(in));
    /* Size query. */
    assert_int_equal(EVP_PKEY_sign(ctx, NULL, &siglen, in, 32), 1);
    assert_int_equal(siglen, K);
    /* Output buffer too small. */
    siglen = K - 1;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, 32));
    /* Raw PKCS#1: at most k - 11 bytes. */
    siglen = K;
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, K - 11), 1);
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, K - 10));
    /* With a digest, exactly its size. */
    assert_int_equal(set_utf8(ctx, OSSL_SIGNATURE_PARAM_DIGEST, "SHA256"), 1);
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, 31));
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, 33));
    /* The duplicate keeps the settings: pss with SHA-256, salt 32. */
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 32), 1);
    dup = EVP_PKEY_CTX_dup(ctx);
    assert_non_null(dup);
    EVP_PKEY_CTX_free(ctx);
    siglen = K;
    assert_int_equal(EVP_PKEY_sign(dup, sig, &siglen, in, 32), 1);
    EVP_PKEY_CTX_free(dup);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key_default, TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 32), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, in, 32), 1);
    EVP_PKEY_CTX_free(ctx);

    /* PSS without a digest. */
    ctx = sign_ctx(key_test, tu_propq());
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, 32));
    EVP_PKEY_CTX_free(ctx);
    /* None: exactly k bytes, below n. */
    ctx = sign_ctx(key_test, tu_propq());
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, K - 1));
    in[0] = 0xff;  /* above any 2048-bit n */
    siglen = K;
    assert_fails_with_reason(EVP_PKEY_sign(ctx, sig, &siglen, in, K));
    in[0] = 0x00;
    siglen = K;
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, K), 1);
    EVP_PKEY_CTX_free(ctx);

    /* Verification: a signature of the wrong length is refused. */
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key_test, tu_propq());
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, K, in, K), 1);
    ERR_clear_error();
    assert_int_not_equal(EVP_PKEY_verify(ctx, sig + 1, K - 1, in + 1, K - 1), 1);
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
}

/* ---- trace ---- */

static void test_trace_lines(void **state)
{
    EVP_PKEY_CTX *ctx;
    unsigned char in[32] = { 0 }, sig[K];
    size_t siglen = K;
    char line[256];
    int saw_sign = 0, saw_verify = 0;
    FILE *f;
    (void)state;

    if (!under_ctrsa())
        skip();
    ctx = sign_ctx(key_test, tu_propq());
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, in, sizeof(in)), 1);
    EVP_PKEY_CTX_free(ctx);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key_test, tu_propq());
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_verify(ctx, sig, siglen, in, sizeof(in)), 1);
    EVP_PKEY_CTX_free(ctx);

    f = fopen(trace_path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, "ctrsa: sign bits=2048 pad=pss") != NULL)
            saw_sign = 1;
        if (strstr(line, "ctrsa: verify bits=2048 pad=pss") != NULL)
            saw_verify = 1;
    }
    fclose(f);
    assert_true(saw_sign);
    assert_true(saw_verify);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pad_mode_int_and_string),
        cmocka_unit_test(test_saltlen_int_and_string),
        cmocka_unit_test(test_digest_params),
        cmocka_unit_test(test_digest_names_as_given),
        cmocka_unit_test(test_settable_gettable_lists),
        cmocka_unit_test(test_algorithm_id_pkcs1_matches_default),
        cmocka_unit_test(test_pkcs1_sm3_follows_default),
        cmocka_unit_test(test_algorithm_id_pss_matches_default),
        cmocka_unit_test(test_pss_restrictions),
        cmocka_unit_test(test_unrestricted_pss_key_is_pss_only),
        cmocka_unit_test(test_digest_sign_streaming_and_dup),
        cmocka_unit_test(test_tls13_pattern),
        cmocka_unit_test(test_sizes_and_inputs),
        cmocka_unit_test(test_trace_lines),
    };

    /* The trace file must be named before the provider first looks at it. */
    snprintf(trace_path, sizeof(trace_path), "/tmp/ctrsa-sigtrace-%ld.log", (long)getpid());
    setenv("CTRSA_TRACE", trace_path, 1);
    printf("provider under test: %s\n", tu_provider_name());
    return cmocka_run_group_tests_name("signature_params", tests, group_setup, group_teardown);
}
