/*
 * Wycheproof RSA vectors against the provider under test (testutil.h): every "valid" vector
 * must pass, every "invalid" one must fail, "acceptable" ones may go either way and are
 * counted. One CMocka test per vector file; a summary line per file.
 *
 * Usage: test_wycheproof <vectors.txt>, a file written by wycheproof_to_txt.py (its header
 * describes the format). Signature groups run the signature operation, decryption groups
 * the asym-cipher operation; every operation is checked to have run in the provider under
 * test (EVP_PKEY_CTX_get0_provider).
 *
 * Keys: plain groups are imported into the provider under test with EVP_PKEY_fromdata.
 * RsassaPssWithParametersVerify groups decode their SubjectPublicKeyInfo (which carries the
 * RSASSA-PSS parameters) with the default provider's decoder; the verification then runs in
 * the provider under test, which receives the key, restrictions included, by export. Only
 * the digest is passed explicitly there: salt length and MGF must come from the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "testutil.h"

/* OpenSSL 3.2+ name; 3.0 headers lack it. */
#ifndef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
#define OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION "implicit-rejection"
#endif

#define MAX_TOKENS 32

static tu_env env;

/* One record line split into key=value tokens (in place). */
typedef struct record {
    char kind;                    /* 'F', 'G' or 'T' */
    size_t ntok;
    const char *key[MAX_TOKENS];
    const char *val[MAX_TOKENS];
} record;

/* A vector file inside the loaded text: lines [first, end). */
typedef struct vector_file {
    const char *name;
    size_t first, end;
} vector_file;

static char **lines;
static size_t nlines;
static vector_file *files;
static size_t nfiles;

/* Byte string decoded from hex. */
typedef struct bytes {
    unsigned char *p;
    size_t len;
} bytes;

/* The current group: its parameters and key. */
typedef struct group {
    const char *type, *sha, *mgf, *mgfsha;
    int slen;                     /* -1 when absent */
    int bits;
    EVP_PKEY *key;                /* in the provider under test, or decoded by default */
    int skip;                     /* 1: this group is skipped (reason printed) */
} group;

/* Per-file counts. */
typedef struct tally {
    size_t vectors, valid_ok, invalid_ok, acc_accepted, acc_rejected, failed, skipped;
    size_t sampled_out; /* left out by a reduced CTRSA_TEST_SCALE (vector_stride) */
} tally;

/*
 * Under a reduced CTRSA_TEST_SCALE (the cross runs under qemu and the ASan stage: 0.25)
 * every stride-th vector of each group runs, the group's first always, so that every group
 * (key, size, digest, padding) is still exercised: 1 at full scale, 4 at 0.25.
 */
static size_t vector_stride(void)
{
    size_t kept = tu_scaled(100, 1);
    return kept >= 100 ? 1 : 100 / kept;
}

static int split_record(char *line, record *r)
{
    char *save = NULL;
    char *tok = strtok_r(line, " ", &save);

    if (tok == NULL || tok[1] != '\0')
        return 0;
    r->kind = tok[0];
    r->ntok = 0;
    while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
        char *eq = strchr(tok, '=');

        if (eq == NULL || r->ntok == MAX_TOKENS)
            return 0;
        *eq = '\0';
        r->key[r->ntok] = tok;
        r->val[r->ntok] = eq + 1;
        r->ntok++;
    }
    return 1;
}

static const char *field(const record *r, const char *key)
{
    for (size_t i = 0; i < r->ntok; i++)
        if (strcmp(r->key[i], key) == 0)
            return r->val[i];
    return NULL;
}

static int hex_field(const record *r, const char *key, bytes *out)
{
    const char *hex = field(r, key);
    size_t n;

    out->p = NULL;
    out->len = 0;
    if (hex == NULL || strlen(hex) % 2 != 0)
        return 0;
    n = strlen(hex) / 2;
    out->p = malloc(n + 1);
    if (out->p == NULL || !tu_unhex(hex, out->p, n)) {
        free(out->p);
        out->p = NULL;
        return 0;
    }
    out->len = n;
    return 1;
}

static void bytes_free(bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->len = 0;
}

/* ---- keys ---- */

static int push_bn(OSSL_PARAM_BLD *bld, BIGNUM **bns, size_t *nbn, const char *name,
                   const char *hex)
{
    BIGNUM *bn = NULL;

    if (BN_hex2bn(&bn, hex) == 0)
        return 0;
    bns[(*nbn)++] = bn;
    return OSSL_PARAM_BLD_push_BN(bld, name, bn);
}

/* A key from the hex numbers of a group line, imported into the provider under test. */
static EVP_PKEY *key_from_numbers(const record *r)
{
    static const char *const factor[] = { OSSL_PKEY_PARAM_RSA_FACTOR1,
        OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_FACTOR3 };
    static const char *const exponent[] = { OSSL_PKEY_PARAM_RSA_EXPONENT1,
        OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_EXPONENT3 };
    static const char *const coeff[] = { OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
        OSSL_PKEY_PARAM_RSA_COEFFICIENT2 };
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key = NULL;
    BIGNUM *bns[MAX_TOKENS];
    size_t nbn = 0;
    int ok = bld != NULL;
    int selection = EVP_PKEY_PUBLIC_KEY;
    char name[16];

    ok = ok && push_bn(bld, bns, &nbn, OSSL_PKEY_PARAM_RSA_N, field(r, "n"));
    ok = ok && push_bn(bld, bns, &nbn, OSSL_PKEY_PARAM_RSA_E, field(r, "e"));
    if (ok && field(r, "d") != NULL) {
        selection = EVP_PKEY_KEYPAIR;
        ok = push_bn(bld, bns, &nbn, OSSL_PKEY_PARAM_RSA_D, field(r, "d"));
        for (size_t i = 0; ok && i < 3; i++) {
            snprintf(name, sizeof(name), "p%zu", i + 1);
            if (field(r, name) == NULL)
                break;
            ok = push_bn(bld, bns, &nbn, factor[i], field(r, name));
            snprintf(name, sizeof(name), "dp%zu", i + 1);
            ok = ok && push_bn(bld, bns, &nbn, exponent[i], field(r, name));
            snprintf(name, sizeof(name), "qi%zu", i);
            if (ok && i > 0)
                ok = push_bn(bld, bns, &nbn, coeff[i - 1], field(r, name));
        }
    }
    if (ok)
        params = OSSL_PARAM_BLD_to_param(bld);
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &key, selection, params) != 1) {
        tu_print_errors("key import");
        key = NULL;
    } else if (!tu_pkey_in_named_provider(key, tu_provider_name())) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    while (nbn > 0)
        BN_clear_free(bns[--nbn]);
    return key;
}

/* An RSA-PSS key with parameters, decoded from SubjectPublicKeyInfo by the default provider. */
static EVP_PKEY *key_from_spki(const record *r)
{
    bytes der;
    const unsigned char *p;
    EVP_PKEY *key;

    if (!hex_field(r, "der", &der))
        return NULL;
    p = der.p;
    key = d2i_PUBKEY_ex(NULL, &p, (long)der.len, env.libctx, TU_PROPQ_DEFAULT);
    if (key == NULL)
        tu_print_errors("SPKI decode");
    bytes_free(&der);
    return key;
}

/* ---- signature groups ---- */

static int is_pss(const group *g)
{
    return strcmp(g->type, "RsassaPssVerify") == 0;
}

static int is_pss_params(const group *g)
{
    return strcmp(g->type, "RsassaPssWithParametersVerify") == 0;
}

/*
 * Verify sig over msg with key in the provider named by propq. Returns 1 (accepted),
 * 0 (rejected) or -1 (the test could not set up the operation, or it ran elsewhere).
 */
static int verify_with(const group *g, EVP_PKEY *key, const char *propq, const char *provname,
                       const bytes *msg, const bytes *sig)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ret = -1;

    if (mctx == NULL
            || EVP_DigestVerifyInit_ex(mctx, &pctx, g->sha, env.libctx, propq, key,
                                       NULL) != 1)
        goto done;
    if (!tu_ctx_in_named_provider(pctx, provname))
        goto done;
    if (is_pss(g)
            && (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1
                || EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, g->slen) != 1
                || EVP_PKEY_CTX_set_rsa_mgf1_md_name(pctx, g->mgfsha, NULL) != 1))
        goto done;
    if (!tu_ctx_in_named_provider(pctx, provname))
        goto done;
    ret = EVP_DigestVerify(mctx, sig->p, sig->len, msg->p, msg->len) == 1;
done:
    if (ret < 0)
        tu_print_errors("verify setup");
    ERR_clear_error();
    EVP_MD_CTX_free(mctx);
    return ret;
}

/*
 * Sign msg with the group's key in the provider under test (PKCS#1 v1.5). Returns 1 and
 * fills *sig, 0 if the provider refused to sign, -1 if it ran elsewhere.
 */
static int sign_pkcs1(const group *g, const bytes *msg, bytes *sig)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ret = 0;
    size_t len = 0;

    sig->p = NULL;
    sig->len = 0;
    if (mctx == NULL
            || EVP_DigestSignInit_ex(mctx, &pctx, g->sha, env.libctx, tu_propq(), g->key,
                                     NULL) != 1)
        goto done;
    if (!tu_ctx_in_provider(pctx)) {
        ret = -1;
        goto done;
    }
    if (EVP_DigestSign(mctx, NULL, &len, msg->p, msg->len) != 1
            || (sig->p = malloc(len)) == NULL
            || EVP_DigestSign(mctx, sig->p, &len, msg->p, msg->len) != 1)
        goto done;
    sig->len = len;
    ret = 1;
done:
    if (ret != 1) {
        tu_print_errors("sign");
        bytes_free(sig);
    }
    EVP_MD_CTX_free(mctx);
    return ret;
}

/*
 * SHAKE groups use the SHAKE MGF of RFC 8702, which OpenSSL has no interface for. Ask the
 * oracle (the default provider) to verify the group's first valid vector; if it cannot,
 * nothing can be tested through OpenSSL and the group is skipped with the reason printed.
 * 1: the oracle verified it (the group runs), 0: skip.
 */
static int oracle_can_verify(const vector_file *vf, size_t gline, const group *g)
{
    EVP_PKEY *copy = tu_pkey_copy_to(env.libctx, g->key, 0, "default");
    int ret = 0;

    for (size_t i = gline + 1; copy != NULL && i < vf->end && lines[i][0] == 'T'; i++) {
        char *line = strdup(lines[i]);
        record r;
        bytes msg, sig;

        if (line != NULL && split_record(line, &r) && strcmp(field(&r, "r"), "v") == 0
                && hex_field(&r, "msg", &msg) && hex_field(&r, "sig", &sig)) {
            ret = verify_with(g, copy, TU_PROPQ_DEFAULT, "default", &msg, &sig) == 1;
            bytes_free(&msg);
            bytes_free(&sig);
            free(line);
            break;
        }
        free(line);
    }
    EVP_PKEY_free(copy);
    return ret;
}

/* ---- decryption groups ---- */

/*
 * Decrypt ct with the group's key in the provider under test. Returns 1 and fills *pt,
 * 0 if decryption failed, -1 if the operation could not be set up or ran elsewhere.
 */
static int decrypt(const group *g, const bytes *ct, const bytes *label, bytes *pt)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, g->key, tu_propq());
    int oaep = strcmp(g->type, "RsaesOaepDecrypt") == 0;
    unsigned int implicit = 0;
    OSSL_PARAM params[6], *p = params;
    int ret = -1;
    size_t len;

    pt->p = NULL;
    pt->len = 0;
    if (ctx == NULL || EVP_PKEY_decrypt_init(ctx) != 1)
        goto done;
    if (oaep) {
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE,
                                                (char *)OSSL_PKEY_RSA_PAD_MODE_OAEP, 0);
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST,
                                                (char *)g->sha, 0);
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST,
                                                (char *)g->mgfsha, 0);
        if (label->len > 0)
            *p++ = OSSL_PARAM_construct_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
                                                     label->p, label->len);
    } else {
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE,
                                                (char *)OSSL_PKEY_RSA_PAD_MODE_PKCSV15, 0);
        /* Invalid padding must fail rather than yield a synthetic message. */
        *p++ = OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION,
                                         &implicit);
    }
    *p = OSSL_PARAM_construct_end();
    if (EVP_PKEY_CTX_set_params(ctx, params) != 1 || !tu_ctx_in_provider(ctx))
        goto done;
    len = (size_t)EVP_PKEY_get_size(g->key);
    pt->p = malloc(len + 1);
    if (pt->p == NULL)
        goto done;
    if (EVP_PKEY_decrypt(ctx, pt->p, &len, ct->p, ct->len) == 1) {
        pt->len = len;
        ret = 1;
    } else {
        ret = 0;
    }
done:
    if (ret < 0)
        tu_print_errors("decrypt setup");
    if (ret != 1)
        bytes_free(pt);
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
    return ret;
}

/* ---- driver ---- */

static int load_group(const vector_file *vf, size_t line, const record *r, group *g)
{
    const char *slen = field(r, "slen");

    g->type = field(r, "type");
    g->sha = field(r, "sha");
    g->mgf = field(r, "mgf");
    g->mgfsha = field(r, "mgfsha");
    g->slen = (slen != NULL && strcmp(slen, "-") != 0) ? atoi(slen) : -1;
    g->bits = atoi(field(r, "bits"));
    g->skip = 0;
    if (g->type == NULL || g->sha == NULL || g->mgf == NULL || g->mgfsha == NULL)
        return 0;
    g->key = is_pss_params(g) ? key_from_spki(r) : key_from_numbers(r);
    if (g->key == NULL)
        return 0;
    if (strcmp(g->mgf, "MGF1") != 0 && strcmp(g->mgf, "-") != 0) {
        /* Wycheproof gives SHAKE groups mgf=SHAKE128/256 and no MGF digest. */
        g->mgfsha = g->mgf;
        if (!oracle_can_verify(vf, line, g)) {
            printf("%s: group with %s and the %s MGF (RFC 8702) skipped: OpenSSL's own "
                   "default provider cannot verify it (no SHAKE MGF / XOF digests for RSA)\n",
                   vf->name, g->sha, g->mgf);
            g->skip = 1;
        }
    }
    return 1;
}

/* Outcome of one vector: 1 = did it (accepted/decrypted correctly), 0 = rejected, -1 = error. */
static int run_vector(const group *g, const record *r, const char **why)
{
    bytes msg, data, label = { NULL, 0 }, out = { NULL, 0 };
    int ret = -1;
    int dec = strncmp(g->type, "Rsaes", 5) == 0;

    *why = "";
    if (!hex_field(r, "msg", &msg))
        return -1;
    if (!hex_field(r, dec ? "ct" : "sig", &data)) {
        bytes_free(&msg);
        return -1;
    }
    if (dec) {
        if (field(r, "label") != NULL && !hex_field(r, "label", &label))
            goto done;
        ret = decrypt(g, &data, &label, &out);
        if (ret == 1 && (out.len != msg.len || memcmp(out.p, msg.p, msg.len) != 0)) {
            *why = "decrypted to a different message";
            ret = -1;
        }
    } else if (strcmp(g->type, "RsassaPkcs1Generate") == 0) {
        ret = sign_pkcs1(g, &msg, &out);
        if (ret == 1 && (out.len != data.len || memcmp(out.p, data.p, data.len) != 0)) {
            *why = "signature differs from the expected one";
            ret = -1;
        }
    } else {
        ret = verify_with(g, g->key, tu_propq(), tu_provider_name(), &msg, &data);
    }
done:
    bytes_free(&msg);
    bytes_free(&data);
    bytes_free(&label);
    bytes_free(&out);
    return ret;
}

static void test_file(void **state)
{
    const vector_file *vf = *state;
    group g = { 0 };
    int have_group = 0;
    tally t = { 0 };
    const size_t stride = vector_stride();
    size_t in_group = 0;

    for (size_t i = vf->first + 1; i < vf->end; i++) {
        record r;
        const char *res, *why;
        int got;

        assert_true(split_record(lines[i], &r));
        if (r.kind == 'G') {
            EVP_PKEY_free(g.key);
            g.key = NULL;
            have_group = load_group(vf, i, &r, &g);
            in_group = 0;
            if (!have_group)
                fprintf(stderr, "%s: line %zu: cannot load the group's key\n", vf->name,
                        i + 1);
            continue;
        }
        assert_int_equal(r.kind, 'T');
        t.vectors++;
        if (in_group++ % stride != 0) {
            t.sampled_out++;
            continue;
        }
        if (!have_group) {
            t.failed++;
            continue;
        }
        if (g.skip) {
            t.skipped++;
            continue;
        }
        res = field(&r, "r");
        got = run_vector(&g, &r, &why);
        if (got >= 0 && res[0] == 'a') {
            if (got)
                t.acc_accepted++;
            else
                t.acc_rejected++;
        } else if (got == 1 && res[0] == 'v') {
            t.valid_ok++;
        } else if (got == 0 && res[0] == 'i') {
            t.invalid_ok++;
        } else {
            t.failed++;
            fprintf(stderr, "%s: tcId %s (%s, %d bits, %s): expected %s, got %s %s\n",
                    vf->name, field(&r, "id"), g.type, g.bits, g.sha,
                    res[0] == 'v' ? "valid" : res[0] == 'i' ? "invalid" : "acceptable",
                    got == 1 ? "success" : got == 0 ? "failure" : "error", why);
        }
    }
    EVP_PKEY_free(g.key);
    printf("%s: %zu vectors: %zu valid passed, %zu invalid rejected, acceptable %zu "
           "(%zu accepted, %zu rejected), %zu failed, %zu skipped, %zu left out by the "
           "test scale [provider %s]\n",
           vf->name, t.vectors, t.valid_ok, t.invalid_ok, t.acc_accepted + t.acc_rejected,
           t.acc_accepted, t.acc_rejected, t.failed, t.skipped, t.sampled_out,
           tu_provider_name());
    fflush(stdout);
    assert_int_equal(t.failed, 0);
    /* A file entirely skipped tests nothing: only the SHAKE files may do that. */
    if (t.skipped + t.sampled_out == t.vectors)
        assert_non_null(strstr(vf->name, "shake"));
}

static int load_vectors(const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lcap = 0, fcap = 0;
    ssize_t n;

    if (f == NULL) {
        perror(path);
        return 0;
    }
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (n == 0)
            continue;
        if (nlines == lcap) {
            lcap = lcap ? 2 * lcap : 4096;
            lines = realloc(lines, lcap * sizeof(*lines));
            if (lines == NULL)
                return 0;
        }
        lines[nlines] = strdup(line);
        if (lines[nlines] == NULL)
            return 0;
        if (line[0] == 'F') {
            if (nfiles == fcap) {
                fcap = fcap ? 2 * fcap : 64;
                files = realloc(files, fcap * sizeof(*files));
                if (files == NULL)
                    return 0;
            }
            if (nfiles > 0)
                files[nfiles - 1].end = nlines;
            files[nfiles].name = lines[nlines] + strlen("F name=");
            files[nfiles].first = nlines;
            nfiles++;
        }
        nlines++;
    }
    free(line);
    fclose(f);
    if (nfiles > 0)
        files[nfiles - 1].end = nlines;
    return nfiles > 0;
}

int main(int argc, char **argv)
{
    struct CMUnitTest *tests;
    int failed;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <wycheproof vectors.txt>\n", argv[0]);
        return 2;
    }
    if (!load_vectors(argv[1])) {
        fprintf(stderr, "%s: no vectors\n", argv[1]);
        return 1;
    }
    if (!tu_env_init(&env))
        return 1;
    tests = calloc(nfiles, sizeof(*tests));
    if (tests == NULL)
        return 1;
    for (size_t i = 0; i < nfiles; i++) {
        tests[i].name = files[i].name;
        tests[i].test_func = test_file;
        tests[i].initial_state = &files[i];
    }
    failed = _cmocka_run_group_tests("wycheproof", tests, nfiles, NULL, NULL);
    tu_env_free(&env);
    for (size_t i = 0; i < nlines; i++)
        free(lines[i]);
    free(lines);
    free(files);
    free(tests);
    return failed;
}
