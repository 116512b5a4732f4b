/*
 * Every RSA operation of the provider under test (testutil.h) on stacks smaller than a
 * thread's, as programs run them: inside OpenSSL's ASYNC jobs (SSL_MODE_ASYNC, `openssl
 * speed -async_jobs`: a stack of 32 KiB that OpenSSL allocates on the heap), on a coroutine
 * stack of 40 KiB whose 24 KiB below are filled with a pattern that must survive, and in a
 * thread made with a 40 KiB stack; and while a key generation in an ASYNC job is paused in
 * its progress callback, everything again on a 24 KiB coroutine, with no more of its stack
 * used than when nothing is paused. The provider may not write past the end of the stack
 * it is called on, nor need more of it than OpenSSL's own code does. Each context runs: key
 * generation, key import with a private exponent, export, PKCS#1 v1.5 and PSS signatures,
 * verification, OAEP encryption and decryption, and RSASVE (encapsulate, decapsulate); the
 * default provider checks every result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "testutil.h"

static tu_env env;
static EVP_PKEY *oracle_key; /* default provider */

/* An operation context for key, fetched as the tests' property query says. */
static EVP_PKEY_CTX *ctx_for(EVP_PKEY *key)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
    return ctx;
}

/* A copy of the oracle's key pair imported into the provider under test (with d and CRT). */
static EVP_PKEY *imported_key(void)
{
    return tu_pkey_copy_to(env.libctx, oracle_key, 1, tu_provider_name());
}

static int oracle_verify(int pad, const unsigned char *md, const unsigned char *sig,
                         size_t siglen)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, oracle_key, TU_PROPQ_DEFAULT);
    int ok = ctx != NULL && EVP_PKEY_verify_init(ctx) == 1
             && EVP_PKEY_CTX_set_rsa_padding(ctx, pad) == 1
             && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1
             && EVP_PKEY_verify(ctx, sig, siglen, md, 32) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int sign_and_verify(EVP_PKEY *key, int pad)
{
    unsigned char md[32], sig[512];
    size_t siglen = sizeof(sig);
    memset(md, 0x5a, sizeof(md));
    EVP_PKEY_CTX *ctx = ctx_for(key);
    int ok = ctx != NULL && EVP_PKEY_sign_init(ctx) == 1 && tu_ctx_in_provider(ctx)
             && EVP_PKEY_CTX_set_rsa_padding(ctx, pad) == 1
             && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1
             && EVP_PKEY_sign(ctx, sig, &siglen, md, sizeof(md)) == 1
             && oracle_verify(pad, md, sig, siglen);
    EVP_PKEY_CTX_free(ctx);
    ctx = ok ? ctx_for(key) : NULL;
    ok = ok && ctx != NULL && EVP_PKEY_verify_init(ctx) == 1 && tu_ctx_in_provider(ctx)
         && EVP_PKEY_CTX_set_rsa_padding(ctx, pad) == 1
         && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1
         && EVP_PKEY_verify(ctx, sig, siglen, md, sizeof(md)) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int encrypt_and_decrypt(EVP_PKEY *key)
{
    static const unsigned char msg[] = "a secret on a small stack";
    unsigned char ct[512], pt[512];
    size_t ctlen = sizeof(ct), ptlen = sizeof(pt);
    EVP_PKEY_CTX *ctx = ctx_for(key);
    int ok = ctx != NULL && EVP_PKEY_encrypt_init(ctx) == 1 && tu_ctx_in_provider(ctx)
             && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
             && EVP_PKEY_encrypt(ctx, ct, &ctlen, msg, sizeof(msg)) == 1;
    EVP_PKEY_CTX_free(ctx);
    ctx = ok ? ctx_for(key) : NULL;
    ok = ok && ctx != NULL && EVP_PKEY_decrypt_init(ctx) == 1 && tu_ctx_in_provider(ctx)
         && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
         && EVP_PKEY_decrypt(ctx, pt, &ptlen, ct, ctlen) == 1
         && ptlen == sizeof(msg) && memcmp(pt, msg, ptlen) == 0;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int rsasve(EVP_PKEY *key)
{
    unsigned char wrapped[512], secret[512], again[512];
    size_t wlen = sizeof(wrapped), slen = sizeof(secret), alen = sizeof(again);
    EVP_PKEY_CTX *ctx = ctx_for(key);
    int ok = ctx != NULL && EVP_PKEY_encapsulate_init(ctx, NULL) == 1
             && tu_ctx_in_provider(ctx)
             && EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE") == 1
             && EVP_PKEY_encapsulate(ctx, wrapped, &wlen, secret, &slen) == 1;
    EVP_PKEY_CTX_free(ctx);
    ctx = ok ? ctx_for(key) : NULL;
    ok = ok && ctx != NULL && EVP_PKEY_decapsulate_init(ctx, NULL) == 1
         && EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE") == 1
         && EVP_PKEY_decapsulate(ctx, again, &alen, wrapped, wlen) == 1
         && alen == slen && memcmp(again, secret, slen) == 0;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* Key generation in the provider under test; the default provider checks the key pair. */
static int generate(void)
{
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    int ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1 && tu_ctx_in_provider(ctx)
             && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 1024) == 1
             && EVP_PKEY_generate(ctx, &key) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY *copy = ok ? tu_pkey_copy_to(env.libctx, key, 1, "default") : NULL;
    ctx = copy != NULL ? EVP_PKEY_CTX_new_from_pkey(env.libctx, copy, TU_PROPQ_DEFAULT) : NULL;
    ok = ok && ctx != NULL && EVP_PKEY_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(copy);
    EVP_PKEY_free(key);
    return ok;
}

/* Every operation once; 1 if all passed (what failed is printed). */
static int every_operation(const char *where)
{
    EVP_PKEY *key = imported_key(); /* import with d: the CRT values go into Montgomery form */
    EVP_PKEY *exported = key != NULL ? tu_pkey_copy_to(env.libctx, key, 1, "default") : NULL;
    int ok = 1;
    if (key == NULL || exported == NULL || EVP_PKEY_eq(exported, oracle_key) != 1) {
        fprintf(stderr, "%s: import or export failed\n", where);
        ok = 0;
    }
    struct { const char *name; int ok; } step[] = {
        { "PKCS#1 v1.5 sign and verify", ok && sign_and_verify(key, RSA_PKCS1_PADDING) },
        { "PSS sign and verify", ok && sign_and_verify(key, RSA_PKCS1_PSS_PADDING) },
        { "OAEP encrypt and decrypt", ok && encrypt_and_decrypt(key) },
        { "RSASVE", ok && rsasve(key) },
        { "key generation", ok && generate() },
    };
    for (size_t i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
        if (!step[i].ok) {
            fprintf(stderr, "%s: %s failed\n", where, step[i].name);
            tu_print_errors(where);
            ok = 0;
        }
    }
    EVP_PKEY_free(exported);
    EVP_PKEY_free(key);
    return ok;
}

/* ---- inside an ASYNC job ---- */

static int async_result;

static int async_body(void *arg)
{
    (void)arg;
    async_result = every_operation("ASYNC job");
    return 1;
}

static void test_async_job(void **state)
{
    (void)state;
    if (!ASYNC_is_capable()) {
        skip();
        return;
    }
    for (int round = 0; round < 3; round++) {
        ASYNC_JOB *job = NULL;
        ASYNC_WAIT_CTX *wctx = ASYNC_WAIT_CTX_new();
        int ret = 0;
        async_result = 0;
        assert_non_null(wctx);
        assert_int_equal(ASYNC_start_job(&job, wctx, &ret, async_body, NULL, 0), ASYNC_FINISH);
        assert_int_equal(ret, 1);
        assert_int_equal(async_result, 1);
        ASYNC_WAIT_CTX_free(wctx);
    }
    ASYNC_cleanup_thread();
}

/* ---- on a coroutine stack with a watched region below it ---- */

#define CO_STACK (40 * 1024)
#define CO_WATCH (24 * 1024)
#define CO_PATTERN 0xa5

static ucontext_t co_caller, co_callee;
static int co_result;

static void co_body(void)
{
    co_result = every_operation("coroutine");
}

/* Every operation on a coroutine stack of stack_bytes with CO_WATCH bytes below it, all
 * filled with a pattern: asserts that the operations passed and that nothing below the
 * stack was written; returns how much of the stack was used. */
static size_t on_coroutine(size_t stack_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = page + CO_WATCH + stack_bytes;
    uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map, page, PROT_NONE), 0); /* past the watch: a fault */
    uint8_t *watch = map + page, *stack = watch + CO_WATCH;
    memset(watch, CO_PATTERN, CO_WATCH + stack_bytes);

    assert_int_equal(getcontext(&co_callee), 0);
    co_callee.uc_stack.ss_sp = stack;
    co_callee.uc_stack.ss_size = stack_bytes;
    co_callee.uc_link = &co_caller;
    makecontext(&co_callee, co_body, 0);
    co_result = 0;
    assert_int_equal(swapcontext(&co_caller, &co_callee), 0);
    assert_int_equal(co_result, 1);

    size_t touched = 0;
    for (size_t i = 0; i < CO_WATCH; i++)
        touched += watch[i] != CO_PATTERN;
    if (touched != 0)
        fprintf(stderr, "%zu bytes below the coroutine's stack were overwritten\n", touched);
    assert_int_equal(touched, 0);
    size_t lowest = 0;
    while (lowest < stack_bytes && stack[lowest] == CO_PATTERN)
        lowest++;
    munmap(map, len);
    return stack_bytes - lowest;
}

static void test_coroutine(void **state)
{
    (void)state;
    on_coroutine(CO_STACK);
}

/* ---- a key generation paused in its progress callback ---- */

/* The progress callback runs on the stack the job called ctrsa on (not on ctrsa's own), so
 * the job can pause there; while it is paused, the thread's other work (here, every
 * operation on a coroutine) gets a stack of its own from ctrsa: it never runs on top of the
 * paused generation, nor falls back onto the caller's stack. */
#define PAUSE_STACK (24 * 1024)

static uintptr_t job_frame, callback_frame;
static int paused_once, pause_result;

static int pause_in_progress(EVP_PKEY_CTX *ctx)
{
    (void)ctx;
    volatile char here;
    callback_frame = (uintptr_t)&here;
    if (!paused_once) {
        paused_once = 1;
        ASYNC_pause_job();
    }
    return 1;
}

static int paused_keygen_body(void *arg)
{
    (void)arg;
    volatile char here;
    job_frame = (uintptr_t)&here;
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", tu_propq());
    pause_result = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1 && tu_ctx_in_provider(ctx)
                   && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 1024) == 1;
    if (pause_result) {
        EVP_PKEY_CTX_set_cb(ctx, pause_in_progress);
        pause_result = EVP_PKEY_generate(ctx, &key) == 1;
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return 1;
}

static void test_paused_keygen(void **state)
{
    (void)state;
    if (!ASYNC_is_capable()) {
        skip();
        return;
    }
    ASYNC_JOB *job = NULL;
    ASYNC_WAIT_CTX *wctx = ASYNC_WAIT_CTX_new();
    int ret = 0;
    assert_non_null(wctx);
    size_t baseline_use = on_coroutine(PAUSE_STACK);
    paused_once = 0;
    assert_int_equal(ASYNC_start_job(&job, wctx, &ret, paused_keygen_body, NULL, 0),
                     ASYNC_PAUSE);
    /* the callback ran on the job's stack, a few KiB below the job's own frame */
    uintptr_t gap = job_frame > callback_frame ? job_frame - callback_frame : ~(uintptr_t)0;
    if (gap >= 32 * 1024)
        fprintf(stderr, "the progress callback ran %#zx bytes from the job's frame\n",
                (size_t)gap);
    assert_true(gap < 32 * 1024);

    /* while it is paused: every operation on a coroutine, with no more of its stack than
     * when nothing is paused (the engine's frames are on a stack of ctrsa's) */
    size_t paused_use = on_coroutine(PAUSE_STACK);
    if (paused_use > baseline_use + 2048)
        fprintf(stderr, "with a generation paused, the operations used %zu bytes of the "
                "caller's stack, against %zu otherwise\n", paused_use, baseline_use);
    assert_true(paused_use <= baseline_use + 2048);

    /* then the generation goes on where it paused, and finishes */
    assert_int_equal(ASYNC_start_job(&job, wctx, &ret, paused_keygen_body, NULL, 0),
                     ASYNC_FINISH);
    assert_int_equal(pause_result, 1);
    ASYNC_WAIT_CTX_free(wctx);
    ASYNC_cleanup_thread();
}

/* ---- in a thread with a small stack ---- */

#define THREAD_STACK (40 * 1024)

static void *thread_body(void *arg)
{
    *(int *)arg = every_operation("small-stack thread");
    return NULL;
}

static void test_small_thread(void **state)
{
    (void)state;
    pthread_attr_t attr;
    pthread_t t;
    int result = 0;
    size_t size = THREAD_STACK;
    long min = sysconf(_SC_THREAD_STACK_MIN);
    if (min > 0 && (size_t)min > size)
        size = (size_t)min;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, size), 0);
    assert_int_equal(pthread_create(&t, &attr, thread_body, &result), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
    assert_int_equal(result, 1);
}

static int setup(void **state)
{
    (void)state;
    if (!tu_env_init(&env))
        return -1;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    int ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1
             && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 3072) == 1
             && EVP_PKEY_generate(ctx, &oracle_key) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(oracle_key);
    tu_env_free(&env);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_async_job),
        cmocka_unit_test(test_coroutine),
        cmocka_unit_test(test_paused_keygen),
        cmocka_unit_test(test_small_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
