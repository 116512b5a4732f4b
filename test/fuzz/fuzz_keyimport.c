/*
 * Key import: an OSSL_PARAM array built from the input (n, e, d, two to five factors, their
 * CRT exponents and coefficients, RSA-PSS restrictions) is imported into ctrsa and into the
 * default provider. ctrsa validates keys at import, the default does not, so a key ctrsa
 * accepts must be accepted by the default too; then every operation runs on both
 * (fz_key_ops) and the results must agree.
 *
 * Input: flags byte (bit 0 RSA-PSS, bit 1 private half, bits 2-3 primes - 2, bit 4 CRT
 * values, bit 5 PSS restrictions), then length-prefixed big-endian n, e, d, the factors,
 * exponents and coefficients, then the restriction (digest index, MGF1 digest index, salt
 * length), then a byte that picks the group of private-key operations (fz_key_ops), then
 * the data the operations use.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>

#include "fuzz_util.h"

#define MAX_BYTES 512 /* 4096-bit numbers: what fz_key_ops runs on */

static const char *const digests[] = {
    "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA512-224", "SHA512-256", "SHA3-256",
    "SHA3-512", "MD5", "SM3", "RIPEMD160", "BLAKE2S-256", "MD5-SHA1", "SHAKE256", "nope",
};

static const char *const factor[] = { OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
    OSSL_PKEY_PARAM_RSA_FACTOR3, OSSL_PKEY_PARAM_RSA_FACTOR4, OSSL_PKEY_PARAM_RSA_FACTOR5 };
static const char *const exponent[] = { OSSL_PKEY_PARAM_RSA_EXPONENT1,
    OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_EXPONENT3,
    OSSL_PKEY_PARAM_RSA_EXPONENT4, OSSL_PKEY_PARAM_RSA_EXPONENT5 };
static const char *const coefficient[] = { OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT3,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT4 };

static int push_bn(OSSL_PARAM_BLD *bld, const char *name, fz_in *in, BIGNUM **keep)
{
    size_t len;
    const uint8_t *p = fz_bytes(in, MAX_BYTES, &len);

    *keep = BN_bin2bn(p, (int)len, NULL);
    return *keep != NULL && OSSL_PARAM_BLD_push_BN(bld, name, *keep);
}

static EVP_PKEY *import(const char *type, const char *propq, int selection,
                        const OSSL_PARAM *params)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(fz_libctx(), type, propq);
    EVP_PKEY *key = NULL;

    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &key, selection, (OSSL_PARAM *)params) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(ctx);
    return key;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    uint8_t flags = fz_u8(&in);
    int pss = flags & 1, priv = (flags >> 1) & 1, primes = 2 + ((flags >> 2) & 3);
    int crt = (flags >> 4) & 1, restrict_ = (flags >> 5) & 1;
    const char *type = pss ? "RSA-PSS" : "RSA";
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bn[3 + 5 * 3] = { NULL };
    size_t nb = 0;
    OSSL_PARAM *params = NULL;
    EVP_PKEY *ck = NULL, *dk = NULL;
    int ok = bld != NULL;

    ok = ok && push_bn(bld, OSSL_PKEY_PARAM_RSA_N, &in, &bn[nb++])
         && push_bn(bld, OSSL_PKEY_PARAM_RSA_E, &in, &bn[nb++]);
    if (priv) {
        ok = ok && push_bn(bld, OSSL_PKEY_PARAM_RSA_D, &in, &bn[nb++]);
        for (int i = 0; ok && i < primes; i++)
            ok = push_bn(bld, factor[i], &in, &bn[nb++]);
        for (int i = 0; ok && crt && i < primes; i++)
            ok = push_bn(bld, exponent[i], &in, &bn[nb++]);
        for (int i = 0; ok && crt && i < primes - 1; i++)
            ok = push_bn(bld, coefficient[i], &in, &bn[nb++]);
    }
    if (ok && pss && restrict_) {
        uint8_t md = fz_u8(&in), mgf1 = fz_u8(&in);
        int saltlen = (int)(int16_t)fz_u16(&in);
        ok = OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_RSA_DIGEST,
                                             digests[md % 16], 0)
             && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                digests[mgf1 % 16], 0)
             && OSSL_PARAM_BLD_push_int(bld, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, saltlen);
    }
    if (ok)
        params = OSSL_PARAM_BLD_to_param(bld);
    if (params != NULL) {
        int sel = priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
        ck = import(type, FZ_PROPQ_CTRSA, sel, params);
        if (ck == NULL && ERR_peek_error() == 0)
            fz_fail("ctrsa refused an import with an empty error queue");
        ERR_clear_error();
        if (ck != NULL) {
            dk = import(type, FZ_PROPQ_DEFAULT, sel, params);
            if (dk == NULL)
                fz_fail("ctrsa imported a key that the default provider refuses");
            unsigned sel = fz_u8(&in);
            fz_key_ops(ck, dk, priv, sel, in.p, in.n);
        }
    }
    EVP_PKEY_free(ck);
    EVP_PKEY_free(dk);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    for (size_t i = 0; i < nb; i++)
        BN_clear_free(bn[i]);
    ERR_clear_error();
    return 0;
}
