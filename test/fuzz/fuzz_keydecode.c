/*
 * DER and PEM keys: the input is decoded by OpenSSL's decoders (any format, any structure:
 * PKCS#1, PKCS#8, SubjectPublicKeyInfo, RSA and RSA-PSS), the key is exported from the
 * default provider and imported into ctrsa, and every operation then runs on both copies
 * (fz_key_ops) with results compared.
 */
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/err.h>

#include "fuzz_util.h"

/* A copy of k owned by ctrsa, or NULL if ctrsa refuses it (with an error queued). */
static EVP_PKEY *to_ctrsa(EVP_PKEY *k, int selection)
{
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *out = NULL;

    if (EVP_PKEY_todata(k, selection, &params) != 1)
        return NULL;
    ctx = EVP_PKEY_CTX_new_from_name(fz_libctx(), EVP_PKEY_get0_type_name(k), FZ_PROPQ_CTRSA);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &out, selection, params) != 1) {
        out = NULL;
        if (ERR_peek_error() == 0)
            fz_fail("ctrsa refused an import with an empty error queue");
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    EVP_PKEY *dk = NULL, *ck = NULL;
    OSSL_DECODER_CTX *dctx;
    const uint8_t *p = data;
    size_t left = size;

    dctx = OSSL_DECODER_CTX_new_for_pkey(&dk, NULL, NULL, NULL, 0, fz_libctx(),
                                         FZ_PROPQ_DEFAULT);
    if (dctx != NULL && OSSL_DECODER_from_data(dctx, &p, &left) == 1 && dk != NULL
        && (EVP_PKEY_is_a(dk, "RSA") || EVP_PKEY_is_a(dk, "RSA-PSS"))) {
        BIGNUM *d = NULL;
        int priv = EVP_PKEY_get_bn_param(dk, OSSL_PKEY_PARAM_RSA_D, &d) == 1;

        BN_clear_free(d);
        ERR_clear_error();
        ck = to_ctrsa(dk, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY);
        ERR_clear_error();
        /* The encoded key itself is the operations' data (message, block, signature);
         * the sum of its bytes picks the group of private-key operations. */
        if (ck != NULL) {
            unsigned sum = 0;
            for (size_t i = 0; i < size; i++)
                sum += data[i];
            fz_key_ops(ck, dk, priv, sum, data, size);
        }
    }
    OSSL_DECODER_CTX_free(dctx);
    EVP_PKEY_free(dk);
    EVP_PKEY_free(ck);
    ERR_clear_error();
    return 0;
}
