/*
 * End-to-end tests of the "RSA" asymmetric cipher through EVP_PKEY_encrypt/decrypt, with
 * OpenSSL's default provider as the oracle: ciphertexts go both ways for every padding,
 * the implicit-rejection known answers of OpenSSL 3.2 are checked through the whole
 * provider (key import, d's hash, short ciphertexts), and every error path is checked to
 * fail with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "testutil.h"
#include "../padding/enc_ir_vectors.h"

#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif

static tu_env env;
static EVP_PKEY *oracle_key;   /* default provider, 2048 bits */
static EVP_PKEY *ut_priv;      /* the same key pair, in the provider under test */
static EVP_PKEY *ut_pub;

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    oracle_key = EVP_PKEY_Q_keygen(env.libctx, TU_PROPQ_DEFAULT, "RSA", (size_t)2048);
    if (oracle_key == NULL)
        return -1;
    ut_priv = tu_pkey_copy_to(env.libctx, oracle_key, 1, tu_provider_name());
    ut_pub = tu_pkey_copy_to(env.libctx, oracle_key, 0, tu_provider_name());
    return ut_priv != NULL && ut_pub != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(ut_pub);
    EVP_PKEY_free(ut_priv);
    EVP_PKEY_free(oracle_key);
    tu_env_free(&env);
    return 0;
}

/* How a context is configured: pad mode and OAEP settings (NULL/0 = leave the default). */
struct cfg {
    const char *pad;        /* "pkcs1", "oaep", "none", or NULL */
    int pad_int;            /* used when pad is NULL and pad_int != 0 */
    const char *md, *mgf1md;
    const char *label;
    int ir;                 /* -1: leave; else implicit-rejection value */
    unsigned int tls_version, tls_alt;
};

static int configure(EVP_PKEY_CTX *ctx, const struct cfg *c)
{
    OSSL_PARAM params[8];
    unsigned int ir = (unsigned int)c->ir;
    int pad_int = c->pad_int;
    size_t n = 0;

    if (c->md != NULL)
        params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST,
                                                       (char *)c->md, 0);
    if (c->pad != NULL)
        params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE,
                                                       (char *)c->pad, 0);
    else if (c->pad_int != 0)
        params[n++] = OSSL_PARAM_construct_int(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, &pad_int);
    if (c->mgf1md != NULL)
        params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST,
                                                       (char *)c->mgf1md, 0);
    if (c->label != NULL)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
                                                        (void *)c->label, strlen(c->label));
    if (c->ir >= 0)
        params[n++] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION,
                                                &ir);
    if (c->tls_version != 0) {
        params[n++] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION,
                                                (unsigned int *)&c->tls_version);
        params[n++] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION,
                                                (unsigned int *)&c->tls_alt);
    }
    params[n] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, params);
}

/* Encrypt or decrypt in one call; returns EVP's result and checks where it ran. */
static int run(EVP_PKEY *key, const char *propq, int decrypt, const struct cfg *c,
               const unsigned char *in, size_t inlen, unsigned char *out, size_t *outlen)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    int ok;

    assert_non_null(ctx);
    ok = (decrypt ? EVP_PKEY_decrypt_init(ctx) : EVP_PKEY_encrypt_init(ctx)) == 1
         && configure(ctx, c) == 1;
    if (ok) {
        ok = decrypt ? EVP_PKEY_decrypt(ctx, out, outlen, in, inlen)
                     : EVP_PKEY_encrypt(ctx, out, outlen, in, inlen);
        if (strcmp(propq, TU_PROPQ_DEFAULT) != 0)
            assert_true(tu_ctx_in_provider(ctx));
    }
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static const struct cfg cfgs[] = {
    { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 },
    { "oaep", 0, NULL, NULL, NULL, -1, 0, 0 },
    { "oaep", 0, "SHA256", NULL, NULL, -1, 0, 0 },
    { "oaep", 0, "SHA256", "SHA1", "a label", -1, 0, 0 },
    { "oaep", 0, "SHA512", "SHA384", "", -1, 0, 0 },
    { NULL, RSA_PKCS1_OAEP_PADDING, "SHA3-256", NULL, "x", -1, 0, 0 },
};

static void test_round_trips_against_default(void **state)
{
    unsigned char msg[256], ct[256], pt[256];
    size_t c, ctlen, ptlen, mlen;
    (void)state;

    for (c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
        for (mlen = 0; mlen <= 62; mlen += 31) {
            assert_int_equal(RAND_bytes(msg, (int)mlen + 1), 1);
            /* ours encrypts, the default provider decrypts */
            ctlen = sizeof(ct);
            assert_true(run(ut_pub, tu_propq(), 0, &cfgs[c], msg, mlen, ct, &ctlen));
            assert_int_equal(ctlen, 256);
            ptlen = sizeof(pt);
            assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 1, &cfgs[c], ct, ctlen, pt, &ptlen));
            assert_int_equal(ptlen, mlen);
            assert_memory_equal(pt, msg, mlen);
            /* the default provider encrypts, ours decrypts */
            ctlen = sizeof(ct);
            assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 0, &cfgs[c], msg, mlen, ct, &ctlen));
            ptlen = sizeof(pt);
            assert_true(run(ut_priv, tu_propq(), 1, &cfgs[c], ct, ctlen, pt, &ptlen));
            assert_int_equal(ptlen, mlen);
            assert_memory_equal(pt, msg, mlen);
        }
    }
}

static void test_raw(void **state)
{
    const struct cfg none = { "none", 0, NULL, NULL, NULL, -1, 0, 0 };
    unsigned char msg[256], ct[256], ct2[256], pt[256];
    size_t ctlen = sizeof(ct), ct2len = sizeof(ct2), ptlen = sizeof(pt);
    (void)state;

    assert_int_equal(RAND_bytes(msg, 256), 1);
    msg[0] = 0x00; /* below n */
    assert_true(run(ut_pub, tu_propq(), 0, &none, msg, 256, ct, &ctlen));
    assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 0, &none, msg, 256, ct2, &ct2len));
    assert_memory_equal(ct, ct2, 256); /* raw RSA is deterministic */
    assert_true(run(ut_priv, tu_propq(), 1, &none, ct, ctlen, pt, &ptlen));
    assert_int_equal(ptlen, 256);
    assert_memory_equal(pt, msg, 256);
    /* Not exactly k bytes, or not below n: refused with a reason. */
    ctlen = sizeof(ct);
    assert_false(run(ut_pub, tu_propq(), 0, &none, msg, 255, ct, &ctlen));
    assert_true(tu_error_with_reason());
    memset(msg, 0xff, 256);
    ctlen = sizeof(ct);
    assert_false(run(ut_pub, tu_propq(), 0, &none, msg, 256, ct, &ctlen));
    assert_true(tu_error_with_reason());
    ptlen = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &none, msg, 256, pt, &ptlen));
    assert_true(tu_error_with_reason());
}

static void test_sizes_and_buffers(void **state)
{
    const struct cfg oaep = { "oaep", 0, "SHA256", NULL, NULL, -1, 0, 0 };
    const struct cfg pkcs1 = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    unsigned char msg[256] = { 0 }, ct[256], pt[256];
    size_t len;
    (void)state;

    /* out == NULL asks for the size: k for both directions. */
    len = 0;
    assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 10, NULL, &len));
    assert_int_equal(len, 256);
    len = 0;
    assert_true(run(ut_priv, tu_propq(), 1, &oaep, msg, 256, NULL, &len));
    assert_int_equal(len, 256);
    /* Too small an output buffer (k - 1) fails for both, as with OpenSSL. */
    len = 255;
    assert_false(run(ut_pub, tu_propq(), 0, &oaep, msg, 10, ct, &len));
    assert_true(tu_error_with_reason());
    len = sizeof(ct);
    assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 10, ct, &len));
    len = 255;
    assert_false(run(ut_priv, tu_propq(), 1, &oaep, ct, 256, pt, &len));
    assert_true(tu_error_with_reason());
    len = 255;
    assert_false(run(oracle_key, TU_PROPQ_DEFAULT, 1, &oaep, ct, 256, pt, &len));
    ERR_clear_error();
    /* Messages one byte too long for the padding. */
    len = sizeof(ct);
    assert_false(run(ut_pub, tu_propq(), 0, &oaep, msg, 256 - 2 * 32 - 1, ct, &len));
    assert_true(tu_error_with_reason());
    len = sizeof(ct);
    assert_true(run(ut_pub, tu_propq(), 0, &pkcs1, msg, 256 - 11, ct, &len));
    len = sizeof(ct);
    assert_false(run(ut_pub, tu_propq(), 0, &pkcs1, msg, 256 - 10, ct, &len));
    assert_true(tu_error_with_reason());
    /* A ciphertext longer than k, or empty. */
    len = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &pkcs1, msg, 0, pt, &len));
    assert_true(tu_error_with_reason());
    {
        unsigned char big[257] = { 0 };

        len = sizeof(pt);
        assert_false(run(ut_priv, tu_propq(), 1, &pkcs1, big, sizeof(big), pt, &len));
        assert_true(tu_error_with_reason());
    }
    /* Decryption with a public key cannot even start. */
    {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pub, tu_propq());

        assert_non_null(ctx);
        assert_int_not_equal(EVP_PKEY_decrypt_init(ctx), 1);
        ERR_clear_error();
        EVP_PKEY_CTX_free(ctx);
    }
}

static void test_bad_padding(void **state)
{
    const struct cfg oaep = { "oaep", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg oaep_l = { "oaep", 0, NULL, NULL, "other label", -1, 0, 0 };
    const struct cfg pk_ir = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    unsigned char msg[16] = "sixteen bytes!!", ct[256], pt[256], pt2[256];
    size_t ctlen, len, len2;
    int i;
    (void)state;

    /* OAEP: a corrupted ciphertext, or the wrong label, is one opaque failure. */
    ctlen = sizeof(ct);
    assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 16, ct, &ctlen));
    len = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &oaep_l, ct, ctlen, pt, &len));
    assert_true(tu_error_with_reason());
    ct[100] ^= 0x01;
    len = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &oaep, ct, ctlen, pt, &len));
    assert_true(tu_error_with_reason());

    for (i = 0; i < 4; i++) {
        /* PKCS#1 v1.5: an OAEP ciphertext is badly padded for PKCS#1 v1.5 ... */
        ctlen = sizeof(ct);
        assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 16, ct, &ctlen));
        /* ... explicit rejection fails (so does the oracle) ... */
        len = sizeof(pt);
        assert_false(run(ut_priv, tu_propq(), 1, &pk_noir, ct, ctlen, pt, &len));
        assert_true(tu_error_with_reason());
        len = sizeof(pt);
        assert_false(run(oracle_key, TU_PROPQ_DEFAULT, 1, &pk_noir, ct, ctlen, pt, &len));
        ERR_clear_error();
        /* ... implicit rejection (the default) succeeds with a synthetic message that is
         * the same every time for the same ciphertext. */
        len = sizeof(pt);
        assert_true(run(ut_priv, tu_propq(), 1, &pk_ir, ct, ctlen, pt, &len));
        assert_true(len <= 256 - 11);
        len2 = sizeof(pt2);
        assert_true(run(ut_priv, tu_propq(), 1, &pk_ir, ct, ctlen, pt2, &len2));
        assert_int_equal(len, len2);
        assert_memory_equal(pt, pt2, len);
        assert_int_equal(ERR_peek_error(), 0);
    }
}

/* OpenSSL 3.2's known answers, through key import and the whole decrypt path. */
static void test_implicit_rejection_known_answers(void **state)
{
    const struct cfg pk = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    unsigned char ct[512], want[512], pt[512];
    size_t v, ctlen, wantlen, len;
    (void)state;

    for (v = 0; v < sizeof(ir_vectors) / sizeof(ir_vectors[0]); v++) {
        const struct ir_vector *tv = &ir_vectors[v];
        BIO *bio = BIO_new_mem_buf(tv->key_pem, -1);
        EVP_PKEY *pem_key, *key;

        assert_non_null(bio);
        pem_key = PEM_read_bio_PrivateKey_ex(bio, NULL, NULL, NULL, env.libctx,
                                             TU_PROPQ_DEFAULT);
        BIO_free(bio);
        assert_non_null(pem_key);
        key = tu_pkey_copy_to(env.libctx, pem_key, 1, tu_provider_name());
        assert_non_null(key);

        ctlen = strlen(tv->ct_hex) / 2;
        assert_true(tu_unhex(tv->ct_hex, ct, ctlen));
        if (tv->out_hex != NULL) {
            wantlen = strlen(tv->out_hex) / 2;
            assert_true(tu_unhex(tv->out_hex, want, wantlen));
        } else {
            wantlen = strlen(tv->out_text);
            memcpy(want, tv->out_text, wantlen);
        }
        len = sizeof(pt);
        if (!run(key, tu_propq(), 1, &pk, ct, ctlen, pt, &len) || len != wantlen
            || memcmp(pt, want, wantlen) != 0)
            fail_msg("vector \"%s\": got %zu bytes, want %zu", tv->what, len, wantlen);
        EVP_PKEY_free(key);
        EVP_PKEY_free(pem_key);
    }
}

static void test_tls_premaster(void **state)
{
    const struct cfg pk = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg tls = { NULL, RSA_PKCS1_WITH_TLS_PADDING, NULL, NULL, NULL, -1,
                             0x0303, 0 };
    const struct cfg tls_alt = { NULL, RSA_PKCS1_WITH_TLS_PADDING, NULL, NULL, NULL, -1,
                                 0x0302, 0x0303 };
    const struct cfg tls_other = { NULL, RSA_PKCS1_WITH_TLS_PADDING, NULL, NULL, NULL, -1,
                                   0x0302, 0 };
    const struct cfg tls_nover = { NULL, RSA_PKCS1_WITH_TLS_PADDING, NULL, NULL, NULL, -1,
                                   0, 0 };
    unsigned char pms[48], ct[256], out[256], out2[256];
    size_t ctlen = sizeof(ct), len;
    (void)state;

    assert_int_equal(RAND_bytes(pms, 48), 1);
    pms[0] = 0x03;
    pms[1] = 0x03;
    assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 0, &pk, pms, 48, ct, &ctlen));

    len = 0;
    assert_true(run(ut_priv, tu_propq(), 1, &tls, ct, ctlen, NULL, &len));
    assert_int_equal(len, 48);
    len = 48;
    assert_true(run(ut_priv, tu_propq(), 1, &tls, ct, ctlen, out, &len));
    assert_int_equal(len, 48);
    assert_memory_equal(out, pms, 48);
    /* The oracle agrees. */
    len = 48;
    assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 1, &tls, ct, ctlen, out2, &len));
    assert_memory_equal(out2, pms, 48);
    /* The negotiated version is accepted when given as the alternative. */
    len = 48;
    assert_true(run(ut_priv, tu_propq(), 1, &tls_alt, ct, ctlen, out, &len));
    assert_memory_equal(out, pms, 48);
    /* A version mismatch, or bad padding, "succeeds" with random bytes. */
    len = 48;
    assert_true(run(ut_priv, tu_propq(), 1, &tls_other, ct, ctlen, out, &len));
    assert_int_equal(len, 48);
    assert_memory_not_equal(out, pms, 48);
    ct[3] ^= 0x40;
    len = 48;
    assert_true(run(ut_priv, tu_propq(), 1, &tls, ct, ctlen, out, &len));
    assert_int_equal(len, 48);
    assert_memory_not_equal(out, pms, 48);
    /* No client version, or a 47-byte buffer: errors. */
    len = 48;
    assert_false(run(ut_priv, tu_propq(), 1, &tls_nover, ct, ctlen, out, &len));
    assert_true(tu_error_with_reason());
    len = 47;
    assert_false(run(ut_priv, tu_propq(), 1, &tls, ct, ctlen, out, &len));
    assert_true(tu_error_with_reason());
    /* Encryption has no TLS mode. */
    len = sizeof(out);
    assert_false(run(ut_pub, tu_propq(), 0, &tls, pms, 48, out, &len));
    assert_true(tu_error_with_reason());
}

static void test_params(void **state)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_priv, tu_propq());
    const OSSL_PARAM *list;
    OSSL_PARAM get[6];
    char md[64] = "", mgf1[64] = "", pad[32] = "";
    unsigned int ir = 99;
    unsigned char *label = NULL;
    const EVP_MD *m = NULL;
    int padi = 0;
    EVP_PKEY_CTX *dup;
    (void)state;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    /* Both lists name every parameter applications use. */
    list = EVP_PKEY_CTX_settable_params(ctx);
    assert_non_null(OSSL_PARAM_locate_const(list, OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION));
    assert_non_null(OSSL_PARAM_locate_const(list, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL));
    assert_non_null(OSSL_PARAM_locate_const(list, OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS));
    list = EVP_PKEY_CTX_gettable_params(ctx);
    assert_non_null(OSSL_PARAM_locate_const(list, OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION));
    assert_null(OSSL_PARAM_locate_const(list, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS));

    /* Defaults: pkcs1 with implicit rejection. */
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, pad, sizeof(pad));
    get[1] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, &ir);
    get[2] = OSSL_PARAM_construct_end();
    assert_int_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
    assert_string_equal(pad, "pkcs1");
    assert_int_equal(ir, 1);

    /* OAEP through the usual EVP calls: SHA-1 by default, then SHA-256 and a label. */
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    assert_true(EVP_PKEY_CTX_get_rsa_padding(ctx, &padi) > 0); /* 3.0 returns the mode */
    assert_int_equal(padi, RSA_PKCS1_OAEP_PADDING);
    assert_int_equal(EVP_PKEY_CTX_get_rsa_oaep_md(ctx, &m), 1);
    assert_true(EVP_MD_is_a(m, "SHA1"));
    assert_int_equal(EVP_PKEY_CTX_set_rsa_oaep_md_name(ctx, "SHA2-256", NULL), 1);
    label = OPENSSL_memdup("lbl", 3);
    assert_int_equal(EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label, 3), 1);
    get[0] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, md, sizeof(md));
    get[1] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, mgf1,
                                              sizeof(mgf1));
    get[2] = OSSL_PARAM_construct_end();
    assert_int_equal(EVP_PKEY_CTX_get_params(ctx, get), 1);
    assert_true(EVP_MD_is_a(EVP_get_digestbyname(md), "SHA256"));
    assert_string_equal(md, mgf1); /* MGF1 follows the OAEP digest */
    {
        unsigned char *got = NULL;
        int n = EVP_PKEY_CTX_get0_rsa_oaep_label(ctx, &got);

        assert_int_equal(n, 3);
        assert_memory_equal(got, "lbl", 3);
    }
    /* A duplicated context keeps all of it and works on its own. */
    dup = EVP_PKEY_CTX_dup(ctx);
    assert_non_null(dup);
    EVP_PKEY_CTX_free(ctx);
    {
        unsigned char ct[256], pt[256];
        size_t ctlen = sizeof(ct), ptlen = sizeof(pt);
        const struct cfg same = { "oaep", 0, "SHA256", NULL, "lbl", -1, 0, 0 };

        assert_true(run(oracle_key, TU_PROPQ_DEFAULT, 0, &same, (const unsigned char *)"dup",
                        3, ct, &ctlen));
        assert_int_equal(EVP_PKEY_decrypt(dup, pt, &ptlen, ct, ctlen), 1);
        assert_int_equal(ptlen, 3);
        assert_memory_equal(pt, "dup", 3);
    }
    /* Bad values are refused with a reason. */
    assert_int_not_equal(EVP_PKEY_CTX_set_rsa_padding(dup, RSA_PKCS1_PSS_PADDING), 1);
    assert_true(tu_error_with_reason());
    assert_int_not_equal(EVP_PKEY_CTX_set_rsa_oaep_md_name(dup, "no-such-digest", NULL), 1);
    assert_true(tu_error_with_reason());
    EVP_PKEY_CTX_free(dup);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips_against_default),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_sizes_and_buffers),
        cmocka_unit_test(test_bad_padding),
        cmocka_unit_test(test_implicit_rejection_known_answers),
        cmocka_unit_test(test_tls_premaster),
        cmocka_unit_test(test_params),
    };

    return cmocka_run_group_tests_name("asym_cipher", tests, setup, teardown);
}
