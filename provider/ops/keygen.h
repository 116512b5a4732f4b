/*
 * Key generation for the "RSA" and "RSA-PSS" key managers (provider/ops/keygen.c; the
 * engine side is provider/key/rsa_keygen.c): the gen handlers that provider/ops/keymgmt.c
 * puts in its two dispatch tables.
 *
 * Parameters: "bits" (512..16384, default 2048; 512 is OpenSSL's RSA_MIN_MODULUS_BITS),
 * "primes" (2..5, and at most OpenSSL's cap for the size: 2 below 1024 bits, 3 below 4096,
 * 4 below 8192, 5 above; default 2), "e" (odd, 3 <= e <
 * 2^256, default 65537); RSA-PSS also takes the key restrictions "digest", "mgf1-digest",
 * "mgf", "saltlen" and "properties" as its import does.
 *
 * When the loading core is OpenSSL 4.0 or later (whose default provider has them), also
 * "rsa-a" and "rsa-b" (unsigned integers 0, 1, 3, 5 or 7; 0, the default, asks nothing):
 * FIPS 186-5 A.1.3's optional congruences p = a (mod 8) and q = b (mod 8), refused like the
 * default provider refuses other values. As in the default provider, p and q are then
 * ordered p > q, so the key's factors have the residues {a, b} in either order; and, as
 * there, keys of more than two primes ignore them. (The default provider also ignores them
 * for 2-prime keys below 2048 bits or with e < 2^16, where it uses its older generator;
 * ctrsa honours them for every 2-prime key.) On older cores they are neither listed nor read,
 * as there.
 */
#ifndef CTRSA_KEYGEN_H
#define CTRSA_KEYGEN_H

#include <openssl/core_dispatch.h>

/* Limits of the generated modulus, in bits. */
#define CTRSA_GEN_MIN_BITS 512
#define CTRSA_GEN_MAX_BITS 16384
#define CTRSA_GEN_DEFAULT_BITS 2048
#define CTRSA_GEN_DEFAULT_E 65537

OSSL_FUNC_keymgmt_gen_init_fn ctrsa_rsa_gen_init;
OSSL_FUNC_keymgmt_gen_init_fn ctrsa_rsapss_gen_init;
OSSL_FUNC_keymgmt_gen_set_params_fn ctrsa_gen_set_params;
OSSL_FUNC_keymgmt_gen_settable_params_fn ctrsa_rsa_gen_settable_params;
OSSL_FUNC_keymgmt_gen_settable_params_fn ctrsa_rsapss_gen_settable_params;
OSSL_FUNC_keymgmt_gen_fn ctrsa_gen;
OSSL_FUNC_keymgmt_gen_cleanup_fn ctrsa_gen_cleanup;

#define CTRSA_GEN_COMMON_FUNCTIONS \
    { OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (void (*)(void))ctrsa_gen_set_params }, \
    { OSSL_FUNC_KEYMGMT_GEN, (void (*)(void))ctrsa_gen }, \
    { OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (void (*)(void))ctrsa_gen_cleanup },

/* The entries for each key manager's dispatch table. */
#define CTRSA_RSA_GEN_FUNCTIONS \
    { OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))ctrsa_rsa_gen_init }, \
    { OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))ctrsa_rsa_gen_settable_params }, \
    CTRSA_GEN_COMMON_FUNCTIONS
#define CTRSA_RSAPSS_GEN_FUNCTIONS \
    { OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))ctrsa_rsapss_gen_init }, \
    { OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))ctrsa_rsapss_gen_settable_params }, \
    CTRSA_GEN_COMMON_FUNCTIONS

#endif
