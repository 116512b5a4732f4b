/*
 * Keys the engine cannot compute with (issue 21, item 7): moduli of fewer than 512 or more
 * than 16384 bits, and an even n. OpenSSL's default provider imports them and refuses or
 * runs each operation later; the provider under test must import them too (bits, security
 * bits, size, export, duplicate and match as the default answers) and refuse each
 * operation at the stage where the default refuses it (init or the operation), raising an
 * error. Where the default computes (a 511-bit key signs; a 32-bit key encrypts raw; a
 * 16385-bit private key signs, though no OpenSSL can verify what it signs), the provider
 * under test refuses at the operation, with its reason: that is the one expected
 * difference (README, "What ctrsa accepts"), counted and printed.
 *
 * test_zero_numbers: keys whose n, e or d is present and zero, from OpenSSL 3.0's
 * evp_extra_test test_RSA_get_set_params (n = e = d = 0, whose steps it repeats on both
 * providers) and a 1024-bit key with e = 0 or d = 0; an absent n or e is still refused, on
 * both. With d = 0 and a computable n, e the public operations run and the private ones are
 * refused ("d is zero"), where the default "signs" with x^0 = 1.
 *
 * test_private_numbers: a d not below n (d + m * lambda(n), with and without the factors;
 * n + 2) and a zero d with the factors, which the default imports and computes with; the
 * provider under test imports them, computes their public part and refuses each private
 * operation, and every check must give the default's verdict. And n = 0 with a non-zero d,
 * whose private-key check alone the default refuses (d < n).
 *
 * The keys: the 32-bit key and the 2050-byte n of OpenSSL 3.0's evp_pkey_provided_test
 * (its n is even), a 511-bit key of two primes, a random odd 16385-bit n with a random d,
 * an even 2048-bit n; each as a key pair and as a public key. On a public key only the
 * public operations run (a private operation with a public key is refused at init by the
 * provider under test whatever the key's size, a difference outside this test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "testutil.h"

static tu_env env;

enum stage { REFUSED_AT_INIT, REFUSED_AT_OP, DONE };
static const char *const stage_name[] = { "refused at init", "refused at the operation",
                                          "done" };

#define BUF 4096

/* One operation: init (0 if refused) and run (1 on success) on ctx, for a key of k bytes. */
typedef struct op {
    const char *name;
    int is_private;
    int (*init)(EVP_PKEY_CTX *ctx);
    int (*run)(EVP_PKEY_CTX *ctx, size_t k);
    int is_check;   /* a key check: no separate init, no operation context */
} op;

static unsigned char in[BUF], out[BUF], md[32];

static int init_sign_pkcs1(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1
           && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1;
}
static int init_sign_pss(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_sign_init(c) == 1
           && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PSS_PADDING) == 1
           && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1;
}
static int init_sign_raw(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING) == 1;
}
static int run_sign_md(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    (void)k;
    return EVP_PKEY_sign(c, out, &len, md, sizeof(md)) == 1;
}
static int run_sign_raw(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    return EVP_PKEY_sign(c, out, &len, in, k) == 1;
}
static int init_verify_pkcs1(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_verify_init(c) == 1
           && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1
           && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1;
}
static int init_verify_raw(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_verify_init(c) == 1 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING) == 1;
}
static int run_verify_md(EVP_PKEY_CTX *c, size_t k)
{
    return EVP_PKEY_verify(c, in, k, md, sizeof(md)) == 1;
}
static int run_verify_raw(EVP_PKEY_CTX *c, size_t k)
{
    return EVP_PKEY_verify(c, in, k, in, k) == 1;
}
static int init_recover_raw(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_verify_recover_init(c) == 1
           && EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING) == 1;
}
static int run_recover(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    return EVP_PKEY_verify_recover(c, out, &len, in, k) == 1;
}
static int init_enc_oaep(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_encrypt_init(c) == 1
           && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_OAEP_PADDING) == 1;
}
static int init_enc_raw(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_encrypt_init(c) == 1 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING) == 1;
}
static int run_enc_short(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    (void)k;
    return EVP_PKEY_encrypt(c, out, &len, md, 1) == 1;
}
static int run_enc_raw(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    return EVP_PKEY_encrypt(c, out, &len, in, k) == 1;
}
static int init_dec_pkcs1(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_decrypt_init(c) == 1
           && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1;
}
static int init_dec_raw(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_decrypt_init(c) == 1 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING) == 1;
}
static int run_dec(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    return EVP_PKEY_decrypt(c, out, &len, in, k) == 1;
}
static int init_encap(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_encapsulate_init(c, NULL) == 1 && EVP_PKEY_CTX_set_kem_op(c, "RSASVE") == 1;
}
static int run_encap(EVP_PKEY_CTX *c, size_t k)
{
    size_t olen = sizeof(out), slen = sizeof(in);
    unsigned char secret[BUF];
    (void)k;
    return EVP_PKEY_encapsulate(c, out, &olen, secret, &slen) == 1;
}
static int init_decap(EVP_PKEY_CTX *c)
{
    return EVP_PKEY_decapsulate_init(c, NULL) == 1 && EVP_PKEY_CTX_set_kem_op(c, "RSASVE") == 1;
}
static int run_decap(EVP_PKEY_CTX *c, size_t k)
{
    size_t len = sizeof(out);
    /* libcrypto refuses an empty ciphertext itself, silently: for a key of 0 bytes (n = 0)
     * one byte reaches the provider */
    return EVP_PKEY_decapsulate(c, out, &len, in, k > 0 ? k : 1) == 1;
}
static int init_none(EVP_PKEY_CTX *c)
{
    (void)c;
    return 1;
}
static int run_check(EVP_PKEY_CTX *c, size_t k)
{
    (void)k;
    return EVP_PKEY_check(c) == 1;
}
static int run_public_check(EVP_PKEY_CTX *c, size_t k)
{
    (void)k;
    return EVP_PKEY_public_check(c) == 1;
}
static int run_private_check(EVP_PKEY_CTX *c, size_t k)
{
    (void)k;
    return EVP_PKEY_private_check(c) == 1;
}
static int run_pairwise_check(EVP_PKEY_CTX *c, size_t k)
{
    (void)k;
    return EVP_PKEY_pairwise_check(c) == 1;
}

static int run_param_check(EVP_PKEY_CTX *c, size_t k)
{
    (void)k;
    return EVP_PKEY_param_check(c) == 1;
}

static const op ops[] = {
    { "sign PKCS#1 v1.5", 1, init_sign_pkcs1, run_sign_md, 0 },
    { "sign PSS", 1, init_sign_pss, run_sign_md, 0 },
    { "sign raw", 1, init_sign_raw, run_sign_raw, 0 },
    { "verify PKCS#1 v1.5", 0, init_verify_pkcs1, run_verify_md, 0 },
    { "verify raw", 0, init_verify_raw, run_verify_raw, 0 },
    { "verify-recover raw", 0, init_recover_raw, run_recover, 0 },
    { "encrypt OAEP", 0, init_enc_oaep, run_enc_short, 0 },
    { "encrypt raw", 0, init_enc_raw, run_enc_raw, 0 },
    { "decrypt PKCS#1 v1.5", 1, init_dec_pkcs1, run_dec, 0 },
    { "decrypt raw", 1, init_dec_raw, run_dec, 0 },
    { "KEM encapsulate", 0, init_encap, run_encap, 0 },
    { "KEM decapsulate", 1, init_decap, run_decap, 0 },
    { "check", 1, init_none, run_check, 1 },
    { "public check", 0, init_none, run_public_check, 1 },
    { "private check", 1, init_none, run_private_check, 1 },
    { "pairwise check", 1, init_none, run_pairwise_check, 1 },
    { "param check", 0, init_none, run_param_check, 1 },
};

/* The text and library of the first error of the last run_op (the provider's
 * explanation; ERR_LIB_EVP when libcrypto refused before any provider was called). */
static char last_data[256];
static int last_lib;

/* Run o on key through propq; for the provider under test, check where it ran. */
static enum stage run_op(EVP_PKEY *key, const op *o, const char *propq, int in_test,
                         char *reason, size_t reason_len)
{
    const char *data = NULL;
    int flags = 0;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    enum stage st;
    unsigned long e;

    assert_non_null(ctx);
    ERR_clear_error();
    reason[0] = '\0';
    if (!o->init(ctx)) {
        st = REFUSED_AT_INIT;
    } else {
        if (in_test && !o->is_check)
            assert_true(tu_ctx_in_provider(ctx));
        st = o->run(ctx, (size_t)EVP_PKEY_get_size(key)) ? DONE : REFUSED_AT_OP;
    }
    /* The first error raised is the reason (EVP adds its own after a provider's). */
    if ((e = ERR_peek_error()) != 0 && ERR_reason_error_string(e) != NULL)
        snprintf(reason, reason_len, "%s", ERR_reason_error_string(e));
    last_data[0] = '\0';
    last_lib = e != 0 ? ERR_GET_LIB(e) : 0;
    if (ERR_peek_error_data(&data, &flags) != 0 && (flags & ERR_TXT_STRING) != 0)
        snprintf(last_data, sizeof(last_data), "%s", data);
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
    return st;
}

static EVP_PKEY *import(const OSSL_PARAM *params, int selection, const char *propq)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    EVP_PKEY *key = NULL;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    if (EVP_PKEY_fromdata(ctx, &key, selection, (OSSL_PARAM *)params) != 1) {
        tu_print_errors("import");
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/* The same export (parameter names and values) from both keys. */
static void same_export(const EVP_PKEY *want, const EVP_PKEY *got)
{
    OSSL_PARAM *wp = NULL, *gp = NULL;

    assert_int_equal(EVP_PKEY_todata(want, EVP_PKEY_KEYPAIR, &wp), 1);
    assert_int_equal(EVP_PKEY_todata(got, EVP_PKEY_KEYPAIR, &gp), 1);
    for (const OSSL_PARAM *p = wp; p->key != NULL; p++) {
        const OSSL_PARAM *q = OSSL_PARAM_locate_const(gp, p->key);
        BIGNUM *a = NULL, *b = NULL;

        if (q == NULL)
            fail_msg("export lacks %s", p->key);
        assert_int_equal(OSSL_PARAM_get_BN(p, &a), 1);
        assert_int_equal(OSSL_PARAM_get_BN(q, &b), 1);
        if (BN_cmp(a, b) != 0)
            fail_msg("export: %s differs", p->key);
        BN_free(a);
        BN_free(b);
    }
    for (const OSSL_PARAM *p = gp; p->key != NULL; p++)
        if (OSSL_PARAM_locate_const(wp, p->key) == NULL)
            fail_msg("export has %s, the default's does not", p->key);
    OSSL_PARAM_free(wp);
    OSSL_PARAM_free(gp);
}

static int expected_differences;
/* When set: each key check (EVP_PKEY_check and its family) must give the default's verdict,
 * with an error of its own when it fails; the checks are arithmetic on the numbers, not
 * operations the engine refuses. */
static int strict_checks;
/* When set: the text each refusal with the key's reason must contain (compare_key). */
static const char *want_why;

/* One key through every operation on both providers. want_reason: what the provider
 * under test raises when it refuses at the operation (only the private operations' refusals
 * when private_only: a key whose public part computes, whose public operations may fail for
 * their own reasons, a signature that does not verify). */
static void compare_key(const char *name, const OSSL_PARAM *params, int selection,
                        const char *want_reason, int private_only)
{
    EVP_PKEY *deflt = import(params, selection, TU_PROPQ_DEFAULT);
    EVP_PKEY *tested = import(params, selection, tu_propq());
    int is_pair = selection == EVP_PKEY_KEYPAIR;
    EVP_PKEY *dup;

    fprintf(stderr, "key %s (%s)\n", name, is_pair ? "key pair" : "public key");
    if (deflt == NULL) {
        /* the running core's default refuses the import (3.4+: d or a factor wider than
         * n): the provider under test must refuse it too */
        if (tested != NULL)
            fail_msg("%s: the default provider refuses it, the provider under test imports it",
                     name);
        return;
    }
    if (tested == NULL)
        fail_msg("%s: the default provider imports it, the provider under test does not", name);
    assert_true(tu_pkey_in_named_provider(tested, tu_provider_name()));
    assert_int_equal(EVP_PKEY_get_bits(tested), EVP_PKEY_get_bits(deflt));
    assert_int_equal(EVP_PKEY_get_security_bits(tested), EVP_PKEY_get_security_bits(deflt));
    assert_int_equal(EVP_PKEY_get_size(tested), EVP_PKEY_get_size(deflt));
    same_export(deflt, tested);
    /* get_params too (EVP_PKEY_get_bn_param retries with a larger buffer for a 2050-byte n,
     * as evp_pkey_provided_test's test_evp_pkey_get_bn_param_large does) */
    for (int i = 0; i < (is_pair ? 3 : 2); i++) {
        static const char *const names[] = { OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E,
                                             OSSL_PKEY_PARAM_RSA_D };
        BIGNUM *a = NULL, *b = NULL;

        assert_int_equal(EVP_PKEY_get_bn_param(deflt, names[i], &a), 1);
        if (EVP_PKEY_get_bn_param(tested, names[i], &b) != 1 || BN_cmp(a, b) != 0)
            fail_msg("%s: get_params %s differs from the default's", name, names[i]);
        BN_free(a);
        BN_free(b);
    }
    dup = EVP_PKEY_dup(tested);
    assert_non_null(dup);
    assert_int_equal(EVP_PKEY_eq(tested, dup), 1);
    same_export(deflt, dup);
    EVP_PKEY_free(dup);

    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        const op *o = &ops[i];
        char rd[256], rt[256];
        enum stage sd, st;

        if (o->is_private && !is_pair)
            continue;
        sd = run_op(deflt, o, TU_PROPQ_DEFAULT, 0, rd, sizeof(rd));
        st = run_op(tested, o, tu_propq(), 1, rt, sizeof(rt));
        fprintf(stderr, "  %-20s default: %s%s%s%s; %s: %s%s%s%s\n", o->name, stage_name[sd],
                rd[0] ? " (" : "", rd, rd[0] ? ")" : "", tu_provider_name(), stage_name[st],
                rt[0] ? " (" : "", rt, rt[0] ? ")" : "");
        if (strict_checks && o->is_check && sd != st)
            fail_msg("%s, %s: the default %s, the provider under test %s (a check gives the "
                     "default's verdict)", name, o->name, stage_name[sd], stage_name[st]);
        if (sd == DONE && st != DONE) {
            /* the expected difference: no arithmetic on such a modulus */
            if (st != REFUSED_AT_OP)
                fail_msg("%s, %s: the default computes; the provider under test must refuse "
                         "at the operation, not at init", name, o->name);
            expected_differences++;
        } else if (st != sd) {
            fail_msg("%s, %s: the default %s, the provider under test %s", name, o->name,
                     stage_name[sd], stage_name[st]);
        }
        if (st != DONE && rt[0] == '\0')
            fail_msg("%s, %s: refused without an error", name, o->name);
        /* Refused at the operation: with the key's reason (an init refusal is the same for
         * any key, e.g. a PSS digest the key is too small for; a private-key check alone
         * asks about d only), unless libcrypto refused before calling either provider with
         * the same reason (OpenSSL 3.5's EVP_PKEY_sign on a key of size 0: "unknown max
         * size"). */
        if (st == REFUSED_AT_OP && (o->is_private || !private_only)
            && strcmp(o->name, "private check") != 0 && !(strict_checks && o->is_check)
            && !(last_lib == ERR_LIB_EVP && strcmp(rt, rd) == 0)) {
            if (strcmp(rt, want_reason) != 0)
                fail_msg("%s, %s: reason '%s', expected '%s'", name, o->name, rt, want_reason);
            if (want_why != NULL && strstr(last_data, want_why) == NULL)
                fail_msg("%s, %s: the error says '%s', expected '%s' in it", name, o->name,
                         last_data, want_why);
        }
    }
    EVP_PKEY_free(deflt);
    EVP_PKEY_free(tested);
}

/* n, e and optionally d, p, q, dP, dQ, qInv as parameters. */
static OSSL_PARAM *params_of(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
                             BIGNUM *const crt[5])
{
    static const char *const names[] = {
        OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_EXPONENT1,
        OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
    };
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;

    assert_non_null(bld);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n), 1);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e), 1);
    if (d != NULL)
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d), 1);
    for (int i = 0; crt != NULL && i < 5; i++)
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, names[i], crt[i]), 1);
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
    OSSL_PARAM_BLD_free(bld);
    return params;
}

static void both(const char *name, const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
                 BIGNUM *const crt[5], const char *reason)
{
    OSSL_PARAM *pair = params_of(n, e, d, crt), *pub = params_of(n, e, NULL, NULL);

    compare_key(name, pair, EVP_PKEY_KEYPAIR, reason, 0);
    compare_key(name, pub, EVP_PKEY_PUBLIC_KEY, reason, 0);
    OSSL_PARAM_free(pair);
    OSSL_PARAM_free(pub);
}

static void test_key_sizes(void **state)
{
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *n = BN_new(), *e = BN_new(), *d = BN_new(), *crt[5], *t = BN_new();
    unsigned char big[2050];

    (void)state;
    for (int i = 0; i < 5; i++)
        crt[i] = BN_new();
    memset(md, 0x11, sizeof(md));
    memset(in, 0, sizeof(in));
    assert_int_equal(BN_set_word(e, 65537), 1);

    /* OpenSSL 3.0's evp_pkey_provided_test: a 32-bit key (openssl genrsa 32, 1.0.2) */
    BN_set_word(n, 0xbc747fc5);
    BN_set_word(d, 0x7b133399);
    BN_set_word(crt[0], 0xe963);
    BN_set_word(crt[1], 0xceb7);
    BN_set_word(crt[2], 0x8599);
    BN_set_word(crt[3], 0xbd87);
    BN_set_word(crt[4], 0xcc3b);
    in[3] = 2;
    strict_checks = 1;
    both("32-bit", n, e, d, crt, "RSA key too small");

    /* A 511-bit key of two primes (256 and 255 bits) */
    do {
        assert_int_equal(BN_generate_prime_ex(crt[0], 256, 0, NULL, NULL, NULL), 1);
        assert_int_equal(BN_generate_prime_ex(crt[1], 255, 0, NULL, NULL, NULL), 1);
        assert_int_equal(BN_mul(n, crt[0], crt[1], bctx), 1);
    } while (BN_num_bits(n) != 511);
    {
        BIGNUM *p1 = BN_new(), *q1 = BN_new(), *phi = BN_new();
        BN_sub(p1, crt[0], BN_value_one());
        BN_sub(q1, crt[1], BN_value_one());
        BN_mul(phi, p1, q1, bctx);
        assert_non_null(BN_mod_inverse(d, e, phi, bctx));
        BN_mod(crt[2], d, p1, bctx);
        BN_mod(crt[3], d, q1, bctx);
        assert_non_null(BN_mod_inverse(crt[4], crt[1], crt[0], bctx));
        BN_free(p1);
        BN_free(q1);
        BN_free(phi);
    }
    memset(in, 0, sizeof(in));
    in[63] = 2;
    both("511-bit", n, e, d, crt, "RSA key too small");

    /* OpenSSL 3.0's evp_pkey_provided_test: an n of 2050 bytes of 0xCE (16400 bits, even)
     * with a 4-byte d */
    memset(big, 0xCE, sizeof(big));
    assert_non_null(BN_bin2bn(big, sizeof(big), n));
    BN_set_word(d, 0x7b133399);
    memset(in, 0, sizeof(in));
    in[2049] = 2;
    both("16400-bit", n, e, d, NULL, "modulus too large");

    /* A random odd 16385-bit n with a random 64-bit d: the default's private operations
     * compute with it (OpenSSL bounds n at 16384 bits in its public operations only). A
     * short d keeps each of its private operations to milliseconds (a full-length one takes
     * seconds, minutes under qemu); the verdicts are the same. */
    assert_int_equal(BN_rand(n, 16385, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    assert_int_equal(BN_rand(d, 64, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD), 1);
    memset(in, 0, sizeof(in));
    in[2048] = 2;
    both("16385-bit", n, e, d, NULL, "modulus too large");

    /* An even 2048-bit n, public */
    {
        OSSL_PARAM *pub;
        assert_int_equal(BN_rand(n, 2048, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY), 1);
        assert_int_equal(BN_clear_bit(n, 0), 1);
        pub = params_of(n, e, NULL, NULL);
        memset(in, 0, sizeof(in));
        in[255] = 2;
        compare_key("even 2048-bit", pub, EVP_PKEY_PUBLIC_KEY, "invalid key", 0);
        OSSL_PARAM_free(pub);
    }
    strict_checks = 0;
    fprintf(stderr, "%d operations computed by the default provider and refused by %s (the "
            "expected difference)\n", expected_differences, tu_provider_name());

    for (int i = 0; i < 5; i++)
        BN_free(crt[i]);
    BN_free(n);
    BN_free(e);
    BN_free(d);
    BN_free(t);
    BN_CTX_free(bctx);
}

/*
 * OpenSSL 3.0's evp_extra_test test_EVP_PKEY_CTX_get_set_params, step by step, on key
 * through propq: the number of steps that succeed before the first that fails (all of them:
 * GET_SET_STEPS). in_test: each context must run in the provider under test.
 */
#define GET_SET_STEPS 12
static int get_set_params_steps(EVP_PKEY *key, const char *propq, int in_test)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    EVP_MD_CTX *mdctx = NULL;
    const OSSL_PARAM *params;
    OSSL_PARAM ours[2];
    const EVP_MD *md = NULL;
    char mdname[50];   /* OpenSSL's internal OSSL_MAX_NAME_SIZE */
    unsigned char ssl3ms[48];
    int step = 0;

    ERR_clear_error();
    /* 1: a sign operation starts on the key */
    if (ctx == NULL || EVP_PKEY_sign_init(ctx) <= 0)
        goto end;
    if (in_test)
        assert_true(tu_ctx_in_provider(ctx));
    step++;
    /* 2, 3: its settable parameters name the digest; its gettable ones the algorithm id
     * and the digest */
    params = EVP_PKEY_CTX_settable_params(ctx);
    if (params == NULL || OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST) == NULL)
        goto end;
    step++;
    params = EVP_PKEY_CTX_gettable_params(ctx);
    if (params == NULL
        || OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID) == NULL
        || OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST) == NULL)
        goto end;
    step++;
    /* 4, 5: the digest set by name reads back */
    strcpy(mdname, "SHA512");
    ours[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, mdname, 0);
    ours[1] = OSSL_PARAM_construct_end();
    if (!EVP_PKEY_CTX_set_params(ctx, ours))
        goto end;
    step++;
    mdname[0] = '\0';
    ours[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, mdname,
                                               sizeof(mdname));
    if (!EVP_PKEY_CTX_get_params(ctx, ours) || strcmp(mdname, "SHA512") != 0)
        goto end;
    step++;
    /* 6, 7: the digest set as an EVP_MD reads back as the same EVP_MD */
    if (EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) <= 0)
        goto end;
    step++;
    if (EVP_PKEY_CTX_get_signature_md(ctx, &md) <= 0 || md != EVP_sha256())
        goto end;
    step++;
    /* 8: a DigestSign with SHA1 starts on the key */
    mdctx = EVP_MD_CTX_new();
    assert_non_null(mdctx);
    if (!EVP_DigestSignInit_ex(mdctx, NULL, "SHA1", env.libctx, propq, key, NULL))
        goto end;
    if (in_test)
        assert_true(tu_ctx_in_provider(EVP_MD_CTX_get_pkey_ctx(mdctx)));
    step++;
    /* 9, 10: the digest's settable parameters through the signature: ssl3-ms alone */
    params = EVP_MD_CTX_settable_params(mdctx);
    if (params == NULL || params[0].key == NULL)
        goto end;
    step++;
    if (strcmp(params[0].key, OSSL_DIGEST_PARAM_SSL3_MS) != 0 || params[1].key != NULL)
        goto end;
    step++;
    /* 11: and set */
    memset(ssl3ms, 0, sizeof(ssl3ms));
    ours[0] = OSSL_PARAM_construct_octet_string(OSSL_DIGEST_PARAM_SSL3_MS, ssl3ms,
                                                sizeof(ssl3ms));
    ours[1] = OSSL_PARAM_construct_end();
    if (!EVP_MD_CTX_set_params(mdctx, ours))
        goto end;
    step++;
    /* 12: the whole sequence ran */
    step++;
end:
    if (step < GET_SET_STEPS)
        tu_print_errors("get/set params");
    ERR_clear_error();
    EVP_MD_CTX_free(mdctx);
    EVP_PKEY_CTX_free(ctx);
    return step;
}

/* n, e and d (each NULL for absent) as OSSL_PARAM_BLD_push_BN makes them: a zero BIGNUM as
 * one zero byte. */
static OSSL_PARAM *numbers_of(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d)
{
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;

    assert_non_null(bld);
    if (n != NULL)
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n), 1);
    if (e != NULL)
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e), 1);
    if (d != NULL)
        assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d), 1);
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
    OSSL_PARAM_BLD_free(bld);
    return params;
}

/*
 * Size queries (a NULL output buffer) on key through propq: verdict and length of each, for
 * sign, verify-recover, encrypt, decrypt and RSASVE's two. A key of 0 bytes (n = 0) has no
 * size to give: OpenSSL 3.0's default provider refuses the cipher and KEM queries.
 */
#define SIZE_QUERIES 6
static void size_queries(EVP_PKEY *key, const char *propq, int in_test, int ok[],
                         size_t len[])
{
    for (int i = 0; i < SIZE_QUERIES; i++) {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
        size_t l2 = 0;
        int init;

        assert_non_null(c);
        len[i] = 0;
        switch (i) {
        case 0: init = EVP_PKEY_sign_init(c) == 1; break;
        case 1: init = EVP_PKEY_verify_recover_init(c) == 1; break;
        case 2: init = EVP_PKEY_encrypt_init(c) == 1; break;
        case 3: init = EVP_PKEY_decrypt_init(c) == 1; break;
        case 4: init = init_encap(c); break;
        default: init = init_decap(c); break;
        }
        if (init && in_test)
            assert_true(tu_ctx_in_provider(c));
        switch (i) {
        case 0: ok[i] = init && EVP_PKEY_sign(c, NULL, &len[i], md, sizeof(md)) == 1; break;
        case 1: ok[i] = init && EVP_PKEY_verify_recover(c, NULL, &len[i], in, 1) == 1; break;
        case 2: ok[i] = init && EVP_PKEY_encrypt(c, NULL, &len[i], md, 1) == 1; break;
        case 3: ok[i] = init && EVP_PKEY_decrypt(c, NULL, &len[i], in, 1) == 1; break;
        case 4: ok[i] = init && EVP_PKEY_encapsulate(c, NULL, &len[i], NULL, &l2) == 1; break;
        default: ok[i] = init && EVP_PKEY_decapsulate(c, NULL, &len[i], in, 1) == 1; break;
        }
        if (!init)
            ok[i] = -1;      /* 1: answered, 0: the query refused, -1: the init refused */
        ERR_clear_error();
        EVP_PKEY_CTX_free(c);
    }
}

/*
 * A key whose n, e or d is present and zero, as OpenSSL 3.0's test_RSA_get_set_params makes
 * it (EVP_PKEY_fromdata, EVP_PKEY_KEYPAIR, n = e = d = 0): on each provider the import,
 * test_EVP_PKEY_CTX_get_set_params's steps, then compare_key (sizes, export, duplicate,
 * every operation). The provider under test must get as far as the default provider.
 */
static void zero_key(const char *name, const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
                     const char *reason, const char *why, int private_only)
{
    OSSL_PARAM *params = numbers_of(n, e, d);
    EVP_PKEY *deflt = import(params, EVP_PKEY_KEYPAIR, TU_PROPQ_DEFAULT);
    EVP_PKEY *tested = import(params, EVP_PKEY_KEYPAIR, tu_propq());
    int sd = deflt != NULL ? 1 + get_set_params_steps(deflt, TU_PROPQ_DEFAULT, 0) : 0;
    int st = tested != NULL ? 1 + get_set_params_steps(tested, tu_propq(), 1) : 0;
    static const char *const names[] = { OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E,
                                         OSSL_PKEY_PARAM_RSA_D };
    const BIGNUM *given[] = { n, e, d };

    /* step 0 is the import */
    fprintf(stderr, "%s: test_RSA_get_set_params's steps: default %d of %d, %s %d\n", name,
            sd, 1 + GET_SET_STEPS, tu_provider_name(), st);
    if (st != sd)
        fail_msg("%s: the default provider gets through %d steps, the provider under test "
                 "through %d", name, sd, st);
    if (tested != NULL) {
        assert_true(tu_pkey_in_named_provider(tested, tu_provider_name()));
        /* compare_key compares them with the default's */
        fprintf(stderr, "%s: bits %d, security bits %d, size %d\n", name,
                EVP_PKEY_get_bits(tested), EVP_PKEY_get_security_bits(tested),
                EVP_PKEY_get_size(tested));
        /* the numbers read back as given, zero included */
        for (int i = 0; i < 3; i++) {
            BIGNUM *got = NULL;

            assert_int_equal(EVP_PKEY_get_bn_param(tested, names[i], &got), 1);
            if (BN_cmp(got, given[i]) != 0)
                fail_msg("%s: %s does not read back as given", name, names[i]);
            BN_free(got);
        }
        want_why = why;
        compare_key(name, params, EVP_PKEY_KEYPAIR, reason, private_only);
        want_why = NULL;
        {
            int okd[SIZE_QUERIES], okt[SIZE_QUERIES];
            size_t lend[SIZE_QUERIES], lent[SIZE_QUERIES];

            size_queries(deflt, TU_PROPQ_DEFAULT, 0, okd, lend);
            size_queries(tested, tu_propq(), 1, okt, lent);
            for (int i = 0; i < SIZE_QUERIES; i++)
                if (okd[i] != okt[i] || (okd[i] == 1 && lend[i] != lent[i]))
                    fail_msg("%s: size query %d: the default %d (%zu), the provider under "
                             "test %d (%zu)", name, i, okd[i], lend[i], okt[i], lent[i]);
        }
    }
    EVP_PKEY_free(deflt);
    EVP_PKEY_free(tested);
    OSSL_PARAM_free(params);
}

/* An absent n or e: each provider's import verdict, which must agree. */
static void absent_part(const char *name, const BIGNUM *n, const BIGNUM *e, const BIGNUM *d)
{
    OSSL_PARAM *params = numbers_of(n, e, d);
    EVP_PKEY *deflt = import(params, EVP_PKEY_KEYPAIR, TU_PROPQ_DEFAULT);
    EVP_PKEY *tested = import(params, EVP_PKEY_KEYPAIR, tu_propq());

    fprintf(stderr, "%s: default %s, %s %s\n", name, deflt ? "imports" : "refuses",
            tu_provider_name(), tested ? "imports" : "refuses");
    if ((deflt == NULL) != (tested == NULL))
        fail_msg("%s: the providers disagree on the import", name);
    EVP_PKEY_free(deflt);
    EVP_PKEY_free(tested);
    OSSL_PARAM_free(params);
}

static void test_zero_numbers(void **state)
{
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *zero = BN_new(), *n = BN_new(), *e = BN_new(), *d = BN_new();
    BIGNUM *p = BN_new(), *q = BN_new(), *phi = BN_new();

    (void)state;
    strict_checks = 1;
    memset(md, 0x11, sizeof(md));
    /* OpenSSL 3.0's test_RSA_get_set_params: three zero BIGNUMs */
    memset(in, 0, sizeof(in));
    zero_key("n = e = d = 0", zero, zero, zero, "invalid key", "n is zero", 0);

    /* A 1024-bit key of two primes, imported without its factors, with e or d zero. */
    assert_int_equal(BN_generate_prime_ex(p, 512, 0, NULL, NULL, NULL), 1);
    assert_int_equal(BN_generate_prime_ex(q, 512, 0, NULL, NULL, NULL), 1);
    assert_int_equal(BN_mul(n, p, q, bctx), 1);
    assert_int_equal(BN_sub_word(p, 1), 1);
    assert_int_equal(BN_sub_word(q, 1), 1);
    assert_int_equal(BN_mul(phi, p, q, bctx), 1);
    assert_int_equal(BN_set_word(e, 65537), 1);
    assert_non_null(BN_mod_inverse(d, e, phi, bctx));
    memset(in, 0, sizeof(in));
    in[(BN_num_bits(n) + 7) / 8 - 1] = 2;
    zero_key("1024-bit n, e = 0", n, zero, d, "invalid key", "e is zero", 0);
    /* n and e compute: the public operations run, the private ones are refused */
    zero_key("1024-bit n, d = 0", n, e, zero, "invalid key", "d is zero", 1);

    /* absent (not zero) numbers: refused on import, as before */
    absent_part("no n", NULL, zero, zero);
    absent_part("no e", zero, NULL, zero);
    absent_part("no n, e", NULL, NULL, zero);

    strict_checks = 0;
    fprintf(stderr, "%d operations computed by the default provider and refused by %s (the "
            "expected difference)\n", expected_differences, tu_provider_name());
    BN_free(zero);
    BN_free(n);
    BN_free(e);
    BN_free(d);
    BN_free(p);
    BN_free(q);
    BN_free(phi);
    BN_CTX_free(bctx);
}

/*
 * Private numbers the default provider imports and ctrsa refused on import: a d not below
 * n (congruent to the key's d modulo lambda(n), as d + lambda(n) * m, or any value), with
 * and without the factors, and a zero d given with the factors. And an n of zero with a
 * non-zero d, whose private-key check alone the default refuses (d < n does not hold).
 */
static void test_private_numbers(void **state)
{
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *zero = BN_new(), *n = BN_new(), *e = BN_new(), *d = BN_new(), *big = BN_new();
    BIGNUM *p1 = BN_new(), *q1 = BN_new(), *lambda = BN_new(), *g = BN_new();
    BIGNUM *crt[5];

    (void)state;
    for (int i = 0; i < 5; i++)
        crt[i] = BN_new();
    memset(md, 0x11, sizeof(md));
    assert_int_equal(BN_generate_prime_ex(crt[0], 512, 0, NULL, NULL, NULL), 1);
    assert_int_equal(BN_generate_prime_ex(crt[1], 512, 0, NULL, NULL, NULL), 1);
    assert_int_equal(BN_mul(n, crt[0], crt[1], bctx), 1);
    assert_int_equal(BN_sub(p1, crt[0], BN_value_one()), 1);
    assert_int_equal(BN_sub(q1, crt[1], BN_value_one()), 1);
    assert_int_equal(BN_gcd(g, p1, q1, bctx), 1);
    assert_int_equal(BN_mul(lambda, p1, q1, bctx), 1);
    assert_int_equal(BN_div(lambda, NULL, lambda, g, bctx), 1);
    assert_int_equal(BN_set_word(e, 65537), 1);
    assert_non_null(BN_mod_inverse(d, e, lambda, bctx));
    assert_int_equal(BN_mod(crt[2], d, p1, bctx), 1);
    assert_int_equal(BN_mod(crt[3], d, q1, bctx), 1);
    assert_non_null(BN_mod_inverse(crt[4], crt[1], crt[0], bctx));
    memset(in, 0, sizeof(in));
    in[(BN_num_bits(n) + 7) / 8 - 1] = 2;
    strict_checks = 1;

    /* d + lambda(n) * m >= n: the same exponent modulo lambda(n) */
    assert_int_equal(BN_div(big, NULL, n, lambda, bctx), 1);
    assert_int_equal(BN_add_word(big, 1), 1);
    assert_int_equal(BN_mul(big, big, lambda, bctx), 1);
    assert_int_equal(BN_add(big, big, d), 1);
    assert_true(BN_cmp(big, n) >= 0);
    {
        OSSL_PARAM *pq = params_of(n, e, big, crt), *nf = params_of(n, e, big, NULL);
        want_why = "d is not below n";
        compare_key("d + m lambda(n) >= n, factors", pq, EVP_PKEY_KEYPAIR, "invalid key", 1);
        compare_key("d + m lambda(n) >= n", nf, EVP_PKEY_KEYPAIR, "invalid key", 1);
        OSSL_PARAM_free(pq);
        OSSL_PARAM_free(nf);
    }
    /* d = n + 2, of no use */
    assert_int_equal(BN_copy(big, n) != NULL, 1);
    assert_int_equal(BN_add_word(big, 2), 1);
    {
        OSSL_PARAM *nf = params_of(n, e, big, NULL);
        compare_key("d = n + 2", nf, EVP_PKEY_KEYPAIR, "invalid key", 1);
        OSSL_PARAM_free(nf);
    }
    /* d = 0 with the factors and the CRT values */
    {
        OSSL_PARAM *pq = params_of(n, e, zero, crt);
        want_why = "d is zero";
        compare_key("d = 0, factors", pq, EVP_PKEY_KEYPAIR, "invalid key", 1);
        OSSL_PARAM_free(pq);
    }
    /* n = 0 with a non-zero d: the private-key check alone asks d < n */
    {
        OSSL_PARAM *z = numbers_of(zero, e, d);
        want_why = "n is zero";
        compare_key("n = 0, d != 0", z, EVP_PKEY_KEYPAIR, "invalid key", 0);
        OSSL_PARAM_free(z);
    }
    want_why = NULL;
    strict_checks = 0;
    fprintf(stderr, "%d operations computed by the default provider and refused by %s (the "
            "expected difference)\n", expected_differences, tu_provider_name());
    for (int i = 0; i < 5; i++)
        BN_free(crt[i]);
    BN_free(zero);
    BN_free(n);
    BN_free(e);
    BN_free(d);
    BN_free(big);
    BN_free(p1);
    BN_free(q1);
    BN_free(lambda);
    BN_free(g);
    BN_CTX_free(bctx);
}

/*
 * The parameters of a key of np primes (the words in w, or the BIGNUMs in big when w is
 * NULL) with the public exponent e: n their product, d = e^-1 mod lambda(n) computed as if
 * each were prime, and the CRT values when with_crt (coefficient i: the inverse of the
 * product of the primes before prime i + 1 modulo it; qInv for the first). NULL when e has
 * no inverse.
 */
static OSSL_PARAM *key_of_primes(const BN_ULONG *w, BIGNUM *const *big, int np,
                                 const BIGNUM *e, int with_crt)
{
    static const char *const fnames[] = { OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
                                          OSSL_PKEY_PARAM_RSA_FACTOR3 };
    static const char *const xnames[] = { OSSL_PKEY_PARAM_RSA_EXPONENT1,
                                          OSSL_PKEY_PARAM_RSA_EXPONENT2,
                                          OSSL_PKEY_PARAM_RSA_EXPONENT3 };
    static const char *const cnames[] = { OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
                                          OSSL_PKEY_PARAM_RSA_COEFFICIENT2 };
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *p[3], *n = BN_new(), *lambda = BN_new(), *pm1 = BN_new(), *g = BN_new();
    BIGNUM *d = BN_new(), *x, *pp = BN_new(), *kept[5];
    int nkept = 0;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;

    assert_true(np >= 2 && np <= 3);
    BN_one(n);
    BN_one(lambda);
    for (int i = 0; i < np; i++) {
        p[i] = BN_new();
        if (w != NULL)
            BN_set_word(p[i], w[i]);
        else
            BN_copy(p[i], big[i]);
        BN_mul(n, n, p[i], bctx);
        BN_sub(pm1, p[i], BN_value_one());
        BN_gcd(g, lambda, pm1, bctx);
        BN_mul(lambda, lambda, pm1, bctx);
        BN_div(lambda, NULL, lambda, g, bctx);
    }
    if (BN_mod_inverse(d, e, lambda, bctx) == NULL)
        goto end;
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d);
    for (int i = 0; i < np; i++)
        OSSL_PARAM_BLD_push_BN(bld, fnames[i], p[i]);
    /* OSSL_PARAM_BLD reads each BIGNUM when the array is made: one per value */
    for (int i = 0; with_crt && i < np; i++) {
        x = kept[nkept++] = BN_new();
        BN_sub(pm1, p[i], BN_value_one());
        BN_mod(x, d, pm1, bctx);
        OSSL_PARAM_BLD_push_BN(bld, xnames[i], x);
    }
    BN_copy(pp, p[0]);
    for (int i = 1; with_crt && i < np; i++) {
        x = kept[nkept++] = BN_new();
        if (i == 1)
            assert_non_null(BN_mod_inverse(x, p[1], p[0], bctx));
        else
            assert_non_null(BN_mod_inverse(x, pp, p[i], bctx));
        BN_mul(pp, pp, p[i], bctx);
        OSSL_PARAM_BLD_push_BN(bld, cnames[i - 1], x);
    }
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
end:
    for (int i = 0; i < np; i++)
        BN_free(p[i]);
    BN_free(n);
    BN_free(lambda);
    BN_free(pm1);
    BN_free(g);
    BN_free(d);
    for (int i = 0; i < nkept; i++)
        BN_free(kept[i]);
    BN_free(pp);
    OSSL_PARAM_BLD_free(bld);
    BN_CTX_free(bctx);
    return params;
}

/* The key of np primes through every operation as a key pair and as a public key. */
static void check_primes(const char *name, const BN_ULONG *w, BIGNUM *const *big, int np,
                         const BIGNUM *e, int with_crt, const char *reason)
{
    OSSL_PARAM *pair = key_of_primes(w, big, np, e, with_crt);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *pub;
    BIGNUM *n = NULL;

    assert_non_null(pair);
    assert_int_equal(OSSL_PARAM_get_BN(OSSL_PARAM_locate(pair, OSSL_PKEY_PARAM_RSA_N), &n), 1);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e);
    pub = OSSL_PARAM_BLD_to_param(bld);
    memset(in, 0, sizeof(in));
    in[(BN_num_bits(n) + 7) / 8 - 1] = 2;
    compare_key(name, pair, EVP_PKEY_KEYPAIR, reason, 0);
    compare_key(name, pub, EVP_PKEY_PUBLIC_KEY, reason, 0);
    OSSL_PARAM_free(pair);
    OSSL_PARAM_free(pub);
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
}

/*
 * The key checks of keys the engine cannot compute with give the default's verdicts: they
 * are arithmetic on the numbers as imported (OpenSSL 3.0's ossl_rsa_sp800_56b_check_public
 * for the public check; rsa_validate_keypair_multiprime for EVP_PKEY_check and the
 * pairwise check, with the primality of each factor), not RSA operations. test_key_sizes
 * runs its keys with strict_checks too.
 */
static void test_check_verdicts(void **state)
{
    BIGNUM *e = BN_new(), *big[2] = { BN_new(), BN_new() };
    BN_CTX *bctx = BN_CTX_new();
    /* the 32-bit key's primes, and 0xe963's square (a prime power) */
    static const BN_ULONG pq[] = { 0xe963, 0xceb7 }, pp[] = { 0xe963, 0xe963 };
    /* 3 (a small factor) times a prime; 757 * 761 (composite, no factor below 752) as a
     * "prime"; three primes of a 48-bit modulus (a two-prime size) */
    static const BN_ULONG three[] = { 3, 0xceb7 }, fake[] = { 757 * 761, 0xceb7 };
    static const BN_ULONG tri[] = { 0xe963, 0xceb7, 0xfff1 };

    (void)state;
    memset(md, 0x11, sizeof(md));
    strict_checks = 1;
    BN_set_word(e, 65537);
    check_primes("32-bit, without CRT values", pq, NULL, 2, e, 0, "RSA key too small");
    check_primes("n = p^2", pp, NULL, 2, e, 0, "RSA key too small");
    check_primes("n = 3q", three, NULL, 2, e, 1, "RSA key too small");
    check_primes("a composite factor", fake, NULL, 2, e, 1, "RSA key too small");
    check_primes("48-bit, three primes", tri, NULL, 3, e, 1, "RSA key too small");
    BN_set_word(e, 3);
    check_primes("32-bit, e = 3", pq, NULL, 2, e, 1, "RSA key too small");
    BN_set_word(e, 1);
    check_primes("32-bit, e = 1", pq, NULL, 2, e, 1, "RSA key too small");

    /* a 1024-bit key whose e is n + 2 (odd, above n): the engine refuses it, the checks
     * pass in the default provider */
    do {
        assert_int_equal(BN_generate_prime_ex(big[0], 512, 0, NULL, NULL, NULL), 1);
        assert_int_equal(BN_generate_prime_ex(big[1], 512, 0, NULL, NULL, NULL), 1);
        assert_int_equal(BN_mul(e, big[0], big[1], bctx), 1);
        assert_int_equal(BN_add_word(e, 2), 1);
        OSSL_PARAM *probe = key_of_primes(NULL, big, 2, e, 1);
        if (probe != NULL) {
            OSSL_PARAM_free(probe);
            break;
        }
    } while (1);
    check_primes("1024-bit, e = n + 2", NULL, big, 2, e, 1, "invalid key");
    strict_checks = 0;
    BN_free(e);
    BN_free(big[0]);
    BN_free(big[1]);
    BN_CTX_free(bctx);
}

static int setup(void **state)
{
    (void)state;
    return tu_env_init(&env) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_env_free(&env);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_sizes),
        cmocka_unit_test(test_zero_numbers),
        cmocka_unit_test(test_private_numbers),
        cmocka_unit_test(test_check_verdicts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
