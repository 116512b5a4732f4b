/*
 * The RSA key numbers as OSSL_PARAMs (keymgmt import, export and get_params): one table of
 * parameter names and where each number lives in a ctrsa_key_numbers, and the conversion
 * between OSSL_PARAM's native-endian unsigned integers and the key object's big-endian byte
 * strings. No OpenSSL BN is used.
 */
#ifndef CTRSA_KEYMGMT_NUMBERS_H
#define CTRSA_KEYMGMT_NUMBERS_H

#include <openssl/core.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "prov.h"
#include "rsa_key.h"

/*
 * The one list of key-number parameters: X(name, kind, index). kind is N, E, D, FACTOR,
 * EXPONENT or COEFFICIENT; index counts from 0 within its kind. It yields the import,
 * export and gettable type lists and drives the parser and the writers. Up to
 * CTRSA_MAX_PRIMES (5) primes; keys with more are refused on import with a clear error.
 */
#define CTRSA_KEY_NUMBER_LIST(X) \
    X(OSSL_PKEY_PARAM_RSA_N, N, 0) \
    X(OSSL_PKEY_PARAM_RSA_E, E, 0) \
    X(OSSL_PKEY_PARAM_RSA_D, D, 0) \
    X(OSSL_PKEY_PARAM_RSA_FACTOR1, FACTOR, 0) \
    X(OSSL_PKEY_PARAM_RSA_FACTOR2, FACTOR, 1) \
    X(OSSL_PKEY_PARAM_RSA_FACTOR3, FACTOR, 2) \
    X(OSSL_PKEY_PARAM_RSA_FACTOR4, FACTOR, 3) \
    X(OSSL_PKEY_PARAM_RSA_FACTOR5, FACTOR, 4) \
    X(OSSL_PKEY_PARAM_RSA_EXPONENT1, EXPONENT, 0) \
    X(OSSL_PKEY_PARAM_RSA_EXPONENT2, EXPONENT, 1) \
    X(OSSL_PKEY_PARAM_RSA_EXPONENT3, EXPONENT, 2) \
    X(OSSL_PKEY_PARAM_RSA_EXPONENT4, EXPONENT, 3) \
    X(OSSL_PKEY_PARAM_RSA_EXPONENT5, EXPONENT, 4) \
    X(OSSL_PKEY_PARAM_RSA_COEFFICIENT1, COEFFICIENT, 0) \
    X(OSSL_PKEY_PARAM_RSA_COEFFICIENT2, COEFFICIENT, 1) \
    X(OSSL_PKEY_PARAM_RSA_COEFFICIENT3, COEFFICIENT, 2) \
    X(OSSL_PKEY_PARAM_RSA_COEFFICIENT4, COEFFICIENT, 3)

/* For static OSSL_PARAM type lists: CTRSA_KEY_NUMBER_LIST(CTRSA_KEY_NUMBER_TYPE) */
#define CTRSA_KEY_NUMBER_TYPE(name, kind, index) OSSL_PARAM_BN(name, NULL, 0),

/* The most parameters CTRSA_KEY_NUMBER_LIST can yield. */
#define CTRSA_KEY_NUMBER_COUNT (3 + CTRSA_MAX_PRIMES + CTRSA_MAX_PRIMES + CTRSA_MAX_PRIMES - 1)

/* Numbers read from OSSL_PARAMs: borrowed by ctrsa_key_set, owned by this struct. */
typedef struct ctrsa_param_numbers {
    ctrsa_key_numbers nums;
    uint8_t *buf;       /* every converted number, one allocation, wiped on release */
    size_t buf_len;
} ctrsa_param_numbers;

/*
 * out := the key numbers in params: n and e always (both required), d, the prime factors,
 * CRT exponents and coefficients only when include_private. Which private numbers are used
 * follows OpenSSL's default provider of the loading core (keymgmt_numbers.c,
 * check_private_shape): a key without d is a public key (factors ignored); numbering gaps
 * close up; a two-prime key may come without its CRT values (out->nums then has nprimes 2
 * and no exponents or coefficient: the key object derives them), and before OpenSSL 3.3
 * with a partial set, which is dropped; from 3.3, rsa-derive-from-pq (an int, non-zero)
 * asks for the CRT values of a key of any prime count given without them (out->nums
 * .derive_from_pq: derived and exported) and needs rsa-factor1 and rsa-factor2.
 * k <= CTRSA_MAX_PRIMES. Integers must be
 * non-negative. On failure raises CTRSA_R_MISSING_KEY_PART, CTRSA_R_INVALID_KEY or
 * CTRSA_R_MALLOC_FAILURE naming the parameter, and returns 0 with *out empty. Release with
 * ctrsa_param_numbers_release.
 * CT: only which parameters are present and their buffer sizes steer the code; leading
 * zero bytes are stripped from n and e (public) only.
 */
int ctrsa_param_numbers_read(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[],
                             int include_private, ctrsa_param_numbers *out);

/* Wipe and free what ctrsa_param_numbers_read allocated; safe on an empty struct. */
void ctrsa_param_numbers_release(ctrsa_param_numbers *in);

/*
 * The key numbers as OSSL_PARAMs for export: n and e, and when include_private the private
 * numbers the key holds. One allocation holds the array (ended by OSSL_PARAM_END, with
 * `extra` free slots before the end for the caller to fill) and the native-endian values.
 * Returns NULL (raising CTRSA_R_MALLOC_FAILURE) on allocation failure. *count := the
 * number of parameters written. Free with ctrsa_param_numbers_free_array.
 * CT: only the numbers' byte lengths (public) steer the code.
 */
OSSL_PARAM *ctrsa_param_numbers_array(const CTRSA_PROVCTX *prov,
                                      const ctrsa_key_numbers *nums, int include_private,
                                      size_t extra, size_t *count);

/* Wipe and free an array from ctrsa_param_numbers_array. NULL is accepted. */
void ctrsa_param_numbers_free_array(OSSL_PARAM *params);

/*
 * Answer get_params requests for key numbers: each parameter of params whose name is in
 * the list and whose number the key holds is written, native-endian, padded to the
 * caller's buffer. A buffer too small gets return_size set to the size needed and fails
 * the call (so EVP_PKEY_get_bn_param can retry); an integer type other than (unsigned)
 * integer fails. Numbers the key does not hold are left unmodified. 1 on success.
 * CT: as ctrsa_param_numbers_array.
 */
int ctrsa_param_numbers_get(const ctrsa_key_numbers *nums, OSSL_PARAM params[]);

/* 0 if params asks for no key number, 1 if only for public ones (n, e), 2 if for a private
 * one: so that get_params writes out only what is wanted (no secret for an "n" query, and
 * nothing for a size or security-bits query). */
int ctrsa_param_numbers_wanted(const OSSL_PARAM params[]);

#endif
