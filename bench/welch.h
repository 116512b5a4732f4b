/*
 * Welch's t-test for the timing tests (bench/ct_harness.c, the kernel benches' harness,
 * test/ct/ttest_decrypt.c): a running mean and sum of squared deviations per class
 * (Welford's update, stable over 10^5 samples of similar size), Welch's t of two classes,
 * and the comparison for sorting samples to find the crop percentiles.
 */
#ifndef CTRSA_WELCH_H
#define CTRSA_WELCH_H

#include <math.h>

struct acc {
    double n, mean, m2;
};

static inline void acc_push(struct acc *a, double x)
{
    a->n += 1;
    double d = x - a->mean;
    a->mean += d / a->n;
    a->m2 += d * (x - a->mean);
}

/* Welch's t of a against b; 0 while either has fewer than two samples. */
static inline double welch_t(const struct acc *a, const struct acc *b)
{
    if (a->n < 2 || b->n < 2)
        return 0;
    double va = a->m2 / (a->n - 1), vb = b->m2 / (b->n - 1);
    return (a->mean - b->mean) / sqrt(va / a->n + vb / b->n);
}

/* qsort's comparison of two doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
