/*
 * What every part of the benchmark suite shares, with no OpenSSL in it: clocks, the
 * statistics of a set of rounds (median and the p10-p90 spread), the interleaved timer
 * (A B A B ...), number formatting for the Markdown tables, the CSV file, and the progress
 * line on standard error.
 */
#ifndef CTRSA_BENCH_UTIL_H
#define CTRSA_BENCH_UTIL_H

#include <stddef.h>

/* CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID), in ns: single-thread figures. */
double bu_cpu_ns(void);

/* Monotonic wall time in ns: the throughput of several threads. */
double bu_wall_ns(void);

/* Print "bench: <message>" on stderr and exit(1). */
void bu_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* malloc that dies on failure. */
void *bu_xmalloc(size_t size);

/* The summary of one figure's rounds. */
typedef struct bu_stats {
    double median, p10, p90;
    size_t n;
} bu_stats;

/* Median, 10th and 90th percentiles (linear interpolation) of v[0..n); sorts v. n >= 1. */
bu_stats bu_stats_of(double *v, size_t n);

/* Half the p10-p90 range in percent of the median: the "±" printed beside a median. */
double bu_spread_pct(const bu_stats *s);

/*
 * A timed workload: perform `reps` operations and return 1, or 0 on any failure (every
 * caller dies then: a benchmark of an operation that failed means nothing).
 */
typedef int (*bu_run_fn)(void *arg, size_t reps);

/* The number of operations for one batch of about target_ns of CPU time (at least 1). */
size_t bu_calibrate(bu_run_fn run, void *arg, double target_ns);

/*
 * Interleaved timing of k workloads: `rounds` rounds, each running workload 0, 1, ..., k-1
 * once for reps[i] operations, timed with process CPU time. ns_per_op[i][r] receives the
 * time per operation of workload i in round r. `label` names the figure in the progress line.
 */
void bu_time_interleaved(size_t k, bu_run_fn const *run, void *const *arg, const size_t *reps,
                         size_t rounds, double **ns_per_op, const char *label);

/*
 * The usual case, two workloads (ctrsa, then the reference): calibrated to target_ns each,
 * interleaved A B A B ..., summarised. ratio is the per-round ratio time(b) / time(a), so
 * > 1 means a (ctrsa) is faster; pairing neighbouring rounds cancels the machine's drift.
 */
typedef struct bu_pair {
    bu_stats a, b, ratio;
} bu_pair;
void bu_time_pair(bu_run_fn run_a, void *arg_a, bu_run_fn run_b, void *arg_b, size_t rounds,
                  double target_ns, bu_pair *out, const char *label);

/* Summaries of per-round ratios num[r] / den[r]. */
bu_stats bu_ratio_stats(const double *num, const double *den, size_t n);

/*
 * Formatting into a caller's buffer (returned): a time with a unit chosen for it ("812 ns",
 * "41.3 µs", "2.45 ms", "1.23 s"), a time with its spread ("2.45 ms ±0.8%"), a rate
 * ("1234" ops/s, no decimals; one decimal below 100), and a ratio with its p10-p90 range
 * ("1.52 (1.49-1.55)").
 */
const char *bu_fmt_time(char *buf, size_t size, double ns);
const char *bu_fmt_time_spread(char *buf, size_t size, const bu_stats *s);
const char *bu_fmt_rate(char *buf, size_t size, double per_s);
const char *bu_fmt_ratio(char *buf, size_t size, const bu_stats *s);

/*
 * A Markdown heading of `level` (1 = "#") plus the shift set by bu_heading_shift (--md-level),
 * so that the report can be pasted under a README's own headings. Ends with a blank line.
 */
void bu_heading_shift(int shift);
void bu_heading(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The CSV file (--csv): long format, one row per measured value:
 *   section,operation,bits,threads,provider,metric,unit,median,p10,p90,samples
 * Without bu_csv_open every bu_csv_row is a no-op.
 */
void bu_csv_open(const char *path);
void bu_csv_row(const char *section, const char *operation, size_t bits, size_t threads,
                const char *provider, const char *metric, const char *unit,
                const bu_stats *s);
void bu_csv_close(void);

/*
 * The progress line on stderr: rewritten in place on a terminal, one line per call
 * otherwise. bu_progress_section sets the prefix ("[2/5] classic"); bu_progress_clear
 * erases the line before normal output reaches the same terminal.
 */
void bu_progress_section(const char *section);
void bu_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bu_progress_clear(void);

#endif
