/*
 * Section 3a, concurrency: 1, 2, 4 and 8 threads decrypting PKCS#1 v1.5 ciphertexts with one
 * shared key (one EVP_PKEY; an EVP_PKEY_CTX per thread, as contexts are not shared), at 1024,
 * 2048 and 4096 bits. For a fixed wall time all threads decrypt as fast as they can; the
 * figure is the total of checked decryptions per second of wall time. ctrsa and the
 * reference alternate round by round. This is where the blinding cache is under contention.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_suite.h"
#include "bench_util.h"

#define MAX_THREADS 8

typedef struct worker {
    pthread_t tid;
    be_op *op;
    size_t done;
    int failed;
    pthread_barrier_t *start;
    atomic_int *stop;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;

    pthread_barrier_wait(w->start);
    while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
        if (!be_op_run(w->op, 1)) {
            w->failed = 1;
            break;
        }
        w->done++;
    }
    return NULL;
}

/*
 * Total operations per second of `nthreads` workers running ops[] for about `wall_ns`;
 * *cores := the process's CPU time over that wall time (how many cores it actually got).
 */
static double throughput(be_op *const *ops, size_t nthreads, double wall_ns, double *cores)
{
    worker w[MAX_THREADS];
    pthread_barrier_t start;
    atomic_int stop = 0;
    struct timespec nap = { (time_t)(wall_ns / 1e9), (long)((long long)wall_ns % 1000000000) };
    double t0, t1, c0;
    size_t total = 0;

    if (pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1) != 0)
        bu_die("pthread_barrier_init");
    for (size_t i = 0; i < nthreads; i++) {
        w[i] = (worker){ .op = ops[i], .start = &start, .stop = &stop };
        if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0)
            bu_die("pthread_create");
    }
    pthread_barrier_wait(&start);
    t0 = bu_wall_ns();
    c0 = bu_cpu_ns();
    nanosleep(&nap, NULL);
    atomic_store(&stop, 1);
    for (size_t i = 0; i < nthreads; i++) {
        pthread_join(w[i].tid, NULL);
        if (w[i].failed)
            be_die_ssl("a decryption failed in thread %zu of %zu", i, nthreads);
        total += w[i].done;
    }
    t1 = bu_wall_ns();
    *cores = (bu_cpu_ns() - c0) / (t1 - t0);
    pthread_barrier_destroy(&start);
    return (double)total * 1e9 / (t1 - t0);
}

static void size_rows(bs_suite *suite, size_t bits, size_t rounds, double wall_ns)
{
    static const size_t counts[] = { 1, 2, 4, 8 };
    const be_key *key = bs_key(suite, bits);
    double base[BE_SIDES] = { 0, 0 };

    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        size_t n = counts[c];
        be_op *ops[BE_SIDES][MAX_THREADS];
        double *rate[BE_SIDES], *cores[BE_SIDES];
        bu_stats st[BE_SIDES], ratio, busy[BE_SIDES];
        char cell[BE_SIDES][24], rc[48], scale[BE_SIDES][16];

        for (int s = 0; s < BE_SIDES; s++) {
            rate[s] = bu_xmalloc(rounds * sizeof(double));
            cores[s] = bu_xmalloc(rounds * sizeof(double));
            for (size_t i = 0; i < n; i++)
                ops[s][i] = be_op_new(&suite->env, key, s, BE_DEC_PKCS1);
        }
        for (size_t r = 0; r < rounds; r++)
            for (int s = 0; s < BE_SIDES; s++) {
                bu_progress("%zu-bit decryption, %zu thread%s, %s, round %zu/%zu", bits, n,
                            n > 1 ? "s" : "", suite->env.name[s], r + 1, rounds);
                rate[s][r] = throughput(ops[s], n, wall_ns, &cores[s][r]);
            }
        /* rates: ctrsa's over the reference's is the reference's time over ctrsa's */
        ratio = bu_ratio_stats(rate[BE_SIDE_CTRSA], rate[BE_SIDE_REF], rounds);
        for (int s = 0; s < BE_SIDES; s++) {
            st[s] = bu_stats_of(rate[s], rounds);
            busy[s] = bu_stats_of(cores[s], rounds);
            if (n == 1)
                base[s] = st[s].median;
            snprintf(scale[s], sizeof(scale[s]), "%.2f×", st[s].median / base[s]);
            snprintf(cell[s], sizeof(cell[s]), "%.0f ±%.1f%%", st[s].median,
                     bu_spread_pct(&st[s]));
            bu_csv_row("threads", "DecryptPKCS1v15", bits, n, suite->env.name[s], "ops_per_s",
                       "1/s", &st[s]);
            bu_csv_row("threads", "DecryptPKCS1v15", bits, n, suite->env.name[s], "cores_busy",
                       "cpu_s/wall_s", &busy[s]);
            for (size_t i = 0; i < n; i++)
                be_op_free(ops[s][i]);
            free(rate[s]);
            free(cores[s]);
        }
        bu_csv_row("threads", "DecryptPKCS1v15", bits, n, "ratio", "ctrsa_rate/ref_rate", "x",
                   &ratio);
        bu_progress_clear();
        printf("| %zu | %zu | %s | %s | %s | %s | %s | %.2f / %.2f |\n", bits, n,
               cell[BE_SIDE_CTRSA], scale[BE_SIDE_CTRSA], cell[BE_SIDE_REF],
               scale[BE_SIDE_REF], bu_fmt_ratio(rc, sizeof(rc), &ratio),
               busy[BE_SIDE_CTRSA].median, busy[BE_SIDE_REF].median);
        fflush(stdout);
    }
}

void bs_section_threads(bs_suite *suite)
{
    static const size_t sizes[] = { 1024, 2048, 4096 };
    size_t rounds = suite->opts.quick ? 3 : 5;
    double wall = suite->opts.quick ? 0.1e9 : 0.6e9;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *ref = bs_ref(suite);

    bu_heading(2, "Concurrency: one shared key, N threads decrypting (PKCS#1 v1.5)");
    printf("Total decryptions per second of wall time (each checked), median of %zu rounds "
           "of %.1f s, ctrsa and %s alternating; scaling is against one thread. **This "
           "machine has %ld core%s online: scaling beyond %ld thread%s shows contention (the "
           "blinding cache's locks, the scheduler), not speed-up.** Cores busy: the process's CPU "
           "time over the wall time, median (ctrsa / %s); below min(threads, %ld) the machine "
           "was busy with something else too.\n\n",
           rounds, wall / 1e9, ref, cores, cores == 1 ? "" : "s", cores, cores == 1 ? "" : "s",
           ref, cores);
    printf("| bits | threads | ctrsa ops/s | ctrsa scaling | %s ops/s | %s scaling | "
           "%s/ctrsa | cores busy |\n",
           ref, ref, ref);
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        size_rows(suite, sizes[i], rounds, wall);
    printf("\n");
}
