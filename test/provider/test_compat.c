/*
 * ctrsa against the default provider of the OpenSSL it runs on (3.0, 3.5, 3.6, ...), where
 * the two must agree whatever the version:
 *
 * - implicit rejection: since OpenSSL 3.2 the default provider returns a synthetic message
 *   for a malformed PKCS#1 v1.5 ciphertext itself, so on such a libcrypto ctrsa's synthetic
 *   messages are compared with it byte for byte, directly (on 3.0 and 3.1 the test is
 *   skipped; test_asym_cipher checks ctrsa against a reference there);
 * - parameters: the settable and gettable lists of the signature, asymmetric-cipher and key
 *   management operations hold every name the default provider lists on this version (the
 *   names 3.1 to 3.6 added, such as implicit-rejection or the FIPS indicators, included
 *   where the default provider has them), with the same type, and every value both report
 *   after the same settings is the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "testutil.h"

#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif

#define MAX_K 1024              /* bytes of the largest modulus here (8192 bits) */

static tu_env env;

/* Key pairs made by the default provider, and the same numbers in the provider under test. */
struct keyset {
    size_t bits, primes;
    EVP_PKEY *oracle, *ut;
};
static struct keyset keys[] = {
    { 1024, 2, NULL, NULL }, { 2048, 2, NULL, NULL }, { 2049, 2, NULL, NULL },
    { 3072, 3, NULL, NULL }, { 4096, 2, NULL, NULL },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* A key of `bits` and `primes` made in the provider propq names. */
static EVP_PKEY *gen(size_t bits, size_t primes, const char *propq)
{
    OSSL_PARAM p[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
                       OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes),
                       OSSL_PARAM_construct_end() };
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", propq);
    EVP_PKEY *key = NULL;

    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, p) != 1
        || EVP_PKEY_generate(ctx, &key) != 1)
        tu_print_errors("gen");
    EVP_PKEY_CTX_free(ctx);
    return key;
}

static int setup(void **state)
{
    size_t i;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    for (i = 0; i < N_KEYS; i++) {
        /* The default provider makes even sizes only (2049 gives 2048): ctrsa makes 2049. */
        if (keys[i].bits % 2 == 0) {
            keys[i].oracle = gen(keys[i].bits, keys[i].primes, TU_PROPQ_DEFAULT);
            if (keys[i].oracle == NULL)
                return -1;
            keys[i].ut = tu_pkey_copy_to(env.libctx, keys[i].oracle, 1, tu_provider_name());
        } else {
            keys[i].ut = gen(keys[i].bits, keys[i].primes, tu_propq());
            if (keys[i].ut == NULL)
                return -1;
            keys[i].oracle = tu_pkey_copy_to(env.libctx, keys[i].ut, 1, "default");
        }
        if (keys[i].ut == NULL || keys[i].oracle == NULL
            || EVP_PKEY_get_bits(keys[i].oracle) != (int)keys[i].bits)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < N_KEYS; i++) {
        EVP_PKEY_free(keys[i].oracle);
        EVP_PKEY_free(keys[i].ut);
    }
    tu_env_free(&env);
    return 0;
}

/* ---- implicit rejection against the default provider ------------------------------- */

/*
 * Decrypt ct with PKCS#1 v1.5 in the provider `propq` names, implicit rejection as that
 * provider defaults (ir < 0) or set to ir. 1 and out/outlen on success.
 */
static int decrypt_pkcs1(EVP_PKEY *key, const char *propq, int ir, const unsigned char *ct,
                         size_t ctlen, unsigned char *out, size_t *outlen)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    unsigned int v = (unsigned int)ir;
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end() };
    int ok;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), 1);
    if (ir >= 0) {
        p[0] = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, &v);
        assert_int_equal(EVP_PKEY_CTX_set_params(ctx, p), 1);
    }
    ok = EVP_PKEY_decrypt(ctx, out, outlen, ct, ctlen) == 1;
    if (ok)
        assert_true(tu_ctx_in_named_provider(ctx, strcmp(propq, TU_PROPQ_DEFAULT) == 0
                                                      ? "default" : tu_provider_name()));
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/*
 * c := RSA(em) with no padding (em is k bytes), by the default provider. 0 if em is not
 * below n (a first byte of 01 under a modulus whose top byte is 01, as for 2049 bits).
 */
static int raw_encrypt(EVP_PKEY *key, const unsigned char *em, size_t k, unsigned char *c)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, TU_PROPQ_DEFAULT);
    size_t clen = k;
    int ok;

    assert_non_null(ctx);
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
    ok = EVP_PKEY_encrypt(ctx, c, &clen, em, k) == 1;
    if (!ok && em[0] == 0x00)
        tu_print_errors("raw RSA");
    ERR_clear_error();
    if (ok)
        assert_int_equal(clen, k);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* A nonzero random byte. */
static unsigned char nonzero(void)
{
    unsigned char b = 0;

    while (b == 0)
        assert_int_equal(RAND_bytes(&b, 1), 1);
    return b;
}

/*
 * The encoded message of shape `t` for a k-byte modulus into em: valid PKCS#1 v1.5 blocks
 * (messages of 0, 1, 11 and the most bytes) and every kind of malformed one (first byte,
 * block type, no separator, separator at index 2 to 9 (PS shorter than 8), random). Returns
 * 0 past the last shape.
 */
static int shape(size_t t, size_t k, unsigned char *em, const char **what)
{
    size_t i, sep;

    assert_int_equal(RAND_bytes(em, (int)k), 1);
    em[0] = 0x00;
    em[1] = 0x02;
    for (i = 2; i < k; i++)
        em[i] = em[i] != 0 ? em[i] : nonzero();
    switch (t) {
    case 0: *what = "valid, empty message"; sep = k - 1; break;
    case 1: *what = "valid, 1-byte message"; sep = k - 2; break;
    case 2: *what = "valid, 11-byte message"; sep = k - 12; break;
    case 3: *what = "valid, longest message (PS of 8)"; sep = 10; break;
    case 4: *what = "PS of 7"; sep = 9; break;
    case 5: *what = "PS of 0 (separator at index 2)"; sep = 2; break;
    case 6: *what = "no separator"; sep = 0; break;
    case 7: *what = "first byte 01"; sep = k - 12; em[0] = 0x01; break;
    case 8: *what = "block type 01"; sep = k - 12; em[1] = 0x01; break;
    case 9: *what = "block type 00"; sep = k - 12; em[1] = 0x00; break;
    case 10: *what = "random below n"; em[1] = nonzero() & 0x7f; return 1;
    case 11: *what = "all zero"; memset(em, 0, k); return 1;
    default: return 0;
    }
    if (sep != 0)
        em[sep] = 0x00;
    return 1;
}

/*
 * On a libcrypto of 3.2 or later, the default provider does implicit rejection itself:
 * every ciphertext above decrypts in both providers to the same bytes (the message when the
 * padding is valid, the synthetic message when not), and with implicit rejection off both
 * refuse the same ones. Key sizes 1024 to 4096 (2049: k not a multiple of 8 bits' worth), 3
 * primes, ciphertexts of k bytes and (leading zeros dropped) shorter.
 */
static void test_implicit_rejection_vs_default(void **state)
{
    unsigned char em[MAX_K], ct[MAX_K], a[MAX_K], b[MAX_K];
    size_t s, t, r, k, alen, blen, compared = 0, synthetic = 0;
    const char *what;
    (void)state;

    if (OpenSSL_version_num() < 0x30200000L) {
        print_message("%s: the default provider has no implicit rejection (3.2 and later)\n",
                      OpenSSL_version(OPENSSL_VERSION));
        skip();
    }
    for (s = 0; s < N_KEYS; s++) {
        k = (keys[s].bits + 7) / 8;
        for (t = 0; shape(t, k, em, &what); t++) {
            for (r = 0; r < 3; r++) {       /* three random instances of each shape */
                size_t off = 0;
                int da, db;

                if (r > 0)
                    shape(t, k, em, &what);
                if (!raw_encrypt(keys[s].oracle, em, k, ct)) {
                    if (em[0] == 0x00)
                        fail_msg("%zu bits, %s: no raw RSA", keys[s].bits, what);
                    continue;
                }
                while (r == 2 && off < k - 1 && ct[off] == 0)
                    off++;                  /* the last instance: leading zeros dropped */
                alen = blen = MAX_K;
                da = decrypt_pkcs1(keys[s].ut, tu_propq(), -1, ct + off, k - off, a, &alen);
                db = decrypt_pkcs1(keys[s].oracle, TU_PROPQ_DEFAULT, -1, ct + off, k - off, b,
                                   &blen);
                if (da != 1 || db != 1 || alen != blen || memcmp(a, b, alen) != 0)
                    fail_msg("%zu bits, %s: ctrsa %s %zu bytes, default %s %zu bytes%s",
                             keys[s].bits, what, da ? "gave" : "failed", alen,
                             db ? "gave" : "failed", blen,
                             da && db ? ", not the same" : "");
                compared++;
                /* Implicit rejection off: both refuse exactly the malformed ones. */
                alen = blen = MAX_K;
                da = decrypt_pkcs1(keys[s].ut, tu_propq(), 0, ct + off, k - off, a, &alen);
                db = decrypt_pkcs1(keys[s].oracle, TU_PROPQ_DEFAULT, 0, ct + off, k - off, b,
                                   &blen);
                ERR_clear_error();
                if (da != db)
                    fail_msg("%zu bits, %s, implicit rejection off: ctrsa %s, default %s",
                             keys[s].bits, what, da ? "decrypts" : "refuses",
                             db ? "decrypts" : "refuses");
                if (!db)
                    synthetic++;
                else
                    assert_memory_equal(a, b, alen);
            }
        }
    }
    print_message("%zu ciphertexts decrypted alike, %zu of them to a synthetic message\n",
                  compared, synthetic);
    assert_true(synthetic >= compared / 2);
}

/* ---- parameters against the default provider ---------------------------------------- */

static const char *type_name(unsigned int t)
{
    switch (t) {
    case OSSL_PARAM_INTEGER: return "integer";
    case OSSL_PARAM_UNSIGNED_INTEGER: return "unsigned integer";
    case OSSL_PARAM_REAL: return "real";
    case OSSL_PARAM_UTF8_STRING: return "utf8 string";
    case OSSL_PARAM_OCTET_STRING: return "octet string";
    case OSSL_PARAM_UTF8_PTR: return "utf8 pointer";
    case OSSL_PARAM_OCTET_PTR: return "octet pointer";
    default: return "?";
    }
}

/* 1 if name is in the NULL-terminated list. */
static int listed(const char *const *list, const char *name)
{
    for (; list != NULL && *list != NULL; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

/*
 * The numbers of primes 6 to 10, which the default provider lists for every key although
 * it makes and takes at most 5 primes (RSA_MAX_PRIME_NUM); ctrsa lists the 5 it can have.
 */
static const char *const beyond_five_primes[] = {
    "rsa-factor6", "rsa-factor7", "rsa-factor8", "rsa-factor9", "rsa-factor10",
    "rsa-exponent6", "rsa-exponent7", "rsa-exponent8", "rsa-exponent9", "rsa-exponent10",
    "rsa-coefficient5", "rsa-coefficient6", "rsa-coefficient7", "rsa-coefficient8",
    "rsa-coefficient9", NULL
};

/*
 * Parameters ctrsa takes as an integer or as a string (test_signature_params sets both),
 * listed as strings; the default provider lists them as strings up to 3.5 and as integers
 * in its settable lists since 3.6. Either type is the same parameter here.
 */
static const char *const either_type[] = {
    OSSL_SIGNATURE_PARAM_PAD_MODE, OSSL_SIGNATURE_PARAM_PSS_SALTLEN, NULL
};

/*
 * Every name in `theirs` (the default provider's list) is in `mine` with the same type,
 * but those in `not_needed` (NULL-terminated, may be NULL). Names only in `mine` are
 * printed (ctrsa may take more), not refused. Returns
 * the number of names checked.
 */
static size_t same_names(const char *what, const OSSL_PARAM *mine, const OSSL_PARAM *theirs,
                         const char *const *not_needed)
{
    const OSSL_PARAM *p, *q;
    size_t n = 0, missing = 0;

    if (theirs == NULL)
        return 0;
    assert_non_null(mine);
    for (p = theirs; p->key != NULL; p++, n++) {
        q = OSSL_PARAM_locate_const(mine, p->key);
        if (q == NULL && listed(not_needed, p->key)) {
            continue;
        } else if (q == NULL) {
            print_error("%s: the default provider lists \"%s\" (%s), ctrsa does not\n", what,
                        p->key, type_name(p->data_type));
            missing++;
        } else if (q->data_type != p->data_type
                   && !(listed(either_type, p->key)
                        && (q->data_type == OSSL_PARAM_UTF8_STRING
                            || q->data_type == OSSL_PARAM_INTEGER)
                        && (p->data_type == OSSL_PARAM_UTF8_STRING
                            || p->data_type == OSSL_PARAM_INTEGER))) {
            print_error("%s: \"%s\" is a %s in the default provider, a %s in ctrsa\n", what,
                        p->key, type_name(p->data_type), type_name(q->data_type));
            missing++;
        }
    }
    for (q = mine; q->key != NULL; q++)
        if (OSSL_PARAM_locate_const(theirs, q->key) == NULL)
            print_message("%s: \"%s\" only in ctrsa\n", what, q->key);
    if (missing != 0)
        fail_msg("%s: %zu of the default provider's %zu parameters missing or of another "
                 "type", what, missing, n);
    return n;
}

/* One value asked of a provider: room for any type used here. */
struct got {
    int ok;
    unsigned int type;
    size_t size;
    unsigned char buf[2 * MAX_K];
};

typedef int (*get_fn)(void *obj, OSSL_PARAM *params);

static int pkey_ctx_get(void *obj, OSSL_PARAM *params)
{
    return EVP_PKEY_CTX_get_params((EVP_PKEY_CTX *)obj, params);
}

static int pkey_get(void *obj, OSSL_PARAM *params)
{
    return EVP_PKEY_get_params((EVP_PKEY *)obj, params);
}

/* g := the value of `desc` (an entry of a gettable list) asked of obj through get. */
static void ask(get_fn get, void *obj, const OSSL_PARAM *desc, struct got *g)
{
    OSSL_PARAM p[2];
    int64_t i64 = 0;
    uint64_t u64 = 0;

    memset(g, 0, sizeof(*g));
    g->type = desc->data_type;
    p[1] = OSSL_PARAM_construct_end();
    switch (desc->data_type) {
    case OSSL_PARAM_INTEGER:
        p[0] = OSSL_PARAM_construct_int64(desc->key, &i64);
        if ((g->ok = get(obj, p) == 1 && OSSL_PARAM_modified(p)))
            memcpy(g->buf, &i64, sizeof(i64));
        g->size = sizeof(i64);
        break;
    case OSSL_PARAM_UNSIGNED_INTEGER:
        /* small numbers through a uint64; numbers of a key (n, d, ...) in a big buffer */
        p[0] = OSSL_PARAM_construct_uint64(desc->key, &u64);
        if ((g->ok = get(obj, p) == 1 && OSSL_PARAM_modified(p))) {
            memcpy(g->buf, &u64, sizeof(u64));
            g->size = sizeof(u64);
            break;
        }
        ERR_clear_error();
        p[0] = OSSL_PARAM_construct_BN(desc->key, g->buf, sizeof(g->buf));
        g->ok = get(obj, p) == 1 && OSSL_PARAM_modified(p);
        g->size = sizeof(g->buf);           /* native-endian, zero-padded to the buffer */
        break;
    case OSSL_PARAM_UTF8_STRING:
        p[0] = OSSL_PARAM_construct_utf8_string(desc->key, (char *)g->buf, sizeof(g->buf));
        if ((g->ok = get(obj, p) == 1 && OSSL_PARAM_modified(p)))
            g->size = strlen((char *)g->buf);
        break;
    case OSSL_PARAM_OCTET_STRING:
        p[0] = OSSL_PARAM_construct_octet_string(desc->key, g->buf, sizeof(g->buf));
        if ((g->ok = get(obj, p) == 1 && OSSL_PARAM_modified(p)))
            g->size = p[0].return_size;
        break;
    default:
        g->ok = -1;                         /* pointers: not compared */
        break;
    }
    ERR_clear_error();
}

/* 1 if both names fetch one digest ("SHA512" and "SHA2-512"). */
static int same_digest(const char *a, const char *b)
{
    EVP_MD *md = EVP_MD_fetch(env.libctx, a, TU_PROPQ_DEFAULT);
    int same = md != NULL && EVP_MD_is_a(md, b);

    EVP_MD_free(md);
    ERR_clear_error();
    return same;
}

/*
 * Every parameter in the default provider's gettable list `theirs`, asked of both objects:
 * both give it, or neither does; when they do, the same value (for a digest, the same
 * digest, whichever of its names each reports). The names in `skip`
 * (NULL-terminated) differ by design and are only printed. Returns how many were compared.
 */
static size_t same_values(const char *what, get_fn get, void *mine, void *theirs_obj,
                          const OSSL_PARAM *theirs, const char *const *skip)
{
    const OSSL_PARAM *p;
    struct got *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    size_t n = 0, bad = 0;

    assert_non_null(a);
    assert_non_null(b);
    for (p = theirs; p != NULL && p->key != NULL; p++) {
        ask(get, mine, p, a);
        ask(get, theirs_obj, p, b);
        if (a->ok < 0)
            continue;
        if (listed(skip, p->key)) {
            print_message("%s: \"%s\" not compared\n", what, p->key);
            continue;
        }
        if (a->ok != b->ok) {
            print_error("%s: \"%s\": ctrsa %s it, the default provider %s\n", what, p->key,
                        a->ok ? "reports" : "does not report",
                        b->ok ? "does" : "does not");
            bad++;
        } else if (a->ok && p->data_type == OSSL_PARAM_UTF8_STRING
                   && strstr(p->key, "digest") != NULL && a->size != 0 && b->size != 0
                   && same_digest((char *)a->buf, (char *)b->buf)) {
            if (strcmp((char *)a->buf, (char *)b->buf) != 0)
                print_message("%s: \"%s\": ctrsa \"%s\", the default provider \"%s\": "
                              "names of one digest\n", what, p->key, (char *)a->buf,
                              (char *)b->buf);
        } else if (a->ok && (a->size != b->size || memcmp(a->buf, b->buf, a->size) != 0)) {
            if (p->data_type == OSSL_PARAM_UTF8_STRING)
                print_error("%s: \"%s\": ctrsa \"%s\", the default provider \"%s\"\n", what,
                            p->key, (char *)a->buf, (char *)b->buf);
            else if (p->data_type == OSSL_PARAM_INTEGER)
                print_error("%s: \"%s\": ctrsa %lld, the default provider %lld\n", what,
                            p->key, (long long)*(int64_t *)a->buf,
                            (long long)*(int64_t *)b->buf);
            else
                print_error("%s: \"%s\" (%s): ctrsa and the default provider differ\n", what,
                            p->key, type_name(p->data_type));
            bad++;
        }
        n += a->ok == 1;
    }
    free(a);
    free(b);
    if (bad != 0)
        fail_msg("%s: %zu parameters reported otherwise than by the default provider", what,
                 bad);
    return n;
}

/* A context for `op` on key (sign, verify, encrypt, decrypt), in the provider propq names. */
enum op { OP_SIGN, OP_VERIFY, OP_ENCRYPT, OP_DECRYPT };
static EVP_PKEY_CTX *op_ctx(EVP_PKEY *key, const char *propq, enum op op)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, propq);
    int ok;

    assert_non_null(ctx);
    switch (op) {
    case OP_SIGN: ok = EVP_PKEY_sign_init(ctx); break;
    case OP_VERIFY: ok = EVP_PKEY_verify_init(ctx); break;
    case OP_ENCRYPT: ok = EVP_PKEY_encrypt_init(ctx); break;
    default: ok = EVP_PKEY_decrypt_init(ctx); break;
    }
    assert_int_equal(ok, 1);
    return ctx;
}

static void compare_ctx(enum op op, const char *label, const OSSL_PARAM *settings)
{
    static const char *const opname[] = { "sign", "verify", "encrypt", "decrypt" };
    EVP_PKEY_CTX *mine = op_ctx(keys[1].ut, tu_propq(), op);
    EVP_PKEY_CTX *theirs = op_ctx(keys[1].oracle, TU_PROPQ_DEFAULT, op);
    char what[128];
    size_t n;

    snprintf(what, sizeof(what), "%s (%s), settable", opname[op], label);
    same_names(what, EVP_PKEY_CTX_settable_params(mine), EVP_PKEY_CTX_settable_params(theirs),
               NULL);
    snprintf(what, sizeof(what), "%s (%s), gettable", opname[op], label);
    same_names(what, EVP_PKEY_CTX_gettable_params(mine), EVP_PKEY_CTX_gettable_params(theirs),
               NULL);
    if (settings != NULL) {                 /* the same settings on both */
        assert_int_equal(EVP_PKEY_CTX_set_params(theirs, settings), 1);
        assert_int_equal(EVP_PKEY_CTX_set_params(mine, settings), 1);
    }
    snprintf(what, sizeof(what), "%s (%s), values", opname[op], label);
    /* (Salt lengths included: each version's default, auto on 3.0, auto-digestmax later.) */
    n = same_values(what, pkey_ctx_get, mine, theirs, EVP_PKEY_CTX_gettable_params(theirs),
                    NULL);
    print_message("%s: %zu values alike\n", what, n);
    assert_true(tu_ctx_in_provider(mine));
    EVP_PKEY_CTX_free(mine);
    EVP_PKEY_CTX_free(theirs);
}

#define UTF8(name, value) OSSL_PARAM_construct_utf8_string((name), (char *)(value), 0)

static void test_signature_params_vs_default(void **state)
{
    const OSSL_PARAM pss[] = { UTF8(OSSL_SIGNATURE_PARAM_PAD_MODE, "pss"),
                               UTF8(OSSL_SIGNATURE_PARAM_DIGEST, "SHA384"),
                               UTF8(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, "SHA256"),
                               UTF8(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "20"),
                               OSSL_PARAM_construct_end() };
    const OSSL_PARAM pss_max[] = { UTF8(OSSL_SIGNATURE_PARAM_PAD_MODE, "pss"),
                                   UTF8(OSSL_SIGNATURE_PARAM_DIGEST, "SHA256"),
                                   UTF8(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, "max"),
                                   OSSL_PARAM_construct_end() };
    const OSSL_PARAM pkcs1[] = { UTF8(OSSL_SIGNATURE_PARAM_DIGEST, "SHA512"),
                                 OSSL_PARAM_construct_end() };
    (void)state;

    compare_ctx(OP_SIGN, "as initialised", NULL);
    compare_ctx(OP_SIGN, "PKCS#1 v1.5, SHA-512", pkcs1);
    compare_ctx(OP_SIGN, "PSS, SHA-384, MGF1-SHA-256, salt 20", pss);
    compare_ctx(OP_SIGN, "PSS, salt max", pss_max);
    compare_ctx(OP_VERIFY, "as initialised", NULL);
    compare_ctx(OP_VERIFY, "PSS, SHA-384, MGF1-SHA-256, salt 20", pss);
}

static void test_asym_cipher_params_vs_default(void **state)
{
    static unsigned char label[] = "label";
    unsigned int off = 0;
    const OSSL_PARAM oaep[] = {
        UTF8(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, "oaep"),
        UTF8(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, "SHA384"),
        UTF8(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, "SHA1"),
        OSSL_PARAM_construct_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, label, 5),
        OSSL_PARAM_construct_end() };
    const OSSL_PARAM noir[] = {
        OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, &off),
        OSSL_PARAM_construct_end() };
    (void)state;

    compare_ctx(OP_ENCRYPT, "as initialised", NULL);
    compare_ctx(OP_ENCRYPT, "OAEP, SHA-384, MGF1-SHA-1, label", oaep);
    compare_ctx(OP_DECRYPT, "as initialised", NULL);
    compare_ctx(OP_DECRYPT, "OAEP, SHA-384, MGF1-SHA-1, label", oaep);
    /* A parameter of 3.2's default provider (ctrsa has it on every version). */
    if (OpenSSL_version_num() >= 0x30200000L)
        compare_ctx(OP_DECRYPT, "implicit rejection off", noir);
}

/* The key's own parameters, and key generation's settable list. */
static void test_keymgmt_params_vs_default(void **state)
{
    EVP_PKEY_CTX *mine, *theirs;
    char what[64];
    size_t s, n;
    (void)state;

    for (s = 0; s < N_KEYS; s++) {
        snprintf(what, sizeof(what), "%zu-bit key of %zu primes, gettable", keys[s].bits,
                 keys[s].primes);
        same_names(what, EVP_PKEY_gettable_params(keys[s].ut),
                   EVP_PKEY_gettable_params(keys[s].oracle), beyond_five_primes);
        snprintf(what, sizeof(what), "%zu-bit key of %zu primes, values", keys[s].bits,
                 keys[s].primes);
        n = same_values(what, pkey_get, keys[s].ut, keys[s].oracle,
                        EVP_PKEY_gettable_params(keys[s].oracle), NULL);
        print_message("%s: %zu values alike\n", what, n);
    }
    mine = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    theirs = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_keygen_init(mine), 1);
    assert_int_equal(EVP_PKEY_keygen_init(theirs), 1);
    same_names("RSA key generation, settable", EVP_PKEY_CTX_settable_params(mine),
               EVP_PKEY_CTX_settable_params(theirs), NULL);
    EVP_PKEY_CTX_free(mine);
    EVP_PKEY_CTX_free(theirs);
    mine = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    theirs = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    assert_int_equal(EVP_PKEY_fromdata_init(mine), 1);
    assert_int_equal(EVP_PKEY_fromdata_init(theirs), 1);
    same_names("RSA import, key pair", EVP_PKEY_fromdata_settable(mine, EVP_PKEY_KEYPAIR),
               EVP_PKEY_fromdata_settable(theirs, EVP_PKEY_KEYPAIR), beyond_five_primes);
    EVP_PKEY_CTX_free(mine);
    EVP_PKEY_CTX_free(theirs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_implicit_rejection_vs_default),
        cmocka_unit_test(test_signature_params_vs_default),
        cmocka_unit_test(test_asym_cipher_params_vs_default),
        cmocka_unit_test(test_keymgmt_params_vs_default),
    };

    print_message("OpenSSL %s, provider under test: %s\n", OpenSSL_version(OPENSSL_VERSION),
                  tu_provider_name());
    return cmocka_run_group_tests(tests, setup, teardown);
}
