/*
 * Section 3b, the blinding cache's worth: single-threaded PKCS#1 v1.5 decryption in ctrsa
 * with the cache on (this process) and off (a child process started with
 * CTRSA_BLINDING_CACHE=0, which ctrsa reads once, at its first private operation), and the
 * reference for scale, at 1024, 2048 and 4096 bits.
 *
 * The child is this program again (`--blinding-child MODULE_DIR`), fed the same keys as PEM
 * on its standard input. The three measurements alternate round by round (on, off,
 * reference) and each process times itself with its own CPU clock:
 *   parent -> child:  N, then N PEM private keys, then lines "run <key index> <reps>", "quit"
 *   child -> parent:  "ready <value of CTRSA_BLINDING_CACHE>", then one "<ns per op>" per run
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/pem.h>

#include "bench_suite.h"
#include "bench_util.h"

#define CACHE_ENV "CTRSA_BLINDING_CACHE"

static const size_t sizes[] = { 1024, 2048, 4096 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- the child ---- */

int bs_blinding_child(const char *module_dir)
{
    const char *cache = getenv(CACHE_ENV);
    be_env env;
    be_op *ops[NSIZES];
    be_key keys[NSIZES];
    size_t nkeys = 0;
    char line[128];

    be_env_init(&env, module_dir, "default");
    BIO *in = BIO_new_fp(stdin, BIO_NOCLOSE);
    if (in == NULL || fgets(line, sizeof(line), stdin) == NULL
            || sscanf(line, "%zu", &nkeys) != 1 || nkeys > NSIZES)
        bu_die("blinding child: bad key count");
    for (size_t i = 0; i < nkeys; i++) {
        EVP_PKEY *pkey = PEM_read_bio_PrivateKey_ex(in, NULL, NULL, NULL, env.libctx,
                                                    "provider=default");
        if (pkey == NULL)
            be_die_ssl("blinding child: cannot read key %zu", i);
        be_key_from(&env, &keys[i], pkey);
        EVP_PKEY_free(pkey);
        ops[i] = be_op_new(&env, &keys[i], BE_SIDE_CTRSA, BE_DEC_PKCS1);
    }
    BIO_free(in);
    printf("ready %s\n", cache != NULL ? cache : "(unset)");
    fflush(stdout);

    while (fgets(line, sizeof(line), stdin) != NULL) {
        size_t idx, reps;
        if (strncmp(line, "quit", 4) == 0)
            break;
        if (sscanf(line, "run %zu %zu", &idx, &reps) != 2 || idx >= nkeys || reps == 0)
            bu_die("blinding child: bad command %s", line);
        double t0 = bu_cpu_ns();
        if (!be_op_run(ops[idx], reps))
            be_die_ssl("blinding child: decryption failed");
        printf("%.3f\n", (bu_cpu_ns() - t0) / (double)reps);
        fflush(stdout);
    }
    for (size_t i = 0; i < nkeys; i++) {
        be_op_free(ops[i]);
        be_key_free(&keys[i]);
    }
    be_env_free(&env);
    return 0;
}

/* ---- the parent ---- */

typedef struct child {
    pid_t pid;
    FILE *to, *from;
} child;

static void child_start(bs_suite *suite, child *c)
{
    int down[2], up[2];

    /* a child that dies must give an error message here, not a silent SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    if (pipe(down) != 0 || pipe(up) != 0)
        bu_die("pipe");
    fflush(NULL);
    c->pid = fork();
    if (c->pid < 0)
        bu_die("fork");
    if (c->pid == 0) {
        dup2(down[0], STDIN_FILENO);
        dup2(up[1], STDOUT_FILENO);
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        setenv(CACHE_ENV, "0", 1);
        execl(suite->opts.self, suite->opts.self, "--blinding-child", suite->opts.module_dir,
              (char *)NULL);
        perror("bench: exec of the blinding-cache child");
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    c->to = fdopen(down[1], "w");
    c->from = fdopen(up[0], "r");
    if (c->to == NULL || c->from == NULL)
        bu_die("fdopen");
}

static void child_send_keys(bs_suite *suite, child *c)
{
    char line[128];

    fprintf(c->to, "%zu\n", NSIZES);
    for (size_t i = 0; i < NSIZES; i++) {
        const be_key *key = bs_key(suite, sizes[i]);
        if (!PEM_write_PrivateKey(c->to, key->pkey[BE_SIDE_REF], NULL, NULL, 0, NULL, NULL))
            be_die_ssl("PEM_write_PrivateKey");
    }
    fflush(c->to);
    if (fgets(line, sizeof(line), c->from) == NULL || strcmp(line, "ready 0\n") != 0)
        bu_die("the blinding-cache child did not start with " CACHE_ENV "=0 (%s)",
               strtok(line, "\n"));
}

/* The child's time per decryption for `reps` decryptions with key i. */
static double child_run(child *c, size_t i, size_t reps)
{
    char line[64];
    double ns;

    fprintf(c->to, "run %zu %zu\n", i, reps);
    fflush(c->to);
    if (fgets(line, sizeof(line), c->from) == NULL || sscanf(line, "%lf", &ns) != 1)
        bu_die("the blinding-cache child stopped answering");
    return ns;
}

static void child_stop(child *c)
{
    int status;

    fputs("quit\n", c->to);
    fclose(c->to);
    fclose(c->from);
    if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status)
            || WEXITSTATUS(status) != 0)
        bu_die("the blinding-cache child failed");
}

void bs_section_blinding(bs_suite *suite)
{
    size_t rounds = suite->opts.quick ? 3 : 9;
    double target = suite->opts.quick ? 15e6 : 150e6;
    const char *ref = bs_ref(suite);
    child c;

    bu_heading(2, "Blinding cache on and off (PKCS#1 v1.5 decryption, one thread)");
    printf("Off: a second process with `" CACHE_ENV "=0`, where ctrsa draws a fresh blinding "
           "pair (a modexp and an inverse) for every operation; on: the default, pairs squared "
           "between uses. The same key in both; on, off and %s alternate; median of %zu rounds "
           "± half the p10–p90 range; gain = time off / time on.\n\n",
           ref, rounds);
    printf("| bits | ctrsa, cache on | ctrsa, cache off | cache's gain | %s |\n", ref);
    printf("|---:|---:|---:|---:|---:|\n");
    fflush(stdout);

    bu_progress("starting the child with " CACHE_ENV "=0");
    child_start(suite, &c);
    child_send_keys(suite, &c);
    for (size_t i = 0; i < NSIZES; i++) {
        const be_key *key = bs_key(suite, sizes[i]);
        be_op *on = be_op_new(&suite->env, key, BE_SIDE_CTRSA, BE_DEC_PKCS1);
        be_op *other = be_op_new(&suite->env, key, BE_SIDE_REF, BE_DEC_PKCS1);
        size_t reps_on, reps_ref;
        double *t_on = bu_xmalloc(rounds * sizeof(double));
        double *t_off = bu_xmalloc(rounds * sizeof(double));
        double *t_ref = bu_xmalloc(rounds * sizeof(double));
        bu_stats on_s, off_s, ref_s, gain;
        char c_on[48], c_off[48], c_ref[48], c_gain[48];

        bu_progress("%zu-bit, calibrating", sizes[i]);
        reps_on = bu_calibrate(be_op_run, on, target);
        reps_ref = bu_calibrate(be_op_run, other, target);
        for (size_t r = 0; r < rounds; r++) {
            double t0;
            bu_progress("%zu-bit decryption, cache on/off, round %zu/%zu", sizes[i], r + 1,
                        rounds);
            t0 = bu_cpu_ns();
            if (!be_op_run(on, reps_on))
                be_die_ssl("decryption failed");
            t_on[r] = (bu_cpu_ns() - t0) / (double)reps_on;
            t_off[r] = child_run(&c, i, reps_on);
            t0 = bu_cpu_ns();
            if (!be_op_run(other, reps_ref))
                be_die_ssl("decryption failed");
            t_ref[r] = (bu_cpu_ns() - t0) / (double)reps_ref;
        }
        gain = bu_ratio_stats(t_off, t_on, rounds);
        on_s = bu_stats_of(t_on, rounds);
        off_s = bu_stats_of(t_off, rounds);
        ref_s = bu_stats_of(t_ref, rounds);
        bu_csv_row("blinding", "DecryptPKCS1v15", sizes[i], 1, "ctrsa cache on", "time_per_op",
                   "ns", &on_s);
        bu_csv_row("blinding", "DecryptPKCS1v15", sizes[i], 1, "ctrsa cache off",
                   "time_per_op", "ns", &off_s);
        bu_csv_row("blinding", "DecryptPKCS1v15", sizes[i], 1, ref, "time_per_op", "ns",
                   &ref_s);
        bu_csv_row("blinding", "DecryptPKCS1v15", sizes[i], 1, "ratio", "off_time/on_time",
                   "x", &gain);
        bu_progress_clear();
        printf("| %zu | %s | %s | %s | %s |\n", sizes[i],
               bu_fmt_time_spread(c_on, sizeof(c_on), &on_s),
               bu_fmt_time_spread(c_off, sizeof(c_off), &off_s),
               bu_fmt_ratio(c_gain, sizeof(c_gain), &gain),
               bu_fmt_time_spread(c_ref, sizeof(c_ref), &ref_s));
        fflush(stdout);
        be_op_free(on);
        be_op_free(other);
        free(t_on);
        free(t_off);
        free(t_ref);
    }
    child_stop(&c);
    printf("\n");
}
