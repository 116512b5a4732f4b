/*
 * DER AlgorithmIdentifier of an RSA signature, for the "algorithm-id" parameter:
 * <digest>WithRSAEncryption with NULL parameters for PKCS#1 v1.5, and id-RSASSA-PSS with
 * RSASSA-PSS-params (RFC 4055 / RFC 8017 A.2.3) for PSS, omitting DEFAULT values as DER
 * requires. OIDs come from the digest table in padding/sig_padding.h.
 */
#ifndef CTRSA_SIG_ALGID_H
#define CTRSA_SIG_ALGID_H

#include <stddef.h>
#include <stdint.h>
#include "sig_padding.h"

#define CTRSA_SIG_ALGID_MAX 96  /* large enough for any identifier below */

/*
 * SEQUENCE { OID d->sig_oid, NULL } into out[0..outsize). Returns the length, or 0 if the
 * digest has no PKCS#1 signature OID or out is too small.
 */
size_t ctrsa_sig_algid_pkcs1(const ctrsa_digest_info *d, uint8_t *out, size_t outsize);

/*
 * SEQUENCE { id-RSASSA-PSS, RSASSA-PSS-params { [0] hash, [1] mgf1(mgf1 hash), [2] salt } }
 * with [0] omitted for SHA-1, [1] for MGF1-SHA-1, [2] for 20, and the trailer always
 * omitted (it is always 0xbc here). Hash identifiers carry NULL parameters, as RFC 4055
 * writes them. Returns the length, or 0 if md or mgf1md is NULL or out is too small.
 */
size_t ctrsa_sig_algid_pss(const ctrsa_digest_info *md, const ctrsa_digest_info *mgf1md,
                           size_t saltlen, uint8_t *out, size_t outsize);

#endif
