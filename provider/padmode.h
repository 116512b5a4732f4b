/*
 * The one table of RSA padding modes shared by the signature and asym-cipher operations:
 * the int values of <openssl/rsa.h> and the names OpenSSL's default provider uses
 * (OSSL_PKEY_RSA_PAD_MODE_* in core_names.h).
 */
#ifndef CTRSA_PADMODE_H
#define CTRSA_PADMODE_H

#include <openssl/core.h>
#include <openssl/rsa.h>
#include "prov.h"

/* A set of modes as a bit mask: CTRSA_PADMODE_BIT(RSA_PKCS1_PADDING) | ... */
#define CTRSA_PADMODE_BIT(mode) (1u << (unsigned)(mode))

#define CTRSA_PADMODES_SIGNATURE \
    (CTRSA_PADMODE_BIT(RSA_PKCS1_PADDING) | CTRSA_PADMODE_BIT(RSA_NO_PADDING) \
     | CTRSA_PADMODE_BIT(RSA_X931_PADDING) | CTRSA_PADMODE_BIT(RSA_PKCS1_PSS_PADDING))
#define CTRSA_PADMODES_CIPHER \
    (CTRSA_PADMODE_BIT(RSA_PKCS1_PADDING) | CTRSA_PADMODE_BIT(RSA_NO_PADDING) \
     | CTRSA_PADMODE_BIT(RSA_PKCS1_OAEP_PADDING) \
     | CTRSA_PADMODE_BIT(RSA_PKCS1_WITH_TLS_PADDING))

/*
 * The OpenSSL name of a mode ("none", "pkcs1", "oaep", "x931", "pss"), or NULL for a mode
 * that has no name there (RSA_PKCS1_WITH_TLS_PADDING) or is unknown.
 */
const char *ctrsa_padmode_name(int mode);

/* A short label for any known mode, for traces and messages ("pkcs1-tls" for mode 7). */
const char *ctrsa_padmode_label(int mode);

/*
 * *mode := the mode in p, which holds an integer or a UTF-8 name. The mode must be in
 * `allowed` (a CTRSA_PADMODE_BIT mask). On a bad type, unknown or disallowed value raises
 * CTRSA_R_INVALID_PADDING_MODE and returns 0 with *mode unchanged.
 */
int ctrsa_padmode_from_param(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p,
                             unsigned int allowed, int *mode);

/*
 * Write mode into p: as an integer if p is an integer parameter, as the name if it is a
 * UTF-8 string. Raises CTRSA_R_INVALID_PADDING_MODE and returns 0 if the mode has no name
 * and a string is asked for.
 */
int ctrsa_padmode_to_param(const CTRSA_PROVCTX *prov, OSSL_PARAM *p, int mode);

#endif
