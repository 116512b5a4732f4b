/*
 * Error reporting through the core (see prov.h): the reason-string table, ctrsa_raise and
 * ctrsa_raise_unless. The core packs our reason code with the library number it gave this
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
static OSSL_FUNC_core_set_error_mark_fn *core_set_error_mark;
static OSSL_FUNC_core_clear_last_error_mark_fn *core_clear_last_error_mark;
static OSSL_FUNC_core_pop_error_to_mark_fn *core_pop_error_to_mark;

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
    { CTRSA_R_MODULUS_TOO_LARGE, "modulus too large" },
    { CTRSA_R_INVALID_MGF1_MD, "invalid mgf1 md" },
    { CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE, "operation not supported for this keytype" },
    { CTRSA_R_KEY_SIZE_TOO_SMALL, "key size too small" },
    { CTRSA_R_INVALID_X931_DIGEST, "invalid x931 digest" },
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
        case OSSL_FUNC_CORE_SET_ERROR_MARK:
            core_set_error_mark = OSSL_FUNC_core_set_error_mark(in);
            break;
        case OSSL_FUNC_CORE_CLEAR_LAST_ERROR_MARK:
            core_clear_last_error_mark = OSSL_FUNC_core_clear_last_error_mark(in);
            break;
        case OSSL_FUNC_CORE_POP_ERROR_TO_MARK:
            core_pop_error_to_mark = OSSL_FUNC_core_pop_error_to_mark(in);
            break;
        default:
            break;
        }
    }
    return core_new_error != NULL && core_set_error_debug != NULL && core_vset_error != NULL
           && core_set_error_mark != NULL && core_clear_last_error_mark != NULL
           && core_pop_error_to_mark != NULL;
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

/*
 * Contract in prov.h; used for decryption on OpenSSL 3.2+ cores (asym_cipher.c says why).
 * The default provider raises its padding error whatever the outcome and then clears it in
 * constant time (err_clear_last_constant_time, internal to libcrypto). Through the core the
 * nearest is a mark: mark the queue, raise, then either pop back to the mark (the queue as
 * it was: success) or clear the mark (the error stays: failure). Both endings walk back
 * over the one entry; pop also wipes it (its err_clear: a few stores). Measured on OpenSSL
 * 3.0.19 (Intel Xeon, Sapphire Rapids class): mark, raise and end cost about 820 TSC ticks,
 * pop about 15 more than clearing the mark, against about 800,000 for the decryption
 * around it; the t-test through EVP (test/ct/ttest_decrypt.c) does not see it at 10^5
 * samples per side. The two endings are different functions of libcrypto, though: a cache
 * probe on their code tells them apart (an attacker's review did, 80-88% from one trace),
 * as it tells EVP_PKEY_decrypt's own failure-only ERR_count_to_mark on those cores.
 * An empty queue cannot be marked (ERR_set_mark does nothing then): pop then empties it
 * and clearing the mark does nothing, the same outcome.
 */
int ctrsa_raise_unless(const CTRSA_PROVCTX *prov, int ok, int reason, const char *fmt, ...)
{
    typedef int end_fn(const OSSL_CORE_HANDLE *);
    uintptr_t good = (uintptr_t)0 - (uintptr_t)(ok & 1); /* all ones when ok */
    end_fn *end;
    va_list ap;

    if (prov == NULL || prov->handle == NULL || core_vset_error == NULL)
        return ok & 1;
    core_set_error_mark(prov->handle);
    core_new_error(prov->handle);
    core_set_error_debug(prov->handle, NULL, 0, NULL);
    va_start(ap, fmt);
    core_vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
    /*
     * The verdict's one use: the same instructions either way, one indirect call whose
     * target is picked with a mask. From here on it is public (it is the return value).
     */
    __asm__("" : "+r"(good)); /* the compiler sees a word, not a 0/1 to branch on */
    end = (end_fn *)((good & (uintptr_t)core_pop_error_to_mark)
                     | (~good & (uintptr_t)core_clear_last_error_mark));
    end(prov->handle);
    return ok & 1;
}
