/*
 * The stanza types of OpenSSL's evp_test data files that concern RSA, each run on one
 * provider: the semantics of OpenSSL 3.0's test/evp_test.c (what each keyword does, in which
 * order, and which error code names each stage's failure), written for ctrsa's runner.
 *
 * A stanza runs in a library context holding ctrsa and the default provider; every fetch
 * takes the run's property query ("provider=ctrsa" or "provider=default"). Keys decoded by
 * the default provider go into operations through EVP_PKEY_CTX_new_from_pkey and friends,
 * which export them to the fetched operation's provider as EVP does for any application.
 *
 * Adding a stanza type is one entry in evp_ops.c's table with the keywords it takes and its
 * run function.
 *
 * The evp_test of OpenSSL 3.4 and later (the one whose files are in data/4.0, run with
 * evp_run.newer set) adds stanza types and changes some semantics, which this runner follows
 * when `newer` is set:
 * - Sign, Verify and VerifyRecover take "ALG:KEY" as well as "KEY": the operation is then
 *   initialised with the fetched signature algorithm ALG (EVP_PKEY_sign_init_ex2 and its
 *   siblings); Sign-Message and Verify-Message (always "ALG:KEY") initialise with
 *   EVP_PKEY_sign_message_init / EVP_PKEY_verify_message_init, on the private key list
 *   (Verify-Message-Public: the public one first). Built against headers before 3.4, these
 *   are counted unsupported.
 * - CtrlInit lines are integer parameters of the operation's init (evp_test's list:
 *   key-check, digest-check, ...), Ctrl lines are applied after the init in order, and
 *   the first that fails ends the stanza.
 * - Security-Category = N: the key's "security-category" parameter, read from the key as
 *   the run's provider holds it, must be N (INCORRECT_SECURITY_CATEGORY otherwise).
 * - KeyGen's Ctrl lines are parameters (from text, by the generation's settable list) set
 *   together: a name it does not list is ERR_PARAM_ERROR, a refused set PKEY_CTRL_ERROR.
 * - Kem = ALG with KeyName (a private key), Op, Input, Output, CtrlInit: without Input,
 *   encapsulate (then decapsulate what it made and compare the secrets); with it,
 *   decapsulate Input and compare with Output. Its error codes are evp_test's
 *   TEST_ENCAPSULATE_INIT_ERROR, TEST_SET_KEM_OP_ERROR, ... TEST_SECRET_MISMATCH.
 */
#ifndef CTRSA_EVP_OPS_H
#define CTRSA_EVP_OPS_H

#include <stddef.h>
#include <openssl/evp.h>

#include "evp_file.h"

/* A named key of a data file. */
typedef struct evp_key {
    char *name;
    int public_list;            /* 1: a PublicKey (evp_test's public list), 0: private list */
    int pass;                   /* -1: decoded from the file (every pass); else the pass whose
                                   KeyGen made it */
    EVP_PKEY *pkey;             /* NULL: a key type this OpenSSL does not support */
} evp_key;

typedef struct evp_keys {
    evp_key *v;
    size_t n, cap;
} evp_keys;

/* One pass over the stanzas: the provider every operation must come from. */
typedef struct evp_run {
    OSSL_LIB_CTX *libctx;
    const char *provname;       /* "ctrsa", "default", ... */
    const char *propq;          /* "provider=<provname>" */
    int pass;                   /* index of this pass (keys made by KeyGen belong to it) */
    evp_keys *keys;
    int newer;                  /* the files of a release whose evp_test has the 3.4+
                                   semantics (data/4.0): see the comment at the top */
} evp_run;

/* Why a stanza was not run. */
typedef enum evp_skip {
    EVP_RUN = 0,
    EVP_SKIP_UNAVAILABLE,       /* Availablein names no provider we run ("legacy", "fips") */
    EVP_SKIP_SECURITYCHECK,     /* Securitycheck: FIPS-provider checks, off without FIPS */
    EVP_SKIP_EXTENDED,          /* Extended-Test (newer evp_test): off by default */
    EVP_SKIP_UNSUPPORTED,       /* a stanza type or keyword this runner does not implement */
    EVP_SKIP_KEY,               /* its key is of a type this OpenSSL does not support, or a
                                   digest or cipher it names is compiled out (evp_test skips
                                   these too) */
    EVP_SKIP_N
} evp_skip;

/* What one stanza did on one provider. */
typedef struct evp_outcome {
    evp_skip skip;
    char skip_why[160];
    const char *err;            /* evp_test's error code of the failing stage; NULL: success.
                                   Three are this runner's own, for stages evp_test treats
                                   as fatal: PKEY_CTX_NEW_ERROR and KEYGEN_CTX_ERROR (no
                                   context for the key or algorithm in this provider) and
                                   KEY_IMPORT_ERROR (PrivPubKeyPair: the provider refused a
                                   key) */
    char malformed[200];        /* non-empty: the stanza itself is wrong (a bad hex value, a
                                   Ctrl without ':', ...): fails on every provider */
    int ran;                    /* an operation context was initialised (and checked) */
    char wrong_provider[200];   /* non-empty: it ran in another provider than the run's */
    char output[132];           /* on a *_MISMATCH: the output it gave, in hex (cut to 64
                                   bytes, "..." then) */
} evp_outcome;

/* Keywords any stanza may carry, handled by the runner rather than the stanza type. */
int evp_is_generic_keyword(const char *key);

/* Which of evp_test's two key lists a look-up searches (the public one first). */
#define EVP_KEYS_PUBLIC 1
#define EVP_KEYS_PRIVATE 2

/*
 * The key called `name` for this run in the lists named (EVP_KEYS_*): *found says whether
 * there is one; the key is NULL for a key type this OpenSSL does not support.
 */
EVP_PKEY *evp_find_key(const evp_run *r, const char *name, int lists, int *found);

/*
 * Run stanza s (its type is s->pairs[op].key) on r's provider into *o. 1 if this runner
 * knows the type, 0 if not (o->skip = EVP_SKIP_UNSUPPORTED then). Keywords the type does not
 * take are found beforehand by evp_stanza_unsupported().
 */
int evp_run_stanza(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o);

/*
 * NULL if this runner implements s's type (s->pairs[op].key) and every keyword after it;
 * else what it lacks, as "stanza type Kem" or "keyword CtrlInit", in buf.
 */
const char *evp_stanza_unsupported(const evp_stanza *s, size_t op, char *buf, size_t len);

#endif
