/* See bench_util.h. */
#include "bench_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bu_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bu_wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void bu_die(const char *fmt, ...)
{
    va_list ap;

    bu_progress_clear();
    fputs("bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *bu_xmalloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);

    if (p == NULL)
        bu_die("out of memory");
    return p;
}

/* ---- statistics ---- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* The q-quantile of sorted v[0..n), interpolating between neighbours. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;

    return v[lo] + (v[hi] - v[lo]) * frac;
}

bu_stats bu_stats_of(double *v, size_t n)
{
    bu_stats s;

    qsort(v, n, sizeof(double), cmp_double);
    s.median = quantile(v, n, 0.5);
    s.p10 = quantile(v, n, 0.1);
    s.p90 = quantile(v, n, 0.9);
    s.n = n;
    return s;
}

double bu_spread_pct(const bu_stats *s)
{
    return s->median > 0 ? 50.0 * (s->p90 - s->p10) / s->median : 0.0;
}

bu_stats bu_ratio_stats(const double *num, const double *den, size_t n)
{
    double *r = bu_xmalloc(n * sizeof(double));
    bu_stats s;

    for (size_t i = 0; i < n; i++)
        r[i] = num[i] / den[i];
    s = bu_stats_of(r, n);
    free(r);
    return s;
}

/* ---- timing ---- */

size_t bu_calibrate(bu_run_fn run, void *arg, double target_ns)
{
    size_t reps = 1;

    for (;;) {
        double t0 = bu_cpu_ns();
        if (!run(arg, reps))
            bu_die("an operation failed while calibrating");
        double dt = bu_cpu_ns() - t0;
        if (dt >= target_ns / 8 || reps >= ((size_t)1 << 30)) {
            double per = dt / (double)reps;
            double want = target_ns / (per > 1 ? per : 1);
            return want >= 1 ? (size_t)want : 1;
        }
        reps *= 4;
    }
}

void bu_time_interleaved(size_t k, bu_run_fn const *run, void *const *arg, const size_t *reps,
                         size_t rounds, double **ns_per_op, const char *label)
{
    for (size_t r = 0; r < rounds; r++) {
        bu_progress("%s, round %zu/%zu", label, r + 1, rounds);
        for (size_t i = 0; i < k; i++) {
            double t0 = bu_cpu_ns();
            if (!run[i](arg[i], reps[i]))
                bu_die("%s: an operation failed", label);
            ns_per_op[i][r] = (bu_cpu_ns() - t0) / (double)reps[i];
        }
    }
}

void bu_time_pair(bu_run_fn run_a, void *arg_a, bu_run_fn run_b, void *arg_b, size_t rounds,
                  double target_ns, bu_pair *out, const char *label)
{
    bu_run_fn run[2] = { run_a, run_b };
    void *arg[2] = { arg_a, arg_b };
    size_t reps[2];
    double *t[2];

    bu_progress("%s, calibrating", label);
    reps[0] = bu_calibrate(run_a, arg_a, target_ns);
    reps[1] = bu_calibrate(run_b, arg_b, target_ns);
    t[0] = bu_xmalloc(rounds * sizeof(double));
    t[1] = bu_xmalloc(rounds * sizeof(double));
    bu_time_interleaved(2, run, arg, reps, rounds, t, label);
    out->ratio = bu_ratio_stats(t[1], t[0], rounds);
    out->a = bu_stats_of(t[0], rounds);
    out->b = bu_stats_of(t[1], rounds);
    free(t[0]);
    free(t[1]);
}

/* ---- formatting ---- */

const char *bu_fmt_time(char *buf, size_t size, double ns)
{
    if (ns < 1e3)
        snprintf(buf, size, "%.0f ns", ns);
    else if (ns < 1e5)
        snprintf(buf, size, "%.1f µs", ns / 1e3);
    else if (ns < 1e6)
        snprintf(buf, size, "%.0f µs", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, size, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, size, "%.2f s", ns / 1e9);
    return buf;
}

const char *bu_fmt_time_spread(char *buf, size_t size, const bu_stats *s)
{
    char t[32];

    snprintf(buf, size, "%s ±%.1f%%", bu_fmt_time(t, sizeof(t), s->median), bu_spread_pct(s));
    return buf;
}

const char *bu_fmt_rate(char *buf, size_t size, double per_s)
{
    snprintf(buf, size, per_s < 100 ? "%.1f" : "%.0f", per_s);
    return buf;
}

const char *bu_fmt_ratio(char *buf, size_t size, const bu_stats *s)
{
    snprintf(buf, size, "**%.2f** (%.2f–%.2f)", s->median, s->p10, s->p90);
    return buf;
}

/* ---- Markdown ---- */

static int heading_shift;

void bu_heading_shift(int shift)
{
    heading_shift = shift;
}

void bu_heading(int level, const char *fmt, ...)
{
    va_list ap;

    for (int i = 0; i < level + heading_shift; i++)
        putchar('#');
    putchar(' ');
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputs("\n\n", stdout);
}

/* ---- CSV ---- */

static FILE *csv;

void bu_csv_open(const char *path)
{
    csv = fopen(path, "w");
    if (csv == NULL)
        bu_die("cannot write %s", path);
    fputs("section,operation,bits,threads,provider,metric,unit,median,p10,p90,samples\n", csv);
}

/* A CSV field: quoted when it holds a comma or a quote. */
static void csv_field(const char *s)
{
    if (strpbrk(s, ",\"") == NULL) {
        fputs(s, csv);
        return;
    }
    fputc('"', csv);
    for (; *s != '\0'; s++) {
        if (*s == '"')
            fputc('"', csv);
        fputc(*s, csv);
    }
    fputc('"', csv);
}

void bu_csv_row(const char *section, const char *operation, size_t bits, size_t threads,
                const char *provider, const char *metric, const char *unit,
                const bu_stats *s)
{
    if (csv == NULL)
        return;
    csv_field(section);
    fputc(',', csv);
    csv_field(operation);
    fprintf(csv, ",%zu,%zu,", bits, threads);
    csv_field(provider);
    fputc(',', csv);
    csv_field(metric);
    fputc(',', csv);
    csv_field(unit);
    fprintf(csv, ",%.6g,%.6g,%.6g,%zu\n", s->median, s->p10, s->p90, s->n);
}

void bu_csv_close(void)
{
    if (csv != NULL && fclose(csv) != 0)
        bu_die("error writing the CSV file");
    csv = NULL;
}

/* ---- progress ---- */

static char progress_prefix[64];
static int progress_shown;
static double progress_last;
static double progress_start = -1;

void bu_progress_section(const char *section)
{
    snprintf(progress_prefix, sizeof(progress_prefix), "%s", section);
}

void bu_progress(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    int tty = isatty(STDERR_FILENO);
    double now = bu_wall_ns();

    if (progress_start < 0)
        progress_start = now;
    /* Off a terminal, one line every few seconds is plenty. */
    if (!tty && progress_shown && now - progress_last < 5e9)
        return;
    progress_last = now;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (tty) {
        fprintf(stderr, "\r\033[K%4.0fs %s: %s", (now - progress_start) / 1e9, progress_prefix,
                msg);
        progress_shown = 1;
    } else {
        fprintf(stderr, "%4.0fs %s: %s\n", (now - progress_start) / 1e9, progress_prefix, msg);
        progress_shown = 1;
    }
    fflush(stderr);
}

void bu_progress_clear(void)
{
    /* off a terminal nothing needs erasing, and the rate limit stays in force */
    if (progress_shown && isatty(STDERR_FILENO)) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_shown = 0;
    }
}
