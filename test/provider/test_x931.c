/*
 * ANSI X9.31 signatures (pad-mode x931, RSA_X931_PADDING) in the provider under test
 * (testutil.h) against OpenSSL's default provider in the same library context: for each
 * key and digest, EVP_PKEY_sign, verify and verify-recover and EVP_DigestSign/Verify must
 * give the default's verdict, and every signature made must be the default's byte for byte
 * (X9.31 is deterministic). Cases: SHA-1 and SHA-2 (the four digests X9.31 has an id for),
 * no digest, good, tampered and wrong-digest signatures, the other
 * representative n - s of a signature, digests X9.31 has no id for, and key sizes at the
 * edges of the encoding (512 bits with SHA-512, 544 bits, a modulus whose top byte is below
 * the block's 0x6b header).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "testutil.h"

#define MAX_SIG 512

typedef struct keypair {
    int bits;
    EVP_PKEY *oracle;  /* in the default provider */
    EVP_PKEY *test;    /* the same key in the provider under test */
} keypair;

static const int key_bits[] = { 2048, 3072, 512, 544, 1028, 1023 };
#define NKEYS (sizeof(key_bits) / sizeof(key_bits[0]))
static keypair keys[NKEYS];
static tu_env env;

static const char *const x931_digests[] = { "SHA1", "SHA256", "SHA384", "SHA512" };
static const char *const other_digests[] = { "SHA224", "SHA512-256", "SHA3-256", "MD5" };

static const unsigned char message[] = "X9.31 signs the digest, its id and 0xcc, in a block "
                                       "that starts with 0x6b or 0x6a.";

static const char *provname(const char *propq)
{
    return strcmp(propq, TU_PROPQ_DEFAULT) == 0 ? "default" : tu_provider_name();
}

/* The key of pair kp that lives in the provider of propq. */
static EVP_PKEY *key_for(const keypair *kp, const char *propq)
{
    return strcmp(propq, TU_PROPQ_DEFAULT) == 0 ? kp->oracle : kp->test;
}

/* out[0..*len) := the digest md of msg. */
static void digest_of(const char *md, const unsigned char *msg, size_t msglen,
                      unsigned char *out, size_t *len)
{
    EVP_MD *m = EVP_MD_fetch(env.libctx, md, TU_PROPQ_DEFAULT);
    unsigned int n = 0;

    assert_non_null(m);
    assert_int_equal(EVP_Digest(msg, msglen, out, &n, m, NULL), 1);
    *len = n;
    EVP_MD_free(m);
}

/*
 * A context for op (EVP_PKEY_OP_SIGN, _VERIFY or _VERIFYRECOVER) on the key of kp in the
 * provider of propq, with pad-mode x931 and md (NULL: none); md_first sets the digest
 * before the pad mode. NULL when a step is refused (the errors are left on the queue).
 */
static EVP_PKEY_CTX *x931_ctx(const keypair *kp, const char *propq, int op, const char *md,
                              int md_first)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key_for(kp, propq), propq);
    EVP_MD *m = NULL;
    int ok;

    assert_non_null(ctx);
    ok = op == EVP_PKEY_OP_SIGN ? EVP_PKEY_sign_init(ctx)
         : op == EVP_PKEY_OP_VERIFY ? EVP_PKEY_verify_init(ctx)
                                    : EVP_PKEY_verify_recover_init(ctx);
    assert_int_equal(ok, 1);
    assert_true(tu_ctx_in_named_provider(ctx, provname(propq)));
    if (md != NULL)
        assert_non_null(m = EVP_MD_fetch(env.libctx, md, TU_PROPQ_DEFAULT));
    if (md_first)
        ok = (m == NULL || EVP_PKEY_CTX_set_signature_md(ctx, m) == 1)
             && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_X931_PADDING) == 1;
    else
        ok = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_X931_PADDING) == 1
             && (m == NULL || EVP_PKEY_CTX_set_signature_md(ctx, m) == 1);
    EVP_MD_free(m);
    if (!ok) {
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static int pkey_sign(const keypair *kp, const char *propq, const char *md,
                     const unsigned char *tbs, size_t tbslen, unsigned char *sig, size_t *siglen)
{
    EVP_PKEY_CTX *ctx = x931_ctx(kp, propq, EVP_PKEY_OP_SIGN, md, 1);
    int ok;

    *siglen = MAX_SIG;
    ok = ctx != NULL && EVP_PKEY_sign(ctx, sig, siglen, tbs, tbslen) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int pkey_verify(const keypair *kp, const char *propq, const char *md,
                       const unsigned char *sig, size_t siglen, const unsigned char *tbs,
                       size_t tbslen)
{
    EVP_PKEY_CTX *ctx = x931_ctx(kp, propq, EVP_PKEY_OP_VERIFY, md, 1);
    int ok;

    ok = ctx != NULL && EVP_PKEY_verify(ctx, sig, siglen, tbs, tbslen) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int pkey_recover(const keypair *kp, const char *propq, const char *md,
                        const unsigned char *sig, size_t siglen, unsigned char *out,
                        size_t *outlen)
{
    EVP_PKEY_CTX *ctx = x931_ctx(kp, propq, EVP_PKEY_OP_VERIFYRECOVER, md, 1);
    int ok;

    *outlen = MAX_SIG;
    ok = ctx != NULL && EVP_PKEY_verify_recover(ctx, out, outlen, sig, siglen) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* EVP_DigestSign of msg with md and pad-mode x931 (set after the init, as dgst -sigopt). */
static int digest_sign(const keypair *kp, const char *propq, const char *md,
                       unsigned char *sig, size_t *siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok;

    assert_non_null(mctx);
    *siglen = MAX_SIG;
    ok = EVP_DigestSignInit_ex(mctx, &pctx, md, env.libctx, propq, key_for(kp, propq), NULL) == 1
         && tu_ctx_in_named_provider(pctx, provname(propq))
         && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_X931_PADDING) == 1
         && EVP_DigestSign(mctx, sig, siglen, message, sizeof(message) - 1) == 1;
    EVP_MD_CTX_free(mctx);
    return ok;
}

static int digest_verify(const keypair *kp, const char *propq, const char *md,
                         const unsigned char *sig, size_t siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok;

    assert_non_null(mctx);
    ok = EVP_DigestVerifyInit_ex(mctx, &pctx, md, env.libctx, propq, key_for(kp, propq),
                                 NULL) == 1
         && tu_ctx_in_named_provider(pctx, provname(propq))
         && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_X931_PADDING) == 1
         && EVP_DigestVerify(mctx, sig, siglen, message, sizeof(message) - 1) == 1;
    EVP_MD_CTX_free(mctx);
    return ok;
}

/* ok, the verdict of the provider under test; a refusal must leave an error with a reason.
 * The queue is empty afterwards. */
static int reasoned(int ok)
{
    if (!ok && strcmp(tu_provider_name(), "default") != 0 && !tu_error_with_reason())
        fail_msg("refused without an error with a reason");
    ERR_clear_error();
    return ok;
}

/* Both providers gave the same verdict. The queue is empty afterwards. */
static void agree(const char *what, const keypair *kp, const char *md, int mine, int theirs)
{
    ERR_clear_error();
    if (mine != theirs)
        fail_msg("%s, %d-bit key, %s: %s says %d, default says %d", what, kp->bits,
                 md != NULL ? md : "no digest", tu_provider_name(), mine, theirs);
}

/* out[0..k) := n - sig, the other representative of the signature. */
static void other_representative(const keypair *kp, const unsigned char *sig, size_t k,
                                 unsigned char *out)
{
    BIGNUM *n = NULL, *s = BN_bin2bn(sig, (int)k, NULL), *t = BN_new();

    assert_int_equal(EVP_PKEY_get_bn_param(kp->oracle, OSSL_PKEY_PARAM_RSA_N, &n), 1);
    assert_non_null(s);
    assert_non_null(t);
    assert_int_equal(BN_sub(t, n, s), 1);
    /* The signature is the smaller of the two: min(s, n - s). */
    assert_true(BN_cmp(s, t) <= 0);
    assert_int_equal(BN_bn2binpad(t, out, (int)k), (int)k);
    BN_free(n);
    BN_free(s);
    BN_free(t);
}

/* ---- fixtures ---- */

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    for (size_t i = 0; i < NKEYS; i++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);

        keys[i].bits = key_bits[i];
        if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1
                || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, key_bits[i]) != 1
                || EVP_PKEY_generate(ctx, &keys[i].oracle) != 1)
            return -1;
        EVP_PKEY_CTX_free(ctx);
        keys[i].test = tu_pkey_copy_to(env.libctx, keys[i].oracle, 1, tu_provider_name());
        if (keys[i].test == NULL || !tu_pkey_in_named_provider(keys[i].test, tu_provider_name()))
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++) {
        EVP_PKEY_free(keys[i].oracle);
        EVP_PKEY_free(keys[i].test);
    }
    tu_env_free(&env);
    return 0;
}

/* ---- tests ---- */

/*
 * EVP_PKEY_sign, verify and verify-recover with each X9.31 digest: the same verdicts and
 * the same bytes as the default provider, for good, tampered, wrong-digest and wrong-message
 * signatures, and for the signature's other representative n - s.
 */
static void test_x931_pkey_ops(void **state)
{
    unsigned char dg[EVP_MAX_MD_SIZE], other[EVP_MAX_MD_SIZE], mine[MAX_SIG], theirs[MAX_SIG];
    unsigned char rec[MAX_SIG], rec_ref[MAX_SIG], alt[MAX_SIG];
    const char *T = tu_propq(), *D = TU_PROPQ_DEFAULT;
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        const keypair *kp = &keys[k];

        for (size_t d = 0; d < sizeof(x931_digests) / sizeof(x931_digests[0]); d++) {
            const char *md = x931_digests[d];
            const char *wrong = x931_digests[(d + 1) % 4];
            size_t dlen, olen, mlen = 0, tlen = 0, rlen, rrlen;
            int ms, ts, v1, v2;

            digest_of(md, message, sizeof(message) - 1, dg, &dlen);
            ms = reasoned(pkey_sign(kp, T, md, dg, dlen, mine, &mlen));
            ts = pkey_sign(kp, D, md, dg, dlen, theirs, &tlen);
            agree("sign", kp, md, ms, ts);
            /* The edges: 512 bits hold no SHA-512 block, and a 1028-bit n is below every
             * block (0x6b... in its top byte); a 1023-bit n is above some blocks and below
             * others, by its top byte; the others sign. */
            if (kp->bits != 1023)
                assert_int_equal(ts, !((kp->bits == 512 && dlen == 64) || kp->bits == 1028));
            if (!ts)
                continue;
            assert_int_equal(mlen, tlen);
            if (memcmp(mine, theirs, tlen) != 0)
                fail_msg("%d-bit key, %s: the signatures differ", kp->bits, md);

            /* Good: each verifies the other's (the same bytes), and recovers the digest. */
            v1 = reasoned(pkey_verify(kp, T, md, theirs, tlen, dg, dlen));
            v2 = pkey_verify(kp, D, md, theirs, tlen, dg, dlen);
            agree("verify", kp, md, v1, v2);
            /* 544 bits with SHA-512: the block is 0x6b 0xba ..., which the default's check
             * refuses (it wants a 0xbb first); every other signature verifies. */
            assert_int_equal(v2, !(kp->bits == 544 && dlen == 64));
            v1 = reasoned(pkey_recover(kp, T, md, theirs, tlen, rec, &rlen));
            v2 = pkey_recover(kp, D, md, theirs, tlen, rec_ref, &rrlen);
            agree("verify-recover", kp, md, v1, v2);
            if (v1) {
                assert_int_equal(rlen, rrlen);
                assert_memory_equal(rec, rec_ref, rlen);
            }

            /* The other representative, n - s. */
            other_representative(kp, theirs, tlen, alt);
            v1 = reasoned(pkey_verify(kp, T, md, alt, tlen, dg, dlen));
            v2 = pkey_verify(kp, D, md, alt, tlen, dg, dlen);
            agree("verify n - s", kp, md, v1, v2);

            /* Wrong message, wrong digest (its own length), tampered signature. */
            digest_of(md, (const unsigned char *)"another", 7, other, &olen);
            v1 = reasoned(pkey_verify(kp, T, md, theirs, tlen, other, olen));
            v2 = pkey_verify(kp, D, md, theirs, tlen, other, olen);
            agree("verify another message", kp, md, v1, v2);
            assert_int_equal(v2, 0);
            digest_of(wrong, message, sizeof(message) - 1, other, &olen);
            v1 = reasoned(pkey_verify(kp, T, wrong, theirs, tlen, other, olen));
            v2 = pkey_verify(kp, D, wrong, theirs, tlen, other, olen);
            agree("verify with another digest", kp, wrong, v1, v2);
            assert_int_equal(v2, 0);
            v1 = reasoned(pkey_recover(kp, T, wrong, theirs, tlen, rec, &rlen));
            v2 = pkey_recover(kp, D, wrong, theirs, tlen, rec_ref, &rrlen);
            agree("verify-recover with another digest", kp, wrong, v1, v2);
            for (size_t at = 0; at < tlen; at += tlen / 3) {
                theirs[at] ^= 0x04;
                v1 = reasoned(pkey_verify(kp, T, md, theirs, tlen, dg, dlen));
                v2 = pkey_verify(kp, D, md, theirs, tlen, dg, dlen);
                agree("verify tampered", kp, md, v1, v2);
                theirs[at] ^= 0x04;
            }
        }
    }
}

/* EVP_DigestSign and EVP_DigestVerify (the `openssl dgst -sigopt rsa_padding_mode:x931` path). */
static void test_x931_digest_sign(void **state)
{
    unsigned char mine[MAX_SIG], theirs[MAX_SIG];
    const char *T = tu_propq(), *D = TU_PROPQ_DEFAULT;
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        const keypair *kp = &keys[k];

        for (size_t d = 0; d < sizeof(x931_digests) / sizeof(x931_digests[0]); d++) {
            const char *md = x931_digests[d];
            size_t mlen, tlen;
            int ms, ts, v1, v2;

            ms = reasoned(digest_sign(kp, T, md, mine, &mlen));
            ts = digest_sign(kp, D, md, theirs, &tlen);
            agree("digest-sign", kp, md, ms, ts);
            if (!ts)
                continue;
            assert_int_equal(mlen, tlen);
            assert_memory_equal(mine, theirs, tlen);
            v1 = reasoned(digest_verify(kp, T, md, theirs, tlen));
            v2 = digest_verify(kp, D, md, theirs, tlen);
            agree("digest-verify", kp, md, v1, v2);
            theirs[tlen - 1] ^= 0x01;
            v1 = reasoned(digest_verify(kp, T, md, theirs, tlen));
            v2 = digest_verify(kp, D, md, theirs, tlen);
            agree("digest-verify tampered", kp, md, v1, v2);
            assert_int_equal(v2, 0);
        }
    }
}

/*
 * No digest: pad-mode x931 needs one with an X9.31 id already set, in the default provider
 * of OpenSSL 3.0 ("invalid x931 digest") as in later ones, for every operation: raw X9.31
 * is refused by both.
 */
static void test_x931_needs_digest(void **state)
{
    static const int ops[] = { EVP_PKEY_OP_SIGN, EVP_PKEY_OP_VERIFY, EVP_PKEY_OP_VERIFYRECOVER };
    (void)state;

    for (size_t k = 0; k < NKEYS; k++) {
        for (size_t o = 0; o < 3; o++) {
            EVP_PKEY_CTX *mine = x931_ctx(&keys[k], tu_propq(), ops[o], NULL, 0);
            EVP_PKEY_CTX *theirs;

            reasoned(mine != NULL);
            theirs = x931_ctx(&keys[k], TU_PROPQ_DEFAULT, ops[o], NULL, 0);
            agree("pad-mode x931 without a digest", &keys[k], NULL, mine != NULL,
                  theirs != NULL);
            assert_null(theirs);
            EVP_PKEY_CTX_free(mine);
            EVP_PKEY_CTX_free(theirs);
        }
    }
}

/*
 * Digests X9.31 has no id for (it has SHA-1, SHA-256, SHA-384 and SHA-512): refused by both,
 * whether set before pad-mode x931 or after it ("invalid x931 digest").
 */
static void test_x931_other_digests(void **state)
{
    (void)state;

    for (size_t d = 0; d < sizeof(other_digests) / sizeof(other_digests[0]); d++) {
        for (int md_first = 0; md_first < 2; md_first++) {
            const char *md = other_digests[d];
            EVP_PKEY_CTX *mine = x931_ctx(&keys[0], tu_propq(), EVP_PKEY_OP_SIGN, md, md_first);
            EVP_PKEY_CTX *theirs;

            reasoned(mine != NULL);
            theirs = x931_ctx(&keys[0], TU_PROPQ_DEFAULT, EVP_PKEY_OP_SIGN, md, md_first);
            agree(md_first ? "a digest without an X9.31 id, then pad-mode x931"
                           : "pad-mode x931, then a digest without an X9.31 id",
                  &keys[0], md, mine != NULL, theirs != NULL);
            assert_null(theirs);
            EVP_PKEY_CTX_free(mine);
            EVP_PKEY_CTX_free(theirs);
        }
    }
}

/* The pad mode reads back as x931, by name and by number, in both. */
static void test_x931_param_readback(void **state)
{
    const char *propqs[] = { tu_propq(), TU_PROPQ_DEFAULT };
    (void)state;

    for (size_t i = 0; i < 2; i++) {
        EVP_PKEY_CTX *ctx = x931_ctx(&keys[0], propqs[i], EVP_PKEY_OP_VERIFY, "SHA256", 1);
        char name[32] = "";
        int mode = 0;
        OSSL_PARAM p[] = {
            OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE, name, sizeof(name)),
            OSSL_PARAM_END
        };

        assert_non_null(ctx);
        assert_int_equal(EVP_PKEY_CTX_get_params(ctx, p), 1);
        assert_string_equal(name, OSSL_PKEY_RSA_PAD_MODE_X931);
        p[0] = (OSSL_PARAM)OSSL_PARAM_int(OSSL_SIGNATURE_PARAM_PAD_MODE, &mode);
        assert_int_equal(EVP_PKEY_CTX_get_params(ctx, p), 1);
        assert_int_equal(mode, RSA_X931_PADDING);
        EVP_PKEY_CTX_free(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x931_pkey_ops),
        cmocka_unit_test(test_x931_digest_sign),
        cmocka_unit_test(test_x931_needs_digest),
        cmocka_unit_test(test_x931_other_digests),
        cmocka_unit_test(test_x931_param_readback),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
