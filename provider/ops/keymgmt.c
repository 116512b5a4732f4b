/*
 * Key management for "RSA" and "RSA-PSS": the key object (provider/key/rsa_key.h) behind
 * OpenSSL's EVP_PKEY. Keys arrive by import (EVP_PKEY_fromdata, or export from another
 * provider's key, which is how keys decoded by the default provider reach ctrsa) and leave
 * by export. Key generation is in provider/ops/keygen.c; its handlers are in both tables below.
 *
 * The two tables share every handler except import and the type lists: an RSA key refuses
 * RSA-PSS restrictions, an RSA-PSS key accepts, exports and reports them.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "dispatch.h"
#include "keygen.h"
#include "keymgmt_numbers.h"
#include "keymgmt_pss.h"
#include "prov.h"
#include "rsa_key.h"
#include "rsa_op.h"

#define KM_DEFAULT_DIGEST "SHA256"
#define KM_POSSIBLE_SELECTIONS (OSSL_KEYMGMT_SELECT_KEYPAIR | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)

static OSSL_FUNC_keymgmt_new_fn km_new;
static OSSL_FUNC_keymgmt_new_fn km_rsapss_new;
static OSSL_FUNC_keymgmt_free_fn km_free;
static OSSL_FUNC_keymgmt_has_fn km_has;
static OSSL_FUNC_keymgmt_match_fn km_match;
static OSSL_FUNC_keymgmt_validate_fn km_validate;
static OSSL_FUNC_keymgmt_import_fn km_rsa_import;
static OSSL_FUNC_keymgmt_import_fn km_rsapss_import;
static OSSL_FUNC_keymgmt_import_types_fn km_rsa_import_types;
static OSSL_FUNC_keymgmt_import_types_fn km_rsapss_import_types;
static OSSL_FUNC_keymgmt_export_fn km_export;
static OSSL_FUNC_keymgmt_export_types_fn km_rsa_export_types;
static OSSL_FUNC_keymgmt_export_types_fn km_rsapss_export_types;
static OSSL_FUNC_keymgmt_get_params_fn km_get_params;
static OSSL_FUNC_keymgmt_gettable_params_fn km_rsa_gettable_params;
static OSSL_FUNC_keymgmt_gettable_params_fn km_rsapss_gettable_params;
static OSSL_FUNC_keymgmt_dup_fn km_dup;
static OSSL_FUNC_keymgmt_query_operation_name_fn km_query_operation_name;

/* ---- type lists ---------------------------------------------------------------------- */

#define KM_PSS_EXPORT_TYPES \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0), \
    OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL),
#define KM_PSS_IMPORT_TYPES \
    KM_PSS_EXPORT_TYPES \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, NULL, 0), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST_PROPS, NULL, 0),
/* OpenSSL 3.6's post-quantum security category (NIST's 1 to 5): 0 for RSA, as OpenSSL. */
#ifdef OSSL_PKEY_PARAM_SECURITY_CATEGORY
#define KM_SECURITY_CATEGORY_TYPE OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_CATEGORY, NULL),
#else
#define KM_SECURITY_CATEGORY_TYPE
#endif
#define KM_INFO_TYPES \
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL), \
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL), \
    KM_SECURITY_CATEGORY_TYPE \
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL), \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),

static const OSSL_PARAM key_types[] = {
    CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE)
    OSSL_PARAM_END
};
static const OSSL_PARAM pss_import_types[] = { KM_PSS_IMPORT_TYPES OSSL_PARAM_END };
static const OSSL_PARAM pss_export_types[] = { KM_PSS_EXPORT_TYPES OSSL_PARAM_END };
static const OSSL_PARAM key_pss_import_types[] = {
    CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE)
    KM_PSS_IMPORT_TYPES
    OSSL_PARAM_END
};
static const OSSL_PARAM key_pss_export_types[] = {
    CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE)
    KM_PSS_EXPORT_TYPES
    OSSL_PARAM_END
};
static const OSSL_PARAM rsa_gettable[] = {
    KM_INFO_TYPES
    CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE)
    OSSL_PARAM_END
};
static const OSSL_PARAM rsapss_gettable[] = {
    KM_INFO_TYPES
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, NULL, 0),
    KM_PSS_EXPORT_TYPES
    CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE)
    OSSL_PARAM_END
};

static const OSSL_PARAM *km_rsa_import_types(int selection)
{
    return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 ? key_types : NULL;
}

static const OSSL_PARAM *km_rsa_export_types(int selection)
{
    return km_rsa_import_types(selection);
}

static const OSSL_PARAM *pss_types(int selection, const OSSL_PARAM *keys_only,
                                   const OSSL_PARAM *pss_only, const OSSL_PARAM *both)
{
    int keys = (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0;
    int other = (selection & OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS) != 0;

    if (keys && other)
        return both;
    if (keys)
        return keys_only;
    return other ? pss_only : NULL;
}

static const OSSL_PARAM *km_rsapss_import_types(int selection)
{
    return pss_types(selection, key_types, pss_import_types, key_pss_import_types);
}

static const OSSL_PARAM *km_rsapss_export_types(int selection)
{
    return pss_types(selection, key_types, pss_export_types, key_pss_export_types);
}

static const OSSL_PARAM *km_rsa_gettable_params(void *provctx)
{
    (void)provctx;
    return rsa_gettable;
}

static const OSSL_PARAM *km_rsapss_gettable_params(void *provctx)
{
    (void)provctx;
    return rsapss_gettable;
}

/* ---- life cycle ---------------------------------------------------------------------- */

static void *km_new(void *provctx)
{
    return ctrsa_key_new(provctx);
}

/* An RSA-PSS key: PSS only, whether or not it carries restrictions. */
static void *km_rsapss_new(void *provctx)
{
    CTRSA_KEY *key = ctrsa_key_new(provctx);
    if (key != NULL)
        ctrsa_key_set_pss_type(key);
    return key;
}

static void km_free(void *keydata)
{
    ctrsa_key_free(keydata);
}

static const ctrsa_pss_restriction *key_pss(const CTRSA_KEY *key)
{
    return ctrsa_key_pss_const(key);
}

static void *km_dup(const void *keydata, int selection)
{
    const CTRSA_KEY *key = keydata;
    CTRSA_KEY *copy;

    /* no key without its numbers, as the default provider's rsa_dup: a selection without
     * the key pair (EVP_PKEY_copy_parameters asks for the parameters alone) is refused */
    if (key == NULL || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0)
        return NULL;
    copy = ctrsa_key_dup(key, (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0);
    /* the restrictions go with the key whatever the selection, as in OpenSSL */
    if (copy != NULL)
        *ctrsa_key_pss(copy) = *key_pss(key);
    return copy;
}

static const char *km_query_operation_name(int operation_id)
{
    /* RSA-PSS keys sign with the "RSA" signature; RSA keys also encrypt with "RSA". */
    (void)operation_id;
    return "RSA";
}

/* ---- queries ------------------------------------------------------------------------- */

static int km_has(const void *keydata, int selection)
{
    const CTRSA_KEY *key = keydata;
    int ok = 1;

    if (key == NULL)
        return 0;
    if ((selection & KM_POSSIBLE_SELECTIONS) == 0)
        return 1;
    /* OTHER_PARAMETERS (the PSS restrictions) are always there, possibly empty */
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0)
        ok = ok && ctrsa_key_has_public(key);
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0)
        ok = ok && ctrsa_key_has_private(key);
    return ok;
}

/*
 * Equal public parts (n, e) make equal keys; the private exponents are compared only when
 * the selection asks for the private half without the public one.
 */
static int km_match(const void *keydata1, const void *keydata2, int selection)
{
    const CTRSA_KEY *a = keydata1, *b = keydata2;
    int want_private = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0
                       && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) == 0;

    if (a == NULL || b == NULL || !ctrsa_key_has_public(a) || !ctrsa_key_has_public(b))
        return 0;
    if (want_private && (!ctrsa_key_has_private(a) || !ctrsa_key_has_private(b)))
        return 0;
    return ctrsa_key_match(a, b, want_private);
}

static int km_validate(const void *keydata, int selection, int checktype)
{
    const CTRSA_KEY *key = keydata;
    CTRSA_PROVCTX *prov;

    (void)checktype;    /* every check is full: RSA has no quick variant worth having */
    if (key == NULL)
        return 0;
    prov = ctrsa_key_provctx(key);
    if ((selection & KM_POSSIBLE_SELECTIONS) == 0)
        return 1;
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 && !ctrsa_key_has_public(key)) {
        CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "the key is empty");
        return 0;
    }
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0) {
        if (!ctrsa_key_has_private(key)) {
            CTRSA_RAISE(prov, CTRSA_R_NOT_PRIVATE_KEY, "a private-key check needs a private key");
            return 0;
        }
        /* A private-key check alone: 1 <= d < n on the numbers as imported, as the
         * default provider's, whatever n is; nothing else is computed. */
        if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) == 0)
            return ctrsa_key_check_private(key);
        return ctrsa_key_check_pair(key);
    }
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0)
        return ctrsa_key_check_public(key);
    return 1;   /* the PSS restrictions were checked on import */
}

/* The parameter p could not be answered: the key is empty, or p's type or size is wrong. */
static int get_failed(const CTRSA_KEY *key, const OSSL_PARAM *p)
{
    CTRSA_RAISE(ctrsa_key_provctx(key), CTRSA_R_INVALID_PARAMETER,
                "cannot return key parameter \"%s\" (%s)", p->key,
                ctrsa_key_has_public(key) ? "wrong type or buffer too small" : "the key is empty");
    return 0;
}

static int km_get_params(void *keydata, OSSL_PARAM params[])
{
    CTRSA_KEY *key = keydata;
    const ctrsa_pss_restriction *pss;
    int has_public;
    OSSL_PARAM *p;

    if (key == NULL)
        return 0;
    pss = ctrsa_key_pss(key);
    has_public = ctrsa_key_has_public(key);
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != NULL
        && (!has_public || !OSSL_PARAM_set_int(p, (int)ctrsa_key_bits(key))))
        return get_failed(key, p);
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != NULL
        && (!has_public || !OSSL_PARAM_set_int(p, ctrsa_key_security_bits(key))))
        return get_failed(key, p);
#ifdef OSSL_PKEY_PARAM_SECURITY_CATEGORY
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_CATEGORY)) != NULL
        && (!has_public || !OSSL_PARAM_set_int(p, 0)))
        return get_failed(key, p);
#endif
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != NULL
        && (!has_public || !OSSL_PARAM_set_int(p, (int)ctrsa_key_size(key))))
        return get_failed(key, p);
    /* a restricted RSA-PSS key answers mandatory-digest instead, as OpenSSL's keys do */
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_DEFAULT_DIGEST)) != NULL
        && !pss->restricted && !OSSL_PARAM_set_utf8_string(p, KM_DEFAULT_DIGEST))
        return get_failed(key, p);
    if (!ctrsa_pss_get_params(pss, params))
        return 0;
    int wanted = has_public ? ctrsa_param_numbers_wanted(params) : 0;
    if (wanted != 0) {
        ctrsa_key_numbers nums;
        int ok;

        if (!ctrsa_key_get_numbers(key, &nums, wanted == 2))
            return 0;
        ok = ctrsa_param_numbers_get(&nums, params);
        ctrsa_key_numbers_clear(&nums);
        if (!ok)
            return 0;
    }
    return 1;
}

/* ---- import and export --------------------------------------------------------------- */

/*
 * Set the key from params. A public key (no d) is accepted whatever the selection: OpenSSL
 * exports with "select all" even for public keys. The key is unchanged on failure.
 */
static int import_key(CTRSA_KEY *key, int selection, const OSSL_PARAM params[], int pss_key)
{
    CTRSA_PROVCTX *prov;
    ctrsa_pss_restriction pss;
    int found = 0;

    if (key == NULL)
        return 0;
    prov = ctrsa_key_provctx(key);
    if ((selection & KM_POSSIBLE_SELECTIONS) == 0) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER, "the import selection names no RSA part");
        return 0;
    }
    pss = *ctrsa_key_pss(key);
    if ((selection & OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS) != 0) {
        if (!ctrsa_pss_read(prov, params, ctrsa_key_pss(key), &pss, &found))
            return 0;
        if (found && !pss_key) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER,
                        "RSA-PSS restrictions given for a key of type RSA");
            return 0;
        }
    }
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0) {
        ctrsa_param_numbers nums;
        int ok;

        if (!ctrsa_param_numbers_read(prov, params,
                                      (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0, &nums))
            return 0;
        ok = ctrsa_key_set(key, &nums.nums);
        ctrsa_param_numbers_release(&nums);
        if (!ok)
            return 0;
    }
    *ctrsa_key_pss(key) = pss;
    return 1;
}

static int km_rsa_import(void *keydata, int selection, const OSSL_PARAM params[])
{
    return import_key(keydata, selection, params, 0);
}

static int km_rsapss_import(void *keydata, int selection, const OSSL_PARAM params[])
{
    return import_key(keydata, selection, params, 1);
}

/*
 * Hand the selected parts to cb: n and e, the private numbers when selected and present,
 * the PSS restrictions when selected and the key has them. The exported array is wiped.
 */
static int km_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
    CTRSA_KEY *key = keydata;
    CTRSA_PROVCTX *prov;
    ctrsa_key_numbers nums;
    OSSL_PARAM *params;
    size_t count = 0;
    int include_private, ok;

    if (key == NULL || cb == NULL)
        return 0;
    prov = ctrsa_key_provctx(key);
    if ((selection & KM_POSSIBLE_SELECTIONS) == 0) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER, "the export selection names no RSA part");
        return 0;
    }
    memset(&nums, 0, sizeof(nums));
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0) {
        if (!ctrsa_key_has_public(key)) {
            CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "the key is empty: nothing to export");
            return 0;
        }
        if (!ctrsa_key_get_numbers(key, &nums,
                                   (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0))
            return 0;
    }
    include_private = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0
                      && ctrsa_key_has_private(key);
    params = ctrsa_param_numbers_array(prov, &nums, include_private, CTRSA_PSS_PARAM_COUNT,
                                       &count);
    if (params == NULL) {
        ctrsa_key_numbers_clear(&nums);
        return 0;
    }
    if ((selection & OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS) != 0)
        count += ctrsa_pss_export_fill(ctrsa_key_pss(key), params + count);
    ok = cb(params, cbarg);
    ctrsa_param_numbers_free_array(params);
    ctrsa_key_numbers_clear(&nums);
    return ok;
}

/* ---- dispatch tables ----------------------------------------------------------------- */

#define KM_COMMON_FUNCTIONS \
    { OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))km_free }, \
    { OSSL_FUNC_KEYMGMT_DUP, (void (*)(void))km_dup }, \
    { OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))km_has }, \
    { OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))km_match }, \
    { OSSL_FUNC_KEYMGMT_VALIDATE, (void (*)(void))km_validate }, \
    { OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))km_export }, \
    { OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))km_get_params }, \
    { OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, (void (*)(void))km_query_operation_name },

const OSSL_DISPATCH ctrsa_rsa_keymgmt_functions[] = {
    { OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))km_new },
    KM_COMMON_FUNCTIONS
    { OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))km_rsa_import },
    { OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))km_rsa_import_types },
    { OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))km_rsa_export_types },
    { OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))km_rsa_gettable_params },
    CTRSA_RSA_GEN_FUNCTIONS
    OSSL_DISPATCH_END
};

const OSSL_DISPATCH ctrsa_rsapss_keymgmt_functions[] = {
    { OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))km_rsapss_new },
    KM_COMMON_FUNCTIONS
    { OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))km_rsapss_import },
    { OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))km_rsapss_import_types },
    { OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))km_rsapss_export_types },
    { OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))km_rsapss_gettable_params },
    CTRSA_RSAPSS_GEN_FUNCTIONS
    OSSL_DISPATCH_END
};
