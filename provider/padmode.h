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

/*
 * The OpenSSL name of a mode ("none", "pkcs1", "oaep", "x931", "pss"), or NULL for a mode
 * that has no name there (RSA_PKCS1_WITH_TLS_PADDING) or is unknown.
 */
const char *ctrsa_padmode_name(int mode);

/* A short label for any known mode, for traces and messages ("pkcs1-tls" for mode 7). */
const char *ctrsa_padmode_label(int mode);

/*
 * How an operation reads a pad-mode, as the default provider's table and checks for it do
 * (the same in OpenSSL 3.0 to 4.0: providers/implementations/signature/rsa_sig.c and
 * asymciphers/rsa_enc.c, set_ctx_params):
 * - by_name: the modes the operation finds by name (its OSSL_ITEM table);
 * - unknown_name: what any other UTF-8 string gives: a mode, or CTRSA_PADMODE_KEEP for the
 *   current one (the default's loop leaves its variable as it was: the signature's holds
 *   the context's mode, the asym-cipher's 0);
 * - allowed: the modes 0..31 then accepted, whether named or given as an integer;
 * - any_int: 1 if integers outside 0..31 are accepted too (the asym-cipher stores any
 *   integer but PSS, to fail at the operation).
 */
#define CTRSA_PADMODE_KEEP (-1)

typedef struct ctrsa_padmode_rules {
    unsigned int by_name;
    int unknown_name;
    unsigned int allowed;
    int any_int;
} ctrsa_padmode_rules;

/*
 * The names each operation finds and reports (the default's two padding_item tables). The
 * asym-cipher's lost "x931" in OpenSSL 3.4 (openssl/openssl#24938, master only, July 2024;
 * measured in 3.5, 3.6 and 4.0); before, it set mode 5, which no encryption takes.
 */
#define CTRSA_PADMODE_NAMES_SIGNATURE CTRSA_PADMODES_SIGNATURE
#define CTRSA_PADMODE_NAMES_CIPHER \
    (CTRSA_PADMODE_BIT(RSA_PKCS1_PADDING) | CTRSA_PADMODE_BIT(RSA_NO_PADDING) \
     | CTRSA_PADMODE_BIT(RSA_PKCS1_OAEP_PADDING))
#define CTRSA_PADMODE_NAMES_CIPHER_3_0 \
    (CTRSA_PADMODE_NAMES_CIPHER | CTRSA_PADMODE_BIT(RSA_X931_PADDING))

/*
 * *mode := the mode in p, which holds an integer or a UTF-8 name, read by `rules`; *mode
 * holds the current mode on entry (for CTRSA_PADMODE_KEEP). A mode outside rules->allowed
 * raises CTRSA_R_ILLEGAL_PADDING_MODE, a bad type or an unreadable value
 * CTRSA_R_INVALID_PADDING_MODE; both return 0 with *mode unchanged.
 */
int ctrsa_padmode_from_param(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p,
                             const ctrsa_padmode_rules *rules, int *mode);

/*
 * Write mode into p: as an integer if p is an integer parameter, as the name if it is a
 * UTF-8 string and the mode is in `names` (the operation's CTRSA_PADMODE_NAMES_*). A mode
 * with no name there asked for as a string (the asym-cipher's 0, 7 or any other integer it
 * was given) raises CTRSA_R_INTERNAL, leaves p as it was and returns 1: the default
 * provider's getters raise ERR_R_INTERNAL_ERROR there and go on (3.0 to 4.0).
 */
int ctrsa_padmode_to_param(const CTRSA_PROVCTX *prov, OSSL_PARAM *p, int mode,
                           unsigned int names);

#endif
