/*
 * The allocation-failure sweep (issue 10): every public operation that reaches ctrsa (key
 * import with EVP_PKEY_fromdata, key generation, sign, verify, encrypt, decrypt) runs
 * once with allocation working to count the allocations it makes, then once for every n
 * from 1 up to that count with the n-th allocation failing. Each call must either fail
 * with an error on OpenSSL's queue or succeed with a correct result (checked with the
 * default provider as oracle); the same call right after, with allocation working, must
 * succeed with a correct result; and nothing may leak.
 *
 * How: CRYPTO_set_mem_functions, first thing in main (it refuses once anything has been
 * allocated), installs hooks that pass every allocation through until armed. ctrsa is a
 * module that links the same libcrypto, so OPENSSL_malloc/zalloc/realloc in the module go
 * through the same hooks; so do libcrypto's own allocations on the module's behalf. Only
 * allocations made while the operation under test runs are counted and failed.
 *
 * Leaks: each block carries a small header (its call site's file, whether that file is one
 * of ctrsa's provider sources, and the sweep step it was made in), so that the release
 * build can check that no block ctrsa allocated during a step outlives the step, that no
 * block ctrsa allocated at all outlives the library context that loaded it, and that
 * every hooked block is freed by OPENSSL_cleanup at the end (the whole-process balance;
 * before OpenSSL 4.0 only, whose OPENSSL_cleanup leaves its work to a destructor that runs
 * after main returns).
 * The header holds no pointer to other blocks, so ASan's leak checker still sees a leaked
 * block as unreachable: under ASan it names the leak with its stack.
 *
 * Not swept: loading the module. Under failing allocations OpenSSL 3.0.19 itself crashes
 * there (OSSL_LIB_CTX_new_child, which ctrsa's OSSL_provider_init calls, frees its half-made
 * context and faults in CRYPTO_free_ex_data) and leaks from OSSL_LIB_CTX_new and its
 * provider store; ctrsa makes no hooked allocation of its own while loading.
 *
 * Defect 2 (issue 10) has its own test: the n-th allocation made by the blinding cache
 * (provider/key/blinding_slots.c, provider/key/blinding.c)
 * fails during a signature, and the next signature on the same key must work.
 */
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "testutil.h"

/* ------------------------------------------------------------------------------------ */
/* The hooks                                                                            */

/* In front of every hooked block; 32 bytes keep the block 16-byte aligned. */
typedef struct block_head {
    const char *file;   /* call site, as OPENSSL_malloc passed it (may be NULL) */
    uint32_t step;      /* the sweep step that allocated it (0: before the first) */
    uint32_t is_ctrsa;  /* the call site is one of ctrsa's provider sources */
    uint64_t magic;
    uint64_t pad;
} block_head;
#define HEAD_MAGIC 0x6374727361616c6cULL  /* "ctrsaall" */

static struct {
    int armed;              /* count (and maybe fail) allocations */
    unsigned long fail_at;  /* fail the fail_at-th counted allocation; 0: none */
    const char *only_file;  /* when set, count only allocations from a file ending so */
    unsigned long count;    /* allocations counted since armed */
    unsigned long ctrsa_count;
    int injected;           /* the failure was injected */
    const char *injected_file;
    int injected_line;
    int injected_via_ctrsa; /* ctrsa.so is on the failed allocation's call stack */
    uint32_t step;          /* current sweep step (new blocks are tagged with it) */
    long live;              /* hooked blocks not yet freed */
    long live_ctrsa_step;   /* of them: ctrsa's, allocated in the current step */
    long live_ctrsa;        /* of them: ctrsa's, allocated in any step or before */
} hk;

static int file_is_ctrsa(const char *file)
{
    /* ctrsa's module sources are provider/<name>.c; OpenSSL's are providers/... */
    return file != NULL && strstr(file, "provider/") != NULL && strstr(file, "test/") == NULL;
}

static int file_ends_with(const char *file, const char *suffix)
{
    size_t a, b;

    if (file == NULL)
        return 0;
    a = strlen(file);
    b = strlen(suffix);
    return a >= b && strcmp(file + a - b, suffix) == 0;
}

/* 1 if ctrsa.so is on the current call stack (the module called what allocates). */
static int stack_has_ctrsa(void)
{
    void *frames[128];
    int n = backtrace(frames, 128);
    Dl_info info;

    for (int i = 0; i < n; i++) {
        if (dladdr(frames[i], &info) != 0 && info.dli_fname != NULL
                && file_ends_with(info.dli_fname, "/ctrsa.so"))
            return 1;
    }
    return 0;
}

/* 1 if this allocation is to fail; counts it when armed. */
static int should_fail(const char *file, int line)
{
    if (!hk.armed)
        return 0;
    if (hk.only_file != NULL && !file_ends_with(file, hk.only_file))
        return 0;
    hk.count++;
    if (file_is_ctrsa(file))
        hk.ctrsa_count++;
    if (hk.fail_at != 0 && hk.count == hk.fail_at) {
        hk.injected = 1;
        hk.injected_file = file;
        hk.injected_line = line;
        hk.injected_via_ctrsa = stack_has_ctrsa();
        return 1;
    }
    return 0;
}

static void *hook_malloc(size_t num, const char *file, int line)
{
    block_head *h;

    if (should_fail(file, line))
        return NULL;
    h = malloc(sizeof(*h) + num);
    if (h == NULL)
        return NULL;
    h->file = file;
    h->step = hk.step;
    h->is_ctrsa = file_is_ctrsa(file);
    h->magic = HEAD_MAGIC;
    hk.live++;
    hk.live_ctrsa += h->is_ctrsa;
    if (h->is_ctrsa && h->step != 0 && h->step == hk.step)
        hk.live_ctrsa_step++;
    return h + 1;
}

static void hook_free(void *p, const char *file, int line)
{
    block_head *h;

    (void)file;
    (void)line;
    if (p == NULL)
        return;
    h = (block_head *)p - 1;
    if (h->magic != HEAD_MAGIC) {
        fprintf(stderr, "alloc-fail: free of a block the hooks did not make (%s:%d)\n",
                file != NULL ? file : "?", line);
        abort();
    }
    h->magic = 0;
    hk.live--;
    hk.live_ctrsa -= h->is_ctrsa;
    if (h->is_ctrsa && h->step != 0 && h->step == hk.step)
        hk.live_ctrsa_step--;
    free(h);
}

/* CRYPTO_realloc hands every call to this hook: realloc(NULL) mallocs, realloc(p, 0) frees. */
static void *hook_realloc(void *p, size_t num, const char *file, int line)
{
    block_head *h, *moved;

    if (p == NULL)
        return hook_malloc(num, file, line);
    if (num == 0) {
        hook_free(p, file, line);
        return NULL;
    }
    if (should_fail(file, line))
        return NULL;
    h = (block_head *)p - 1;
    if (h->magic != HEAD_MAGIC) {
        fprintf(stderr, "alloc-fail: realloc of a block the hooks did not make\n");
        abort();
    }
    moved = realloc(h, sizeof(*h) + num);
    if (moved == NULL)
        return NULL;
    return moved + 1;
}

static void arm(unsigned long fail_at, const char *only_file)
{
    hk.count = hk.ctrsa_count = 0;
    hk.injected = 0;
    hk.injected_file = NULL;
    hk.injected_line = 0;
    hk.injected_via_ctrsa = 0;
    hk.fail_at = fail_at;
    hk.only_file = only_file;
    hk.armed = 1;
}

static void disarm(void)
{
    hk.armed = 0;
}

/* A new step: blocks allocated from now on are tagged with it. */
static void new_step(void)
{
    hk.step++;
    hk.live_ctrsa_step = 0;
}

/* ------------------------------------------------------------------------------------ */
/* Keys and the library context                                                          */

#include "alloc_fail_keys.h"

static tu_env env;
static EVP_PKEY *oracle1024;   /* default provider: the fixed key for import */
static EVP_PKEY *oracle2048;   /* default provider: the key of sign/verify/enc/dec */
static OSSL_PARAM *import_params;  /* oracle1024's key pair as parameters */

static const unsigned char message[] = "allocation failure sweep";

static EVP_PKEY *read_key(const char *pem)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *key = NULL;

    if (bio != NULL)
        key = PEM_read_bio_PrivateKey_ex(bio, NULL, NULL, NULL, env.libctx, TU_PROPQ_DEFAULT);
    BIO_free(bio);
    return key;
}

/* ------------------------------------------------------------------------------------ */
/* The operations                                                                        */

/*
 * One operation under test. prepare (not armed) makes what each attempt needs, e.g. a
 * fresh ctrsa key so that its blinding cache is allocated inside the attempt; run (armed)
 * is the whole call sequence an application makes, objects created and freed inside it,
 * and keeps its output in the fixture; check (not armed) says whether that output is
 * correct; drop frees the output; cleanup frees what prepare made.
 */
typedef struct fixture {
    EVP_PKEY *key;          /* prepared ctrsa key */
    EVP_PKEY *out_key;      /* import, keygen */
    unsigned char out[512];
    size_t out_len;
    unsigned char in[512];  /* a signature or ciphertext made by the oracle */
    size_t in_len;
    int verdict;            /* verify's result */
} fixture;

typedef struct op_case {
    const char *name;
    int (*prepare)(fixture *f);
    int (*run)(fixture *f);
    int (*check)(fixture *f);
} op_case;

static void drop(fixture *f)
{
    EVP_PKEY_free(f->out_key);
    f->out_key = NULL;
    f->out_len = 0;
    f->verdict = -2;
}

static void cleanup(fixture *f)
{
    drop(f);
    EVP_PKEY_free(f->key);
    f->key = NULL;
}

static int prep_nothing(fixture *f)
{
    (void)f;
    return 1;
}

/* A fresh ctrsa copy of the 2048-bit key pair: its blinding slots are not allocated. */
static int prep_key(fixture *f)
{
    f->key = tu_pkey_copy_to(env.libctx, oracle2048, 1, "ctrsa");
    return f->key != NULL;
}

static EVP_PKEY_CTX *ctrsa_ctx(EVP_PKEY *key)
{
    return EVP_PKEY_CTX_new_from_pkey(env.libctx, key, "provider=ctrsa");
}

static EVP_PKEY_CTX *oracle_ctx(EVP_PKEY *key)
{
    return EVP_PKEY_CTX_new_from_pkey(env.libctx, key, TU_PROPQ_DEFAULT);
}

/* Import: the fixed 1024-bit key pair into ctrsa with EVP_PKEY_fromdata. */
static int run_import(fixture *f)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", "provider=ctrsa");
    int ok = ctx != NULL && EVP_PKEY_fromdata_init(ctx) == 1
             && EVP_PKEY_fromdata(ctx, &f->out_key, EVP_PKEY_KEYPAIR, import_params) == 1;

    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* A ctrsa key pair: same public key as the oracle's, and it signs what the oracle checks. */
static int key_pair_works(EVP_PKEY *key, EVP_PKEY *same_as)
{
    unsigned char sig[512];
    size_t sig_len = sizeof(sig);
    EVP_PKEY *pub = NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = key != NULL && tu_pkey_in_named_provider(key, "ctrsa") && md != NULL;

    if (ok && same_as != NULL)
        ok = EVP_PKEY_eq(key, same_as) == 1;
    ok = ok && EVP_DigestSignInit_ex(md, NULL, "SHA256", env.libctx, "provider=ctrsa", key,
                                     NULL) == 1
         && EVP_DigestSign(md, sig, &sig_len, message, sizeof(message)) == 1;
    EVP_MD_CTX_free(md);
    md = NULL;
    if (ok)
        ok = (pub = tu_pkey_copy_to(env.libctx, key, 0, "default")) != NULL
             && (md = EVP_MD_CTX_new()) != NULL
             && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", env.libctx, TU_PROPQ_DEFAULT, pub,
                                        NULL) == 1
             && EVP_DigestVerify(md, sig, sig_len, message, sizeof(message)) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pub);
    return ok;
}

static int check_import(fixture *f)
{
    return key_pair_works(f->out_key, oracle1024);
}

/* Generation: a 1024-bit key pair from ctrsa. */
static int run_keygen(fixture *f)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", "provider=ctrsa");
    int ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1
             && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 1024) == 1
             && EVP_PKEY_generate(ctx, &f->out_key) == 1;

    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int check_keygen(fixture *f)
{
    EVP_PKEY *copy;
    EVP_PKEY_CTX *ctx;
    int ok;

    if (!key_pair_works(f->out_key, NULL) || EVP_PKEY_get_bits(f->out_key) != 1024)
        return 0;
    /* The default provider's full check of the pair (primes, exponents, CRT values). */
    copy = tu_pkey_copy_to(env.libctx, f->out_key, 1, "default");
    ctx = copy != NULL ? oracle_ctx(copy) : NULL;
    ok = ctx != NULL && EVP_PKEY_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(copy);
    return ok;
}

/* Sign: RSA-PSS over SHA-256 with EVP_DigestSign, the application's usual path. */
static int run_sign(fixture *f)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok;

    f->out_len = sizeof(f->out);
    ok = md != NULL
         && EVP_DigestSignInit_ex(md, &pctx, "SHA256", env.libctx, "provider=ctrsa", f->key,
                                  NULL) == 1
         && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
         && EVP_DigestSign(md, f->out, &f->out_len, message, sizeof(message)) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

static int check_sign(fixture *f)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = md != NULL
             && EVP_DigestVerifyInit_ex(md, &pctx, "SHA256", env.libctx, TU_PROPQ_DEFAULT,
                                        oracle2048, NULL) == 1
             && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
             && EVP_DigestVerify(md, f->out, f->out_len, message, sizeof(message)) == 1;

    EVP_MD_CTX_free(md);
    return ok;
}

/* Verify: a PKCS#1 v1.5 SHA-256 signature made by the oracle, checked by ctrsa. */
static int prep_verify(fixture *f)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok;

    f->in_len = sizeof(f->in);
    ok = md != NULL && prep_key(f)
         && EVP_DigestSignInit_ex(md, NULL, "SHA256", env.libctx, TU_PROPQ_DEFAULT,
                                  oracle2048, NULL) == 1
         && EVP_DigestSign(md, f->in, &f->in_len, message, sizeof(message)) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

static int run_verify(fixture *f)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();

    f->verdict = -2;
    if (md != NULL
            && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", env.libctx, "provider=ctrsa",
                                       f->key, NULL) == 1)
        f->verdict = EVP_DigestVerify(md, f->in, f->in_len, message, sizeof(message));
    EVP_MD_CTX_free(md);
    return f->verdict == 1;
}

static int check_verify(fixture *f)
{
    return f->verdict == 1;
}

/* Encrypt: RSA-OAEP (SHA-256) with ctrsa; the oracle decrypts. */
static int run_encrypt(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key);
    int ok;

    f->out_len = sizeof(f->out);
    ok = ctx != NULL && EVP_PKEY_encrypt_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
         && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1
         && EVP_PKEY_encrypt(ctx, f->out, &f->out_len, message, sizeof(message)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int oaep_decrypt(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *out_len,
                        const unsigned char *in, size_t in_len)
{
    return ctx != NULL && EVP_PKEY_decrypt_init(ctx) == 1
           && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
           && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1
           && EVP_PKEY_decrypt(ctx, out, out_len, in, in_len) == 1;
}

static int check_encrypt(fixture *f)
{
    unsigned char pt[512];
    size_t pt_len = sizeof(pt);
    EVP_PKEY_CTX *ctx = oracle_ctx(oracle2048);
    int ok = oaep_decrypt(ctx, pt, &pt_len, f->out, f->out_len) && pt_len == sizeof(message)
             && memcmp(pt, message, pt_len) == 0;

    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* Decrypt: an RSA-OAEP (SHA-256) ciphertext made by the oracle, decrypted by ctrsa. */
static int prep_decrypt(fixture *f)
{
    EVP_PKEY_CTX *ctx = oracle_ctx(oracle2048);
    int ok;

    f->in_len = sizeof(f->in);
    ok = ctx != NULL && prep_key(f) && EVP_PKEY_encrypt_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
         && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1
         && EVP_PKEY_encrypt(ctx, f->in, &f->in_len, message, sizeof(message)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int run_decrypt(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key);
    int ok;

    f->out_len = sizeof(f->out);
    ok = oaep_decrypt(ctx, f->out, &f->out_len, f->in, f->in_len);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int check_decrypt(fixture *f)
{
    return f->out_len == sizeof(message) && memcmp(f->out, message, f->out_len) == 0;
}

/*
 * Decrypt with PKCS#1 v1.5 (implicit rejection, the default: its first use of a key hashes
 * d) a ciphertext made by the oracle.
 */
static int prep_decrypt_pkcs1(fixture *f)
{
    EVP_PKEY_CTX *ctx = oracle_ctx(oracle2048);
    int ok;

    f->in_len = sizeof(f->in);
    ok = ctx != NULL && prep_key(f) && EVP_PKEY_encrypt_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
         && EVP_PKEY_encrypt(ctx, f->in, &f->in_len, message, sizeof(message)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int run_decrypt_pkcs1(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key);
    int ok;

    f->out_len = sizeof(f->out);
    ok = ctx != NULL && EVP_PKEY_decrypt_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
         && EVP_PKEY_decrypt(ctx, f->out, &f->out_len, f->in, f->in_len) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/*
 * Export: the key pair out of ctrsa, compared with the oracle's. Through EVP_PKEY_export
 * with a callback that keeps a copy, as EVP_PKEY_todata does, but one that reports its own
 * failure: OpenSSL 3.0's EVP_PKEY_todata ignores a failed OSSL_PARAM_dup in its callback
 * and returns 1 with no parameters, a libcrypto defect this test would otherwise report.
 * What is tested of ctrsa: its own allocations, and that it passes the callback's failure
 * back.
 */
static OSSL_PARAM *exported;

static int keep_copy(const OSSL_PARAM params[], void *arg)
{
    OSSL_PARAM **out = arg;

    *out = OSSL_PARAM_dup(params);
    if (*out == NULL) {
        ERR_raise(ERR_LIB_USER, ERR_R_MALLOC_FAILURE);  /* the application's own error */
        return 0;
    }
    return 1;
}

static int run_export(fixture *f)
{
    return EVP_PKEY_export(f->key, EVP_PKEY_KEYPAIR, keep_copy, &exported) == 1;
}

static int check_export(fixture *f)
{
    static const char *const names[] = { "n", "e", "d", "rsa-factor1", "rsa-factor2",
                                         "rsa-exponent1", "rsa-exponent2",
                                         "rsa-coefficient1" };
    int ok = exported != NULL;

    (void)f;
    if (!ok)
        fprintf(stderr, "export: succeeded without parameters\n");
    for (size_t i = 0; ok && i < sizeof(names) / sizeof(names[0]); i++) {
        const OSSL_PARAM *p = OSSL_PARAM_locate_const(exported, names[i]);
        BIGNUM *got = NULL, *want = NULL;

        ok = p != NULL && OSSL_PARAM_get_BN(p, &got) == 1
             && EVP_PKEY_get_bn_param(oracle2048, names[i], &want) == 1
             && BN_cmp(got, want) == 0;
        BN_free(got);
        BN_free(want);
    }
    OSSL_PARAM_free(exported);
    exported = NULL;
    return ok;
}

/* Generation of an RSA-PSS key restricted to SHA-256 (1024 bits). */
static int run_keygen_pss(fixture *f)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA-PSS", "provider=ctrsa");
    int ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1
             && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 1024) == 1
             && EVP_PKEY_CTX_set_rsa_pss_keygen_md_name(ctx, "SHA256", NULL) == 1
             && EVP_PKEY_generate(ctx, &f->out_key) == 1;

    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int check_keygen_pss(fixture *f)
{
    unsigned char sig[512];
    size_t sig_len = sizeof(sig);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY *pub = NULL;
    int ok = md != NULL && f->out_key != NULL && EVP_PKEY_is_a(f->out_key, "RSA-PSS")
             && EVP_DigestSignInit_ex(md, NULL, "SHA256", env.libctx, "provider=ctrsa",
                                      f->out_key, NULL) == 1
             && EVP_DigestSign(md, sig, &sig_len, message, sizeof(message)) == 1;

    EVP_MD_CTX_free(md);
    md = NULL;
    ok = ok && (pub = tu_pkey_copy_to(env.libctx, f->out_key, 0, "default")) != NULL
         && (md = EVP_MD_CTX_new()) != NULL
         && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", env.libctx, TU_PROPQ_DEFAULT, pub,
                                    NULL) == 1
         && EVP_DigestVerify(md, sig, sig_len, message, sizeof(message)) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pub);
    return ok;
}

/* Sign on a duplicated context: EVP_MD_CTX_copy_ex of a DigestSign context (dupctx). */
static int run_sign_dup(fixture *f)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok;

    f->out_len = sizeof(f->out);
    ok = md != NULL && copy != NULL
         && EVP_DigestSignInit_ex(md, &pctx, "SHA256", env.libctx, "provider=ctrsa", f->key,
                                  NULL) == 1
         && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
         && EVP_DigestSignUpdate(md, message, 10) == 1
         && EVP_MD_CTX_copy_ex(copy, md) == 1
         && EVP_DigestSignUpdate(copy, message + 10, sizeof(message) - 10) == 1
         && EVP_DigestSignFinal(copy, f->out, &f->out_len) == 1;
    EVP_MD_CTX_free(copy);
    EVP_MD_CTX_free(md);
    return ok;
}

/* OAEP label "x"; set0 takes the copy only when it succeeds. */
static int set_label(EVP_PKEY_CTX *ctx)
{
    char *label = OPENSSL_strdup("x");

    if (label == NULL)
        return 0;
    if (EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label, 1) != 1) {
        OPENSSL_free(label);
        return 0;
    }
    return 1;
}

/* Decrypt on a duplicated context: EVP_PKEY_CTX_dup of an OAEP decryption (dupctx). */
static int run_decrypt_dup(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key), *copy = NULL;
    int ok = ctx != NULL && EVP_PKEY_decrypt_init(ctx) == 1
             && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
             && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1
             && set_label(ctx)
             && (copy = EVP_PKEY_CTX_dup(ctx)) != NULL;

    f->out_len = sizeof(f->out);
    ok = ok && EVP_PKEY_decrypt(copy, f->out, &f->out_len, f->in, f->in_len) == 1;
    EVP_PKEY_CTX_free(copy);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* The ciphertext of run_decrypt_dup: OAEP with SHA-256 and the label "x". */
static int prep_decrypt_label(fixture *f)
{
    EVP_PKEY_CTX *ctx = oracle_ctx(oracle2048);
    int ok;

    f->in_len = sizeof(f->in);
    ok = ctx != NULL && prep_key(f) && EVP_PKEY_encrypt_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
         && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1
         && set_label(ctx)
         && EVP_PKEY_encrypt(ctx, f->in, &f->in_len, message, sizeof(message)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* Key duplication (EVP_PKEY_dup: keymgmt dup); the copy must sign. */
static int run_key_dup(fixture *f)
{
    f->out_key = EVP_PKEY_dup(f->key);
    return f->out_key != NULL;
}

static int check_key_dup(fixture *f)
{
    return key_pair_works(f->out_key, oracle2048);
}

/* The key check (EVP_PKEY_check: ctrsa's validate, a pairwise test on the private path). */
static int run_check(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key);

    f->verdict = ctx != NULL ? EVP_PKEY_check(ctx) : -2;
    EVP_PKEY_CTX_free(ctx);
    return f->verdict == 1;
}

/* Verify a PSS signature over a precomputed SHA-256 hash with EVP_PKEY_verify. */
static unsigned char msg_hash[32];

static int prep_verify_pss(fixture *f)
{
    EVP_PKEY_CTX *ctx = oracle_ctx(oracle2048);
    unsigned int hlen = 0;
    int ok;

    f->in_len = sizeof(f->in);
    ok = ctx != NULL && prep_key(f)
         && EVP_Digest(message, sizeof(message), msg_hash, &hlen, EVP_sha256(), NULL) == 1
         && EVP_PKEY_sign_init(ctx) == 1
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
         && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1
         && EVP_PKEY_sign(ctx, f->in, &f->in_len, msg_hash, sizeof(msg_hash)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int run_verify_pss(fixture *f)
{
    EVP_PKEY_CTX *ctx = ctrsa_ctx(f->key);

    f->verdict = -2;
    if (ctx != NULL && EVP_PKEY_verify_init(ctx) == 1
            && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
            && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1)
        f->verdict = EVP_PKEY_verify(ctx, f->in, f->in_len, msg_hash, sizeof(msg_hash));
    EVP_PKEY_CTX_free(ctx);
    return f->verdict == 1;
}

static const op_case op_import = { "import", prep_nothing, run_import, check_import };
static const op_case op_keygen = { "keygen", prep_nothing, run_keygen, check_keygen };
static const op_case op_sign = { "sign", prep_key, run_sign, check_sign };
static const op_case op_verify = { "verify", prep_verify, run_verify, check_verify };
static const op_case op_encrypt = { "encrypt", prep_key, run_encrypt, check_encrypt };
static const op_case op_decrypt = { "decrypt", prep_decrypt, run_decrypt, check_decrypt };
static const op_case op_decrypt_pkcs1 = { "decrypt-pkcs1", prep_decrypt_pkcs1,
                                          run_decrypt_pkcs1, check_decrypt };
static const op_case op_export = { "export", prep_key, run_export, check_export };
static const op_case op_sign_dup = { "sign-dup", prep_key, run_sign_dup, check_sign };
static const op_case op_decrypt_dup = { "decrypt-dup", prep_decrypt_label, run_decrypt_dup,
                                        check_decrypt };
static const op_case op_key_dup = { "key-dup", prep_key, run_key_dup, check_key_dup };
static const op_case op_check = { "check", prep_key, run_check, check_verify };
static const op_case op_verify_pss = { "verify-pss", prep_verify_pss, run_verify_pss,
                                       check_verify };
static const op_case op_keygen_pss = { "keygen-pss", prep_nothing, run_keygen_pss,
                                       check_keygen_pss };

/* ------------------------------------------------------------------------------------ */
/* The sweep                                                                             */

/*
 * Run op with the n-th allocation (of those from only_file, if set) failing, for every n
 * from 1 until an attempt makes fewer than n allocations. Returns the number of failures
 * injected; every problem is printed and fails the test.
 */
static unsigned long sweep(const op_case *op, const char *only_file)
{
    fixture f;
    unsigned long n, counted, counted_ctrsa, injected = 0, failed_cleanly = 0;
    unsigned long silent_libcrypto = 0;
    int verbose = getenv("ALLOC_FAIL_VERBOSE") != NULL;
    int problems = 0;

    memset(&f, 0, sizeof(f));
    /* Warm up (first fetches fill libcrypto's caches), then count. */
    for (int pass = 0; pass < 2; pass++) {
        assert_true(op->prepare(&f));
        ERR_clear_error();
        arm(0, only_file);
        int ok = op->run(&f);
        disarm();
        if (!ok)
            tu_print_errors(op->name);
        assert_true(ok);
        assert_true(op->check(&f));
        cleanup(&f);
    }
    counted = hk.count;
    counted_ctrsa = hk.ctrsa_count;
    assert_true(counted > 0);

    for (n = 1;; n++) {
        int ok, again;

        new_step();
        assert_true(op->prepare(&f));
        ERR_clear_error();
        arm(n, only_file);
        ok = op->run(&f);
        disarm();
        if (!hk.injected && n > counted) {
            if (ok && op->check(&f))
                drop(&f);
            cleanup(&f);
            break;
        }
        if (hk.injected)
            injected++;
        if (verbose)
            fprintf(stderr, "%s: attempt %lu: %lu allocations, %s, failed %s:%d%s\n",
                    op->name, n, hk.count, ok ? "succeeded" : "failed",
                    hk.injected_file ? hk.injected_file : "-", hk.injected_line,
                    hk.injected_via_ctrsa ? " (via ctrsa)" : "");
        if (ok) {
            if (!op->check(&f)) {
                fprintf(stderr, "%s: allocation %lu (%s:%d) failed, the call succeeded "
                        "with a wrong result\n", op->name, n,
                        hk.injected_file ? hk.injected_file : "?", hk.injected_line);
                problems++;
            }
        } else if (!hk.injected) {
            fprintf(stderr, "%s: attempt %lu failed with no allocation failing\n", op->name, n);
            tu_print_errors(op->name);
            problems++;
        } else if (ERR_peek_error() == 0 && hk.injected_via_ctrsa) {
            fprintf(stderr, "%s: allocation %lu (%s:%d), made on ctrsa's behalf, failed and "
                    "the call failed with an empty error queue\n", op->name, n,
                    hk.injected_file ? hk.injected_file : "?", hk.injected_line);
            problems++;
        } else if (ERR_peek_error() == 0) {
            /*
             * OpenSSL 3.0 itself returns failure without an error for some allocations
             * (EVP_MD_CTX_new, EVP_PKEY_CTX_new_from_*, its name map) before the call
             * reaches ctrsa: out of our hands. Such a failure is accepted only when ctrsa
             * was not on the failed allocation's call stack, and counted.
             */
            fprintf(stderr, "%s: allocation %lu (%s:%d) failed inside libcrypto, not on "
                    "ctrsa's behalf, with an empty error queue (accepted: OpenSSL's)\n",
                    op->name, n, hk.injected_file ? hk.injected_file : "?",
                    hk.injected_line);
            silent_libcrypto++;
        } else {
            failed_cleanly++;
        }
        ERR_clear_error();
        drop(&f);
        /* The next call, allocation working, on the same key. */
        again = op->run(&f);
        if (!again || !op->check(&f)) {
            fprintf(stderr, "%s: after allocation %lu (%s:%d) failed, the next call %s\n",
                    op->name, n, hk.injected_file ? hk.injected_file : "?",
                    hk.injected_line, again ? "gave a wrong result" : "failed");
            tu_print_errors(op->name);
            problems++;
        }
        ERR_clear_error();
        cleanup(&f);
        if (hk.live_ctrsa_step != 0) {
            fprintf(stderr, "%s: allocation %lu (%s:%d) failed: %ld block(s) ctrsa "
                    "allocated in that step leaked\n", op->name, n,
                    hk.injected_file ? hk.injected_file : "?", hk.injected_line,
                    hk.live_ctrsa_step);
            problems++;
        }
    }
    fprintf(stderr, "%s: %lu allocations per call (%lu by ctrsa%s%s), %lu failures "
            "injected, %lu failed with an error, %lu failed silently inside libcrypto, the rest "
            "succeeded; %d problem(s)\n", op->name, counted, counted_ctrsa,
            only_file ? ", counting only " : "", only_file ? only_file : "", injected,
            failed_cleanly, silent_libcrypto, problems);
    assert_int_equal(problems, 0);
    return injected;
}

static void test_import(void **state)
{
    (void)state;
    sweep(&op_import, NULL);
}

static void test_keygen(void **state)
{
    (void)state;
    sweep(&op_keygen, NULL);
}

static void test_sign(void **state)
{
    (void)state;
    sweep(&op_sign, NULL);
}

static void test_verify(void **state)
{
    (void)state;
    sweep(&op_verify, NULL);
}

static void test_encrypt(void **state)
{
    (void)state;
    sweep(&op_encrypt, NULL);
}

static void test_decrypt(void **state)
{
    (void)state;
    sweep(&op_decrypt, NULL);
}

static void test_decrypt_pkcs1(void **state)
{
    (void)state;
    sweep(&op_decrypt_pkcs1, NULL);
}

static void test_export(void **state)
{
    (void)state;
    sweep(&op_export, NULL);
}

static void test_keygen_pss(void **state)
{
    (void)state;
    sweep(&op_keygen_pss, NULL);
}

static void test_sign_dup(void **state)
{
    (void)state;
    sweep(&op_sign_dup, NULL);
}

static void test_decrypt_dup(void **state)
{
    (void)state;
    sweep(&op_decrypt_dup, NULL);
}

static void test_key_dup(void **state)
{
    (void)state;
    sweep(&op_key_dup, NULL);
}

static void test_check(void **state)
{
    (void)state;
    sweep(&op_check, NULL);
}

static void test_verify_pss(void **state)
{
    (void)state;
    sweep(&op_verify_pss, NULL);
}

/*
 * Defect 2: the blinding cache's own allocations fail one at a time during a signature on
 * a fresh key; the next signature on that key must work (it wrote through a NULL scratch
 * pointer when the slot was left half-allocated).
 */
static void test_blinding_slot_alloc(void **state)
{
    (void)state;
    /* A fresh key's first signature allocates its slots (the key object's storage,
     * blinding_slots.c), then the pair (A and Ai in one block, blinding.c): each failing in
     * turn must fail the call cleanly, never leave a slot half-set. */
    assert_true(sweep(&op_sign, "provider/key/blinding_slots.c") >= 1);
    assert_true(sweep(&op_sign, "provider/key/blinding.c") >= 1);
}

/* One signature attempt in a thread of its own (a new thread has no scratch area yet):
 * with the n-th allocation of provider/key/scratch.c failing, then again with none failing. */
typedef struct scratch_attempt {
    unsigned long n;
    int injected, failed_with_error, failed_silently, retry_ok;
} scratch_attempt;

static void *scratch_attempt_thread(void *arg)
{
    scratch_attempt *a = arg;
    fixture f;
    memset(&f, 0, sizeof(f));
    if (!prep_key(&f))
        return NULL;
    ERR_clear_error();
    arm(a->n, "provider/key/scratch.c");
    int ok = run_sign(&f);
    disarm();
    a->injected = hk.injected;
    if (!ok) {
        /* The error queue is per thread: read it here. */
        a->failed_with_error = ERR_peek_error() != 0;
        a->failed_silently = !a->failed_with_error;
    }
    ERR_clear_error();
    a->retry_ok = run_sign(&f) && check_sign(&f);
    cleanup(&f);
    OPENSSL_thread_stop();
    return NULL;
}

static void test_thread_scratch_alloc(void **state)
{
    (void)state;
    /* The area's bookkeeping and the area itself: both failing in turn, in a new thread. */
    for (unsigned long n = 1; n <= 2; n++) {
        scratch_attempt a = { .n = n };
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, scratch_attempt_thread, &a), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        printf("thread scratch: allocation %lu %s, the call %s, the retry %s\n", n,
               a.injected ? "failed" : "was not made",
               a.failed_with_error ? "failed with an error"
               : a.failed_silently ? "failed silently" : "succeeded",
               a.retry_ok ? "worked" : "failed");
        assert_true(a.injected);
        assert_true(a.failed_with_error);
        assert_true(a.retry_ok);
    }
}

/* ------------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    oracle1024 = read_key(KEY1024_PEM);
    oracle2048 = read_key(KEY2048_PEM);
    if (oracle1024 == NULL || oracle2048 == NULL
            || EVP_PKEY_todata(oracle1024, EVP_PKEY_KEYPAIR, &import_params) != 1) {
        tu_print_errors("setup");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    OSSL_PARAM_free(import_params);
    EVP_PKEY_free(oracle1024);
    EVP_PKEY_free(oracle2048);
    tu_env_free(&env);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blinding_slot_alloc),
        cmocka_unit_test(test_thread_scratch_alloc),
        cmocka_unit_test(test_import),
        cmocka_unit_test(test_keygen),
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_encrypt),
        cmocka_unit_test(test_decrypt),
        cmocka_unit_test(test_decrypt_pkcs1),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_keygen_pss),
        cmocka_unit_test(test_sign_dup),
        cmocka_unit_test(test_decrypt_dup),
        cmocka_unit_test(test_key_dup),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_verify_pss),
    };
    int failed;
    void *frame[1];

    backtrace(frame, 1); /* loads what backtrace needs now, not inside a hook */
    if (!CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free)) {
        fprintf(stderr, "CRYPTO_set_mem_functions refused: something allocated first\n");
        return 1;
    }
    failed = cmocka_run_group_tests(tests, setup, teardown);
    /* The group's teardown freed the library context that had loaded ctrsa: no block from
       one of ctrsa's call sites may outlive it (whatever OpenSSL version). */
    if (hk.live_ctrsa != 0) {
        fprintf(stderr, "alloc-fail: %ld block(s) allocated by ctrsa still live after its "
                "library context was freed\n", hk.live_ctrsa);
        return failed != 0 ? failed : 1;
    }
    /* Whole-process balance: with every object freed, OPENSSL_cleanup frees the rest.
       From OpenSSL 4.0 it only marks libcrypto's global state for a destructor that runs
       after main returns (4.0's CHANGES.md: "OPENSSL_cleanup() now runs in a global
       destructor"): a program that uses no ctrsa at all then sees about 2200 of
       libcrypto's blocks still live here, none of them ctrsa's. There the check above is
       the one that can be made. */
    OPENSSL_cleanup();
    if (OpenSSL_version_num() >= 0x40000000UL) {
        fprintf(stderr, "alloc-fail: %s frees its global state after main returns: %ld "
                "hooked block(s) still live after OPENSSL_cleanup, none from ctrsa's call "
                "sites (checked above)\n", OpenSSL_version(OPENSSL_VERSION), hk.live);
        return failed;
    }
    if (hk.live != 0) {
        fprintf(stderr, "alloc-fail: %ld hooked block(s) still live after OPENSSL_cleanup\n",
                hk.live);
        return failed != 0 ? failed : 1;
    }
    return failed;
}
