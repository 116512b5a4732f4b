/*
 * The kernel benches' harness (contracts in ct_harness.h). CT: nothing here is secret.
 */
#include "ct_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "welch.h"

void die(const char *msg)
{
    fprintf(stderr, "%s: %s\n", bench_name, msg);
    exit(1);
}

void rand_limbs(ctbn_limb *x, size_t n)
{
    if (RAND_bytes((unsigned char *)x, (int)(n * sizeof(ctbn_limb))) != 1)
        die("RAND_bytes");
}

void rand_base(ctbn_limb *b, size_t n)
{
    rand_limbs(b, n);
    b[n - 1] &= ~((ctbn_limb)1 << 63);
}

ctbn_mont *make_modulus(size_t n, ctbn_limb *m)
{
    rand_limbs(m, n);
    m[0] |= 1;
    m[n - 1] |= (ctbn_limb)1 << 63;
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    if (ctx == NULL || ctbn_mont_init(ctx, m, n) != 0)
        die("ctbn_mont_init");
    return ctx;
}

double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double median(double *v, size_t k)
{
    qsort(v, k, sizeof(double), cmp_double);
    return v[k / 2];
}

uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

void two_halves_init(struct two_halves *h, size_t bits)
{
    h->bits = bits;
    h->n = bits / 64;
    h->c1 = make_modulus(h->n, h->m1);
    h->c2 = make_modulus(h->n, h->m2);
    rand_base(h->b1, h->n);
    rand_base(h->b2, h->n);
    rand_limbs(h->e1, h->n);
    rand_limbs(h->e2, h->n);
    h->scratch = malloc(CTBN_MODEXP2_SCRATCH(h->n, h->n) * sizeof(ctbn_limb));
    if (h->scratch == NULL)
        die("out of memory");
}

void two_halves_free(struct two_halves *h)
{
    free(h->scratch);
    free(h->c1);
    free(h->c2);
}

void ttest_samples_init(struct ttest_samples *s, size_t samples)
{
    s->samples = samples;
    s->t = malloc(samples * sizeof(double));
    s->cls = malloc(samples);
    if (s->t == NULL || s->cls == NULL)
        die("out of memory");
    rand_limbs(&s->seed, 1);
    s->seed |= 1;
}

unsigned ttest_draw(struct ttest_samples *s, size_t i, struct two_halves *h)
{
    s->cls[i] = (unsigned char)(xorshift(&s->seed) & 1);
    rand_base(h->b1, h->n);
    rand_base(h->b2, h->n);
    return s->cls[i];
}

void ttest_exponents(struct ttest_samples *s, struct two_halves *h, int random)
{
    for (size_t j = 0; j < h->n; j++) {
        h->e1[j] = random ? xorshift(&s->seed) : 0;
        h->e2[j] = random ? xorshift(&s->seed) : 0;
    }
}

void ttest_samples_free(struct ttest_samples *s)
{
    free(s->t);
    free(s->cls);
}

double ttest_report(const struct ttest_samples *s, int width)
{
    size_t samples = s->samples;
    double *sorted = malloc(samples * sizeof(double));
    if (sorted == NULL)
        die("out of memory");
    memcpy(sorted, s->t, samples * sizeof(double));
    qsort(sorted, samples, sizeof(double), cmp_double);
    static const double pct[] = { 100, 99.9, 99, 95, 90, 75, 50 };
    double maxt = 0;
    for (size_t p = 0; p < sizeof(pct) / sizeof(pct[0]); p++) {
        /* crop: keep the samples at or below a pooled percentile, as dudect does */
        double thr = sorted[(size_t)((double)(samples - 1) * pct[p] / 100.0)];
        struct acc a[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
        for (size_t i = 0; i < samples; i++)
            if (s->t[i] <= thr)
                acc_push(&a[s->cls[i]], s->t[i]);
        double tv = fabs(welch_t(&a[0], &a[1]));
        maxt = tv > maxt ? tv : maxt;
        printf(" %*.2f |", width, tv);
    }
    printf(" %*.2f | %s | %.0f |\n", width, maxt, maxt < 4.5 ? "no leak detected" : "LEAK",
           sorted[samples / 2]);
    fflush(stdout);
    free(sorted);
    return maxt;
}
