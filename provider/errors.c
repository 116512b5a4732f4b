/*
 * Error reporting through the core (see prov.h): the reason-string table and ctrsa_raise.
 * The core packs our reason code with the library number it gave this
 * provider, so the reason goes to core_vset_error as is and OpenSSL prints it from
 * ctrsa_reason_strings().
 */
#include <stdarg.h>
#include <openssl/core_dispatch.h>
#include "prov.h"
#include "core_errors.h"

static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;

/* One string for every reason in prov.h; the test checks none is missing. */
static const OSSL_ITEM reason_strings[] = {
    { CTRSA_R_INTERNAL, "internal error" },
    { CTRSA_R_MALLOC_FAILURE, "memory allocation failed" },
    { CTRSA_R_INVALID_KEY, "invalid RSA key" },
    { CTRSA_R_MISSING_KEY_PART, "missing RSA key part" },
    { CTRSA_R_KEY_TOO_SMALL, "RSA key too small" },
    { CTRSA_R_KEY_TOO_LARGE, "RSA key too large" },
    { CTRSA_R_NOT_PRIVATE_KEY, "not a private key" },
    { CTRSA_R_INPUT_TOO_LARGE, "input too large for the modulus" },
    { CTRSA_R_WRONG_INPUT_LENGTH, "wrong input length" },
    { CTRSA_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small" },
    { CTRSA_R_UNKNOWN_DIGEST, "unknown digest" },
    { CTRSA_R_DIGEST_NOT_ALLOWED, "digest not allowed" },
    { CTRSA_R_INVALID_PADDING_MODE, "invalid padding mode" },
    { CTRSA_R_INVALID_SALT_LENGTH, "invalid salt length" },
    { CTRSA_R_INVALID_PARAMETER, "invalid parameter" },
    { CTRSA_R_BAD_SIGNATURE, "bad signature" },
    { CTRSA_R_DECRYPT_FAILED, "decryption failed" },
    { CTRSA_R_FAULT_DETECTED, "fault detected in private-key operation" },
    { CTRSA_R_RANDOM_FAILURE, "random number generation failed" },
    { CTRSA_R_PSS_RESTRICTION, "violates the RSA-PSS key restrictions" },
    { CTRSA_R_OPERATION_NOT_INITIALIZED, "operation not initialized" },
    { CTRSA_R_KEYGEN_FAILED, "key generation failed" },
    { CTRSA_R_BAD_KEYGEN_PARAMETER, "bad key generation parameter" },
    { CTRSA_R_UNSUPPORTED_OPENSSL, "unsupported OpenSSL version" },
    { 0, NULL }
};

const OSSL_ITEM *ctrsa_reason_strings(void)
{
    return reason_strings;
}

int ctrsa_errors_bind(const OSSL_DISPATCH *in)
{
    for (; in != NULL && in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            core_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            core_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
    return core_new_error != NULL && core_set_error_debug != NULL && core_vset_error != NULL;
}

/*
 * Without a provider context (prov == NULL) there is no core handle to report to and the
 * error is dropped: callers pass NULL only where no context exists yet.
 */
void ctrsa_raise(const CTRSA_PROVCTX *prov, int reason, const char *fmt, ...)
{
    va_list ap;

    if (prov == NULL || prov->handle == NULL || core_vset_error == NULL)
        return;
    core_new_error(prov->handle);
    core_set_error_debug(prov->handle, NULL, 0, NULL);
    va_start(ap, fmt);
    core_vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}
