/* See fuzz_util.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "fuzz_util.h"

/* The module's entry point, linked into the harness from the instrumented provider code. */
OSSL_provider_init_fn OSSL_provider_init;

uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

uint16_t fz_u16(fz_in *in)
{
    uint16_t hi = fz_u8(in);
    return (uint16_t)(hi << 8 | fz_u8(in));
}

uint32_t fz_u32(fz_in *in)
{
    uint32_t hi = fz_u16(in);
    return hi << 16 | fz_u16(in);
}

const uint8_t *fz_bytes(fz_in *in, size_t max, size_t *len)
{
    size_t l = fz_u16(in) % (max + 1);
    const uint8_t *p = in->p;

    if (l > in->n)
        l = in->n;
    in->p += l;
    in->n -= l;
    *len = l;
    return p;
}

static int print_error(const char *str, size_t len, void *u)
{
    (void)u;
    fprintf(stderr, "  %.*s", (int)len, str);
    return 1;
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "\nFUZZ FAILURE: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nOpenSSL error queue:\n");
    ERR_print_errors_cb(print_error, NULL);
    abort();
}

int fz_error_queued(void)
{
    int queued = ERR_peek_error() != 0;

    ERR_clear_error();
    return queued;
}

int fz_silent_padding_failure(EVP_PKEY_CTX *ctx, size_t inlen)
{
    int pad = 0;
    EVP_PKEY *key = ctx != NULL ? EVP_PKEY_CTX_get0_pkey(ctx) : NULL;

    return key != NULL && EVP_PKEY_CTX_get_rsa_padding(ctx, &pad) > 0
           && (pad == RSA_PKCS1_OAEP_PADDING || pad == RSA_PKCS1_PADDING)
           && inlen >= 1 && inlen <= (size_t)EVP_PKEY_get_size(key);
}

OSSL_LIB_CTX *fz_libctx(void)
{
    static OSSL_LIB_CTX *libctx;

    if (libctx != NULL)
        return libctx;
    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL
        || !OSSL_PROVIDER_add_builtin(libctx, "ctrsa", OSSL_provider_init)
        || OSSL_PROVIDER_load(libctx, "ctrsa") == NULL
        || OSSL_PROVIDER_load(libctx, "default") == NULL)
        fz_fail("cannot set up the library context with ctrsa and default");
    return libctx;
}
