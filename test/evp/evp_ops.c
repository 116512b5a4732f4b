/* See evp_ops.h. The error codes and the order of the stages are evp_test's (OpenSSL 3.0). */
#include "evp_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/opensslconf.h>
#include <openssl/provider.h>

/* ---- small helpers ---- */

static void malformed(evp_outcome *o, const evp_pair *p, const char *fmt, ...)
{
    char what[120];
    va_list ap;

    if (o->malformed[0] != '\0')
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(o->malformed, sizeof(o->malformed), "line %zu (%s): %s", p->line, p->key, what);
}

static void skip(evp_outcome *o, evp_skip why, const char *fmt, ...)
{
    va_list ap;

    if (o->skip != EVP_RUN)
        return;
    o->skip = why;
    va_start(ap, fmt);
    vsnprintf(o->skip_why, sizeof(o->skip_why), fmt, ap);
    va_end(ap);
}

/* Record that ctx's operation was initialised; 1 if it lives in the run's provider. */
static int check_provider(const evp_run *r, const EVP_PKEY_CTX *ctx, evp_outcome *o)
{
    const OSSL_PROVIDER *prov = ctx != NULL ? EVP_PKEY_CTX_get0_provider(ctx) : NULL;
    const char *got = prov != NULL ? OSSL_PROVIDER_get0_name(prov) : "(none: legacy code)";

    o->ran = 1;
    if (prov != NULL && strcmp(got, r->provname) == 0)
        return 1;
    if (o->wrong_provider[0] == '\0')
        snprintf(o->wrong_provider, sizeof(o->wrong_provider),
                 "the operation ran in provider %s, not %s", got, r->provname);
    return 0;
}

/* A byte string of a data file: hex, "text" (with \n), "" or NULL, as evp_test reads them. */
typedef struct bytes {
    unsigned char *p;           /* NULL for the literal NULL (and when absent) */
    size_t len;
    int given;                  /* the keyword was present */
} bytes;

static void bytes_free(bytes *b)
{
    OPENSSL_free(b->p);
    memset(b, 0, sizeof(*b));
}

static int parse_bytes(const char *value, bytes *b)
{
    long len = 0;

    bytes_free(b);
    b->given = 1;
    if (strcmp(value, "NULL") == 0)
        return 1;
    if (value[0] == '\0') {
        b->p = OPENSSL_zalloc(1);
        return b->p != NULL;
    }
    if (value[0] == '"') {
        size_t n = strlen(++value), j = 0;

        if (n == 0 || value[n - 1] != '"')
            return 0;
        n--;
        b->p = OPENSSL_zalloc(n + 1);
        if (b->p == NULL)
            return 0;
        for (size_t i = 0; i < n; i++) {
            if (value[i] == '\\') {
                if (i + 1 == n || value[i + 1] != 'n')
                    return 0;
                b->p[j++] = '\n';
                i++;
            } else {
                b->p[j++] = (unsigned char)value[i];
            }
        }
        b->len = j;
        return 1;
    }
    b->p = OPENSSL_hexstr2buf(value, &len);
    if (b->p == NULL) {
        ERR_clear_error();
        return 0;
    }
    b->len = (size_t)len;
    return 1;
}

/* 1 if got[0..glen) is what the stanza's Output says (an absent Output matches nothing). */
static int same_bytes(const bytes *want, const unsigned char *got, size_t glen)
{
    if (!want->given || (want->p == NULL) != (got == NULL))
        return 0;
    return want->len == glen && (glen == 0 || memcmp(want->p, got, glen) == 0);
}

/* Record a mismatching output in o (hex, at most 64 bytes of it). */
static void note_output(evp_outcome *o, const unsigned char *got, size_t len)
{
    size_t n = len < 64 ? len : 64, j = 0;

    for (size_t i = 0; i < n; i++)
        j += (size_t)snprintf(o->output + j, sizeof(o->output) - j, "%02x", got[i]);
    if (n < len)
        snprintf(o->output + j, sizeof(o->output) - j, "...");
}

/* Input pieces of a streamed DigestSign/DigestVerify: each fed `count` times, in order. */
typedef struct pieces {
    bytes *v;
    size_t *count;
    int *count_set;
    size_t n;
} pieces;

static void pieces_free(pieces *s)
{
    for (size_t i = 0; i < s->n; i++)
        bytes_free(&s->v[i]);
    free(s->v);
    free(s->count);
    free(s->count_set);
    memset(s, 0, sizeof(*s));
}

static int pieces_add(pieces *s, const char *value)
{
    bytes *v = realloc(s->v, (s->n + 1) * sizeof(*v));
    size_t *c;
    int *cs;

    if (v == NULL)
        return 0;
    s->v = v;
    c = realloc(s->count, (s->n + 1) * sizeof(*c));
    if (c == NULL)
        return 0;
    s->count = c;
    cs = realloc(s->count_set, (s->n + 1) * sizeof(*cs));
    if (cs == NULL)
        return 0;
    s->count_set = cs;
    memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
    s->count[s->n] = 1;
    s->count_set[s->n] = 0;
    s->n++;
    return parse_bytes(value, &s->v[s->n - 1]);
}

/* Count = N: feed the last piece N times (once per piece). */
static int pieces_count(pieces *s, const char *value)
{
    int n = atoi(value);

    if (n <= 0 || s->n == 0 || s->count_set[s->n - 1])
        return 0;
    s->count[s->n - 1] = (size_t)n;
    s->count_set[s->n - 1] = 1;
    return 1;
}

/* Ncopy = N: the last piece becomes N copies of itself. */
static int pieces_ncopy(pieces *s, const char *value)
{
    int n = atoi(value);
    bytes *b;
    unsigned char *q;

    if (n <= 0 || s->n == 0)
        return 0;
    b = &s->v[s->n - 1];
    q = OPENSSL_malloc(b->len * (size_t)n + 1);
    if (q == NULL)
        return 0;
    for (int i = 0; i < n && b->len > 0; i++)
        memcpy(q + (size_t)i * b->len, b->p, b->len);
    OPENSSL_free(b->p);
    b->p = q;
    b->len *= (size_t)n;
    return 1;
}

/* A digest or cipher this OpenSSL was built without (evp_test skips stanzas naming one). */
static int algorithm_compiled_out(const char *name)
{
    static const char *const out[] = {
#ifdef OPENSSL_NO_MD2
        "MD2",
#endif
#ifdef OPENSSL_NO_MD4
        "MD4",
#endif
#ifdef OPENSSL_NO_MD5
        "MD5",
#endif
#ifdef OPENSSL_NO_MDC2
        "MDC2",
#endif
#ifdef OPENSSL_NO_RMD160
        "RIPEMD160",
#endif
#ifdef OPENSSL_NO_SM3
        "SM3",
#endif
#ifdef OPENSSL_NO_WHIRLPOOL
        "WHIRLPOOL",
#endif
        NULL
    };

    for (size_t i = 0; out[i] != NULL; i++)
        if (OPENSSL_strcasecmp(name, out[i]) == 0)
            return 1;
#ifdef OPENSSL_NO_BLAKE2
    if (OPENSSL_strncasecmp(name, "BLAKE", 5) == 0)
        return 1;
#endif
    return 0;
}

/*
 * Ctrl = name:value, through EVP_PKEY_CTX_ctrl_str as evp_test applies it: -2 (the ctrl is
 * not supported at all) is PKEY_CTRL_INVALID, any other failure PKEY_CTRL_ERROR, unless the
 * value names a digest compiled out of this OpenSSL (then the stanza is skipped).
 */
static void apply_ctrl(EVP_PKEY_CTX *ctx, const evp_pair *p, evp_outcome *o)
{
    char *name = OPENSSL_strdup(p->value), *value;
    int rv;

    if (name == NULL || (value = strchr(name, ':')) == NULL) {
        malformed(o, p, "not name:value");
        OPENSSL_free(name);
        return;
    }
    *value++ = '\0';
    rv = EVP_PKEY_CTX_ctrl_str(ctx, name, value);
    if (rv == -2)
        o->err = "PKEY_CTRL_INVALID";
    else if (rv <= 0 && algorithm_compiled_out(value))
        skip(o, EVP_SKIP_KEY, "'%s' is compiled out of this OpenSSL", value);
    else if (rv <= 0)
        o->err = "PKEY_CTRL_ERROR";
    OPENSSL_free(name);
}

/*
 * CtrlInit = name:value lines (newer evp_test) as the parameters of an operation's init, by
 * evp_test's own list of them (integers). 0 and ERR_PARAM_ERROR if one is not on it.
 */
#define MAX_INIT_PARAMS 4
static int init_params(const evp_stanza *s, size_t from, OSSL_PARAM *params, evp_outcome *o)
{
    static const OSSL_PARAM settable[] = {
        OSSL_PARAM_int("key-check", NULL), OSSL_PARAM_int("digest-check", NULL),
        OSSL_PARAM_int("ems_check", NULL), OSSL_PARAM_int("sign-check", NULL),
        OSSL_PARAM_int("encrypt-check", NULL), OSSL_PARAM_int("rsa-pss-saltlen-check", NULL),
        OSSL_PARAM_int("sign-x931-pad-check", NULL), OSSL_PARAM_END
    };
    size_t n = 0;

    for (size_t i = from; i < s->npairs; i++) {
        const evp_pair *p = &s->pairs[i];
        char name[64];
        const char *colon;

        if (strcmp(p->key, "CtrlInit") != 0)
            continue;
        colon = strchr(p->value, ':');
        if (n == MAX_INIT_PARAMS || colon == NULL || (size_t)(colon - p->value) >= sizeof(name)) {
            o->err = "ERR_PARAM_ERROR";
            break;
        }
        memcpy(name, p->value, (size_t)(colon - p->value));
        name[colon - p->value] = '\0';
        if (!OSSL_PARAM_allocate_from_text(&params[n], settable, name, colon + 1,
                                           strlen(colon + 1), NULL)) {
            o->err = "ERR_PARAM_ERROR";
            break;
        }
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    return o->err == NULL;
}

static void init_params_free(OSSL_PARAM *params)
{
    for (size_t i = 0; params[i].key != NULL; i++)
        OPENSSL_free(params[i].data);
}

/* ---- keys ---- */

EVP_PKEY *evp_find_key(const evp_run *r, const char *name, int lists, int *found)
{
    for (int list = 1; list >= 0; list--) {
        if ((lists & (list ? EVP_KEYS_PUBLIC : EVP_KEYS_PRIVATE)) == 0)
            continue;
        for (size_t i = r->keys->n; i-- > 0;) {
            const evp_key *k = &r->keys->v[i];

            if (k->public_list == list && (k->pass < 0 || k->pass == r->pass)
                    && strcmp(k->name, name) == 0) {
                *found = 1;
                return k->pkey;
            }
        }
    }
    *found = 0;
    return NULL;
}

/*
 * `key` (the key pair, or its public half and parameters) in the provider the run names, with
 * every parameter (RSA-PSS restrictions included): what EVP's export to a provider carries.
 * The key itself when it lives there already. NULL if that provider refuses the import.
 */
static EVP_PKEY *key_in_provider(const evp_run *r, EVP_PKEY *key, int with_private)
{
    int selection = (with_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY)
                    | OSSL_KEYMGMT_SELECT_ALL_PARAMETERS;
    const OSSL_PROVIDER *prov = EVP_PKEY_get0_provider(key);
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *out = NULL;

    if (prov != NULL && strcmp(OSSL_PROVIDER_get0_name(prov), r->provname) == 0)
        return EVP_PKEY_up_ref(key) ? key : NULL;
    if (EVP_PKEY_todata(key, selection, &params) == 1) {
        ctx = EVP_PKEY_CTX_new_from_name(r->libctx, EVP_PKEY_get0_type_name(key), r->propq);
        if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
                || EVP_PKEY_fromdata(ctx, &out, selection, params) != 1) {
            EVP_PKEY_free(out);
            out = NULL;
        }
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return out;
}

static EVP_PKEY *key_in_provider(const evp_run *r, EVP_PKEY *key, int with_private);

/*
 * Security-Category = N (newer evp_test): the key's "security-category" as the run's
 * provider holds it (the key exported there, as the operation's was) must be N.
 */
static void check_category(const evp_run *r, const evp_stanza *s, size_t from, EVP_PKEY *key,
                           evp_outcome *o)
{
    EVP_PKEY *mine;
    int got = -1;

    for (size_t i = from; i < s->npairs; i++) {
        if (strcmp(s->pairs[i].key, "Security-Category") != 0)
            continue;
        /* the key pair, or its public half for a public key */
        mine = key_in_provider(r, key, 1);
        if (mine == NULL)
            mine = key_in_provider(r, key, 0);
        if (mine == NULL || !EVP_PKEY_get_int_param(mine, "security-category", &got)
                || got != atoi(s->pairs[i].value))
            o->err = "INCORRECT_SECURITY_CATEGORY";
        EVP_PKEY_free(mine);
        return;
    }
}

/* ---- Sign, Verify, VerifyRecover, Decrypt, Encrypt, Derive ---- */

typedef int keyop_init_fn(EVP_PKEY_CTX *ctx, const OSSL_PARAM params[]);
typedef int keyop_fn(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen,
                     const unsigned char *in, size_t inlen);
#if OPENSSL_VERSION_NUMBER >= 0x30400000L
typedef int keyop_init_ex2_fn(EVP_PKEY_CTX *ctx, EVP_SIGNATURE *alg, const OSSL_PARAM params[]);
#else
typedef void keyop_init_ex2_fn;     /* the "ALG:KEY" forms need 3.4+ headers */
#endif

typedef enum { KEYOP, VERIFY, DERIVE } pkey_kind;

typedef struct pkey_method {
    int lists;                  /* the key lists it searches (EVP_KEYS_*) */
    keyop_init_fn *init;
    keyop_fn *op;               /* for KEYOP */
    pkey_kind kind;
    keyop_init_ex2_fn *init_ex2; /* "ALG:KEY" (newer evp_test); NULL: not taken */
    int ex2_only;               /* Sign-Message, Verify-Message: "ALG:KEY" only */
} pkey_method;

static int derive_shim(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen,
                       const unsigned char *in, size_t inlen)
{
    (void)in;
    (void)inlen;
    return EVP_PKEY_derive(ctx, out, outlen);
}

/* Output of op on ctx (length query, then the operation) compared with want. */
static const char *keyop_once(const evp_run *r, EVP_PKEY_CTX *ctx, keyop_fn *op,
                              const bytes *in, const bytes *want, const char *len_err,
                              const char *op_err, const char *mismatch, evp_outcome *o)
{
    unsigned char *got = NULL;
    size_t len = 0;
    const char *err = NULL;

    if (!check_provider(r, ctx, o))
        return NULL;
    if (op(ctx, NULL, &len, in->p, in->len) <= 0 || (got = OPENSSL_malloc(len + 1)) == NULL)
        err = len_err;
    else if (op(ctx, got, &len, in->p, in->len) <= 0)
        err = op_err;
    else if (!same_bytes(want, got, len)) {
        err = mismatch;
        note_output(o, got, len);
    }
    OPENSSL_free(got);
    return err;
}

static void run_pkey(const evp_run *r, const evp_stanza *s, size_t op,
                     const pkey_method *m, evp_outcome *o)
{
    const evp_pair *opp = &s->pairs[op];
    bytes in = { 0 }, out = { 0 };
    EVP_PKEY_CTX *ctx = NULL, *copy = NULL;
    EVP_PKEY *key;
    const char *keyname = opp->value, *colon = strchr(opp->value, ':');
    char algname[64] = "";
    OSSL_PARAM params[MAX_INIT_PARAMS + 1];
    int found, rv;

    params[0] = OSSL_PARAM_construct_end();
    if (colon != NULL && r->newer && m->init_ex2 != NULL) {
        /* "ALG:KEY": the signature algorithm ALG, fetched from the run's provider */
        if ((size_t)(colon - opp->value) >= sizeof(algname)) {
            malformed(o, opp, "algorithm name too long");
            return;
        }
        memcpy(algname, opp->value, (size_t)(colon - opp->value));
        algname[colon - opp->value] = '\0';
        keyname = colon + 1;
    } else if (m->ex2_only) {
        if (m->init_ex2 == NULL)
            skip(o, EVP_SKIP_UNSUPPORTED, "%s needs OpenSSL 3.4+ headers", opp->key);
        else
            malformed(o, opp, "not ALG:KEY");
        return;
    }
    key = evp_find_key(r, keyname, m->lists, &found);
    if (key == NULL) {
        skip(o, EVP_SKIP_KEY, found ? "key %s is of an unsupported type" : "no key %s",
             keyname);
        return;
    }
    ctx = EVP_PKEY_CTX_new_from_pkey(r->libctx, key, r->propq);
    if (ctx == NULL) {
        o->err = "PKEY_CTX_NEW_ERROR";
        return;
    }
    if (!init_params(s, op + 1, params, o))
        goto done;
    if (algname[0] != '\0') {
#if OPENSSL_VERSION_NUMBER >= 0x30400000L
        EVP_SIGNATURE *alg = EVP_SIGNATURE_fetch(r->libctx, algname, r->propq);

        /* evp_test fails the stanza outright when the fetch fails: an init error here */
        rv = alg != NULL ? m->init_ex2(ctx, alg, params) : 0;
        EVP_SIGNATURE_free(alg);
#else
        rv = 0;
#endif
    } else {
        rv = m->init(ctx, params);
    }
    if (rv <= 0)
        o->err = "KEYOP_INIT_ERROR";
    else
        check_provider(r, ctx, o);
    if (r->newer && o->err != NULL)
        goto done;          /* newer evp_test: a failed init ends the stanza */
    for (size_t i = op + 1; i < s->npairs && o->skip == EVP_RUN; i++) {
        const evp_pair *p = &s->pairs[i];

        if (evp_is_generic_keyword(p->key) || strcmp(p->key, "CtrlInit") == 0
                || strcmp(p->key, "Security-Category") == 0)
            continue;
        if (strcmp(p->key, "Ctrl") == 0) {
            if (r->newer && o->err != NULL)
                continue;   /* newer evp_test: the first failing Ctrl ends the stanza */
            apply_ctrl(ctx, p, o);
        } else if (strcmp(p->key, m->kind == DERIVE ? "SharedSecret" : "Output") == 0) {
            if (!parse_bytes(p->value, &out))
                malformed(o, p, "bad value");
        } else if (strcmp(p->key, "Input") == 0) {
            if (!parse_bytes(p->value, &in))
                malformed(o, p, "bad value");
        } else if (strcmp(p->key, "PeerKey") == 0 || strcmp(p->key, "PeerKeyValidate") == 0) {
            EVP_PKEY *peer = evp_find_key(r, p->value, EVP_KEYS_PUBLIC, &found);

            if (!found)
                malformed(o, p, "no public key %s", p->value);
            else if (EVP_PKEY_derive_set_peer_ex(ctx, peer,
                                                 strcmp(p->key, "PeerKeyValidate") == 0) <= 0)
                o->err = "DERIVE_SET_PEER_ERROR";
            else
                o->err = NULL;
        }
    }
    if (o->err != NULL || o->skip != EVP_RUN || o->malformed[0] != '\0'
            || o->wrong_provider[0] != '\0')
        goto done;
    if (r->newer) {
        check_category(r, s, op + 1, key, o);
        if (o->err != NULL)
            goto done;
    }
    switch (m->kind) {
    case VERIFY:
        if (EVP_PKEY_verify(ctx, out.p, out.len, in.p, in.len) <= 0)
            o->err = "VERIFY_ERROR";
        break;
    case DERIVE:
        /* evp_test derives from a copy of the context, once */
        copy = EVP_PKEY_CTX_dup(ctx);
        if (copy == NULL)
            o->err = "DERIVE_ERROR";
        else
            o->err = keyop_once(r, copy, derive_shim, &in, &out, "DERIVE_ERROR",
                                "DERIVE_ERROR", "SHARED_SECRET_MISMATCH", o);
        break;
    case KEYOP:
        /* once on the context, then once more on a copy of it made before the first use
           (a one-shot message signature cannot be used twice) */
        copy = EVP_PKEY_CTX_dup(ctx);
        if (copy == NULL) {
            o->err = "INTERNAL_ERROR";
            break;
        }
        o->err = keyop_once(r, ctx, m->op, &in, &out, "KEYOP_LENGTH_ERROR", "KEYOP_ERROR",
                            "KEYOP_MISMATCH", o);
        if (o->err != NULL || o->wrong_provider[0] != '\0')
            break;
        o->err = keyop_once(r, copy, m->op, &in, &out, "KEYOP_LENGTH_ERROR", "KEYOP_ERROR",
                            "KEYOP_MISMATCH", o);
        break;
    }
done:
    init_params_free(params);
    EVP_PKEY_CTX_free(copy);
    EVP_PKEY_CTX_free(ctx);
    bytes_free(&in);
    bytes_free(&out);
}

#define PUB_PRIV (EVP_KEYS_PUBLIC | EVP_KEYS_PRIVATE)
#if OPENSSL_VERSION_NUMBER >= 0x30400000L
#define EX2(f) f
#else
#define EX2(f) NULL
#endif
static const pkey_method sign_m = { EVP_KEYS_PRIVATE, EVP_PKEY_sign_init_ex, EVP_PKEY_sign, KEYOP,
                                    EX2(EVP_PKEY_sign_init_ex2), 0 };
static const pkey_method verify_m = { PUB_PRIV, EVP_PKEY_verify_init_ex, NULL, VERIFY,
                                      EX2(EVP_PKEY_verify_init_ex2), 0 };
static const pkey_method verify_recover_m = { PUB_PRIV, EVP_PKEY_verify_recover_init_ex,
                                              EVP_PKEY_verify_recover, KEYOP,
                                              EX2(EVP_PKEY_verify_recover_init_ex2), 0 };
static const pkey_method decrypt_m = { EVP_KEYS_PRIVATE, EVP_PKEY_decrypt_init_ex,
                                       EVP_PKEY_decrypt, KEYOP, NULL, 0 };
static const pkey_method encrypt_m = { PUB_PRIV, EVP_PKEY_encrypt_init_ex, EVP_PKEY_encrypt,
                                       KEYOP, NULL, 0 };
static const pkey_method derive_m = { EVP_KEYS_PRIVATE, EVP_PKEY_derive_init_ex, NULL, DERIVE,
                                      NULL, 0 };
/* newer evp_test: "ALG:KEY" only, on the private list (Verify-Message-Public: public first) */
static const pkey_method sign_message_m = { EVP_KEYS_PRIVATE, NULL, EVP_PKEY_sign, KEYOP,
                                            EX2(EVP_PKEY_sign_message_init), 1 };
static const pkey_method verify_message_m = { EVP_KEYS_PRIVATE, NULL, NULL, VERIFY,
                                              EX2(EVP_PKEY_verify_message_init), 1 };
static const pkey_method verify_message_public_m = { PUB_PRIV, NULL, NULL, VERIFY,
                                                     EX2(EVP_PKEY_verify_message_init), 1 };

static void run_sign(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &sign_m, o);
}

static void run_verify(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &verify_m, o);
}

static void run_verify_recover(const evp_run *r, const evp_stanza *s, size_t op,
                               evp_outcome *o)
{
    run_pkey(r, s, op, &verify_recover_m, o);
}

static void run_decrypt(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &decrypt_m, o);
}

static void run_encrypt(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &encrypt_m, o);
}

static void run_derive(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &derive_m, o);
}

static void run_sign_message(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_pkey(r, s, op, &sign_message_m, o);
}

static void run_verify_message(const evp_run *r, const evp_stanza *s, size_t op,
                               evp_outcome *o)
{
    run_pkey(r, s, op, &verify_message_m, o);
}

static void run_verify_message_public(const evp_run *r, const evp_stanza *s, size_t op,
                                      evp_outcome *o)
{
    run_pkey(r, s, op, &verify_message_public_m, o);
}

/* ---- DigestSign, DigestVerify, OneShotDigestSign, OneShotDigestVerify ---- */

typedef struct digest_method {
    int verify, oneshot;
} digest_method;

static void run_digest(const evp_run *r, const evp_stanza *s, size_t op,
                       const digest_method *m, evp_outcome *o)
{
    const evp_pair *opp = &s->pairs[op];
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    const EVP_MD *md = NULL;
    pieces stream = { 0 };
    bytes in = { 0 }, out = { 0 };
    unsigned char *got = NULL;
    size_t len = 0;

    if (mctx == NULL) {
        o->err = "INTERNAL_ERROR";
        return;
    }
    if (strcmp(opp->value, "NULL") != 0) {
        if (algorithm_compiled_out(opp->value)) {
            skip(o, EVP_SKIP_KEY, "'%s' is compiled out of this OpenSSL", opp->value);
            goto done;
        }
        md = EVP_get_digestbyname(opp->value);
        if (md == NULL) {
            malformed(o, opp, "unknown digest %s", opp->value);
            goto done;
        }
    }
    for (size_t i = op + 1; i < s->npairs && o->skip == EVP_RUN; i++) {
        const evp_pair *p = &s->pairs[i];
        int ok = 1;

        if (evp_is_generic_keyword(p->key))
            continue;
        if (strcmp(p->key, "Key") == 0) {
            int found;
            EVP_PKEY *key = evp_find_key(r, p->value,
                                         m->verify ? PUB_PRIV : EVP_KEYS_PRIVATE, &found);
            const char *mdname = md != NULL ? EVP_MD_get0_name(md) : NULL;
            int rv;

            if (key == NULL) {
                skip(o, EVP_SKIP_KEY,
                     found ? "key %s is of an unsupported type" : "no key %s", p->value);
                break;
            }
            if (m->verify)
                rv = EVP_DigestVerifyInit_ex(mctx, &pctx, mdname, r->libctx, r->propq, key,
                                             NULL);
            else
                rv = EVP_DigestSignInit_ex(mctx, &pctx, mdname, r->libctx, r->propq, key,
                                           NULL);
            if (rv <= 0)
                o->err = m->verify ? "DIGESTVERIFYINIT_ERROR" : "DIGESTSIGNINIT_ERROR";
            else
                check_provider(r, pctx, o);
        } else if (strcmp(p->key, "Input") == 0) {
            ok = m->oneshot ? parse_bytes(p->value, &in) : pieces_add(&stream, p->value);
        } else if (strcmp(p->key, "Output") == 0) {
            ok = parse_bytes(p->value, &out);
        } else if (strcmp(p->key, "Count") == 0 && !m->oneshot) {
            ok = pieces_count(&stream, p->value);
        } else if (strcmp(p->key, "Ncopy") == 0 && !m->oneshot) {
            ok = pieces_ncopy(&stream, p->value);
        } else if (strcmp(p->key, "Ctrl") == 0) {
            if (pctx == NULL)
                malformed(o, p, "Ctrl before Key");
            else
                apply_ctrl(pctx, p, o);
        }
        if (!ok)
            malformed(o, p, "bad value");
    }
    if (o->err != NULL || o->skip != EVP_RUN || o->malformed[0] != '\0'
            || o->wrong_provider[0] != '\0')
        goto done;
    if (pctx == NULL) {
        malformed(o, opp, "no Key");
        goto done;
    }
    if (!m->oneshot) {
        for (size_t i = 0; i < stream.n && o->err == NULL; i++)
            for (size_t j = 0; j < stream.count[i] && o->err == NULL; j++)
                if ((m->verify ? EVP_DigestVerifyUpdate(mctx, stream.v[i].p, stream.v[i].len)
                               : EVP_DigestSignUpdate(mctx, stream.v[i].p, stream.v[i].len))
                        <= 0)
                    o->err = "DIGESTUPDATE_ERROR";
        if (o->err != NULL)
            goto done;
    }
    if (m->verify) {
        if ((m->oneshot ? EVP_DigestVerify(mctx, out.p, out.len, in.p, in.len)
                        : EVP_DigestVerifyFinal(mctx, out.p, out.len)) <= 0)
            o->err = "VERIFY_ERROR";
        goto done;
    }
    /* evp_test offers twice the announced length to the second call */
    if ((m->oneshot ? EVP_DigestSign(mctx, NULL, &len, in.p, in.len)
                    : EVP_DigestSignFinal(mctx, NULL, &len)) <= 0) {
        o->err = m->oneshot ? "DIGESTSIGN_LENGTH_ERROR" : "DIGESTSIGNFINAL_LENGTH_ERROR";
    } else if ((got = OPENSSL_malloc(2 * len + 1)) == NULL) {
        o->err = "MALLOC_FAILURE";
    } else {
        len *= 2;
        if ((m->oneshot ? EVP_DigestSign(mctx, got, &len, in.p, in.len)
                        : EVP_DigestSignFinal(mctx, got, &len)) <= 0)
            o->err = m->oneshot ? "DIGESTSIGN_ERROR" : "DIGESTSIGNFINAL_ERROR";
        else if (!same_bytes(&out, got, len)) {
            o->err = "SIGNATURE_MISMATCH";
            note_output(o, got, len);
        }
    }
done:
    OPENSSL_free(got);
    pieces_free(&stream);
    bytes_free(&in);
    bytes_free(&out);
    EVP_MD_CTX_free(mctx);
}

static const digest_method digest_sign_m = { 0, 0 };
static const digest_method digest_verify_m = { 1, 0 };
static const digest_method oneshot_sign_m = { 0, 1 };
static const digest_method oneshot_verify_m = { 1, 1 };

static void run_digest_sign(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    run_digest(r, s, op, &digest_sign_m, o);
}

static void run_digest_verify(const evp_run *r, const evp_stanza *s, size_t op,
                              evp_outcome *o)
{
    run_digest(r, s, op, &digest_verify_m, o);
}

static void run_oneshot_sign(const evp_run *r, const evp_stanza *s, size_t op,
                             evp_outcome *o)
{
    run_digest(r, s, op, &oneshot_sign_m, o);
}

static void run_oneshot_verify(const evp_run *r, const evp_stanza *s, size_t op,
                               evp_outcome *o)
{
    run_digest(r, s, op, &oneshot_verify_m, o);
}

/* ---- PrivPubKeyPair ---- */

/*
 * PrivPubKeyPair = PRIV:PUB: the two keys are the same key (EVP_PKEY_eq). On a provider
 * other than the one that decoded them, both are first imported into it (with every
 * parameter, as EVP's export would), and the comparison is that provider's key match; an
 * import it refuses is KEY_IMPORT_ERROR (this runner's code: evp_test compares where the
 * keys were decoded).
 */
static void run_keypair(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    const evp_pair *opp = &s->pairs[op];
    char *priv = OPENSSL_strdup(opp->value), *pub;
    EVP_PKEY *a, *b, *ia = NULL, *ib = NULL;
    int found_a, found_b, rv;

    if (priv == NULL || (pub = strchr(priv, ':')) == NULL) {
        o->err = "PARSING_ERROR";
        goto done;
    }
    *pub++ = '\0';
    a = evp_find_key(r, priv, EVP_KEYS_PRIVATE, &found_a);
    b = evp_find_key(r, pub, EVP_KEYS_PUBLIC, &found_b);
    if (!found_a) {
        o->err = "MISSING_PRIVATE_KEY";
        goto done;
    }
    if (!found_b) {
        o->err = "MISSING_PUBLIC_KEY";
        goto done;
    }
    if (a == NULL && b == NULL) {
        skip(o, EVP_SKIP_KEY, "keys %s and %s are of an unsupported type", priv, pub);
        goto done;
    }
    if (a == NULL || b == NULL) {
        o->err = "KEYPAIR_TYPE_MISMATCH";
        goto done;
    }
    ia = key_in_provider(r, a, 1);
    ib = key_in_provider(r, b, 0);
    if (ia == NULL || ib == NULL) {
        o->err = "KEY_IMPORT_ERROR";
        goto done;
    }
    o->ran = 1;
    if (strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(ia)), r->provname) != 0
            || strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(ib)), r->provname) != 0) {
        snprintf(o->wrong_provider, sizeof(o->wrong_provider),
                 "the keys were imported into %s and %s, not %s",
                 OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(ia)),
                 OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(ib)), r->provname);
        goto done;
    }
    rv = EVP_PKEY_eq(ia, ib);
    o->err = rv == 1    ? NULL
             : rv == 0  ? "KEYPAIR_MISMATCH"
             : rv == -1 ? "KEYPAIR_TYPE_MISMATCH"
             : rv == -2 ? "UNSUPPORTED_KEY_COMPARISON"
                        : "INTERNAL_ERROR";
done:
    EVP_PKEY_free(ia);
    EVP_PKEY_free(ib);
    OPENSSL_free(priv);
}

/* ---- KeyGen ---- */

/*
 * Newer evp_test's KeyGen Ctrl lines: parameters from text by the generation's settable
 * list, set together (ERR_PARAM_ERROR: a name it does not list; PKEY_CTRL_ERROR: refused).
 */
static void keygen_params(EVP_PKEY_CTX *ctx, const evp_stanza *s, size_t op, evp_outcome *o)
{
    OSSL_PARAM params[5];
    const OSSL_PARAM *settable = EVP_PKEY_CTX_settable_params(ctx);
    size_t n = 0;

    for (size_t i = op + 1; i < s->npairs && o->err == NULL; i++) {
        const evp_pair *p = &s->pairs[i];
        char name[64];
        const char *colon;

        if (strcmp(p->key, "Ctrl") != 0)
            continue;
        colon = strchr(p->value, ':');
        if (n == 4 || colon == NULL || (size_t)(colon - p->value) >= sizeof(name)) {
            o->err = "ERR_PARAM_ERROR";
            break;
        }
        memcpy(name, p->value, (size_t)(colon - p->value));
        name[colon - p->value] = '\0';
        if (settable == NULL
                || !OSSL_PARAM_allocate_from_text(&params[n], settable, name, colon + 1,
                                                  strlen(colon + 1), NULL))
            o->err = "ERR_PARAM_ERROR";
        else
            n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    if (o->err == NULL && n > 0 && !EVP_PKEY_CTX_set_params(ctx, params))
        o->err = "PKEY_CTRL_ERROR";
    for (size_t i = 0; i < n; i++)
        OPENSSL_free(params[i].data);
}

/*
 * KeyGen = ALG [KeyName = NAME] [Ctrl = ...]: a key generated in the run's provider, kept
 * under NAME for the later stanzas of the same pass.
 */
static void run_keygen(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    const evp_pair *opp = &s->pairs[op];
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key = NULL;
    const char *keyname = NULL;
    evp_keys *keys = r->keys;
    int found;

    if (OBJ_sn2nid(opp->value) == NID_undef && OBJ_ln2nid(opp->value) == NID_undef) {
        malformed(o, opp, "unknown algorithm %s", opp->value);
        return;
    }
    ctx = EVP_PKEY_CTX_new_from_name(r->libctx, opp->value, r->propq);
    if (ctx == NULL) {
        o->err = "KEYGEN_CTX_ERROR";
        return;
    }
    if (EVP_PKEY_keygen_init(ctx) <= 0)
        o->err = "KEYGEN_INIT_ERROR";
    else
        check_provider(r, ctx, o);
    for (size_t i = op + 1; i < s->npairs && o->skip == EVP_RUN; i++) {
        const evp_pair *p = &s->pairs[i];

        if (strcmp(p->key, "KeyName") == 0)
            keyname = p->value;
        else if (strcmp(p->key, "Ctrl") == 0 && !r->newer)
            apply_ctrl(ctx, p, o);
    }
    if (r->newer && o->err == NULL)
        keygen_params(ctx, s, op, o);
    if (o->err != NULL || o->skip != EVP_RUN || o->malformed[0] != '\0'
            || o->wrong_provider[0] != '\0')
        goto done;
    if (EVP_PKEY_keygen(ctx, &key) <= 0) {
        o->err = "KEYGEN_GENERATE_ERROR";
        goto done;
    }
    if (keyname == NULL)
        goto done;
    evp_find_key(r, keyname, EVP_KEYS_PRIVATE, &found);
    if (found) {
        malformed(o, opp, "duplicate key %s", keyname);
        goto done;
    }
    if (keys->n == keys->cap) {
        size_t ncap = keys->cap != 0 ? 2 * keys->cap : 16;
        evp_key *v = realloc(keys->v, ncap * sizeof(*v));

        if (v == NULL) {
            o->err = "MALLOC_FAILURE";
            goto done;
        }
        keys->v = v;
        keys->cap = ncap;
    }
    keys->v[keys->n].name = strdup(keyname);
    if (keys->v[keys->n].name == NULL) {
        o->err = "MALLOC_FAILURE";
        goto done;
    }
    keys->v[keys->n].public_list = 0;
    keys->v[keys->n].pass = r->pass;
    keys->v[keys->n].pkey = key;
    keys->n++;
    key = NULL;
done:
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
}

/* ---- Kem (newer evp_test) ---- */

/* Decapsulate in[0..inlen) on ctx and compare with want; evp_test's error codes. */
static const char *decapsulate(const evp_run *r, EVP_PKEY_CTX *ctx, const char *kemop,
                               const OSSL_PARAM *params, const unsigned char *in, size_t inlen,
                               const unsigned char *want, size_t wantlen, evp_outcome *o)
{
    unsigned char *got = NULL;
    size_t len = 0;
    const char *err = NULL;

    if (EVP_PKEY_decapsulate_init(ctx, params) <= 0)
        return "TEST_DECAPSULATE_INIT_ERROR";
    if (!check_provider(r, ctx, o))
        return NULL;
    if (kemop != NULL && EVP_PKEY_CTX_set_kem_op(ctx, kemop) <= 0)
        err = "TEST_SET_KEM_OP_ERROR";
    else if (EVP_PKEY_decapsulate(ctx, NULL, &len, in, inlen) <= 0)
        err = "TEST_DECAPSULATE_LEN_ERROR";
    else if ((got = OPENSSL_malloc(len + 1)) == NULL)
        err = "MALLOC_FAILURE";
    else if (EVP_PKEY_decapsulate(ctx, got, &len, in, inlen) <= 0)
        err = "TEST_DECAPSULATE_ERROR";
    else if (len != wantlen || (len > 0 && memcmp(got, want, len) != 0)) {
        err = "TEST_SECRET_MISMATCH";
        note_output(o, got, len);
    }
    OPENSSL_free(got);
    return err;
}

/*
 * Kem = ALG, KeyName = a private key, [Op], [CtrlInit], [Input, Output]: see evp_ops.h.
 * evp_test fails the stanza outright when an encapsulation's secret differs from Output;
 * this runner calls that TEST_SECRET_MISMATCH too.
 */
static void run_kem(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    const char *keyname = NULL, *kemop = NULL;
    bytes in = { 0 }, out = { 0 };
    OSSL_PARAM params[MAX_INIT_PARAMS + 1];
    unsigned char *wrapped = NULL, *secret = NULL;
    size_t wlen = 0, slen = 0;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key;
    int found;

    params[0] = OSSL_PARAM_construct_end();
    for (size_t i = op + 1; i < s->npairs; i++) {
        const evp_pair *p = &s->pairs[i];

        if (strcmp(p->key, "KeyName") == 0)
            keyname = p->value;
        else if (strcmp(p->key, "Op") == 0)
            kemop = p->value;
        else if (strcmp(p->key, "Input") == 0 && !parse_bytes(p->value, &in))
            malformed(o, p, "bad value");
        else if (strcmp(p->key, "Output") == 0 && !parse_bytes(p->value, &out))
            malformed(o, p, "bad value");
    }
    if (keyname == NULL) {
        malformed(o, &s->pairs[op], "no KeyName (the encoded-key forms are not RSA's)");
        goto done;
    }
    key = evp_find_key(r, keyname, EVP_KEYS_PRIVATE, &found);
    if (key == NULL) {
        skip(o, EVP_SKIP_KEY, found ? "key %s is of an unsupported type" : "no key %s",
             keyname);
        goto done;
    }
    check_category(r, s, op + 1, key, o);
    if (o->err != NULL || o->malformed[0] != '\0' || !init_params(s, op + 1, params, o))
        goto done;
    ctx = EVP_PKEY_CTX_new_from_pkey(r->libctx, key, r->propq);
    if (ctx == NULL) {
        o->err = "PKEY_CTX_NEW_ERROR";
        goto done;
    }
    if (in.given) {
        o->err = decapsulate(r, ctx, kemop, params, in.p, in.len, out.p, out.len, o);
        goto done;
    }
    if (EVP_PKEY_encapsulate_init(ctx, params) <= 0) {
        o->err = "TEST_ENCAPSULATE_INIT_ERROR";
        goto done;
    }
    if (!check_provider(r, ctx, o))
        goto done;
    if (kemop != NULL && EVP_PKEY_CTX_set_kem_op(ctx, kemop) <= 0)
        o->err = "TEST_SET_KEM_OP_ERROR";
    else if (EVP_PKEY_encapsulate(ctx, NULL, &wlen, NULL, &slen) <= 0)
        o->err = "TEST_ENCAPSULATE_LEN_ERROR";
    else if ((wrapped = OPENSSL_malloc(wlen + 1)) == NULL
             || (secret = OPENSSL_malloc(slen + 1)) == NULL)
        o->err = "MALLOC_FAILURE";
    else if (EVP_PKEY_encapsulate(ctx, wrapped, &wlen, secret, &slen) <= 0)
        o->err = "TEST_ENCAPSULATE_ERROR";
    else if (out.given && !same_bytes(&out, secret, slen))
        o->err = "TEST_SECRET_MISMATCH";
    else    /* the key is a private key: decapsulate what was made */
        o->err = decapsulate(r, ctx, kemop, params, wrapped, wlen, secret, slen, o);
done:
    init_params_free(params);
    OPENSSL_free(wrapped);
    OPENSSL_clear_free(secret, slen);
    EVP_PKEY_CTX_free(ctx);
    bytes_free(&in);
    bytes_free(&out);
}

/* ---- the table ---- */

typedef struct evp_method {
    const char *name;
    const char *const *keywords;   /* what it takes besides the generic keywords */
    void (*run)(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o);
} evp_method;

static const char *const pkey_keywords[] = { "Input", "Output", "Ctrl", "CtrlInit",
                                             "Security-Category", NULL };
static const char *const kem_keywords[] = { "KeyName", "Op", "Input", "Output", "CtrlInit",
                                            "Security-Category", NULL };
static const char *const derive_keywords[] = { "PeerKey", "PeerKeyValidate", "SharedSecret",
                                               "Ctrl", NULL };
static const char *const digest_keywords[] = { "Key", "Input", "Output", "Ctrl", "Count",
                                               "Ncopy", NULL };
static const char *const oneshot_keywords[] = { "Key", "Input", "Output", "Ctrl", NULL };
static const char *const keypair_keywords[] = { NULL };
static const char *const keygen_keywords[] = { "KeyName", "Ctrl", NULL };

static const evp_method methods[] = {
    { "Sign", pkey_keywords, run_sign },
    { "Verify", pkey_keywords, run_verify },
    { "VerifyRecover", pkey_keywords, run_verify_recover },
    { "Decrypt", pkey_keywords, run_decrypt },
    { "Encrypt", pkey_keywords, run_encrypt },
    { "Derive", derive_keywords, run_derive },
    { "DigestSign", digest_keywords, run_digest_sign },
    { "DigestVerify", digest_keywords, run_digest_verify },
    { "OneShotDigestSign", oneshot_keywords, run_oneshot_sign },
    { "OneShotDigestVerify", oneshot_keywords, run_oneshot_verify },
    { "PrivPubKeyPair", keypair_keywords, run_keypair },
    { "KeyGen", keygen_keywords, run_keygen },
    { "Sign-Message", pkey_keywords, run_sign_message },
    { "Verify-Message", pkey_keywords, run_verify_message },
    { "Verify-Message-Public", pkey_keywords, run_verify_message_public },
    { "Kem", kem_keywords, run_kem },
};

static const evp_method *find_method(const char *name)
{
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (strcmp(methods[i].name, name) == 0)
            return &methods[i];
    return NULL;
}

int evp_is_generic_keyword(const char *key)
{
    static const char *const generic[] = {
        "Result", "Reason", "Function", "Securitycheck", "Availablein", "FIPSversion",
        "Unapproved", "Extended-Test", NULL
    };

    for (size_t i = 0; generic[i] != NULL; i++)
        if (strcmp(key, generic[i]) == 0)
            return 1;
    return 0;
}

const char *evp_stanza_unsupported(const evp_stanza *s, size_t op, char *buf, size_t len)
{
    const evp_method *m = find_method(s->pairs[op].key);

    if (m == NULL) {
        snprintf(buf, len, "stanza type %s", s->pairs[op].key);
        return buf;
    }
    for (size_t i = op + 1; i < s->npairs; i++) {
        const char *k = s->pairs[i].key;
        int known = evp_is_generic_keyword(k);

        for (size_t j = 0; !known && m->keywords[j] != NULL; j++)
            known = strcmp(k, m->keywords[j]) == 0;
        if (!known) {
            snprintf(buf, len, "keyword %s in a %s stanza", k, m->name);
            return buf;
        }
    }
    return NULL;
}

int evp_run_stanza(const evp_run *r, const evp_stanza *s, size_t op, evp_outcome *o)
{
    const evp_method *m = find_method(s->pairs[op].key);

    if (m == NULL) {
        skip(o, EVP_SKIP_UNSUPPORTED, "stanza type %s", s->pairs[op].key);
        return 0;
    }
    m->run(r, s, op, o);
    return 1;
}
