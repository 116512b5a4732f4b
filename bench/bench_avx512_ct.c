/*
 * The avx512 backend (AVX-512F without IFMA, bignum/avx512.h): kernel timing, the modexp
 * against the other backends, and a statistical constant-time test of its 512-bit kernels,
 * which valgrind cannot run (the 256-bit instance is in the valgrind suite, test/ct).
 *
 *   bench_avx512_ct cycles          per kernel call: TSC ticks and nanoseconds of thread
 *                                   CPU time, minimum over 41 batches of 500 dependent calls
 *                                   (chains of AMM(a, a) or of the squaring kernel): the
 *                                   avx512 AMM and squaring kernels at 512 and 256 bits on
 *                                   friendly moduli (the
 *                                   modexp's form) at 1024, 1536 and 2048 bits, against the
 *                                   AVX2 backend's friendly squaring and AMM where it has
 *                                   them (its 1024-bit modulus is generic, 36 digits).
 *   bench_avx512_ct modexp2         microseconds of thread CPU time per ctbn_modexp2_ct (two
 *                                   halves, full-length exponents) on the avx512, avx512y,
 *                                   avx2 and adx backends, interleaved, minimum and median
 *                                   of 21 rounds, at 1024, 1536 and 2048 bits.
 *   bench_avx512_ct ttest [SAMPLES] dudect-style Welch t-test on ctbn_avx512_modexp2_ct_z at
 *                                   1024, 1536 and 2048 bits: class 0 = a fixed exponent
 *                                   (zero), class 1 = random exponents, classes interleaved
 *                                   at random, random bases in both, one rdtsc-timed call per
 *                                   sample; |t| uncropped and cropped at pooled percentiles,
 *                                   |t| < 4.5: no leak detected. Then the same harness on a
 *                                   variable-time function of the same operands (the
 *                                   public-exponent path, whose time follows e) at a tenth
 *                                   of the samples: it must say LEAK, or the harness is
 *                                   blind. Default 100000 samples.
 *   bench_avx512_ct ttest-base [SAMPLES] the same with the bases as the classes: both
 *                                   bases zero (the extreme operand) against random ones,
 *                                   random exponents in both; the same control.
 *
 * x86-64 with AVX-512F only (the 512-bit kernels, rdtsc, lfence).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avx2.h"
#include "avx512.h"
#include "backend.h"
#include "bignum.h"
#include "ct_harness.h"
#include "welch.h"

const char bench_name[] = "bench_avx512_ct";

/* ---------------------------------------------------------------------------------------
 * cycles
 */
#define BATCHES 41
#define ITERS 500

/* Minimum TSC ticks and thread-CPU ns per call of a chain r = k(r, r) on mod. */
static void chain(ctbn_avx2_amm_x1_fn *amm, ctbn_avx2_sqr_fn *sqr, const ctbn_avx2_mod *mod,
                  const uint64_t *a, double *ticks, double *ns)
{
    _Alignas(64) uint64_t x[CTBN_AVX2_MAX_SPAN];
    *ticks = *ns = 1e18;
    for (int b = 0; b < BATCHES; b++) {
        memcpy(x, a, sizeof(x));
        double t0 = thread_ns();
        uint64_t c0 = __rdtsc();
        for (int i = 0; i < ITERS; i++) {
            if (sqr != NULL)
                sqr(x, x, mod);
            else
                amm(x, x, x, mod);
        }
        double c = (double)(__rdtsc() - c0) / ITERS, t = (thread_ns() - t0) / ITERS;
        *ticks = c < *ticks ? c : *ticks;
        *ns = t < *ns ? t : *ns;
    }
}

static void cycles_size(size_t bits)
{
    size_t n = bits / 64;
    ctbn_limb m[CTBN_MAX_LIMBS], x[CTBN_MAX_LIMBS + 1];
    ctbn_mont *ctx = make_modulus(n, m);
    ctbn_limb tmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS)];
    static ctbn_avx2_mod mz, m2;
    _Alignas(64) uint64_t a[CTBN_AVX2_MAX_SPAN], a2[CTBN_AVX2_MAX_SPAN];
    rand_limbs(x, n);
    x[n - 1] >>= 1;
    x[n] = 0;

    /* the kernels, whether or not the plan takes them at this size */
    ctbn_avx2_plan p;
    p.digits = ctbn_avx512_kernel_digits(n, &p.bits);
    ctbn_avx2_mod_init_friendly_with(&mz, ctx, p.digits, p.bits,
                                     ctbn_avx512_amm_for_z(p.digits, 1), tmp);
    ctbn_avx2_from_radix64(a, p.bits, p.digits, x, n);
    double tz, nz, ty, ny, tq, nq, tqy, nqy, ta, na, ts = 0, ns = 0;
    chain(ctbn_avx512_amm_for_z(p.digits, 1), NULL, &mz, a, &tz, &nz);
    chain(ctbn_avx512_amm_for_y(p.digits, 1), NULL, &mz, a, &ty, &ny);
    chain(NULL, ctbn_avx512_sqr_for_z(p.digits, 1), &mz, a, &tq, &nq);
    chain(NULL, ctbn_avx512_sqr_for_y(p.digits, 1), &mz, a, &tqy, &nqy);

    ctbn_avx2_plan q = ctbn_avx2_plan_private(n);
    if (q.friendly)
        ctbn_avx2_mod_init_friendly(&m2, ctx, tmp);
    else
        ctbn_avx2_mod_init(&m2, ctx, tmp);
    ctbn_avx2_from_radix64(a2, q.bits, q.digits, x, n);
    chain(q.amm, NULL, &m2, a2, &ta, &na);
    if (q.sqr != NULL)
        chain(NULL, q.sqr, &m2, a2, &ts, &ns);
    printf("| %4zu | %3zu, %zu | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) "
           "| %zu, %zu | %.0f (%.0f) | %.0f (%.0f) | %.2f |\n",
           bits, p.digits, (size_t)p.bits, tz, nz, ty, ny, tq, nq, tqy, nqy, q.digits,
           (size_t)q.bits, ta, na, ts, ns, (q.sqr != NULL ? ts : ta) / tq);
    fflush(stdout);
    free(ctx);
}

static void cycles(void)
{
    printf("TSC ticks (thread CPU ns) per call, chains of 500 dependent squarings, minimum of "
           "%d batches; friendly moduli where the modexp uses them\n\n", BATCHES);
    printf("| bits | avx512 D, W | AMM zmm | AMM ymm | sqr zmm | sqr ymm | avx2 D, W | avx2 AMM "
           "| avx2 sqr | avx2 sqr / zmm sqr |\n|---|---|---|---|---|---|---|---|---|---|\n");
    cycles_size(1024);
    cycles_size(1536);
    cycles_size(2048);
}

/* ---------------------------------------------------------------------------------------
 * modexp2
 */
static void modexp2_table(void)
{
    static const char *const names[] = { "avx512", "avx512y", "avx2", "adx" };
    enum { NN = 4, ROUNDS = 21 };
    static const size_t sizes[] = { 1024, 1536, 2048 };
    printf("Microseconds of thread CPU time per ctbn_modexp2_ct (two halves, full-length "
           "exponents), minimum / median of %d interleaved rounds\n\n| bits |", ROUNDS);
    for (size_t v = 0; v < NN; v++)
        printf(" %s |", names[v]);
    printf(" avx2 / avx512 (min) |\n|---|---|---|---|---|---|\n");
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        struct two_halves h;
        two_halves_init(&h, sizes[s]);
        double t[NN][ROUNDS];
        for (size_t r = 0; r < ROUNDS; r++) {
            for (size_t v = 0; v < NN; v++) {
                t[v][r] = 0;
                if (ctbn_backend_select(names[v]) != 0)
                    continue;
                double t0 = thread_ns();
                ctbn_modexp2_ct(h.c1, h.r1, h.b1, h.e1, h.bits, h.c2, h.r2, h.b2, h.e2, h.bits,
                                h.scratch);
                t[v][r] = (thread_ns() - t0) / 1e3;
            }
        }
        printf("| %zu |", h.bits);
        for (size_t v = 0; v < NN; v++) {
            qsort(t[v], ROUNDS, sizeof(double), cmp_double);
            printf(" %.0f / %.0f |", t[v][0], t[v][ROUNDS / 2]);
        }
        printf(" %.2f |\n", t[2][0] / t[0][0]);
        fflush(stdout);
        two_halves_free(&h);
    }
}

/* ---------------------------------------------------------------------------------------
 * ttest
 */

/* control: 0 = ctbn_avx512_modexp2_ct_z (constant time), 1 = the public-exponent path on
 * the same operands (variable time in e: the harness must see it). bases: the classes are
 * the bases (0: both zero, the extreme operand: every table entry but R' is zero, every
 * product of a zero digit; 1: random) with random exponents in both, instead of the
 * exponents. */
static void ttest_size(size_t bits, size_t samples, int control, int bases)
{
    struct two_halves h;
    struct ttest_samples s;
    two_halves_init(&h, bits);
    ttest_samples_init(&s, samples);
    for (size_t i = 0; i < samples; i++) {
        unsigned cls = ttest_draw(&s, i, &h);
        ttest_exponents(&s, &h, cls || bases);
        if (bases && !cls) {
            memset(h.b1, 0, h.n * sizeof(ctbn_limb));
            memset(h.b2, 0, h.n * sizeof(ctbn_limb));
        }
        uint64_t t0 = tsc_start();
        if (control)
            ctbn_modexp_public_vartime(h.c1, h.r1, h.b1, h.e1, h.n, h.scratch);
        else if (!ctbn_avx512_modexp2_ct_z(h.c1, h.r1, h.b1, h.e1, bits, h.c2, h.r2, h.b2,
                                           h.e2, bits, h.scratch))
            die("modexp2 not taken");
        s.t[i] = (double)(tsc_stop() - t0);
    }
    printf("| %4zu | %s | %7zu |", bits,
           control ? "control: public path"
           : bases ? "avx512 modexp2, zero vs random bases"
                   : "avx512 modexp2",
           samples);
    ttest_report(&s, 6);
    ttest_samples_free(&s);
    two_halves_free(&h);
}

static void ttest(size_t samples, int bases)
{
    /* the control's public path runs on the active backend: the same kernels */
    if (ctbn_backend_select("avx512") != 0)
        die("the avx512 backend is not usable on this CPU");
    printf("Welch |t|, fixed (zero) vs random %s, cropped at pooled percentiles; "
           "|t| < 4.5: no leak detected\n\n", bases ? "bases (random exponents)" : "exponents");
    printf("| bits | function | samples | all | p99.9 | p99 | p95 | p90 | p75 | p50 "
           "| max | verdict | median ticks |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    static const size_t sizes[] = { 1024, 1536, 2048 };
    for (size_t i = 0; i < 3; i++) {
        ttest_size(sizes[i], samples, 0, bases);
        ttest_size(sizes[i], samples / 10 > 1000 ? samples / 10 : samples, 1, 0);
    }
}

int main(int argc, char **argv)
{
    if (!(ctbn_cpu_features() & CTBN_CPU_AVX512F))
        die("this CPU (or OS) has no AVX-512F");
    if (argc >= 2 && strcmp(argv[1], "cycles") == 0) {
        cycles();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "modexp2") == 0) {
        modexp2_table();
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "ttest") == 0 || strcmp(argv[1], "ttest-base") == 0)) {
        size_t samples = argc >= 3 ? (size_t)strtoull(argv[2], NULL, 10) : 100000;
        if (samples < 100)
            die("at least 100 samples");
        ttest(samples, strcmp(argv[1], "ttest-base") == 0);
        return 0;
    }
    fprintf(stderr, "usage: %s cycles | modexp2 | ttest [SAMPLES] | ttest-base [SAMPLES]\n",
            argv[0]);
    return 2;
}
