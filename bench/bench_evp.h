/*
 * The EVP side of the benchmark: a library context holding ctrsa (from the build folder),
 * the default provider and the reference provider under comparison; RSA keys that hold the
 * same numbers in ctrsa and in the reference; and the eight operations as timed workloads
 * (bu_run_fn), each on an EVP_PKEY_CTX checked to have been served by the provider it claims.
 *
 * Everything goes through the public EVP API, as an application would call it. Any failure
 * is fatal (bu_die with OpenSSL's error queue): a figure for an operation that did not run
 * is worse than none.
 */
#ifndef CTRSA_BENCH_EVP_H
#define CTRSA_BENCH_EVP_H

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define BE_CTRSA "ctrsa"

/* Sides of every comparison: ctrsa first, the reference second. */
enum { BE_SIDE_CTRSA = 0, BE_SIDE_REF = 1, BE_SIDES = 2 };

typedef struct be_env {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *ctrsa, *deflt, *ref; /* ref == deflt when the reference is "default" */
    const char *name[BE_SIDES];         /* "ctrsa", the reference's name */
} be_env;

/* Load ctrsa from module_dir, the default provider and `ref_name` into a new context. */
void be_env_init(be_env *env, const char *module_dir, const char *ref_name);
void be_env_free(be_env *env);

/* A provider's build-info parameter, or "(none)". The string lives in the provider. */
const char *be_buildinfo(OSSL_PROVIDER *prov);

/* bu_die with the message and OpenSSL's error queue. */
void be_die_ssl(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* One RSA key, as the same numbers in each side's provider. */
typedef struct be_key {
    size_t bits;
    EVP_PKEY *pkey[BE_SIDES];
} be_key;

/* A fresh key of `bits` made by the default provider, imported into both sides. */
void be_key_generate(be_env *env, be_key *key, size_t bits);
/* The same from an existing key pair (e.g. read from PEM). */
void be_key_from(be_env *env, be_key *key, EVP_PKEY *pkey);
void be_key_free(be_key *key);

/* The eight operations of the per-size table, with SHA-256 throughout. */
typedef enum be_opkind {
    BE_ENC_PKCS1,
    BE_DEC_PKCS1,
    BE_ENC_OAEP,
    BE_DEC_OAEP,
    BE_SIGN_PKCS1,
    BE_VERIFY_PKCS1,
    BE_SIGN_PSS,
    BE_VERIFY_PSS,
    BE_NOPS
} be_opkind;

/* "EncryptPKCS1v15", ..., "VerifyPSS". */
const char *be_op_name(be_opkind kind);

typedef struct be_op be_op;

/*
 * A ready context for `kind` with key->pkey[side], checked to run in that side's provider.
 * The input of a decrypt or verify (ciphertext, signature) is made by the OTHER side, and
 * one operation is run and checked before this returns: each side's output is checked by
 * the other provider.
 */
be_op *be_op_new(be_env *env, const be_key *key, int side, be_opkind kind);
void be_op_free(be_op *op);

/* The workload: `reps` operations of op (a be_op *), each result checked; bu_run_fn. */
int be_op_run(void *op, size_t reps);

/*
 * 1 if `side` generates RSA keys: EVP_PKEY_CTX_new_from_name(libctx, "RSA",
 * "provider=<name>") and EVP_PKEY_keygen_init succeed.
 */
int be_has_keygen(be_env *env, int side);

/*
 * One key generation of `bits` in `side`, timed with process CPU time (ns into *ns); the key
 * is checked to come from that provider and to have the size asked. Returns the key.
 */
EVP_PKEY *be_keygen_timed(be_env *env, int side, size_t bits, double *ns);

/* Full check of a generated key in the default provider (EVP_PKEY_check); dies if bad. */
void be_key_check_default(be_env *env, const EVP_PKEY *pkey);

#endif
