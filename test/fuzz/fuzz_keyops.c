/*
 * The key operations shared by fuzz_keyimport and fuzz_keydecode (see fuzz_util.h):
 * every operation on the ctrsa key, differential against the default provider's copy.
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include "fuzz_util.h"

/* Operations on larger keys are skipped: they cost too much per execution. */
#define FZ_MAX_OP_BITS 4096
#define FZ_MAX_K (FZ_MAX_OP_BITS / 8)

#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif

enum fz_op { FZ_ENC, FZ_DEC, FZ_SIGN, FZ_VERIFY };

/* Which provider runs an operation. */
typedef struct side {
    EVP_PKEY *key;
    const char *propq;
    const char *name;
} side;

/*
 * One asymmetric operation on `in` with the parameters `params` (sign and verify go through
 * EVP_DigestSign/EVP_DigestVerify with digest mdname, NULL for the key's own). For FZ_VERIFY
 * `out` is the signature. Returns 1 on success, 0 on a failure (the error queue is checked
 * to hold an error when the side is ctrsa, then cleared).
 */
static int run(enum fz_op op, const side *s, const char *mdname, const OSSL_PARAM *params,
               const uint8_t *in, size_t inlen, uint8_t *out, size_t *outlen)
{
    OSSL_LIB_CTX *libctx = fz_libctx();
    EVP_PKEY_CTX *ctx = NULL;
    EVP_MD_CTX *mctx = NULL;
    int ok = 0;

    if (op == FZ_ENC || op == FZ_DEC) {
        ctx = EVP_PKEY_CTX_new_from_pkey(libctx, s->key, s->propq);
        ok = ctx != NULL
             && (op == FZ_ENC ? EVP_PKEY_encrypt_init_ex(ctx, params)
                              : EVP_PKEY_decrypt_init_ex(ctx, params)) == 1
             && (op == FZ_ENC ? EVP_PKEY_encrypt(ctx, out, outlen, in, inlen)
                              : EVP_PKEY_decrypt(ctx, out, outlen, in, inlen)) == 1;
    } else {
        mctx = EVP_MD_CTX_new();
        if (op == FZ_SIGN)
            ok = mctx != NULL
                 && EVP_DigestSignInit_ex(mctx, NULL, mdname, libctx, s->propq, s->key,
                                          params) == 1
                 && EVP_DigestSign(mctx, out, outlen, in, inlen) == 1;
        else
            ok = mctx != NULL
                 && EVP_DigestVerifyInit_ex(mctx, NULL, mdname, libctx, s->propq, s->key,
                                            params) == 1
                 && EVP_DigestVerify(mctx, out, *outlen, in, inlen) == 1;
    }
    /* Every ctrsa failure says what failed (issue 10), but a padding failure (issue 20). */
    if (!ok && strcmp(s->name, "ctrsa") == 0 && ERR_peek_error() == 0
        && !(op == FZ_DEC && fz_silent_padding_failure(ctx, inlen)))
        fz_fail("ctrsa: operation %d failed with an empty error queue", (int)op);
    EVP_PKEY_CTX_free(ctx);
    EVP_MD_CTX_free(mctx);
    ERR_clear_error();
    return ok;
}

static void params_pad(OSSL_PARAM *p, const char *pad, const char *md, const char *mgf1,
                       unsigned int *implicit)
{
    size_t i = 0;

    p[i++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, (char *)pad, 0);
    if (md != NULL)
        p[i++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST,
                                                  (char *)md, 0);
    if (mgf1 != NULL)
        p[i++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST,
                                                  (char *)mgf1, 0);
    if (implicit != NULL)
        p[i++] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION,
                                           implicit);
    p[i] = OSSL_PARAM_construct_end();
}


static void expect_same(const char *what, int ok1, const uint8_t *o1, size_t l1, int ok0,
                        const uint8_t *o0, size_t l0)
{
    if (ok1 != ok0)
        fz_fail("%s: ctrsa says %d, default says %d", what, ok1, ok0);
    if (ok1 && (l1 != l0 || memcmp(o1, o0, l1) != 0))
        fz_fail("%s: ctrsa and default give different results (%zu, %zu bytes)", what, l1,
                l0);
}

/*
 * Encryption with padding params p: decryption of the k-byte block by both (results must
 * agree), encryption of the input by both (verdicts must agree), and each provider must
 * decrypt the other's ciphertext back to the message.
 */
static void enc_dec(const char *what, const side *c, const side *d, int has_private,
                    const OSSL_PARAM *p, const uint8_t *block, size_t k, const uint8_t *data,
                    size_t len)
{
    static uint8_t o1[FZ_MAX_K], o0[FZ_MAX_K], o2[FZ_MAX_K];
    size_t mlen = len < k ? len : k, l1 = k, l0 = k, l2;
    int ok1, ok0;

    if (has_private) {
        ok1 = run(FZ_DEC, c, NULL, p, block, k, o1, &l1);
        ok0 = run(FZ_DEC, d, NULL, p, block, k, o0, &l0);
        expect_same(what, ok1, o1, l1, ok0, o0, l0);
    }
    l1 = l0 = k;
    ok1 = run(FZ_ENC, c, NULL, p, data, mlen, o1, &l1);
    ok0 = run(FZ_ENC, d, NULL, p, data, mlen, o0, &l0);
    if (ok1 != ok0)
        fz_fail("%s encryption of %zu bytes: ctrsa %d, default %d", what, mlen, ok1, ok0);
    if (ok1 && has_private) {
        l2 = k;
        if (!run(FZ_DEC, d, NULL, p, o1, l1, o2, &l2) || l2 != mlen
            || memcmp(o2, data, mlen) != 0)
            fz_fail("%s: the default cannot decrypt ctrsa's ciphertext", what);
    }
    if (ok0 && has_private) {
        l2 = k;
        if (!run(FZ_DEC, c, NULL, p, o0, l0, o2, &l2) || l2 != mlen
            || memcmp(o2, data, mlen) != 0)
            fz_fail("%s: ctrsa cannot decrypt the default's ciphertext", what);
    }
}

/*
 * 1 if ctrsa's engine does not compute with ck's (n, e): n outside 512..16384 bits or even,
 * e even, 1 or not below n. Such a key imports in both providers; the default computes
 * with some of them (a 511-bit key signs), ctrsa refuses every operation (README, "What
 * ctrsa accepts"), so their results are not compared: each must fail, with an error.
 */
static int engine_refuses(EVP_PKEY *ck)
{
    BIGNUM *n = NULL, *e = NULL;
    int r = 1;

    if (EVP_PKEY_get_bn_param(ck, OSSL_PKEY_PARAM_RSA_N, &n) == 1
        && EVP_PKEY_get_bn_param(ck, OSSL_PKEY_PARAM_RSA_E, &e) == 1)
        r = BN_num_bits(n) < 512 || BN_num_bits(n) > 16384 || !BN_is_odd(n)
            || !BN_is_odd(e) || BN_is_one(e) || BN_cmp(e, n) >= 0;
    BN_free(n);
    BN_free(e);
    ERR_clear_error();
    return r;
}

/* 1 if ck's d is not in [1, n - 1]: such a key imports as with the default provider, and
 * ctrsa refuses its private operations where the default computes (README, the keys
 * ctrsa imports and does not compute with). */
static int d_kept_as_given(EVP_PKEY *ck)
{
    BIGNUM *n = NULL, *d = NULL;
    int r = 0;

    if (EVP_PKEY_get_bn_param(ck, OSSL_PKEY_PARAM_RSA_N, &n) == 1
        && EVP_PKEY_get_bn_param(ck, OSSL_PKEY_PARAM_RSA_D, &d) == 1)
        r = BN_is_zero(d) || BN_cmp(d, n) >= 0;
    BN_free(n);
    BN_free(d);
    ERR_clear_error();
    return r;
}

/* Raw encryption, verification and (with a private key) signing on ck: each must fail and
 * leave an error. */
static void refuses_ops(EVP_PKEY *ck, int has_private, size_t k)
{
    static uint8_t in[FZ_MAX_K], out[FZ_MAX_K];

    memset(in, 0, k);
    for (int op = 0; op < (has_private ? 3 : 2); op++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(fz_libctx(), ck, FZ_PROPQ_CTRSA);
        size_t olen = k;
        int r = 0;

        ERR_clear_error();
        if (ctx != NULL && op == 0 && EVP_PKEY_encrypt_init(ctx) == 1
            && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) == 1)
            r = EVP_PKEY_encrypt(ctx, out, &olen, in, k) == 1;
        if (ctx != NULL && op == 1 && EVP_PKEY_verify_init(ctx) == 1
            && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) == 1)
            r = EVP_PKEY_verify(ctx, in, k, in, k) == 1;
        if (ctx != NULL && op == 2 && EVP_PKEY_sign_init(ctx) == 1
            && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) == 1)
            r = EVP_PKEY_sign(ctx, out, &olen, in, k) == 1;
        if (r)
            fz_fail("ctrsa computed with a key its engine does not take (operation %d)", op);
        if (!fz_error_queued())
            fz_fail("ctrsa refused operation %d on such a key without an error", op);
        EVP_PKEY_CTX_free(ctx);
    }
}

void fz_key_ops(EVP_PKEY *ck, EVP_PKEY *dk, int has_private, unsigned sel,
                const uint8_t *data, size_t len)
{
    static uint8_t block[FZ_MAX_K], o1[FZ_MAX_K], o0[FZ_MAX_K];
    const side c = { ck, FZ_PROPQ_CTRSA, "ctrsa" }, d = { dk, FZ_PROPQ_DEFAULT, "default" };
    int bits = EVP_PKEY_get_bits(ck);
    size_t k = (size_t)EVP_PKEY_get_size(ck), l1, l0;
    int pss = EVP_PKEY_is_a(ck, "RSA-PSS");
    OSSL_PARAM p[6];
    unsigned int no_ir = 0;
    int ok1, ok0;
    /* One group of private-key operations per input: they dominate the cost. */
    unsigned group = sel % 5;

    if (bits <= 0 || bits > FZ_MAX_OP_BITS || k == 0 || k > FZ_MAX_K)
        return;
    if (engine_refuses(ck)) {
        refuses_ops(ck, has_private, k);
        return;
    }
    if (has_private && d_kept_as_given(ck))
        has_private = 0; /* its private operations are refused by design: not compared */

    /* The checks must not crash; they are not compared (README: known differences). */
    if (group == 0) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(fz_libctx(), ck, FZ_PROPQ_CTRSA);
        if (ctx != NULL) {
            (void)EVP_PKEY_public_check(ctx);
            if (has_private) {
                (void)EVP_PKEY_check(ctx);
                (void)EVP_PKEY_pairwise_check(ctx);
            }
        }
        EVP_PKEY_CTX_free(ctx);
        ERR_clear_error();
    }

    /* A k-byte block from the input: the raw operations' operand, a signature. */
    memset(block, 0, k);
    memcpy(block + k - (len < k ? len : k), data, len < k ? len : k);

    if (!pss) {
        /* Raw public operation: deterministic, so the results must be identical. */
        params_pad(p, OSSL_PKEY_RSA_PAD_MODE_NONE, NULL, NULL, NULL);
        l1 = l0 = k;
        ok1 = run(FZ_ENC, &c, NULL, p, block, k, o1, &l1);
        ok0 = run(FZ_ENC, &d, NULL, p, block, k, o0, &l0);
        expect_same("raw public operation", ok1, o1, l1, ok0, o0, l0);

        if (has_private && group == 0) {
            /* Raw private operation: x^d mod n, deterministic too. */
            l1 = l0 = k;
            ok1 = run(FZ_DEC, &c, NULL, p, block, k, o1, &l1);
            ok0 = run(FZ_DEC, &d, NULL, p, block, k, o0, &l0);
            expect_same("raw private operation", ok1, o1, l1, ok0, o0, l0);
        }
        if (group == 1) {
            /* PKCS#1 v1.5 without implicit rejection (OpenSSL 3.0 has none). */
            params_pad(p, OSSL_PKEY_RSA_PAD_MODE_PKCSV15, NULL, NULL, &no_ir);
            enc_dec("PKCS#1 v1.5", &c, &d, has_private, p, block, k, data, len);
        }
        if (group == 2) {
            /* OAEP with SHA-256. */
            params_pad(p, OSSL_PKEY_RSA_PAD_MODE_OAEP, "SHA256", "SHA256", NULL);
            enc_dec("OAEP", &c, &d, has_private, p, block, k, data, len);
        }
        if (group == 3) {
            /* PKCS#1 v1.5 signatures with SHA-256: deterministic. */
            p[0] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE,
                                                    OSSL_PKEY_RSA_PAD_MODE_PKCSV15, 0);
            p[1] = OSSL_PARAM_construct_end();
            if (has_private) {
                l1 = l0 = k;
                ok1 = run(FZ_SIGN, &c, "SHA256", p, data, len, o1, &l1);
                ok0 = run(FZ_SIGN, &d, "SHA256", p, data, len, o0, &l0);
                expect_same("PKCS#1 v1.5 signature", ok1, o1, l1, ok0, o0, l0);
                if (ok1 && !run(FZ_VERIFY, &c, "SHA256", p, data, len, o1, &l1))
                    fz_fail("ctrsa rejects its own PKCS#1 v1.5 signature");
            }
            l1 = l0 = k;
            ok1 = run(FZ_VERIFY, &c, "SHA256", p, data, len, block, &l1);
            ok0 = run(FZ_VERIFY, &d, "SHA256", p, data, len, block, &l0);
            if (ok1 != ok0)
                fz_fail("PKCS#1 v1.5 verification: ctrsa %d, default %d", ok1, ok0);
        }
    }

    /* PSS: the key's own restrictions for an RSA-PSS key, else SHA-256 and defaults. */
    if (group == 4 || pss) {
        const char *md = pss ? NULL : "SHA256";
        size_t i = 0;

        if (!pss)
            p[i++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE,
                                                      OSSL_PKEY_RSA_PAD_MODE_PSS, 0);
        p[i] = OSSL_PARAM_construct_end();
        if (has_private) {
            l1 = l0 = k;
            ok1 = run(FZ_SIGN, &c, md, p, data, len, o1, &l1);
            ok0 = run(FZ_SIGN, &d, md, p, data, len, o0, &l0);
            if (ok1 != ok0)
                fz_fail("PSS signing: ctrsa %d, default %d", ok1, ok0);
            if (ok1 && !run(FZ_VERIFY, &d, md, p, data, len, o1, &l1))
                fz_fail("PSS: the default rejects ctrsa's signature");
            if (ok0 && !run(FZ_VERIFY, &c, md, p, data, len, o0, &l0))
                fz_fail("PSS: ctrsa rejects the default's signature");
        }
        l1 = l0 = k;
        ok1 = run(FZ_VERIFY, &c, md, p, data, len, block, &l1);
        ok0 = run(FZ_VERIFY, &d, md, p, data, len, block, &l0);
        if (ok1 != ok0)
            fz_fail("PSS verification: ctrsa %d, default %d", ok1, ok0);
    }
}
