/*
 * Private to provider/provider.c and provider/errors.c: binding the core's error functions
 * that ctrsa_raise (prov.h) reports through.
 */
#ifndef CTRSA_CORE_ERRORS_H
#define CTRSA_CORE_ERRORS_H

#include <openssl/core.h>
#include "prov.h"

/*
 * Take the core's error functions (new, debug, vset, and the three mark functions) from its
 * dispatch table `in` into prov->err. 1 if all six were found.
 */
int ctrsa_errors_bind(CTRSA_PROVCTX *prov, const OSSL_DISPATCH *in);

#endif
