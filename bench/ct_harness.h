/*
 * The harness of the kernel benches bench_avx2_ct, bench_avx512_ct and bench_ifma_ct
 * (x86-64 only; ct_harness.c): dying with the bench's name, random operands, the two CRT
 * halves of a modexp2, a thread CPU clock, and the dudect-style Welch t-test (welch.h): its
 * samples, their rdtsc timing and the statistics row of its report.
 *
 * Nothing here is secret: the benches time the engine on random operands they make
 * themselves. Each bench keeps its own command line, tables and timed calls.
 */
#ifndef CTRSA_CT_HARNESS_H
#define CTRSA_CT_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#include "bignum.h"

/* Defined by each bench: its program name, the prefix of die's message. */
extern const char bench_name[];

/* Print "<bench_name>: msg" on stderr and exit(1). */
void die(const char *msg) __attribute__((noreturn));

/* x (n limbs) := random bytes (OpenSSL's RAND_bytes); dies on failure. */
void rand_limbs(ctbn_limb *x, size_t n);

/* b (n limbs) := a random value below 2^(64 n - 1), so below any modulus of make_modulus. */
void rand_base(ctbn_limb *b, size_t n);

/* m (n limbs) := a random odd modulus of exactly 64 n bits; returns its context (malloc'd,
 * the caller frees it). */
ctbn_mont *make_modulus(size_t n, ctbn_limb *m);

/* Thread CPU time (CLOCK_THREAD_CPUTIME_ID) in ns. */
double thread_ns(void);

/* The median of v[0..k) (the upper one for even k); sorts v. k >= 1. */
double median(double *v, size_t k);

/* One step of xorshift64 (the state s must not be zero): the cheap random numbers of the
 * t-test's classes and exponents. */
uint64_t xorshift(uint64_t *s);

/* ---------------------------------------------------------------------------------------
 * The operands of a two-half modexp (ctbn_modexp2_ct and the backends' hooks): two random
 * moduli of `bits` bits (a multiple of 64) with their contexts, random bases below them,
 * random full-length exponents, room for the results and the scratch the modexp needs.
 */
struct two_halves {
    size_t n, bits;
    ctbn_limb m1[CTBN_MAX_LIMBS], m2[CTBN_MAX_LIMBS];
    ctbn_mont *c1, *c2;
    ctbn_limb b1[CTBN_MAX_LIMBS], b2[CTBN_MAX_LIMBS], e1[CTBN_MAX_LIMBS], e2[CTBN_MAX_LIMBS];
    ctbn_limb r1[CTBN_MAX_LIMBS], r2[CTBN_MAX_LIMBS];
    ctbn_limb *scratch; /* CTBN_MODEXP2_SCRATCH(n, n) limbs */
};

/* Dies when out of memory. */
void two_halves_init(struct two_halves *h, size_t bits);
void two_halves_free(struct two_halves *h);

/* ---------------------------------------------------------------------------------------
 * The t-test: `samples` timings, each of one class (0 or 1) drawn at random as it is taken,
 * so that the classes interleave; xorshift from a random odd seed.
 */
struct ttest_samples {
    size_t samples;
    double *t;          /* TSC ticks per sample */
    unsigned char *cls; /* its class */
    uint64_t seed;      /* xorshift state: the classes, and operands the bench draws */
};

/* Dies when out of memory. */
void ttest_samples_init(struct ttest_samples *s, size_t samples);
void ttest_samples_free(struct ttest_samples *s);

/* Sample i's operands, outside the timed region: draw its class (0 or 1) and fresh random
 * bases below h's moduli (in both classes); returns the class. */
unsigned ttest_draw(struct ttest_samples *s, size_t i, struct two_halves *h);

/* h's exponents := zero (random = 0: the fixed class) or random full-length ones from s's
 * xorshift stream. */
void ttest_exponents(struct ttest_samples *s, struct two_halves *h, int random);

/* The TSC around one timed call, fenced so that the call neither starts before the first
 * read nor is still running at the second: t = tsc_stop() - tsc_start(). */
static inline uint64_t tsc_start(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static inline uint64_t tsc_stop(void)
{
    _mm_lfence();
    return __rdtsc();
}

/*
 * The statistics of a report row whose first cells the bench has printed: Welch's |t| of
 * class 0 against class 1 over the samples at or below each pooled percentile (all, 99.9,
 * 99, 95, 90, 75, 50: dudect's crops), each as " %*.2f |" of `width`, then the largest |t|
 * likewise, the verdict ("no leak detected" below 4.5, else "LEAK") and the median ticks;
 * ends the row and flushes stdout. Returns the largest |t|.
 */
double ttest_report(const struct ttest_samples *s, int width);

#endif /* CTRSA_CT_HARNESS_H */
