/*
 * Private to provider/provider.c and provider/errors.c: binding the core's error functions
 * that ctrsa_raise (prov.h) reports through.
 */
#ifndef CTRSA_CORE_ERRORS_H
#define CTRSA_CORE_ERRORS_H

#include <openssl/core.h>

/*
 * Take core_new_error, core_set_error_debug and core_vset_error from the core's dispatch
 * table `in`. They are the same for every instance of the module in a process (there is one
 * libcrypto), so they are kept in file-scope variables. 1 if all three were found.
 */
int ctrsa_errors_bind(const OSSL_DISPATCH *in);

#endif
