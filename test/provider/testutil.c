/* See testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>

size_t tu_scaled(size_t full, size_t at_least)
{
    const char *env = getenv("CTRSA_TEST_SCALE");
    double f = env != NULL ? atof(env) : 1.0;
    size_t n = f > 0 ? (size_t)((double)full * f) : full;
    return n < at_least ? at_least : n;
}

const char *tu_provider_name(void)
{
    const char *name = getenv("CTRSA_TEST_PROVIDER");

    return (name != NULL && name[0] != '\0') ? name : "ctrsa";
}

const char *tu_propq(void)
{
    static char buf[128];
    const char *override = getenv("CTRSA_TEST_PROPQ");

    if (override != NULL && override[0] != '\0')
        return override;
    snprintf(buf, sizeof(buf), "provider=%s", tu_provider_name());
    return buf;
}

void tu_print_errors(const char *prefix)
{
    unsigned long e;
    const char *file, *func, *data;
    int line, flags;
    char text[256];

    while ((e = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        ERR_error_string_n(e, text, sizeof(text));
        fprintf(stderr, "%s: %s (%s:%d %s) %s\n", prefix, text, file, line, func,
                (flags & ERR_TXT_STRING) != 0 ? data : "");
    }
}

int tu_env_init(tu_env *env)
{
    const char *dir = getenv("CTRSA_MODULE_DIR");
    const char *name = tu_provider_name();

    memset(env, 0, sizeof(*env));
    env->libctx = OSSL_LIB_CTX_new();
    if (env->libctx == NULL)
        goto err;
    if (strcmp(name, "default") != 0) {
        if (dir != NULL && !OSSL_PROVIDER_set_default_search_path(env->libctx, dir))
            goto err;
        env->under_test = OSSL_PROVIDER_load(env->libctx, name);
        if (env->under_test == NULL) {
            fprintf(stderr, "cannot load provider %s from %s\n", name,
                    dir != NULL ? dir : "(default module dir)");
            goto err;
        }
    }
    env->deflt = OSSL_PROVIDER_load(env->libctx, "default");
    if (env->deflt == NULL)
        goto err;
    return 1;
err:
    tu_print_errors("tu_env_init");
    tu_env_free(env);
    return 0;
}

void tu_env_free(tu_env *env)
{
    if (env->under_test != NULL)
        OSSL_PROVIDER_unload(env->under_test);
    if (env->deflt != NULL)
        OSSL_PROVIDER_unload(env->deflt);
    OSSL_LIB_CTX_free(env->libctx);
    memset(env, 0, sizeof(*env));
}

int tu_ctx_in_named_provider(const EVP_PKEY_CTX *ctx, const char *name)
{
    const OSSL_PROVIDER *prov;
    const char *got;

    if (ctx == NULL) {
        fprintf(stderr, "no EVP_PKEY_CTX to check\n");
        return 0;
    }
    prov = EVP_PKEY_CTX_get0_provider(ctx);
    got = prov != NULL ? OSSL_PROVIDER_get0_name(prov) : "(none)";
    if (prov == NULL || strcmp(got, name) != 0) {
        fprintf(stderr, "operation ran in provider %s, expected %s\n", got, name);
        return 0;
    }
    return 1;
}

int tu_ctx_in_provider(const EVP_PKEY_CTX *ctx)
{
    return tu_ctx_in_named_provider(ctx, tu_provider_name());
}

int tu_pkey_in_named_provider(const EVP_PKEY *key, const char *name)
{
    const OSSL_PROVIDER *prov = EVP_PKEY_get0_provider(key);
    const char *got = prov != NULL ? OSSL_PROVIDER_get0_name(prov) : "(legacy)";

    if (prov == NULL || strcmp(got, name) != 0) {
        fprintf(stderr, "key lives in provider %s, expected %s\n", got, name);
        return 0;
    }
    return 1;
}

int tu_error_with_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e != 0 ? ERR_reason_error_string(e) : NULL;
    char text[256];

    if (e == 0) {
        fprintf(stderr, "expected an error on the queue, found none\n");
        return 0;
    }
    ERR_error_string_n(e, text, sizeof(text));
    if (reason == NULL)
        fprintf(stderr, "error without a reason string: %s\n", text);
    ERR_clear_error();
    return reason != NULL;
}

EVP_PKEY *tu_pkey_copy_to(OSSL_LIB_CTX *libctx, const EVP_PKEY *key, int with_private,
                          const char *provname)
{
    int selection = with_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *out = NULL;
    char propq[128];

    snprintf(propq, sizeof(propq), "provider=%s", provname);
    if (EVP_PKEY_todata(key, selection, &params) != 1)
        goto done;
    ctx = EVP_PKEY_CTX_new_from_name(libctx, EVP_PKEY_get0_type_name(key), propq);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &out, selection, params) != 1) {
        EVP_PKEY_free(out);
        out = NULL;
    }
done:
    if (out == NULL)
        tu_print_errors("tu_pkey_copy_to");
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int tu_unhex(const char *hex, unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return 0;
        buf[i] = (unsigned char)(hi << 4 | lo);
    }
    return 1;
}
