/*
 * The error codes of refusals, against the default provider: for each refusal that both
 * providers make for the same reason, the first error on the queue has the same library
 * (ERR_GET_LIB) and reason (ERR_GET_REASON) under the provider under test as under the
 * default provider, which is what programs and OpenSSL's own tests compare against the
 * PROV_R_* and RSA_R_* values; and it still prints a reason string.
 *
 * The first error is compared, as OpenSSL's test_RSA_verify_recover_rejects_short_buffer
 * (evp_extra_test.c, 3.0.22 and later) reads it with ERR_peek_error: where the default
 * provider raises two (RSA_R_... from libcrypto's RSA code, then its own ERR_R_RSA_LIB),
 * the first is the one that says what failed. OpenSSL 3.2 and later add EVP's own error
 * after the provider's; it is the same for both providers.
 *
 * A case whose default provider does not refuse on the running core names the code that
 * later default providers raise (the verify-recover buffer check is new in 3.0.22: earlier
 * ones write past the buffer, so their run here gets a buffer of the key's size and a
 * smaller announced length).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/proverr.h>
#include <openssl/rsa.h>
#include <openssl/rsaerr.h>

#include "testutil.h"

static tu_env env;
static const char *under_test;      /* the provider under test's name */
static EVP_PKEY *gen2048, *gen1024, *gen512, *genpss;   /* made by the default provider */

/* `key` (a key pair) owned by the provider `prov`, from the copies made once. */
static EVP_PKEY *key_in(EVP_PKEY *key, const char *prov)
{
    EVP_PKEY *copy = tu_pkey_copy_to(env.libctx, key, 1, prov);

    assert_non_null(copy);
    return copy;
}

static EVP_PKEY_CTX *ctx_for(EVP_PKEY *key, const char *prov)
{
    char propq[64];
    EVP_PKEY_CTX *ctx;

    snprintf(propq, sizeof(propq), "provider=%s", prov);
    ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    assert_non_null(ctx);
    return ctx;
}

static const unsigned char digest32[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                            15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                                            27, 28, 29, 30, 31, 32 };
static const unsigned char digest64[64] = { 1, 2, 3 };

/*
 * Each case runs its refusal with keys and operations of the provider `prov` and returns
 * 1 if the refused call failed, 0 if it succeeded. Set-up steps must succeed (asserted).
 */
typedef int case_fn(const char *prov);

static int sign_init_md(EVP_PKEY_CTX *ctx, int pad, const EVP_MD *md)
{
    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, pad), 1);
    return EVP_PKEY_CTX_set_signature_md(ctx, md);
}

static int verify_recover_short_buffer(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[256], out[256];
    size_t siglen = sizeof(sig), outlen = 1;
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest32, sizeof(digest32)), 1);
    assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_verify_recover(ctx, out, &outlen, sig, siglen);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

static int sign_short_buffer(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[256];
    size_t siglen = sizeof(sig) - 1;
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest32, sizeof(digest32));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

static int encrypt_short_buffer(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char out[256];
    size_t outlen = sizeof(out) - 1;
    int r;

    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_encrypt(ctx, out, &outlen, digest32, sizeof(digest32));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

static int decrypt_short_buffer(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char ct[256], out[256];
    size_t ctlen = sizeof(ct), outlen = sizeof(out) - 1;
    int r;

    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, digest32, sizeof(digest32)), 1);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_decrypt(ctx, out, &outlen, ct, ctlen);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Pad-mode OAEP for a signature: refused when it is set. */
static int sign_pad_mode_oaep(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Pad-mode PSS for verify-recover: PSS is for sign and verify only. */
static int verify_recover_pad_mode_pss(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_verify_recover_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A PSS salt length below -3 (the lowest special value of OpenSSL 3.0). */
static int salt_length_negative(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PSS_PADDING, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, -5);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* PKCS#1 v1.5 with SHA-512 on a 512-bit key: the DigestInfo does not fit. */
static int pkcs1_key_too_small_for_digest(const char *prov)
{
    EVP_PKEY *key = key_in(gen512, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[64];
    size_t siglen = sizeof(sig);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha512()), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest64, sizeof(digest64));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* PSS with SHA-512 on a 512-bit key. */
static int pss_key_too_small_for_digest(const char *prov)
{
    EVP_PKEY *key = key_in(gen512, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[64];
    size_t siglen = sizeof(sig);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PSS_PADDING, EVP_sha512()), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest64, sizeof(digest64));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* OAEP with SHA-512 on a 1024-bit key: 2 * 64 + 2 bytes do not fit in 128. */
static int oaep_key_too_small_for_digest(const char *prov)
{
    EVP_PKEY *key = key_in(gen1024, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char out[128];
    size_t outlen = sizeof(out);
    int r;

    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha512()) > 0
        && EVP_PKEY_encrypt(ctx, out, &outlen, digest32, 1) > 0;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return !r;
}

/* A PSS salt too long for the key, found when signing. */
static int pss_salt_too_long(const char *prov)
{
    EVP_PKEY *key = key_in(gen1024, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[128];
    size_t siglen = sizeof(sig);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PSS_PADDING, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 100), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest32, sizeof(digest32));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A digest of the wrong length for the digest set. */
static int sign_wrong_digest_length(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[256];
    size_t siglen = sizeof(sig);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest32, 31);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* PKCS#1 v1.5 encryption of a message longer than k - 11 bytes. */
static int encrypt_message_too_long(const char *prov)
{
    EVP_PKEY *key = key_in(gen1024, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char msg[118] = { 0 }, out[128];
    size_t outlen = sizeof(out);
    int r;

    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_encrypt(ctx, out, &outlen, msg, sizeof(msg));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Raw RSA encryption of a block not below n. */
static int encrypt_raw_not_below_n(const char *prov)
{
    EVP_PKEY *key = key_in(gen1024, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char msg[128], out[128];
    size_t outlen = sizeof(out);
    int r;

    memset(msg, 0xff, sizeof(msg));
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    ERR_clear_error();
    r = EVP_PKEY_encrypt(ctx, out, &outlen, msg, sizeof(msg));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A PKCS#1 v1.5 signature made over another digest. */
static int verify_bad_signature(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    unsigned char sig[256], other[32];
    size_t siglen = sizeof(sig);
    int r;

    memcpy(other, digest32, sizeof(other));
    other[0] ^= 1;
    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, digest32, sizeof(digest32)), 1);
    assert_int_equal(EVP_PKEY_verify_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_verify(ctx, sig, siglen, other, sizeof(other));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A digest name no provider has. */
static int unknown_digest(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    char name[] = "no-such-digest";
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, name, sizeof(name) - 1),
        OSSL_PARAM_END
    };
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_params(ctx, params);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A digest an RSA signature does not take (an XOF). */
static int digest_not_allowed(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_signature_md(ctx, EVP_shake256());
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Pad-mode x931 with a digest X9.31 has no id for. */
static int x931_invalid_digest(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha224()), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_X931_PADDING);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* An MGF1 digest for PKCS#1 v1.5 padding. */
static int mgf1_md_without_pss(const char *prov)
{
    EVP_PKEY *key = key_in(gen2048, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256());
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* An RSA-PSS key asked to encrypt. */
static int pss_key_encrypt(const char *prov)
{
    EVP_PKEY *key = key_in(genpss, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    ERR_clear_error();
    r = EVP_PKEY_encrypt_init(ctx);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Key generation of fewer than 512 bits. */
static int keygen_too_small(const char *prov)
{
    char propq[64];
    EVP_PKEY_CTX *ctx;
    EVP_PKEY *key = NULL;
    int r;

    snprintf(propq, sizeof(propq), "provider=%s", prov);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 256) > 0 && EVP_PKEY_keygen(ctx, &key) > 0;
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    return !r;
}

/* Signing with a public key. */
static int sign_with_public_key(const char *prov)
{
    EVP_PKEY *key = tu_pkey_copy_to(env.libctx, gen2048, 0, prov);
    EVP_PKEY_CTX *ctx;
    unsigned char sig[256];
    size_t siglen = sizeof(sig);
    int r;

    assert_non_null(key);
    ctx = ctx_for(key, prov);
    assert_int_equal(sign_init_md(ctx, RSA_PKCS1_PADDING, EVP_sha256()), 1);
    ERR_clear_error();
    r = EVP_PKEY_sign(ctx, sig, &siglen, digest32, sizeof(digest32));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A key of `n` and `e` imported into provider `prov`: NULL if refused. */
static EVP_PKEY *import_numbers(const char *prov, const BIGNUM *n, const BIGNUM *e)
{
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;
    EVP_PKEY_CTX *ctx;
    EVP_PKEY *key = NULL;
    char propq[64];

    assert_non_null(bld);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n), 1);
    assert_int_equal(OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e), 1);
    params = OSSL_PARAM_BLD_to_param(bld);
    assert_non_null(params);
    snprintf(propq, sizeof(propq), "provider=%s", prov);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_fromdata_init(ctx), 1);
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return key;
}

static BIGNUM *number_of(const EVP_PKEY *key, const char *name)
{
    BIGNUM *v = NULL;

    assert_int_equal(EVP_PKEY_get_bn_param(key, name, &v), 1);
    return v;
}

/* The size query of an encryption with n = 0. */
static int encrypt_with_zero_n(const char *prov)
{
    BIGNUM *n = BN_new(), *e = number_of(gen2048, OSSL_PKEY_PARAM_RSA_E);
    EVP_PKEY *key;
    EVP_PKEY_CTX *ctx;
    size_t outlen = 0;
    int r;

    assert_non_null(n);
    key = import_numbers(prov, n, e);
    assert_non_null(key);
    ctx = ctx_for(key, prov);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_encrypt(ctx, NULL, &outlen, digest32, sizeof(digest32));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    BN_free(n);
    BN_free(e);
    return r <= 0;
}

/* A digest other than the one an RSA-PSS key is restricted to. */
static int pss_key_other_digest(const char *prov)
{
    EVP_PKEY *key = key_in(genpss, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha384());
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* A salt shorter than an RSA-PSS key's minimum. */
static int pss_key_short_salt(const char *prov)
{
    EVP_PKEY *key = key_in(genpss, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 10);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Pad-mode pkcs1 for an RSA-PSS key. */
static int pss_key_pkcs1(const char *prov)
{
    EVP_PKEY *key = key_in(genpss, prov);
    EVP_PKEY_CTX *ctx = ctx_for(key, prov);
    int r;

    assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* Decryption with a public key. */
static int decrypt_with_public_key(const char *prov)
{
    EVP_PKEY *key = tu_pkey_copy_to(env.libctx, gen2048, 0, prov);
    EVP_PKEY_CTX *ctx;
    unsigned char ct[256], out[256];
    size_t ctlen = sizeof(ct), outlen = sizeof(out);
    int r;

    assert_non_null(key);
    ctx = ctx_for(key, prov);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, digest32, sizeof(digest32)), 1);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    ERR_clear_error();
    r = EVP_PKEY_decrypt(ctx, out, &outlen, ct, ctlen);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r <= 0;
}

/* ---- the comparison --------------------------------------------------------------------- */

typedef struct refusal {
    const char *name;
    case_fn *run;
    /* The code of later default providers where the running one does not refuse, else 0. */
    int later_lib, later_reason;
} refusal;

static const refusal refusals[] = {
    { "verify-recover into a short buffer", verify_recover_short_buffer,
      ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL },
    { "sign into a short buffer", sign_short_buffer, 0, 0 },
    { "encrypt into a short buffer", encrypt_short_buffer, 0, 0 },
    { "decrypt into a short buffer", decrypt_short_buffer, 0, 0 },
    { "pad-mode oaep for a signature", sign_pad_mode_oaep, 0, 0 },
    { "pad-mode pss for verify-recover", verify_recover_pad_mode_pss, 0, 0 },
    { "PSS salt length -5", salt_length_negative, 0, 0 },
    { "PSS salt too long for the key", pss_salt_too_long, 0, 0 },
    { "PKCS#1 v1.5: 512-bit key, SHA-512", pkcs1_key_too_small_for_digest, 0, 0 },
    { "PSS: 512-bit key, SHA-512", pss_key_too_small_for_digest, 0, 0 },
    { "OAEP: 1024-bit key, SHA-512", oaep_key_too_small_for_digest, 0, 0 },
    { "a digest of the wrong length", sign_wrong_digest_length, 0, 0 },
    { "PKCS#1 v1.5 message too long", encrypt_message_too_long, 0, 0 },
    { "raw RSA block not below n", encrypt_raw_not_below_n, 0, 0 },
    { "a bad signature", verify_bad_signature, 0, 0 },
    { "an unknown digest", unknown_digest, 0, 0 },
    { "a digest not allowed (SHAKE256)", digest_not_allowed, 0, 0 },
    { "x931 with SHA-224", x931_invalid_digest, 0, 0 },
    { "an MGF1 digest without PSS", mgf1_md_without_pss, 0, 0 },
    { "an RSA-PSS key asked to encrypt", pss_key_encrypt, 0, 0 },
    { "key generation of 256 bits", keygen_too_small, 0, 0 },
    { "signing with a public key", sign_with_public_key, 0, 0 },
    { "decryption with a public key", decrypt_with_public_key, 0, 0 },
    { "encryption size with n = 0", encrypt_with_zero_n, 0, 0 },
    { "RSA-PSS key: another digest", pss_key_other_digest, 0, 0 },
    { "RSA-PSS key: salt below its minimum", pss_key_short_salt, 0, 0 },
    { "RSA-PSS key: pad-mode pkcs1", pss_key_pkcs1, 0, 0 },
};

/* The first error on the queue, and the first that is not EVP's (the provider's own). */
typedef struct first_errors {
    unsigned long first, first_not_evp;
} first_errors;

/* Runs `r` under `prov`: 1 if refused, with *seen its errors (0 where none). */
static int run_refusal(const refusal *r, const char *prov, first_errors *seen)
{
    const char *file, *func, *data;
    int refused, line, flags;
    unsigned long e;

    ERR_clear_error();
    refused = r->run(prov);
    seen->first = ERR_peek_error();
    seen->first_not_evp = 0;
    if (getenv("TEST_VERBOSE") != NULL)
        fprintf(stderr, "-- %s, %s: %s\n", r->name, prov, refused ? "refused" : "done");
    while ((e = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        if (seen->first_not_evp == 0 && ERR_GET_LIB(e) != ERR_LIB_EVP)
            seen->first_not_evp = e;
        if (getenv("TEST_VERBOSE") != NULL) {
            char text[256];

            ERR_error_string_n(e, text, sizeof(text));
            fprintf(stderr, "   %s %s\n", text, (flags & ERR_TXT_STRING) != 0 ? data : "");
        }
    }
    return refused;
}

/* 1 if `ours` has the library and reason `lib`, `reason` and a reason string; else says why. */
static int same_code(const char *what, const char *which, unsigned long ours, int lib,
                     int reason)
{
    const char *text = ours != 0 ? ERR_reason_error_string(ours) : NULL;

    if (ours != 0 && ERR_GET_LIB(ours) == lib && ERR_GET_REASON(ours) == reason && text != NULL)
        return 1;
    fprintf(stderr, "%s (%s error): %s raised lib %d reason %d (\"%s\"), the default lib %d "
            "reason %d (\"%s\")\n", what, which, under_test, ERR_GET_LIB(ours),
            ERR_GET_REASON(ours), text != NULL ? text : "(no reason string)", lib, reason,
            lib != 0 ? ERR_reason_error_string(ERR_PACK(lib, 0, reason)) : "(no error)");
    return 0;
}

static void test_codes_match_default(void **state)
{
    size_t differ = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        const refusal *r = &refusals[i];
        first_errors ours, theirs;

        assert_true(run_refusal(r, under_test, &ours));
        if (!run_refusal(r, "default", &theirs)) {
            /* not refused by this core's default provider: the code of later ones */
            assert_int_not_equal(r->later_lib, 0);
            theirs.first = theirs.first_not_evp = ERR_PACK(r->later_lib, 0, r->later_reason);
        }
        if (!same_code(r->name, "first", ours.first, ERR_GET_LIB(theirs.first),
                       ERR_GET_REASON(theirs.first))
            || !same_code(r->name, "provider's first", ours.first_not_evp,
                          ERR_GET_LIB(theirs.first_not_evp),
                          ERR_GET_REASON(theirs.first_not_evp)))
            differ++;
    }
    assert_int_equal(differ, 0);
}

static int setup(void **state)
{
    EVP_PKEY_CTX *ctx;

    (void)state;
    under_test = tu_provider_name();
    if (!tu_env_init(&env))
        return -1;
    gen2048 = EVP_PKEY_Q_keygen(env.libctx, "provider=default", "RSA", (size_t)2048);
    gen1024 = EVP_PKEY_Q_keygen(env.libctx, "provider=default", "RSA", (size_t)1024);
    gen512 = EVP_PKEY_Q_keygen(env.libctx, "provider=default", "RSA", (size_t)512);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", "provider=default");
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1
            || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) != 1
            || EVP_PKEY_CTX_set_rsa_pss_keygen_md(ctx, EVP_sha256()) != 1
            || EVP_PKEY_CTX_set_rsa_pss_keygen_saltlen(ctx, 32) != 1
            || EVP_PKEY_keygen(ctx, &genpss) != 1)
        genpss = NULL;
    EVP_PKEY_CTX_free(ctx);
    return gen2048 != NULL && gen1024 != NULL && gen512 != NULL && genpss != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(gen2048);
    EVP_PKEY_free(gen1024);
    EVP_PKEY_free(gen512);
    EVP_PKEY_free(genpss);
    tu_env_free(&env);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_match_default),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
