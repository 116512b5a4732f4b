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
 * Adding a stanza type (the Sign-Message, Verify-Message and Kem stanzas of later releases'
 * files) is one entry in evp_ops.c's table with the keywords it takes and its run function.
 * Newer evp_test (OpenSSL's current tree) also changed some semantics: a DigestSign's key
 * and Ctrl lines take effect when it runs, CtrlInit lines are parameters of the init, and
 * KeyGen's Ctrl lines are set as parameters rather than through EVP_PKEY_CTX_ctrl_str.
 * Files of such a release, kept in their own data folder, may need methods of their own.
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
