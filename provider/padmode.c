/* The shared pad-mode table. See padmode.h. */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "padmode.h"

static const struct padmode_entry {
    int mode;
    const char *name;   /* OpenSSL's name, NULL if it has none */
    const char *label;  /* for traces */
} padmodes[] = {
    { RSA_PKCS1_PADDING, OSSL_PKEY_RSA_PAD_MODE_PKCSV15, "pkcs1" },
    { RSA_NO_PADDING, OSSL_PKEY_RSA_PAD_MODE_NONE, "none" },
    { RSA_PKCS1_OAEP_PADDING, OSSL_PKEY_RSA_PAD_MODE_OAEP, "oaep" },
    { RSA_PKCS1_OAEP_PADDING, "oeap", "oaep" },   /* OpenSSL's alias (misspelling); after
                                                     "oaep" so that by_mode finds that */
    { RSA_X931_PADDING, OSSL_PKEY_RSA_PAD_MODE_X931, "x931" },
    { RSA_PKCS1_PSS_PADDING, OSSL_PKEY_RSA_PAD_MODE_PSS, "pss" },
    { RSA_PKCS1_WITH_TLS_PADDING, NULL, "pkcs1-tls" },
};

static const struct padmode_entry *by_mode(int mode)
{
    size_t i;

    for (i = 0; i < sizeof(padmodes) / sizeof(padmodes[0]); i++)
        if (padmodes[i].mode == mode)
            return &padmodes[i];
    return NULL;
}

const char *ctrsa_padmode_name(int mode)
{
    const struct padmode_entry *e = by_mode(mode);

    return e != NULL ? e->name : NULL;
}

const char *ctrsa_padmode_label(int mode)
{
    const struct padmode_entry *e = by_mode(mode);

    return e != NULL ? e->label : "unknown";
}

static int allowed_mode(int mode, const ctrsa_padmode_rules *rules)
{
    if (mode < 0 || mode >= 32)
        return rules->any_int;
    return (rules->allowed & CTRSA_PADMODE_BIT(mode)) != 0;
}

/* The mode `name` gives under rules: found in the table among rules->by_name, else
 * rules->unknown_name (current for CTRSA_PADMODE_KEEP). */
static int mode_by_name(const char *name, const ctrsa_padmode_rules *rules, int current)
{
    size_t i;

    for (i = 0; i < sizeof(padmodes) / sizeof(padmodes[0]); i++)
        if (padmodes[i].name != NULL && strcmp(padmodes[i].name, name) == 0
            && (rules->by_name & CTRSA_PADMODE_BIT(padmodes[i].mode)) != 0)
            return padmodes[i].mode;
    return rules->unknown_name == CTRSA_PADMODE_KEEP ? current : rules->unknown_name;
}

int ctrsa_padmode_from_param(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p,
                             const ctrsa_padmode_rules *rules, int *mode)
{
    char name[CTRSA_PARAM_NAME_SIZE];
    int m = -1;

    switch (p->data_type) {
    case OSSL_PARAM_INTEGER:
    case OSSL_PARAM_UNSIGNED_INTEGER:
        /* OpenSSL 3.0's getter reads p->data without checking it (fuzz_params). */
        if (p->data == NULL || !OSSL_PARAM_get_int(p, &m)) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode: unreadable integer");
            return 0;
        }
        if (!allowed_mode(m, rules)) {
            CTRSA_RAISE(prov, CTRSA_R_ILLEGAL_PADDING_MODE,
                        "pad-mode %d is not supported by this operation", m);
            return 0;
        }
        break;
    case OSSL_PARAM_UTF8_STRING:
        if (!ctrsa_param_get_utf8(prov, p, name, sizeof(name))) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_PADDING_MODE, "pad-mode: no readable value");
            return 0;
        }
        /* A name the operation does not know is not refused (see padmode.h). */
        m = mode_by_name(name, rules, *mode);
        if (!allowed_mode(m, rules)) {
            CTRSA_RAISE(prov, CTRSA_R_ILLEGAL_PADDING_MODE,
                        "pad-mode \"%.40s\" (%s) is not supported by this operation", name,
                        ctrsa_padmode_label(m));
            return 0;
        }
        break;
    default:
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode must be an integer or a UTF-8 string");
        return 0;
    }
    *mode = m;
    return 1;
}

int ctrsa_padmode_to_param(const CTRSA_PROVCTX *prov, OSSL_PARAM *p, int mode,
                           unsigned int names)
{
    const char *name;

    switch (p->data_type) {
    case OSSL_PARAM_INTEGER:
    case OSSL_PARAM_UNSIGNED_INTEGER:
        return OSSL_PARAM_set_int(p, mode);
    case OSSL_PARAM_UTF8_STRING:
        name = mode >= 0 && mode < 32 && (names & CTRSA_PADMODE_BIT(mode)) != 0
               ? ctrsa_padmode_name(mode) : NULL;
        if (name == NULL) {
            /* As the default provider: an error on the queue, p untouched, success. */
            CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "pad-mode %d has no name", mode);
            return 1;
        }
        return OSSL_PARAM_set_utf8_string(p, name);
    default:
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PADDING_MODE,
                    "pad-mode must be read as an integer or a UTF-8 string");
        return 0;
    }
}
