/*
 * End-to-end tests of the "RSA" asymmetric cipher through EVP_PKEY_encrypt/decrypt, with
 * OpenSSL's default provider as the oracle: ciphertexts go both ways for every padding,
 * the implicit-rejection known answers of OpenSSL 3.2 are checked through the whole
 * provider (key import, d's hash, short ciphertexts), and every error path is checked to
 * fail with a reason.
 *
 * The matrix of issue 4 runs on 2048, 3072 and 4096-bit keys (each generated once, by the
 * default provider): OAEP with SHA-1/224/256/384/512, each with its own and with a different
 * MGF1 digest, with and without a label, messages of 0, 1 and the maximum length, both
 * directions; PKCS#1 v1.5 the same way; one byte too long, tampered ciphertexts, c >= n,
 * wrong lengths and empty input fail with the reason ctrsa's table gives for them; and the
 * implicit-rejection message equals the one computed here from the draft (an independent
 * implementation on OpenSSL's HMAC-SHA256, itself checked first against OpenSSL 3.2's
 * known answers).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
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

/* One key pair per size of the matrix: the default provider's, and copies in ours. */
struct keyset {
    size_t bits;
    EVP_PKEY *oracle, *priv, *pub;
};
static struct keyset keys[] = { { 2048, NULL, NULL, NULL }, { 3072, NULL, NULL, NULL },
                                { 4096, NULL, NULL, NULL } };
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static EVP_PKEY *oracle_key;   /* default provider, 2048 bits (keys[0]) */
static EVP_PKEY *ut_priv;      /* the same key pair, in the provider under test */
static EVP_PKEY *ut_pub;

static int setup(void **state)
{
    size_t i;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    for (i = 0; i < N_KEYS; i++) {
        keys[i].oracle = EVP_PKEY_Q_keygen(env.libctx, TU_PROPQ_DEFAULT, "RSA", keys[i].bits);
        if (keys[i].oracle == NULL)
            return -1;
        keys[i].priv = tu_pkey_copy_to(env.libctx, keys[i].oracle, 1, tu_provider_name());
        keys[i].pub = tu_pkey_copy_to(env.libctx, keys[i].oracle, 0, tu_provider_name());
        if (keys[i].priv == NULL || keys[i].pub == NULL)
            return -1;
    }
    oracle_key = keys[0].oracle;
    ut_priv = keys[0].priv;
    ut_pub = keys[0].pub;
    return 0;
}

static int teardown(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < N_KEYS; i++) {
        EVP_PKEY_free(keys[i].pub);
        EVP_PKEY_free(keys[i].priv);
        EVP_PKEY_free(keys[i].oracle);
    }
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

/*
 * Encrypt or decrypt in one call; 1 on success, 0 on failure (EVP_PKEY_encrypt/decrypt
 * return -1 for some failures of the default provider: that is a failure too), and checks
 * where it ran.
 */
static int run(EVP_PKEY *key, const char *propq, int decrypt, const struct cfg *c,
               const unsigned char *in, size_t inlen, unsigned char *out, size_t *outlen)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    int ok;

    assert_non_null(ctx);
    ok = (decrypt ? EVP_PKEY_decrypt_init(ctx) : EVP_PKEY_encrypt_init(ctx)) == 1
         && configure(ctx, c) == 1;
    if (ok) {
        ok = (decrypt ? EVP_PKEY_decrypt(ctx, out, outlen, in, inlen)
                      : EVP_PKEY_encrypt(ctx, out, outlen, in, inlen)) == 1;
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
    /* Decryption with a public key starts, as with the default provider, and fails. */
    {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, ut_pub, tu_propq());

        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
        len = sizeof(pt);
        assert_int_not_equal(EVP_PKEY_decrypt(ctx, pt, &len, msg, 256), 1);
        assert_true(tu_error_with_reason());
        EVP_PKEY_CTX_free(ctx);
    }
}

/*
 * A padding failure (OAEP, PKCS#1 v1.5 without implicit rejection): with OpenSSL 3.0 and
 * 3.1 ctrsa raises no error, as OpenSSL's FIPS provider does; from 3.2 on it raises its one
 * opaque error (asym_cipher.c says why). NULL here means "whichever this OpenSSL calls for".
 */
#define R_PADDING_FAILED NULL
#define R_DECRYPT_FAILED "decryption failed"

/* 1 if ctrsa, under this OpenSSL, raises an error for a padding failure. */
static int padding_failure_raises(void)
{
    return OpenSSL_version_num() >= 0x30200000L;
}

/*
 * After a padding failure: what this OpenSSL calls for from ctrsa (R_PADDING_FAILED);
 * another provider may have raised its own. Clears the queue.
 */
static void expect_padding_failure(void)
{
    if (padding_failure_raises())
        assert_true(tu_error_with_reason());
    else if (strcmp(tu_provider_name(), "ctrsa") == 0)
        assert_int_equal(ERR_peek_error(), 0);
    ERR_clear_error();
}

static void test_bad_padding(void **state)
{
    const struct cfg oaep = { "oaep", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg oaep_l = { "oaep", 0, NULL, NULL, "other label", -1, 0, 0 };
    const struct cfg pk_ir = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    unsigned char msg[16] = "sixteen bytes!!", ct[256], pt[256], pt2[256];
    size_t ctlen, len, len2;
    int i, done;
    (void)state;

    /* OAEP: a corrupted ciphertext, or the wrong label, is one opaque failure. */
    ctlen = sizeof(ct);
    assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 16, ct, &ctlen));
    len = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &oaep_l, ct, ctlen, pt, &len));
    expect_padding_failure();
    ct[100] ^= 0x01;
    len = sizeof(pt);
    assert_false(run(ut_priv, tu_propq(), 1, &oaep, ct, ctlen, pt, &len));
    expect_padding_failure();

    /* About one OAEP ciphertext in 270 is a valid PKCS#1 v1.5 block too (second byte 02,
     * eight nonzero bytes, a zero): those are skipped, four others are tested. */
    for (i = 0, done = 0; done < 4; i++) {
        assert_true(i < 64);
        /* PKCS#1 v1.5: an OAEP ciphertext is badly padded for PKCS#1 v1.5 ... */
        ctlen = sizeof(ct);
        assert_true(run(ut_pub, tu_propq(), 0, &oaep, msg, 16, ct, &ctlen));
        /* ... explicit rejection fails (so does the oracle) ... */
        len = sizeof(pt);
        if (run(oracle_key, TU_PROPQ_DEFAULT, 1, &pk_noir, ct, ctlen, pt, &len))
            continue; /* valid PKCS#1 padding by chance */
        ERR_clear_error();
        len = sizeof(pt);
        assert_false(run(ut_priv, tu_propq(), 1, &pk_noir, ct, ctlen, pt, &len));
        expect_padding_failure();
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
        done++;
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

/* ---- the matrix of issue 4: every key size ---------------------------------------------- */

#define MAX_K 512

/*
 * The last error on the queue has a reason string; when ctrsa is under test it is `want`,
 * the string ctrsa's error prints (libcrypto's where ctrsa raises the default provider's
 * code, provider/errors.c; another provider words its reasons its own way).
 * Clears the queue.
 */
static void expect_reason_at(const char *want, const char *what, int line)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e != 0 ? ERR_reason_error_string(e) : NULL;

    if (want == NULL && padding_failure_raises())
        want = R_DECRYPT_FAILED;
    if (want == NULL) {  /* R_PADDING_FAILED before 3.2: nothing from ctrsa on the queue */
        if (strcmp(tu_provider_name(), "ctrsa") == 0 && e != 0)
            fail_msg("line %d, %s: a padding failure left \"%s\" on the queue", line, what,
                     reason != NULL ? reason : "(no reason)");
        ERR_clear_error();
        return;
    }
    if (e == 0)
        fail_msg("line %d, %s: expected the error \"%s\", the queue is empty", line, what,
                 want);
    if (reason == NULL)
        fail_msg("line %d, %s: an error without a reason string", line, what);
    if (strcmp(tu_provider_name(), "ctrsa") == 0 && strcmp(reason, want) != 0)
        fail_msg("line %d, %s: reason \"%s\", want \"%s\"", line, what, reason, want);
    ERR_clear_error();
}
#define expect_reason(want, what) expect_reason_at((want), (what), __LINE__)

#define R_INPUT_TOO_LARGE "data too large for modulus"        /* the input is not below n */
#define R_MESSAGE_TOO_LONG "data too large for key size"    /* the padded message does not fit */
#define R_WRONG_INPUT_LENGTH "wrong input length"

static size_t md_size(const char *name)
{
    EVP_MD *md = EVP_MD_fetch(env.libctx, name, TU_PROPQ_DEFAULT);
    int size;

    assert_non_null(md);
    size = EVP_MD_get_size(md);
    EVP_MD_free(md);
    assert_true(size > 0);
    return (size_t)size;
}

/* ours encrypts, the oracle decrypts; the oracle encrypts, ours decrypts. */
static void round_trip_both_ways(const struct keyset *ks, const struct cfg *c,
                                 const unsigned char *msg, size_t mlen, unsigned char *oracle_ct,
                                 const char *what)
{
    unsigned char ct[MAX_K], pt[MAX_K];
    size_t k = ks->bits / 8, ctlen, ptlen;

    ctlen = sizeof(ct);
    if (!run(ks->pub, tu_propq(), 0, c, msg, mlen, ct, &ctlen) || ctlen != k)
        fail_msg("%zu bits, %s, %zu bytes: our encryption failed", ks->bits, what, mlen);
    ptlen = sizeof(pt);
    if (!run(ks->oracle, TU_PROPQ_DEFAULT, 1, c, ct, ctlen, pt, &ptlen) || ptlen != mlen
        || memcmp(pt, msg, mlen) != 0)
        fail_msg("%zu bits, %s, %zu bytes: the default provider cannot decrypt ours",
                 ks->bits, what, mlen);
    ctlen = sizeof(ct);
    assert_true(run(ks->oracle, TU_PROPQ_DEFAULT, 0, c, msg, mlen, oracle_ct, &ctlen));
    assert_int_equal(ctlen, k);
    ptlen = sizeof(pt);
    if (!run(ks->priv, tu_propq(), 1, c, oracle_ct, ctlen, pt, &ptlen) || ptlen != mlen
        || memcmp(pt, msg, mlen) != 0)
        fail_msg("%zu bits, %s, %zu bytes: we cannot decrypt the default provider's",
                 ks->bits, what, mlen);
}

/* A decryption by ours that must fail with `reason`. */
static void decrypt_fails(const struct keyset *ks, const struct cfg *c, const unsigned char *ct,
                          size_t ctlen, const char *reason, const char *what)
{
    unsigned char pt[MAX_K];
    size_t ptlen = sizeof(pt);

    if (run(ks->priv, tu_propq(), 1, c, ct, ctlen, pt, &ptlen))
        fail_msg("%zu bits, %s: decryption succeeded, should have failed", ks->bits, what);
    expect_reason(reason, what);
}

static void test_oaep_matrix(void **state)
{
    static const char *const mds[] = { "SHA1", "SHA224", "SHA256", "SHA384", "SHA512" };
    /* A different MGF1 digest for each OAEP digest. */
    static const char *const other_mgf1[] = { "SHA256", "SHA512", "SHA1", "SHA224", "SHA384" };
    static const char label[] = "ctrsa OAEP label";
    unsigned char msg[MAX_K], ct[MAX_K], last_ct[MAX_K], pt[MAX_K];
    size_t s, m, v, l, k, hlen, maxlen, ctlen;
    char what[128];
    (void)state;

    for (s = 0; s < N_KEYS; s++) {
        const struct keyset *ks = &keys[s];

        k = ks->bits / 8;
        for (m = 0; m < sizeof(mds) / sizeof(mds[0]); m++) {
            hlen = md_size(mds[m]);
            maxlen = k - 2 * hlen - 2;
            for (v = 0; v < 4; v++) {
                const struct cfg c = { "oaep", 0, mds[m], (v & 1) ? other_mgf1[m] : NULL,
                                       (v & 2) ? label : NULL, -1, 0, 0 };
                const struct cfg wrong_label = { "oaep", 0, mds[m], c.mgf1md,
                                                 (v & 2) ? NULL : label, -1, 0, 0 };
                const struct cfg wrong_mgf1 = { "oaep", 0, mds[m],
                                                (v & 1) ? NULL : other_mgf1[m], c.label,
                                                -1, 0, 0 };
                const size_t lens[] = { 0, 1, maxlen };

                snprintf(what, sizeof(what), "OAEP %s, MGF1 %s, %s", mds[m],
                         c.mgf1md != NULL ? c.mgf1md : mds[m],
                         c.label != NULL ? "a label" : "no label");
                for (l = 0; l < 3; l++) {
                    assert_int_equal(RAND_bytes(msg, (int)lens[l] + 1), 1);
                    round_trip_both_ways(ks, &c, msg, lens[l], last_ct, what);
                }
                /* One byte too long: refused by ours (and by the oracle). */
                ctlen = sizeof(ct);
                if (run(ks->pub, tu_propq(), 0, &c, msg, maxlen + 1, ct, &ctlen))
                    fail_msg("%zu bits, %s: a %zu-byte message was encrypted", ks->bits,
                             what, maxlen + 1);
                expect_reason(R_MESSAGE_TOO_LONG, what);
                ctlen = sizeof(ct);
                assert_false(run(ks->oracle, TU_PROPQ_DEFAULT, 0, &c, msg, maxlen + 1, ct,
                                 &ctlen));
                ERR_clear_error();
                /* The last (maximum-length) ciphertext, tampered with or read with other
                 * parameters: one opaque failure. */
                memcpy(ct, last_ct, k);
                ct[k / 2] ^= 0x10;
                decrypt_fails(ks, &c, ct, k, R_PADDING_FAILED, "tampered OAEP ciphertext");
                memcpy(ct, last_ct, k);
                ct[k - 1] ^= 0x01;
                decrypt_fails(ks, &c, ct, k, R_PADDING_FAILED, "OAEP, last byte tampered");
                decrypt_fails(ks, &wrong_label, last_ct, k, R_PADDING_FAILED,
                              "OAEP with the wrong label");
                decrypt_fails(ks, &wrong_mgf1, last_ct, k, R_PADDING_FAILED,
                              "OAEP with the wrong MGF1 digest");
                /* Still fine untouched. */
                ctlen = sizeof(pt);
                assert_true(run(ks->priv, tu_propq(), 1, &c, last_ct, k, pt, &ctlen));
                assert_int_equal(ctlen, maxlen);
            }
        }
    }
}

static void test_pkcs1_matrix(void **state)
{
    const struct cfg pk = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    unsigned char msg[MAX_K], ct[MAX_K], last_ct[MAX_K], pt[MAX_K];
    size_t s, l, k, ctlen;
    (void)state;

    for (s = 0; s < N_KEYS; s++) {
        const struct keyset *ks = &keys[s];
        size_t lens[3];

        k = ks->bits / 8;
        lens[0] = 0;
        lens[1] = 1;
        lens[2] = k - 11;
        for (l = 0; l < 3; l++) {
            assert_int_equal(RAND_bytes(msg, (int)lens[l] + 1), 1);
            round_trip_both_ways(ks, &pk, msg, lens[l], last_ct, "PKCS#1 v1.5");
            round_trip_both_ways(ks, &pk_noir, msg, lens[l], last_ct,
                                 "PKCS#1 v1.5, implicit rejection off");
        }
        ctlen = sizeof(ct);
        assert_false(run(ks->pub, tu_propq(), 0, &pk, msg, k - 10, ct, &ctlen));
        expect_reason(R_MESSAGE_TOO_LONG, "PKCS#1 v1.5 message one byte too long");
        ctlen = sizeof(ct);
        assert_false(run(ks->oracle, TU_PROPQ_DEFAULT, 0, &pk, msg, k - 10, ct, &ctlen));
        ERR_clear_error();
        /* Tampered, with implicit rejection off: the one opaque error. A changed ciphertext
         * is a valid block again about once in 270 tries: the oracle says when. */
        memcpy(ct, last_ct, k);
        for (l = 0;; l++) {
            assert_true(l < 64);
            ct[k / 3 + l] ^= 0x04;
            ctlen = sizeof(pt);
            if (!run(ks->oracle, TU_PROPQ_DEFAULT, 1, &pk_noir, ct, k, pt, &ctlen))
                break;
        }
        ERR_clear_error();
        decrypt_fails(ks, &pk_noir, ct, k, R_PADDING_FAILED, "tampered PKCS#1 ciphertext");
    }
}

/*
 * The error queue around a decryption that can fail (OAEP, PKCS#1 v1.5 without implicit
 * rejection): success leaves it as it found it, empty or holding the application's own
 * error; failure in ctrsa adds nothing with OpenSSL 3.0 and 3.1, and exactly its one
 * opaque error from 3.2 on (asym_cipher.c says why).
 */
static void test_error_queue_around_decrypt(void **state)
{
    const struct cfg oaep = { "oaep", 0, "SHA256", NULL, "a label", -1, 0, 0 };
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    const struct cfg *const cs[] = { &oaep, &pk_noir };
    const struct keyset *ks = &keys[0];
    unsigned char msg[32], ct[MAX_K], bad[MAX_K], pt[MAX_K];
    size_t k = ks->bits / 8, ctlen, ptlen, i;
    int app_error;
    (void)state;

    assert_int_equal(RAND_bytes(msg, sizeof(msg)), 1);
    for (i = 0; i < 2; i++) {
        ctlen = sizeof(ct);
        assert_true(run(ks->oracle, TU_PROPQ_DEFAULT, 0, cs[i], msg, sizeof(msg), ct, &ctlen));
        /* A block that is not valid under either padding: zero (0^d = 0, no 0x02 header,
         * and the OAEP lHash' and separator cannot match either). */
        memset(bad, 0, k);
        for (app_error = 0; app_error < 2; app_error++) {
            ERR_clear_error();
            if (app_error)
                ERR_raise_data(ERR_LIB_USER, ERR_R_PASSED_INVALID_ARGUMENT, "the app's own");
            ptlen = sizeof(pt);
            assert_true(run(ks->priv, tu_propq(), 1, cs[i], ct, ctlen, pt, &ptlen));
            assert_int_equal(ptlen, sizeof(msg));
            /* success: the queue as it was */
            if (app_error) {
                assert_int_equal(ERR_GET_LIB(ERR_peek_last_error()), ERR_LIB_USER);
                assert_int_equal(ERR_GET_LIB(ERR_get_error()), ERR_LIB_USER);
            }
            assert_int_equal(ERR_peek_error(), 0);

            ERR_clear_error();
            if (app_error)
                ERR_raise_data(ERR_LIB_USER, ERR_R_PASSED_INVALID_ARGUMENT, "the app's own");
            ptlen = sizeof(pt);
            assert_false(run(ks->priv, tu_propq(), 1, cs[i], bad, k, pt, &ptlen));
            /* failure: the application's error (if any), then ctrsa's one error (3.2+) */
            if (app_error)
                assert_int_equal(ERR_GET_LIB(ERR_get_error()), ERR_LIB_USER);
            if (strcmp(tu_provider_name(), "ctrsa") == 0) {
                if (padding_failure_raises()) {
                    unsigned long e = ERR_get_error();
                    assert_int_not_equal(e, 0);
                    assert_string_equal(ERR_reason_error_string(e), R_DECRYPT_FAILED);
                }
                assert_int_equal(ERR_peek_error(), 0);
            }
            ERR_clear_error();
        }
    }
}

/* c >= n, longer than k, and empty: refused before any private arithmetic, in every mode. */
static void test_decrypt_input_errors(void **state)
{
    const struct cfg modes[] = {
        { "oaep", 0, "SHA256", NULL, NULL, -1, 0, 0 },
        { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 },
        { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 },
        { "none", 0, NULL, NULL, NULL, -1, 0, 0 },
        { NULL, RSA_PKCS1_WITH_TLS_PADDING, NULL, NULL, NULL, -1, 0x0303, 0 },
    };
    static const char *const names[] = { "OAEP", "PKCS#1 v1.5 (implicit rejection)",
                                         "PKCS#1 v1.5 (explicit rejection)", "raw",
                                         "TLS pre-master" };
    unsigned char in[MAX_K + 1];
    size_t s, i, k;
    BIGNUM *n = NULL;
    char what[128];
    (void)state;

    for (s = 0; s < N_KEYS; s++) {
        const struct keyset *ks = &keys[s];

        k = ks->bits / 8;
        assert_int_equal(EVP_PKEY_get_bn_param(ks->oracle, OSSL_PKEY_PARAM_RSA_N, &n), 1);
        for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
            snprintf(what, sizeof(what), "%s: c = n", names[i]);
            assert_int_equal(BN_bn2binpad(n, in, (int)k), (int)k);
            decrypt_fails(ks, &modes[i], in, k, R_INPUT_TOO_LARGE, what);
            snprintf(what, sizeof(what), "%s: c = n + 1", names[i]);
            assert_true(BN_add_word(n, 1));
            assert_int_equal(BN_bn2binpad(n, in, (int)k), (int)k);
            assert_true(BN_sub_word(n, 1));
            decrypt_fails(ks, &modes[i], in, k, R_INPUT_TOO_LARGE, what);
            snprintf(what, sizeof(what), "%s: c = 2^(8k) - 1", names[i]);
            memset(in, 0xff, k);
            decrypt_fails(ks, &modes[i], in, k, R_INPUT_TOO_LARGE, what);
            snprintf(what, sizeof(what), "%s: k + 1 bytes", names[i]);
            memset(in, 0, k + 1);
            in[k] = 0x01;
            decrypt_fails(ks, &modes[i], in, k + 1, R_WRONG_INPUT_LENGTH, what);
            snprintf(what, sizeof(what), "%s: empty", names[i]);
            decrypt_fails(ks, &modes[i], in, 0, R_WRONG_INPUT_LENGTH, what);
        }
        BN_free(n);
        n = NULL;
    }
}

/*
 * The implicit-rejection message written here from draft-irtf-cfrg-rsa-guidance with the
 * conventions of OpenSSL 3.2, independently of padding/pkcs1_synthetic.c, on OpenSSL's
 * HMAC-SHA256:
 *   KDK = HMAC-SHA256(key = SHA-256(d as k bytes), ciphertext as k bytes)
 *   PRF(label, L bytes) = HMAC(KDK, i16 || label || (8L)16) for i = 0, 1, ..., cut to L
 *   candidates = PRF("length", 256): 128 big-endian 16-bit values, each masked to the bit
 *   length of k - 10; the last one below k - 10 is the length (0 if none is)
 *   message = the last `length` bytes of PRF("message", k)
 */
static void ref_hmac(const unsigned char *key, size_t keylen, const unsigned char *data,
                     size_t len, unsigned char out[32])
{
    size_t outlen = 0;

    assert_non_null(EVP_Q_mac(env.libctx, "HMAC", TU_PROPQ_DEFAULT, "SHA256", NULL, key,
                              keylen, data, len, out, 32, &outlen));
    assert_int_equal(outlen, 32);
}

static void ref_prf(const unsigned char kdk[32], const char *label, unsigned char *out,
                    size_t outlen)
{
    unsigned char in[2 + 16 + 2], block[32];
    size_t llen = strlen(label), pos, take;
    unsigned int i = 0;

    assert_true(llen <= 16 && outlen * 8 <= 0xffff);
    memcpy(in + 2, label, llen);
    in[2 + llen] = (unsigned char)((outlen * 8) >> 8);
    in[3 + llen] = (unsigned char)(outlen * 8);
    for (pos = 0; pos < outlen; pos += take, i++) {
        in[0] = (unsigned char)(i >> 8);
        in[1] = (unsigned char)i;
        ref_hmac(kdk, 32, in, llen + 4, block);
        take = outlen - pos < 32 ? outlen - pos : 32;
        memcpy(out + pos, block, take);
    }
}

/* msg := the synthetic message for ciphertext ct (ctlen <= k bytes) under key; its length. */
static size_t ref_synthetic(EVP_PKEY *key, const unsigned char *ct, size_t ctlen,
                            unsigned char *msg)
{
    unsigned char dbuf[MAX_K], d_hash[32], kdk[32], cand[256], syn[MAX_K], padded[MAX_K];
    size_t k = (size_t)EVP_PKEY_get_size(key), i, mask, c, len = 0;
    unsigned int dlen = 0;
    BIGNUM *d = NULL;

    assert_true(k <= MAX_K && ctlen <= k);
    assert_int_equal(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_D, &d), 1);
    assert_int_equal(BN_bn2binpad(d, dbuf, (int)k), (int)k);
    BN_clear_free(d);
    assert_int_equal(EVP_Digest(dbuf, k, d_hash, &dlen, EVP_sha256(), NULL), 1);
    memset(padded, 0, k - ctlen);
    memcpy(padded + k - ctlen, ct, ctlen);
    ref_hmac(d_hash, 32, padded, k, kdk);
    ref_prf(kdk, "length", cand, sizeof(cand));
    ref_prf(kdk, "message", syn, k);
    for (mask = k - 10; mask & (mask + 1); mask |= mask >> 1)
        ;
    for (i = 0; i < sizeof(cand); i += 2) {
        c = (((size_t)cand[i] << 8) | cand[i + 1]) & mask;
        if (c < k - 10)
            len = c;
    }
    memcpy(msg, syn + k - len, len);
    return len;
}

/* The reference reproduces OpenSSL 3.2's known answers for every invalid ciphertext. */
static void test_ir_reference_matches_openssl_32(void **state)
{
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    unsigned char ct[MAX_K], want[MAX_K], got[MAX_K], pt[MAX_K];
    size_t v, ctlen, wantlen, gotlen, ptlen, checked = 0;
    (void)state;

    for (v = 0; v < sizeof(ir_vectors) / sizeof(ir_vectors[0]); v++) {
        const struct ir_vector *tv = &ir_vectors[v];
        BIO *bio = BIO_new_mem_buf(tv->key_pem, -1);
        EVP_PKEY *key;

        assert_non_null(bio);
        key = PEM_read_bio_PrivateKey_ex(bio, NULL, NULL, NULL, env.libctx, TU_PROPQ_DEFAULT);
        BIO_free(bio);
        assert_non_null(key);
        ctlen = strlen(tv->ct_hex) / 2;
        assert_true(tu_unhex(tv->ct_hex, ct, ctlen));
        /* Valid padding (the default provider decrypts it): no synthetic message. */
        ptlen = sizeof(pt);
        if (run(key, TU_PROPQ_DEFAULT, 1, &pk_noir, ct, ctlen, pt, &ptlen)) {
            EVP_PKEY_free(key);
            continue;
        }
        ERR_clear_error();
        if (tv->out_hex != NULL) {
            wantlen = strlen(tv->out_hex) / 2;
            assert_true(tu_unhex(tv->out_hex, want, wantlen));
        } else {
            wantlen = strlen(tv->out_text);
            memcpy(want, tv->out_text, wantlen);
        }
        gotlen = ref_synthetic(key, ct, ctlen, got);
        if (gotlen != wantlen || memcmp(got, want, wantlen) != 0)
            fail_msg("reference implicit rejection disagrees with OpenSSL 3.2 on \"%s\" "
                     "(%zu bytes, want %zu)", tv->what, gotlen, wantlen);
        checked++;
        EVP_PKEY_free(key);
    }
    assert_true(checked >= 5);
}

/*
 * For each key size, malformed ciphertexts decrypt (implicit rejection on) to the
 * reference's synthetic message, every time the same, and fail with explicit rejection.
 */
static void test_implicit_rejection_matrix(void **state)
{
    const struct cfg pk = { "pkcs1", 0, NULL, NULL, NULL, -1, 0, 0 };
    const struct cfg pk_noir = { "pkcs1", 0, NULL, NULL, NULL, 0, 0, 0 };
    const struct cfg oaep = { "oaep", 0, NULL, NULL, NULL, -1, 0, 0 };
    unsigned char ct[MAX_K], pt[MAX_K], pt2[MAX_K], want[MAX_K], msg[32];
    size_t s, t, k, ctlen, len, len2, wantlen;
    char what[96];
    (void)state;

    for (s = 0; s < N_KEYS; s++) {
        const struct keyset *ks = &keys[s];

        k = ks->bits / 8;
        for (t = 0; t < 6; t++) {
            /* t = 0, 1: an OAEP ciphertext; 2, 3: random below n; 4, 5: a PKCS#1
             * ciphertext with one byte changed. */
            assert_int_equal(RAND_bytes(msg, sizeof(msg)), 1);
            ctlen = sizeof(ct);
            if (t < 2) {
                assert_true(run(ks->oracle, TU_PROPQ_DEFAULT, 0, &oaep, msg, sizeof(msg), ct,
                                &ctlen));
            } else if (t < 4) {
                assert_int_equal(RAND_bytes(ct, (int)k), 1);
                ct[0] = 0x00;
                ctlen = k;
            } else {
                assert_true(run(ks->oracle, TU_PROPQ_DEFAULT, 0, &pk, msg, sizeof(msg), ct,
                                &ctlen));
                ct[k - 1 - t] ^= 0x80;
            }
            snprintf(what, sizeof(what), "%zu bits, malformed ciphertext %zu", ks->bits, t);
            /* Malformed for sure: the default provider (explicit rejection) refuses it. */
            len = sizeof(pt);
            if (run(ks->oracle, TU_PROPQ_DEFAULT, 1, &pk_noir, ct, ctlen, pt, &len))
                continue; /* a valid padding by chance: nothing to test */
            ERR_clear_error();
            decrypt_fails(ks, &pk_noir, ct, ctlen, R_PADDING_FAILED, what);

            wantlen = ref_synthetic(ks->oracle, ct, ctlen, want);
            assert_true(wantlen <= k - 11);
            len = sizeof(pt);
            if (!run(ks->priv, tu_propq(), 1, &pk, ct, ctlen, pt, &len))
                fail_msg("%s: implicit rejection reported an error", what);
            assert_int_equal(ERR_peek_error(), 0);
            if (len != wantlen || memcmp(pt, want, wantlen) != 0)
                fail_msg("%s: synthetic message of %zu bytes, the draft gives %zu", what, len,
                         wantlen);
            len2 = sizeof(pt2);
            assert_true(run(ks->priv, tu_propq(), 1, &pk, ct, ctlen, pt2, &len2));
            assert_int_equal(len2, len);
            assert_memory_equal(pt2, pt, len);
            /* Left-padded to k or not, the ciphertext is the same number. */
            if (ct[0] == 0x00) {
                len2 = sizeof(pt2);
                assert_true(run(ks->priv, tu_propq(), 1, &pk, ct + 1, ctlen - 1, pt2, &len2));
                assert_int_equal(len2, len);
                assert_memory_equal(pt2, pt, len);
            }
        }
    }
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
        cmocka_unit_test(test_oaep_matrix),
        cmocka_unit_test(test_pkcs1_matrix),
        cmocka_unit_test(test_decrypt_input_errors),
        cmocka_unit_test(test_error_queue_around_decrypt),
        cmocka_unit_test(test_ir_reference_matches_openssl_32),
        cmocka_unit_test(test_implicit_rejection_matrix),
    };

    return cmocka_run_group_tests_name("asym_cipher", tests, setup, teardown);
}
