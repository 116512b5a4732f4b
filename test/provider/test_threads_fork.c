/*
 * Concurrency and fork safety of the provider under test (testutil.h), seen from outside:
 * 8 threads sign with one shared key (PKCS#1 v1.5 and PSS) and the default provider
 * verifies every signature; after fork() both the parent and the child keep producing valid
 * signatures. The blinding cache must not be shared across a fork; that cannot be observed
 * directly here, so the test checks what can be: correct, verifiable output on both sides,
 * and PKCS#1 v1.5 signatures identical in parent and child (they are deterministic).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "testutil.h"

#define NTHREADS 8
#define PER_THREAD 6
#define SIGLEN 256   /* 2048-bit key */

static tu_env env;
static EVP_PKEY *oracle_key;   /* default provider */
static EVP_PKEY *test_key;     /* the same key pair in the provider under test */

/* Sign msg in the provider under test; 1 on success with *siglen set. */
static int sign(int pad, const unsigned char *msg, size_t len, unsigned char *sig,
                size_t *siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = mctx != NULL
        && EVP_DigestSignInit_ex(mctx, &pctx, "SHA256", env.libctx, tu_propq(), test_key,
                                 NULL) == 1
        && tu_ctx_in_provider(EVP_MD_CTX_get_pkey_ctx(mctx))
        && EVP_PKEY_CTX_set_rsa_padding(pctx, pad) == 1
        && (pad != RSA_PKCS1_PSS_PADDING
            || EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1)
        && EVP_DigestSign(mctx, sig, siglen, msg, len) == 1;

    if (!ok)
        tu_print_errors("sign");
    EVP_MD_CTX_free(mctx);
    return ok;
}

/* 1 if the default provider accepts sig over msg. */
static int oracle_verify(int pad, const unsigned char *msg, size_t len,
                         const unsigned char *sig, size_t siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = mctx != NULL
        && EVP_DigestVerifyInit_ex(mctx, &pctx, "SHA256", env.libctx, TU_PROPQ_DEFAULT,
                                   oracle_key, NULL) == 1
        && tu_ctx_in_named_provider(EVP_MD_CTX_get_pkey_ctx(mctx), "default")
        && EVP_PKEY_CTX_set_rsa_padding(pctx, pad) == 1
        && (pad != RSA_PKCS1_PSS_PADDING
            || EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1)
        && EVP_DigestVerify(mctx, sig, siglen, msg, len) == 1;

    ERR_clear_error();
    EVP_MD_CTX_free(mctx);
    return ok;
}

/* Sign with pad and have the oracle verify; 1 if both worked. */
static int sign_and_check(int pad, const unsigned char *msg, size_t len, unsigned char *sig)
{
    size_t siglen = SIGLEN;

    return sign(pad, msg, len, sig, &siglen) && siglen == SIGLEN
        && oracle_verify(pad, msg, len, sig, siglen);
}

static int setup(void **state)
{
    EVP_PKEY_CTX *ctx;

    (void)state;
    if (!tu_env_init(&env))
        return -1;
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1
            || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, SIGLEN * 8) != 1
            || EVP_PKEY_generate(ctx, &oracle_key) != 1)
        return -1;
    EVP_PKEY_CTX_free(ctx);
    test_key = tu_pkey_copy_to(env.libctx, oracle_key, 1, tu_provider_name());
    return test_key != NULL && tu_pkey_in_named_provider(test_key, tu_provider_name()) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(oracle_key);
    EVP_PKEY_free(test_key);
    tu_env_free(&env);
    return 0;
}

/* ---- threads ---- */

typedef struct worker {
    pthread_t thread;
    int id;
    int good;   /* signatures made and verified */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    unsigned char msg[64], sig[SIGLEN];

    for (int i = 0; i < PER_THREAD; i++) {
        int pad = (i + w->id) % 2 ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;

        snprintf((char *)msg, sizeof(msg), "thread %d message %d", w->id, i);
        if (sign_and_check(pad, msg, strlen((char *)msg), sig))
            w->good++;
        else
            fprintf(stderr, "thread %d: signature %d (%s) failed\n", w->id, i,
                    pad == RSA_PKCS1_PADDING ? "pkcs1" : "pss");
    }
    return NULL;
}

static void test_threads_share_key(void **state)
{
    worker w[NTHREADS];
    (void)state;

    for (int i = 0; i < NTHREADS; i++) {
        w[i].id = i;
        w[i].good = 0;
        assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(w[i].thread, NULL), 0);
        assert_int_equal(w[i].good, PER_THREAD);
    }
}

/* ---- fork ---- */

static const unsigned char fork_msg[] = "signed on both sides of a fork";

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

static int read_all(int fd, unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, p, len);

        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/*
 * The child signs three times with each padding (the first uses whatever state the parent
 * left in the key), checks each with the oracle, and sends its last PKCS#1 and PSS
 * signatures to the parent. Exit status 0 only if everything worked.
 */
static void child(int fd)
{
    unsigned char pk[SIGLEN], ps[SIGLEN];
    int ok = 1;

    for (int i = 0; i < 3; i++) {
        ok &= sign_and_check(RSA_PKCS1_PADDING, fork_msg, sizeof(fork_msg) - 1, pk);
        ok &= sign_and_check(RSA_PKCS1_PSS_PADDING, fork_msg, sizeof(fork_msg) - 1, ps);
    }
    ok &= write_all(fd, pk, SIGLEN) & write_all(fd, ps, SIGLEN);
    close(fd);
    _exit(ok ? 0 : 1);
}

static void test_fork(void **state)
{
    unsigned char before[SIGLEN], after[SIGLEN], pss[SIGLEN], cpk[SIGLEN], cps[SIGLEN];
    int fds[2], status = -1;
    pid_t pid;
    (void)state;

    /* Use the key in the parent first, so that any per-key state exists before fork. */
    assert_true(sign_and_check(RSA_PKCS1_PADDING, fork_msg, sizeof(fork_msg) - 1, before));
    assert_true(sign_and_check(RSA_PKCS1_PSS_PADDING, fork_msg, sizeof(fork_msg) - 1, pss));
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(fds[1]);
    }
    close(fds[1]);
    /* The parent keeps signing while the child does. */
    for (int i = 0; i < 3; i++) {
        assert_true(sign_and_check(RSA_PKCS1_PADDING, fork_msg, sizeof(fork_msg) - 1, after));
        assert_memory_equal(after, before, SIGLEN);
        assert_true(sign_and_check(RSA_PKCS1_PSS_PADDING, fork_msg, sizeof(fork_msg) - 1,
                                   pss));
    }
    assert_true(read_all(fds[0], cpk, SIGLEN));
    assert_true(read_all(fds[0], cps, SIGLEN));
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* What the child made is valid here too; PKCS#1 v1.5 is the same on both sides. */
    assert_true(oracle_verify(RSA_PKCS1_PADDING, fork_msg, sizeof(fork_msg) - 1, cpk, SIGLEN));
    assert_memory_equal(cpk, before, SIGLEN);
    assert_true(oracle_verify(RSA_PKCS1_PSS_PADDING, fork_msg, sizeof(fork_msg) - 1, cps,
                              SIGLEN));
    assert_memory_not_equal(cps, pss, SIGLEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_share_key),
        cmocka_unit_test(test_fork),
        /* After the fork, threads still work in the parent. */
        cmocka_unit_test(test_threads_share_key),
    };

    printf("provider under test: %s\n", tu_provider_name());
    return cmocka_run_group_tests(tests, setup, teardown);
}
