/*
 * Error reporting through the core (see prov.h): the reason-string table, ctrsa_raise and
 * ctrsa_raise_unless. A reason goes to core_vset_error as the code the table below gives
 * it: the default provider's (library, reason) where it raises the same condition, else
 * ctrsa's own reason, which the core packs with the library number it gave this provider
 * and prints from ctrsa_reason_strings().
 */
#include <stdarg.h>
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include <openssl/rsaerr.h>
#include "prov.h"
#include "core_errors.h"


/*
 * The one table of reasons: for each reason of prov.h, the code it is raised with and
 * ctrsa's text for it. Where the default provider refuses the same condition, the reason
 * is raised with the default's library and reason code (lib, code): programs and
 * OpenSSL's tests compare ERR_GET_LIB and ERR_GET_REASON with the PROV_R_* and RSA_R_*
 * values, and OpenSSL prints libcrypto's string for them (the core loads its PROV and RSA
 * strings); ctrsa's detail stays in the error's data. A reason with lib 0 is ctrsa's own:
 * the core packs it with the library number it gave this provider and prints the text
 * given here. Each mapped code was checked against OpenSSL 3.0's default provider
 * (docs/compatibility.md lists them and the ones left ctrsa's own).
 *
 * Invariant: CTRSA_R_DECRYPT_FAILED stays ctrsa's own (lib 0): ctrsa_raise_unless passes
 * its reason to the core as is, so that the decryption's error path runs the same code
 * as before whatever this table says (test_keymgmt checks it).
 */
#define CTRSA_REASON_TABLE(X) \
    X(CTRSA_R_INTERNAL, ERR_LIB_PROV, ERR_R_INTERNAL_ERROR, "internal error") \
    X(CTRSA_R_MALLOC_FAILURE, ERR_LIB_PROV, ERR_R_MALLOC_FAILURE, "memory allocation failed") \
    X(CTRSA_R_INVALID_KEY, ERR_LIB_PROV, PROV_R_INVALID_KEY, "invalid RSA key") \
    X(CTRSA_R_MISSING_KEY_PART, 0, 0, "missing RSA key part") \
    X(CTRSA_R_KEY_TOO_SMALL, 0, 0, "RSA key too small") \
    X(CTRSA_R_KEY_TOO_LARGE, 0, 0, "RSA key too large") \
    X(CTRSA_R_NOT_PRIVATE_KEY, ERR_LIB_RSA, RSA_R_MISSING_PRIVATE_KEY, "not a private key") \
    X(CTRSA_R_INPUT_TOO_LARGE, ERR_LIB_RSA, RSA_R_DATA_TOO_LARGE_FOR_MODULUS, \
      "input too large for the modulus") \
    X(CTRSA_R_WRONG_INPUT_LENGTH, 0, 0, "wrong input length") \
    X(CTRSA_R_OUTPUT_BUFFER_TOO_SMALL, ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL, \
      "output buffer too small") \
    X(CTRSA_R_UNKNOWN_DIGEST, ERR_LIB_PROV, PROV_R_INVALID_DIGEST, "unknown digest") \
    X(CTRSA_R_DIGEST_NOT_ALLOWED, ERR_LIB_PROV, PROV_R_DIGEST_NOT_ALLOWED, "digest not allowed") \
    X(CTRSA_R_INVALID_PADDING_MODE, ERR_LIB_PROV, PROV_R_INVALID_PADDING_MODE, \
      "invalid padding mode") \
    X(CTRSA_R_INVALID_SALT_LENGTH, ERR_LIB_PROV, PROV_R_INVALID_SALT_LENGTH, "invalid salt length") \
    X(CTRSA_R_INVALID_PARAMETER, 0, 0, "invalid parameter") \
    X(CTRSA_R_BAD_SIGNATURE, ERR_LIB_RSA, RSA_R_BAD_SIGNATURE, "bad signature") \
    X(CTRSA_R_DECRYPT_FAILED, 0, 0, "decryption failed") \
    X(CTRSA_R_FAULT_DETECTED, 0, 0, "fault detected in private-key operation") \
    X(CTRSA_R_RANDOM_FAILURE, 0, 0, "random number generation failed") \
    X(CTRSA_R_OPERATION_NOT_INITIALIZED, 0, 0, "operation not initialized") \
    X(CTRSA_R_KEYGEN_FAILED, 0, 0, "key generation failed") \
    X(CTRSA_R_BAD_KEYGEN_PARAMETER, 0, 0, "bad key generation parameter") \
    X(CTRSA_R_UNSUPPORTED_OPENSSL, 0, 0, "unsupported OpenSSL version") \
    X(CTRSA_R_MODULUS_TOO_LARGE, ERR_LIB_RSA, RSA_R_MODULUS_TOO_LARGE, "modulus too large") \
    X(CTRSA_R_INVALID_MGF1_MD, ERR_LIB_PROV, PROV_R_INVALID_MGF1_MD, "invalid mgf1 md") \
    X(CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE, ERR_LIB_PROV, \
      PROV_R_OPERATION_NOT_SUPPORTED_FOR_THIS_KEYTYPE, "operation not supported for this keytype") \
    X(CTRSA_R_KEY_SIZE_TOO_SMALL, ERR_LIB_PROV, PROV_R_KEY_SIZE_TOO_SMALL, "key size too small") \
    X(CTRSA_R_INVALID_X931_DIGEST, ERR_LIB_PROV, PROV_R_INVALID_X931_DIGEST, "invalid x931 digest") \
    X(CTRSA_R_SIGNATURE_BUFFER_TOO_SMALL, ERR_LIB_PROV, PROV_R_INVALID_SIGNATURE_SIZE, \
      "signature buffer too small") \
    X(CTRSA_R_PLAINTEXT_BUFFER_TOO_SMALL, ERR_LIB_PROV, PROV_R_BAD_LENGTH, \
      "plaintext buffer too small") \
    X(CTRSA_R_KEM_BUFFER_TOO_SMALL, ERR_LIB_PROV, PROV_R_INVALID_OUTPUT_LENGTH, \
      "KEM output buffer too small") \
    X(CTRSA_R_ILLEGAL_PADDING_MODE, ERR_LIB_PROV, PROV_R_ILLEGAL_OR_UNSUPPORTED_PADDING_MODE, \
      "padding mode not supported by this operation or key") \
    X(CTRSA_R_INVALID_DIGEST_LENGTH, ERR_LIB_PROV, PROV_R_INVALID_DIGEST_LENGTH, \
      "invalid digest length") \
    X(CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE, ERR_LIB_RSA, RSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE, \
      "padded message too large for the key") \
    X(CTRSA_R_DIGEST_TOO_BIG_FOR_KEY, ERR_LIB_RSA, RSA_R_DIGEST_TOO_BIG_FOR_RSA_KEY, \
      "DigestInfo too large for the key") \
    X(CTRSA_R_PSS_SALTLEN_TOO_SMALL, ERR_LIB_PROV, PROV_R_PSS_SALTLEN_TOO_SMALL, \
      "salt shorter than the RSA-PSS key's minimum")

/* ctrsa's text of every reason, for OSSL_FUNC_provider_get_reason_strings; the core shows
 * those of the reasons with lib 0 (the others are raised under libcrypto's codes). */
static const OSSL_ITEM reason_strings[] = {
#define CTRSA_REASON_STRING(reason, lib, code, text) { (reason), (text) },
    CTRSA_REASON_TABLE(CTRSA_REASON_STRING)
#undef CTRSA_REASON_STRING
    { 0, NULL }
};

/* What core_vset_error is given for each reason: a code with library bits (which the core
 * takes as packed: ERR_GET_LIB != 0), or the reason itself (the provider's library). */
static const uint32_t reason_codes[CTRSA_R_COUNT] = {
#define CTRSA_REASON_CODE(reason, lib, code, text) \
    [(reason)] = (lib) != 0 ? (uint32_t)ERR_PACK((lib), 0, (code)) : (uint32_t)(reason),
    CTRSA_REASON_TABLE(CTRSA_REASON_CODE)
#undef CTRSA_REASON_CODE
};

const OSSL_ITEM *ctrsa_reason_strings(void)
{
    return reason_strings;
}

uint32_t ctrsa_reason_code(int reason)
{
    if (reason <= 0 || reason >= CTRSA_R_COUNT || reason_codes[reason] == 0)
        return (uint32_t)reason;
    return reason_codes[reason];
}

int ctrsa_errors_bind(CTRSA_PROVCTX *prov, const OSSL_DISPATCH *in)
{
    ctrsa_core_errors *e = &prov->err;
    for (; in != NULL && in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            e->new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            e->set_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            e->vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_MARK:
            e->set_mark = OSSL_FUNC_core_set_error_mark(in);
            break;
        case OSSL_FUNC_CORE_CLEAR_LAST_ERROR_MARK:
            e->clear_last_mark = OSSL_FUNC_core_clear_last_error_mark(in);
            break;
        case OSSL_FUNC_CORE_POP_ERROR_TO_MARK:
            e->pop_to_mark = OSSL_FUNC_core_pop_error_to_mark(in);
            break;
        default:
            break;
        }
    }
    if (e->new_error != NULL && e->set_debug != NULL && e->vset_error != NULL
        && e->set_mark != NULL && e->clear_last_mark != NULL && e->pop_to_mark != NULL)
        return 1;
    memset(e, 0, sizeof(*e)); /* all or nothing: ctrsa_raise checks vset_error alone */
    return 0;
}

/*
 * Without a provider context (prov == NULL) there is no core handle to report to and the
 * error is dropped: callers pass NULL only where no context exists yet.
 */
void ctrsa_raise(const CTRSA_PROVCTX *prov, int reason, const char *fmt, ...)
{
    va_list ap;

    if (prov == NULL || prov->handle == NULL || prov->err.vset_error == NULL)
        return;
    prov->err.new_error(prov->handle);
    prov->err.set_debug(prov->handle, NULL, 0, NULL);
    va_start(ap, fmt);
    prov->err.vset_error(prov->handle, ctrsa_reason_code(reason), fmt, ap);
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

    if (prov == NULL || prov->handle == NULL || prov->err.vset_error == NULL)
        return ok & 1;
    prov->err.set_mark(prov->handle);
    prov->err.new_error(prov->handle);
    prov->err.set_debug(prov->handle, NULL, 0, NULL);
    va_start(ap, fmt);
    prov->err.vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
    /*
     * The verdict's one use: the same instructions either way, one indirect call whose
     * target is picked with a mask. From here on it is public (it is the return value).
     */
    __asm__("" : "+r"(good)); /* the compiler sees a word, not a 0/1 to branch on */
    end = (end_fn *)((good & (uintptr_t)prov->err.pop_to_mark)
                     | (~good & (uintptr_t)prov->err.clear_last_mark));
    end(prov->handle);
    return ok & 1;
}
