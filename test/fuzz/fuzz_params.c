/*
 * Signature and asym-cipher parameters: an OSSL_PARAM array built from the input (any
 * name the module knows or not, any type, any size, NULL data; each datum in its own
 * allocation of exactly data_size bytes so that ASan sees any read past it) is set on a
 * ctrsa operation context for one of several keys (RSA and RSA-PSS, 1024 to 3072 bits, two
 * and three primes), then the operation runs into an output buffer of a size from the
 * input, and the gettable parameters are read back into buffers of input-chosen sizes.
 * Nothing may crash, and every failure must leave an error on the queue.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rsa.h>

#include "fuzz_util.h"

/*
 * UTF-8 parameters are given as the input makes them, NUL-terminated within data_size or
 * not (issue 10's defect 4: the module reads a string only within its data_size; build with
 * -DFZ_UTF8_UNTERMINATED=0 to put a NUL just past data_size instead).
 */
#ifndef FZ_UTF8_UNTERMINATED
#define FZ_UTF8_UNTERMINATED 1
#endif

#define NKEYS 5
static EVP_PKEY *keys[NKEYS];

static const char *const names[] = {
    OSSL_SIGNATURE_PARAM_PAD_MODE, OSSL_SIGNATURE_PARAM_DIGEST,
    OSSL_SIGNATURE_PARAM_PROPERTIES, OSSL_SIGNATURE_PARAM_MGF1_DIGEST,
    OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, OSSL_SIGNATURE_PARAM_PSS_SALTLEN,
    OSSL_SIGNATURE_PARAM_ALGORITHM_ID, OSSL_SIGNATURE_PARAM_DIGEST_SIZE,
    OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS,
    OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
    OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION,
    "implicit-rejection", "nonce-type", "bogus",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* Strings the fuzzer would take long to find; a byte picks one or raw bytes. */
static const char *const words[] = {
    "pkcs1", "none", "oaep", "oeap", "x931", "pss", "SHA256", "SHA1", "SHA2-512/224",
    "SHA3-256", "SM3", "MD5", "MD5-SHA1", "RIPEMD160", "BLAKE2S-256", "SHAKE128", "digest",
    "max", "auto", "auto-digestmax", "-1", "-2", "-3", "-4", "20", "provider=default",
    "provider=ctrsa", "?fips=yes", "",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static void make_keys(void)
{
    static const struct { const char *type; int bits, primes; int restricted; } spec[NKEYS] = {
        { "RSA", 1024, 2, 0 }, { "RSA", 2048, 2, 0 }, { "RSA", 3072, 3, 0 },
        { "RSA-PSS", 2048, 2, 0 }, { "RSA-PSS", 2048, 2, 1 },
    };
    for (int i = 0; i < NKEYS; i++) {
        EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(fz_libctx(), spec[i].type,
                                                     FZ_PROPQ_CTRSA);
        size_t bits = (size_t)spec[i].bits, primes = (size_t)spec[i].primes;
        OSSL_PARAM p[6], *q = p;
        int saltlen = 32;

        *q++ = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits);
        *q++ = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes);
        if (spec[i].restricted) {
            *q++ = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, "SHA256", 0);
            *q++ = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                                    "SHA256", 0);
            *q++ = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &saltlen);
        }
        *q = OSSL_PARAM_construct_end();
        if (g == NULL || EVP_PKEY_keygen_init(g) != 1 || EVP_PKEY_CTX_set_params(g, p) != 1
            || EVP_PKEY_generate(g, &keys[i]) != 1)
            fz_fail("ctrsa cannot generate key %d", i);
        EVP_PKEY_CTX_free(g);
    }
}

/* One parameter from the input; its datum is a fresh allocation (freed by the caller). */
static OSSL_PARAM read_param(fz_in *in)
{
    const char *name = names[fz_u8(in) % NNAMES];
    uint8_t type = fz_u8(in) % 8, w = fz_u8(in);
    size_t len, size;
    const uint8_t *src = fz_bytes(in, 64, &len);
    uint8_t *buf;

    if (type != 7 && w < NWORDS) { /* a known word, or the raw bytes */
        src = (const uint8_t *)words[w];
        len = strlen(words[w]);
    }
    switch (type) {
    case 0: case 1: /* UTF-8 string, data_size without the NUL */
        buf = malloc(len + 1);
        if (buf == NULL)
            fz_fail("out of memory");
        memcpy(buf, src, len);
        buf[len] = 0;
        if (FZ_UTF8_UNTERMINATED && type == 1)
            buf = realloc(buf, len ? len : 1);
        return OSSL_PARAM_construct_utf8_string(name, (char *)buf, len);
    case 2: case 3: case 4: /* integers of 1 to 16 bytes */
        size = (size_t)1 << (w & 3);
        if (w & 4)
            size = 16;
        buf = calloc(1, size);
        if (buf == NULL)
            fz_fail("out of memory");
        memcpy(buf, src, len < size ? len : size);
        return (OSSL_PARAM){ name, type == 2 ? OSSL_PARAM_INTEGER : OSSL_PARAM_UNSIGNED_INTEGER,
                             buf, size, OSSL_PARAM_UNMODIFIED };
    case 5: /* octet string */
        buf = malloc(len ? len : 1);
        if (buf == NULL)
            fz_fail("out of memory");
        memcpy(buf, src, len);
        return OSSL_PARAM_construct_octet_string(name, buf, len);
    case 6: /* NULL data, any size */
        return (OSSL_PARAM){ name, (unsigned)(1 + w % 7), NULL, len, OSSL_PARAM_UNMODIFIED };
    default: /* a pointer type */
        return (OSSL_PARAM){ name, w & 1 ? OSSL_PARAM_UTF8_PTR : OSSL_PARAM_OCTET_PTR,
                             NULL, 0, OSSL_PARAM_UNMODIFIED };
    }
}

/* Read back every gettable parameter into buffers of input-chosen sizes. */
static void get_all(EVP_PKEY_CTX *ctx, fz_in *in)
{
    static const char *const gets[] = {
        OSSL_SIGNATURE_PARAM_ALGORITHM_ID, OSSL_SIGNATURE_PARAM_DIGEST,
        OSSL_SIGNATURE_PARAM_MGF1_DIGEST, OSSL_SIGNATURE_PARAM_PSS_SALTLEN,
        OSSL_SIGNATURE_PARAM_PAD_MODE, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST,
        OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
    };
    OSSL_PARAM p[8];
    uint8_t *bufs[8] = { NULL };
    size_t i;

    for (i = 0; i < 7; i++) {
        size_t sz = fz_u8(in);
        bufs[i] = malloc(sz ? sz : 1);
        if (bufs[i] == NULL)
            fz_fail("out of memory");
        p[i] = (OSSL_PARAM){ gets[i], i == 0 || i == 6 ? OSSL_PARAM_OCTET_STRING
                                                       : OSSL_PARAM_UTF8_STRING,
                             bufs[i], sz, OSSL_PARAM_UNMODIFIED };
    }
    p[i] = OSSL_PARAM_construct_end();
    (void)EVP_PKEY_CTX_get_params(ctx, p);
    for (i = 0; i < 7; i++)
        free(bufs[i]);
    ERR_clear_error();
}

/* Key generation once, before the first input (it is slow under the sanitizers). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    make_keys();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    OSSL_PARAM params[9];
    size_t np, i, tlen, outsize, outlen;
    unsigned ki, op;
    const uint8_t *tbs;
    uint8_t *out;
    EVP_PKEY_CTX *ctx;
    int ok;

    ki = fz_u8(&in) % NKEYS;
    op = fz_u8(&in) % 5;
    np = fz_u8(&in) % 9;
    for (i = 0; i < np; i++) {
        params[i] = read_param(&in);
        if (params[i].key == NULL)
            break;
    }
    np = i;
    params[np] = OSSL_PARAM_construct_end();
    outsize = fz_u16(&in) % 1024;
    tbs = fz_bytes(&in, 512, &tlen);

    ctx = EVP_PKEY_CTX_new_from_pkey(fz_libctx(), keys[ki], FZ_PROPQ_CTRSA);
    if (ctx == NULL)
        fz_fail("EVP_PKEY_CTX_new_from_pkey");
    switch (op) {
    case 0: ok = EVP_PKEY_sign_init_ex(ctx, params); break;
    case 1: ok = EVP_PKEY_verify_init_ex(ctx, params); break;
    case 2: ok = EVP_PKEY_verify_recover_init_ex(ctx, params); break;
    case 3: ok = EVP_PKEY_encrypt_init_ex(ctx, params); break;
    default: ok = EVP_PKEY_decrypt_init_ex(ctx, params); break;
    }
    /* A second set on the live context: the setters' other path. */
    if (ok == 1)
        (void)EVP_PKEY_CTX_set_params(ctx, params);
    ERR_clear_error();
    if (ok == 1) {
        out = malloc(outsize ? outsize : 1);
        if (out == NULL)
            fz_fail("out of memory");
        outlen = outsize;
        switch (op) {
        case 0: ok = EVP_PKEY_sign(ctx, out, &outlen, tbs, tlen); break;
        case 1: ok = EVP_PKEY_verify(ctx, tbs, tlen, tbs, tlen); break;
        case 2: ok = EVP_PKEY_verify_recover(ctx, out, &outlen, tbs, tlen); break;
        case 3: ok = EVP_PKEY_encrypt(ctx, out, &outlen, tbs, tlen); break;
        default: ok = EVP_PKEY_decrypt(ctx, out, &outlen, tbs, tlen); break;
        }
        if (ok <= 0 && ERR_peek_error() == 0
            && !(op == 4 && fz_silent_padding_failure(ctx, tlen)))
            fz_fail("operation %u failed with an empty error queue", op);
        if (ok == 1 && op != 1 && outlen > outsize)
            fz_fail("operation %u claims %zu bytes in a %zu-byte buffer", op, outlen, outsize);
        ERR_clear_error();
        get_all(ctx, &in);
        free(out);
    }
    EVP_PKEY_CTX_free(ctx);
    for (i = 0; i < np; i++)
        free(params[i].data);
    ERR_clear_error();
    return 0;
}
