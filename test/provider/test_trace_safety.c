/*
 * The trace inside a program that does what daemons do (issue 20), each case in a child
 * process of its own, since the trace target is decided once per process:
 * - per-process files ("%p") and fork() from a program whose threads keep signing: each of
 *   100 children traces into its own file and never hangs (20 s alarm), and holds no
 *   descriptor of the parent's trace file before its first trace (the parent's may belong
 *   to a more privileged user);
 * - a plain trace file, then every descriptor above 2 closed and the numbers reused by the
 *   program (as a daemon does after loading its configuration): no trace line reaches the
 *   program's file;
 *   The workers have each signed once before the first fork. A thread's first signature
 *   instantiates its OpenSSL DRBG, which seeds from the primary DRBG under that DRBG's
 *   lock; a fork in that window leaves the lock held in the child, whose own DRBG reseeds
 *   from the primary after the fork, and the child hangs inside libcrypto (the default
 *   provider's blinding would too: OpenSSL's locks have no fork handlers). Seen in CI once
 *   in about 30 runs under load; gdb showed RAND_priv_bytes_ex -> CRYPTO_THREAD_write_lock.
 * - a file size limit (RLIMIT_FSIZE) the next line would pass: the signature is made, no
 *   SIGXFSZ kills the process, and the file does not grow.
 * - the "stderr" target, then descriptor 2 closed and reopened by the program on a file of
 *   its own (a daemon that detaches from its terminal): no trace line reaches that file.
 * Needs the provider under test to be ctrsa (the trace is ctrsa's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "testutil.h"

#define FORKS 100
#define APP_FILES 16

static char folder[] = "/tmp/ctrsa-trace-safety-XXXXXX";
static tu_env env;
static EVP_PKEY *key;               /* in the provider under test */
static atomic_int stop_workers;
static atomic_int workers_started;  /* workers past their first signature, or failed */

/* Load the providers with CTRSA_TRACE=target and make a 2048-bit key in the provider under
 * test; 1 on success. */
static int load_with_trace(const char *target)
{
    EVP_PKEY *gen = NULL;
    EVP_PKEY_CTX *ctx;
    int ok;

    if (setenv("CTRSA_TRACE", target, 1) != 0 || !tu_env_init(&env))
        return 0;
    ctx = EVP_PKEY_CTX_new_from_name(env.libctx, "RSA", TU_PROPQ_DEFAULT);
    ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1 &&
         EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) == 1 && EVP_PKEY_generate(ctx, &gen) == 1;
    EVP_PKEY_CTX_free(ctx);
    key = ok ? tu_pkey_copy_to(env.libctx, gen, 1, tu_provider_name()) : NULL;
    EVP_PKEY_free(gen);
    return key != NULL;
}

/* One PKCS#1 v1.5 signature in the provider under test; 1 if made there. */
static int sign_once(void)
{
    unsigned char digest[32] = { 7 }, sig[256];
    size_t siglen = sizeof(sig);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, key, tu_propq());
    int ok = ctx != NULL && EVP_PKEY_sign_init(ctx) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 &&
             EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)) == 1 &&
             tu_ctx_in_provider(ctx);

    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* The number of "ctrsa: sign" lines in path (-1 if it cannot be read). */
static int sign_lines(const char *path)
{
    char line[256];
    int n = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        n += strncmp(line, "ctrsa: sign ", 12) == 0;
    fclose(f);
    return n;
}

/* 1 if one of this process's descriptors is the file st names. */
static int holds_file(const struct stat *target)
{
    struct stat st;

    for (int fd = 0; fd < 1024; fd++)
        if (fstat(fd, &st) == 0 && st.st_dev == target->st_dev && st.st_ino == target->st_ino)
            return 1;
    return 0;
}

/* Run body in a child process; assert it exited with 0. */
static void in_child(int (*body)(void))
{
    int status;
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        int ok = body();
        fflush(stdout);  /* _exit does not: keep the case's messages */
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fprintf(stderr, "the case's process died of signal %d\n", WTERMSIG(status));
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void *keep_signing(void *arg)
{
    int first = sign_once();

    (void)arg;
    atomic_fetch_add(&workers_started, 1);
    if (!first)
        return (void *)1;
    while (!atomic_load(&stop_workers))
        if (!sign_once())
            return (void *)1;
    return NULL;
}

static int fork_while_threads_sign(void)
{
    char target[128], mine[128], theirs[128];
    pthread_t workers[2];
    struct stat parent_file;
    int ok = 1, status;

    snprintf(target, sizeof(target), "%s/fork.%%p", folder);
    snprintf(mine, sizeof(mine), "%s/fork.%ld", folder, (long)getpid());
    if (!load_with_trace(target) || !sign_once() || stat(mine, &parent_file) != 0) {
        fprintf(stderr, "no per-process trace file %s in the parent\n", mine);
        return 0;
    }
    for (int i = 0; i < 2; i++)
        if (pthread_create(&workers[i], NULL, keep_signing, NULL) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            _exit(1);
        }
    while (atomic_load(&workers_started) < 2)  /* their DRBGs seeded: see the top comment */
        usleep(1000);
    for (int i = 0; i < FORKS && ok; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(20);
            if (holds_file(&parent_file)) {
                fprintf(stderr, "child %d holds its parent's trace file\n", i);
                _exit(2);
            }
            _exit(sign_once() ? 0 : 1);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d: %s\n", i,
                    WIFSIGNALED(status) ? "killed (hung: the 20 s alarm)" : "failed");
            ok = 0;
            break;
        }
        snprintf(theirs, sizeof(theirs), "%s/fork.%ld", folder, (long)pid);
        if (sign_lines(theirs) != 1) {
            fprintf(stderr, "child %d: %s has %d sign lines, not 1\n", i, theirs,
                    sign_lines(theirs));
            ok = 0;
        }
        unlink(theirs);
    }
    atomic_store(&stop_workers, 1);
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(workers[i], &r);
        ok &= r == NULL;
    }
    return ok;
}

static void test_fork_while_threads_sign(void **state)
{
    (void)state;
    in_child(fork_while_threads_sign);
}

static int reused_descriptors(void)
{
    char target[128], app[128];
    int before, fd;
    struct stat st;

    snprintf(target, sizeof(target), "%s/plain.log", folder);
    snprintf(app, sizeof(app), "%s/app.dat", folder);
    if (!load_with_trace(target) || !sign_once() || (before = sign_lines(target)) != 1)
        return 0;
    for (fd = STDERR_FILENO + 1; fd < 1024; fd++)  /* a daemon's close-all */
        close(fd);
    /* The program's files take the lowest free numbers, the trace's among them. */
    for (int i = 0; i < APP_FILES; i++) {
        snprintf(app, sizeof(app), "%s/app.%d", folder, i);
        if (open(app, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600) < 0)
            return 0;
    }
    if (!sign_once() || !sign_once())
        return 0;
    for (int i = 0; i < APP_FILES; i++) {
        snprintf(app, sizeof(app), "%s/app.%d", folder, i);
        if (stat(app, &st) != 0 || st.st_size != 0) {
            fprintf(stderr, "the program's own file %s received %lld bytes of trace\n", app,
                    (long long)st.st_size);
            return 0;
        }
    }
    return sign_lines(target) == before;
}

static void test_reused_descriptors(void **state)
{
    (void)state;
    in_child(reused_descriptors);
}

static int file_size_limit(void)
{
    char target[128];
    struct stat st, after;
    struct rlimit lim;

    snprintf(target, sizeof(target), "%s/limited.log", folder);
    if (!load_with_trace(target) || !sign_once() || stat(target, &st) != 0)
        return 0;
    lim.rlim_cur = (rlim_t)st.st_size;  /* the file is at the limit: one more byte is SIGXFSZ */
    lim.rlim_max = RLIM_INFINITY;
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0 || !sign_once())
        return 0;
    return stat(target, &after) == 0 && after.st_size == st.st_size;
}

static void test_file_size_limit(void **state)
{
    (void)state;
    in_child(file_size_limit);
}

static int reused_stderr(void)
{
    char orig[128], app[128];
    int fd, before;

    snprintf(orig, sizeof(orig), "%s/stderr.orig", folder);
    snprintf(app, sizeof(app), "%s/stderr.app", folder);
    /* Standard error is a file of the test's at load: the trace's lines can be counted. */
    fd = open(orig, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd < 0 || dup2(fd, STDERR_FILENO) != STDERR_FILENO || close(fd) != 0)
        return 0;
    if (!load_with_trace("stderr") || !sign_once() || (before = sign_lines(orig)) != 1) {
        printf("the stderr target before the switch: %d sign lines, not 1\n", sign_lines(orig));
        return 0;
    }
    /* The program closes its standard error and opens its own file: it gets descriptor 2. */
    close(STDERR_FILENO);
    fd = open(app, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd != STDERR_FILENO) {
        printf("the program's file is descriptor %d, not 2\n", fd);
        return 0;
    }
    if (!sign_once() || !sign_once())
        return 0;
    if (sign_lines(app) != 0) {
        printf("the program's own file on descriptor 2 received %d trace lines\n",
               sign_lines(app));
        return 0;
    }
    return sign_lines(orig) == before;
}

static void test_reused_stderr(void **state)
{
    (void)state;
    in_child(reused_stderr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_while_threads_sign),
        cmocka_unit_test(test_reused_descriptors),
        cmocka_unit_test(test_file_size_limit),
        cmocka_unit_test(test_reused_stderr),
    };
    char cmd[128];
    int failed;

    if (strcmp(tu_provider_name(), "ctrsa") != 0) {
        printf("the trace is ctrsa's: nothing to test with %s\n", tu_provider_name());
        return 77;
    }
    if (mkdtemp(folder) == NULL)
        return 1;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", folder);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", folder);
    return failed;
}
