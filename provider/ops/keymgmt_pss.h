/*
 * RSA-PSS key restrictions as OSSL_PARAMs ("digest", "mgf1-digest", "mgf", "saltlen",
 * "properties"), for the RSA-PSS keymgmt's import, export and get_params.
 */
#ifndef CTRSA_KEYMGMT_PSS_H
#define CTRSA_KEYMGMT_PSS_H

#include <openssl/core.h>
#include "prov.h"
#include "rsa_key.h"

/* Restriction values when a parameter is absent (RFC 8017 A.2.3: SHA-1, MGF1-SHA-1, 20). */
#define CTRSA_PSS_DEFAULT_MD "SHA1"
#define CTRSA_PSS_DEFAULT_SALTLEN 20

/* The parameters ctrsa_pss_export_fill writes (and get_params answers). */
#define CTRSA_PSS_PARAM_COUNT 3

/*
 * *out := *current with the restriction parameters in params applied. When any is present
 * and *current is unrestricted, the unspecified ones take the defaults above and
 * out->restricted becomes 1. Digests are checked by fetching them from prov's library
 * context (with "properties" when given); "mgf" must be "MGF1"; the salt length must be
 * >= 0. *found := 1 if any restriction parameter was present. On failure raises
 * CTRSA_R_UNKNOWN_DIGEST, CTRSA_R_DIGEST_NOT_ALLOWED, CTRSA_R_INVALID_PARAMETER or
 * CTRSA_R_INVALID_SALT_LENGTH and returns 0.
 */
int ctrsa_pss_read(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[],
                   const ctrsa_pss_restriction *current, ctrsa_pss_restriction *out,
                   int *found);

/*
 * out[0..CTRSA_PSS_PARAM_COUNT) := digest, mgf1-digest and saltlen of a restricted r
 * (pointing into r, which must outlive them). Returns the number written: 0 when r is
 * unrestricted. All three are always written so that the importer sees a restriction even
 * when it equals the defaults.
 */
size_t ctrsa_pss_export_fill(const ctrsa_pss_restriction *r, OSSL_PARAM out[]);

/*
 * Answer get_params for a restricted r: digest, mgf1-digest, saltlen and mandatory-digest.
 * Nothing is written for an unrestricted r. 1 on success.
 */
int ctrsa_pss_get_params(const ctrsa_pss_restriction *r, OSSL_PARAM params[]);

#endif
