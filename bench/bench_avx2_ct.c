/*
 * The AVX2 backend: kernel cycles and a statistical constant-time test.
 *
 *   bench_avx2_ct cycles            TSC ticks per call, minimum over 41 batches of 500 calls
 *                                   (the machine is shared: the minimum is the least
 *                                   disturbed figure): the AVX2 AMM one (x1) and the two CRT halves
 *                                   back to back (pair), the AVX2 squaring kernel (sqr,
 *                                   avx2_sqr.c) against the AMM squaring (x1 is a
 *                                   chain AMM(a, a)), and the ADX mont_mul / mont_sqr, at 1024,
 *                                   1536 and 2048 bits; at 1536 and 2048 bits also the AMM
 *                                   and the squaring on a Montgomery-friendly modulus
 *                                   (their friendly forms, the ones the modexp runs).
 *   bench_avx2_ct modexp2           CPU microseconds per ctbn_modexp2_ct (both CRT halves) on the
 *                                   avx2 and adx backends, interleaved, at 512 to 2048
 *                                   bits, minimum of 21 interleaved rounds: the measurements
 *                                   behind the avx2 backend's size table (avx2_modexp.c).
 *   bench_avx2_ct public            TSC ticks per public-exponent modexp (e = 3, 5, 17, 257,
 *                                   65537, a random 64-bit e) on the avx2 hook (without
 *                                   its size table) and on the generic path on the ADX
 *                                   kernels, interleaved, minimum and median of 21 rounds
 *                                   of 20 calls, at 1024 to 4096 bits; and R'^2 by
 *                                   doublings and two AMMs, the set-ups not taken: the
 *                                   measurements behind the hook's table
 *                                   (avx2_exp_public.c).
 *   bench_avx2_ct ttest [SAMPLES]   dudect-style Welch t-test on ctbn_avx2_modexp2_ct at 1024,
 *                                   1536 and 2048 bits (the last two on the Montgomery-friendly
 *                                   moduli), SAMPLES each (about 12 minutes at the
 *                                   default on Zen 3): class 0 = a
 *                                   fixed exponent (zero), class 1 = random exponents, classes
 *                                   interleaved at random, random bases in both; one
 *                                   rdtsc-timed call per sample. |t| uncropped and cropped at
 *                                   pooled percentiles; |t| < 4.5: no leak detected. Default
 *                                   100000 samples.
 *
 * Valgrind runs AVX2, so the ct suite (test/ct) covers this backend too; the t-test is the
 * second, statistical check asked for by issue 11.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avx2.h"
#include "backend.h"
#include "bignum.h"
#include "ct_harness.h"

const char bench_name[] = "bench_avx2_ct";

/* ---------------------------------------------------------------------------------------
 * cycles
 */
#define BATCHES 41
#define ITERS 500

static double min_of(const double *v, size_t k)
{
    double m = v[0];
    for (size_t i = 1; i < k; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* TSC ticks per instruction at full throughput (8 independent chains, min of 50 runs):
 * VPMULUDQ ymm (AVX2 kernels) or MULX (ADX kernels). The floors below use them. */
static double ticks_per_insn(int vector)
{
    double best = 1e9;
    for (int r = 0; r < 50; r++) {
        uint64_t t0 = __rdtsc();
        for (int i = 0; i < 2000; i++) {
            if (vector)
                __asm__ volatile(".rept 10\n"
                                 "vpmuludq %%ymm0,%%ymm1,%%ymm2\n vpmuludq %%ymm0,%%ymm1,%%ymm3\n"
                                 "vpmuludq %%ymm0,%%ymm1,%%ymm4\n vpmuludq %%ymm0,%%ymm1,%%ymm5\n"
                                 "vpmuludq %%ymm0,%%ymm1,%%ymm6\n vpmuludq %%ymm0,%%ymm1,%%ymm7\n"
                                 "vpmuludq %%ymm0,%%ymm1,%%ymm8\n vpmuludq %%ymm0,%%ymm1,%%ymm9\n"
                                 ".endr\n" ::: "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                                 "xmm8", "xmm9");
            else
                __asm__ volatile("mov %%rax,%%rdx\n.rept 10\n"
                                 "mulx %%rbx,%%r8,%%r9\n mulx %%rcx,%%r10,%%r11\n"
                                 "mulx %%rsi,%%r12,%%r13\n mulx %%rdi,%%r14,%%r15\n"
                                 "mulx %%rbx,%%r8,%%r9\n mulx %%rcx,%%r10,%%r11\n"
                                 "mulx %%rsi,%%r12,%%r13\n mulx %%rdi,%%r14,%%r15\n"
                                 ".endr\n" ::: "rdx", "r8", "r9", "r10", "r11", "r12", "r13",
                                 "r14", "r15");
        }
        double t = (double)(__rdtsc() - t0) / (2000 * 80.0);
        best = t < best ? t : best;
    }
    return best;
}

static double vpmuludq_ticks, mulx_ticks;

static void cycles_size(size_t bits)
{
    size_t n = bits / 64, digits = ctbn_avx2_digits(n);
    ctbn_limb m1[CTBN_MAX_LIMBS], m2[CTBN_MAX_LIMBS], tmp[CTBN_MAX_LIMBS];
    ctbn_mont *c1 = make_modulus(n, m1), *c2 = make_modulus(n, m2);
    ctbn_avx2_mod *mod1 = aligned_alloc(32, sizeof(*mod1));
    ctbn_avx2_mod *mod2 = aligned_alloc(32, sizeof(*mod2));
    if (mod1 == NULL || mod2 == NULL)
        die("out of memory");
    ctbn_avx2_mod_init(mod1, c1, tmp);
    ctbn_avx2_mod_init(mod2, c2, tmp);
    _Alignas(32) uint64_t a1[CTBN_AVX2_MAX_SPAN], a2[CTBN_AVX2_MAX_SPAN];
    memcpy(a1, mod1->rr, sizeof(a1));
    memcpy(a2, mod2->rr, sizeof(a2));
    ctbn_limb x[CTBN_MAX_LIMBS], y[CTBN_MAX_LIMBS];
    memcpy(x, c1->rr, n * sizeof(ctbn_limb));
    ctbn_mont_one(c1, y);
    ctbn_avx2_amm_x1_fn *x1 = ctbn_avx2_amm_x1_for(digits);
    ctbn_avx2_sqr_fn *sq = ctbn_avx2_sqr_for(digits);
    _Alignas(32) uint64_t a3[CTBN_AVX2_MAX_SPAN];
    memcpy(a3, mod1->rr, sizeof(a3));
    /* the friendly forms on c1's friendly multiple, where the modexp takes them */
    ctbn_avx2_amm_x1_fn *fx1 = ctbn_avx2_ammf_x1_for(digits);
    ctbn_avx2_sqr_fn *fsq = ctbn_avx2_sqrf_for(digits);
    ctbn_avx2_mod *fmod = aligned_alloc(32, sizeof(*fmod));
    if (fmod == NULL)
        die("out of memory");
    _Alignas(32) uint64_t f1[CTBN_AVX2_MAX_SPAN], f2[CTBN_AVX2_MAX_SPAN];
    if (fx1 != NULL && fsq != NULL) {
        ctbn_limb ftmp[CTBN_AVX2_FRIENDLY_SCRATCH(CTBN_MAX_LIMBS)];
        ctbn_avx2_mod_init_friendly(fmod, c1, ftmp);
        memcpy(f1, fmod->rr, sizeof(f1));
        memcpy(f2, fmod->rr, sizeof(f2));
    }
    double t[7][BATCHES];
    for (int k = 0; k < BATCHES; k++) {
        uint64_t t0 = __rdtsc();
        for (int i = 0; i < ITERS; i++)
            x1(a1, a1, a1, mod1);
        uint64_t t1 = __rdtsc();
        for (int i = 0; i < ITERS; i++) {
            x1(a1, a1, a1, mod1);
            x1(a2, a2, a2, mod2);
        }
        uint64_t t2 = __rdtsc();
        for (int i = 0; i < ITERS; i++)
            ctbn_adx_mont_mul(c1, x, x, y);
        uint64_t t3 = __rdtsc();
        for (int i = 0; i < ITERS; i++)
            ctbn_adx_mont_sqr(c1, x, x);
        uint64_t t4 = __rdtsc();
        for (int i = 0; i < ITERS; i++)
            sq(a3, a3, mod1);
        uint64_t t5 = __rdtsc();
        t[4][k] = (double)(t5 - t4) / ITERS;
        t[5][k] = t[6][k] = 0;
        if (fx1 != NULL && fsq != NULL) {
            uint64_t u0 = __rdtsc();
            for (int i = 0; i < ITERS; i++)
                fx1(f1, f1, f1, fmod);
            uint64_t u1 = __rdtsc();
            for (int i = 0; i < ITERS; i++)
                fsq(f2, f2, fmod);
            uint64_t u2 = __rdtsc();
            t[5][k] = (double)(u1 - u0) / ITERS;
            t[6][k] = (double)(u2 - u1) / ITERS;
        }
        t[0][k] = (double)(t1 - t0) / ITERS;
        t[1][k] = (double)(t2 - t1) / ITERS;
        t[2][k] = (double)(t3 - t2) / ITERS;
        t[3][k] = (double)(t4 - t3) / ITERS;
    }
    /* floors: the AMM's D^2 / 2 VPMULUDQ (four products each: D^2 for a b, D^2 for m y),
     * the ADX multiplication's 2 n^2 MULX, at the throughputs measured above */
    double vfloor = (double)(digits * digits) / 2 * vpmuludq_ticks;
    double mfloor = 2.0 * (double)(n * n) * mulx_ticks;
    /* the squaring's floor: D(D+1)/2 + D^2 products, four per VPMULUDQ */
    double sfloor = (double)(digits * (digits + 1) / 2 + digits * digits) / 4 * vpmuludq_ticks;
    char fa[16] = "-", fs[16] = "-";
    if (fx1 != NULL && fsq != NULL) {
        snprintf(fa, sizeof(fa), "%.0f", min_of(t[5], BATCHES));
        snprintf(fs, sizeof(fs), "%.0f", min_of(t[6], BATCHES));
    }
    printf("| %4zu | %2zu | %6.0f | %6.0f (%5.0f each) | %6s | %5.0f | %6.0f | %6s | %4.2f "
           "| %5.0f | %6.0f | %6.0f | %5.0f |\n",
           bits, digits, min_of(t[0], BATCHES), min_of(t[1], BATCHES),
           min_of(t[1], BATCHES) / 2, fa, vfloor, min_of(t[4], BATCHES), fs,
           min_of(t[4], BATCHES) / min_of(t[0], BATCHES), sfloor, min_of(t[2], BATCHES),
           min_of(t[3], BATCHES), mfloor);
    fflush(stdout);
    free(fmod);
    free(mod1);
    free(mod2);
    free(c1);
    free(c2);
}

static void cycles(void)
{
    if (ctbn_backend_select("avx2") != 0)
        die("the avx2 backend is not usable on this CPU");
    vpmuludq_ticks = ticks_per_insn(1);
    mulx_ticks = ticks_per_insn(0);
    printf("TSC ticks per call, minimum of %d batches of %d (the TSC runs at the nominal "
           "clock, not the core's); floors: the AMM's D^2/2 VPMULUDQ and the squaring's "
           "(D(D+1)/2 + D^2)/4 at %.2f per tick, the ADX multiplication's 2 n^2 MULX at "
           "%.2f per tick (both measured here); /x1: sqr over AMM x1; friendly: the kernel's "
           "friendly form on the modulus' Montgomery-friendly multiple (the modexp's kernels "
           "at 1536 and 2048 bits)\n\n",
           BATCHES, ITERS, 1 / vpmuludq_ticks, 1 / mulx_ticks);
    printf("| bits | D  | AMM x1 | AMM pair            | friendly | floor | sqr    | friendly "
           "| /x1  | floor | adx mul | adx sqr | floor |\n");
    printf("|------|----|--------|---------------------|----------|-------|--------|----------"
           "|------|-------|---------|---------|-------|\n");
    static const size_t sizes[] = { 1024, 1536, 2048 };
    for (size_t i = 0; i < 3; i++)
        cycles_size(sizes[i]);
}

/* ---------------------------------------------------------------------------------------
 * modexp2: both CRT halves, full-length exponents, TSC ticks, minimum of interleaved rounds
 */
static void modexp2_table(void)
{
    /* not ifma: run between the others in one process it made them 3-8x slower on Zen 4
     * (upper register state left dirty); bench_ifma_ct measures it */
    static const char *const names[] = { "avx2", "adx" };
    static const size_t sizes[] = { 512, 1024, 1536, 2048 };
    const size_t nn = sizeof(names) / sizeof(names[0]), rounds = 21;
    printf("Microseconds of thread CPU time per ctbn_modexp2_ct (two halves of the size "
           "shown, full-length exponents), minimum of %zu interleaved rounds (CPU time, not "
           "the TSC: on a shared machine a run of milliseconds is usually preempted)\n\n"
           "| bits |", rounds);
    for (size_t v = 0; v < nn; v++)
        printf(" %s |", names[v]);
    printf(" adx / avx2 |\n|---|");
    for (size_t v = 0; v <= nn; v++)
        printf("---|");
    printf("\n");
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        struct two_halves h;
        two_halves_init(&h, sizes[s]);
        double best[2] = { 0, 0 };
        for (size_t r = 0; r < rounds; r++) {
            for (size_t v = 0; v < nn; v++) {
                if (ctbn_backend_select(names[v]) != 0)
                    continue;
                double t0 = thread_ns();
                ctbn_modexp2_ct(h.c1, h.r1, h.b1, h.e1, h.bits, h.c2, h.r2, h.b2, h.e2, h.bits,
                                h.scratch);
                double t = (thread_ns() - t0) / 1e3;
                best[v] = (best[v] == 0 || t < best[v]) ? t : best[v];
            }
        }
        printf("| %zu |", h.bits);
        for (size_t v = 0; v < nn; v++)
            printf(" %.0f |", best[v]);
        printf(" %.2f |\n", best[1] / best[0]);
        fflush(stdout);
        two_halves_free(&h);
    }
}

/* ---------------------------------------------------------------------------------------
 * public: the public-exponent path, avx2 hook against the generic path on the ADX kernels
 */
#define PUB_ROUNDS 21
#define PUB_ITERS 20

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_u64(uint64_t *v, size_t k)
{
    qsort(v, k, sizeof(uint64_t), cmp_u64);
    return (double)v[k / 2];
}

static uint64_t min_u64(const uint64_t *v, size_t k)
{
    uint64_t m = v[0];
    for (size_t i = 1; i < k; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static void public_size(size_t bits)
{
    size_t n = bits / 64, digits = ctbn_avx2_public_digits(n);
    ctbn_limb m[CTBN_MAX_LIMBS], b[CTBN_MAX_LIMBS], r1[CTBN_MAX_LIMBS], r2[CTBN_MAX_LIMBS];
    ctbn_mont *ctx = make_modulus(n, m);
    rand_base(b, n);
    ctbn_limb *scratch = malloc(CTBN_EXP_VARTIME_SCRATCH(n) * sizeof(ctbn_limb));
    ctbn_avx2_mod *mod = aligned_alloc(32, sizeof(*mod));
    if (scratch == NULL || mod == NULL)
        die("out of memory");
    const ctbn_backend *adx = ctbn_backend_adx();

    /* the set-ups the hook does not use: R'^2 by doublings (ctbn_avx2_mod_init), and the
     * two AMMs an entry by three AMMs adds (the IFMA path's) */
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    ctbn_avx2_amm_x1_fn *x1 = ctbn_avx2_amm_x1_for(digits);
    ctbn_avx2_mod_init(mod, ctx, tmp);
    _Alignas(32) uint64_t a[CTBN_AVX2_MAX_SPAN];
    memcpy(a, mod->rr, sizeof(a));
    uint64_t ti[PUB_ROUNDS], ta[PUB_ROUNDS];
    for (int k = 0; k < PUB_ROUNDS; k++) {
        uint64_t t0 = __rdtsc();
        for (int i = 0; i < PUB_ITERS; i++)
            ctbn_avx2_mod_init(mod, ctx, tmp);
        uint64_t t1 = __rdtsc();
        for (int i = 0; i < PUB_ITERS; i++) {
            x1(a, a, mod->rr, mod);
            x1(a, a, a, mod);
        }
        uint64_t t2 = __rdtsc();
        ti[k] = (t1 - t0) / PUB_ITERS;
        ta[k] = (t2 - t1) / PUB_ITERS;
    }
    printf("| %4zu | set-up | mod_init (%zu doublings) | %llu | 2 AMMs | %llu | |\n", bits,
           2 * (size_t)ctbn_avx2_public_digit_bits(n) * digits - 128 * n,
           (unsigned long long)min_u64(ti, PUB_ROUNDS),
           (unsigned long long)min_u64(ta, PUB_ROUNDS));

    /* exponents: e = 3, 5, 17, 257, 65537 and a random odd 64-bit one */
    ctbn_limb es[6];
    es[0] = 3;
    es[1] = 5;
    es[2] = 17;
    es[3] = 257;
    es[4] = 65537;
    rand_limbs(&es[5], 1);
    es[5] |= (ctbn_limb)1 << 63 | 1;
    for (size_t j = 0; j < 6; j++) {
        uint64_t tv[PUB_ROUNDS], tg[PUB_ROUNDS];
        for (int k = 0; k < PUB_ROUNDS; k++) {
            /* interleaved: avx2 then adx, alternating the order every round */
            for (int side = 0; side < 2; side++) {
                int avx2 = (side ^ k) & 1;
                uint64_t t0 = __rdtsc();
                for (int i = 0; i < PUB_ITERS; i++) {
                    if (avx2) {
                        if (!ctbn_avx2_exp_public_any(ctx, r1, b, &es[j], 1, scratch))
                            die("avx2 public path refused a size with a kernel");
                    } else
                        ctbn_modexp_public_vartime_generic(adx, ctx, r2, b, &es[j], 1,
                                                           scratch);
                }
                uint64_t t = (__rdtsc() - t0) / PUB_ITERS;
                if (avx2)
                    tv[k] = t;
                else
                    tg[k] = t;
            }
        }
        if (memcmp(r1, r2, n * sizeof(ctbn_limb)) != 0)
            die("avx2 and adx results differ");
        uint64_t mv = min_u64(tv, PUB_ROUNDS), mg = min_u64(tg, PUB_ROUNDS);
        double dv = median_u64(tv, PUB_ROUNDS), dg = median_u64(tg, PUB_ROUNDS);
        printf("| %4zu | %zu bits | e = %s%llx | %llu (med %.0f) | | %llu (med %.0f) | %.2f (med "
               "%.2f) |\n",
               bits, ctbn_bitlen_vartime(&es[j], 1), "0x", (unsigned long long)es[j],
               (unsigned long long)mv, dv, (unsigned long long)mg, dg, (double)mg / (double)mv,
               dg / dv);
        fflush(stdout);
    }
    free(scratch);
    free(mod);
    free(ctx);
}

static void public_table(void)
{
    if (ctbn_backend_select("avx2") != 0)
        die("the avx2 backend is not usable on this CPU");
    printf("TSC ticks per call, minimum (and median) of %d interleaved rounds of %d calls: "
           "ctbn_avx2_exp_public_any (the avx2 hook without its size table) against "
           "ctbn_modexp_public_vartime_generic on the adx backend; random base, exactly "
           "64 n-bit modulus. First row per size: R'^2 by single doublings "
           "(ctbn_avx2_mod_init) and the two extra AMMs of an entry by three AMMs (the IFMA "
           "path's), the alternatives to the hook's shift-and-reduce set-up (which is what "
           "its e = 3 figure spends beyond three AMMs).\n\n",
           PUB_ROUNDS, PUB_ITERS);
    printf("| bits | e bits | e | avx2 | | adx generic | adx/avx2 |\n");
    printf("|------|--------|---|------|-|-------------|----------|\n");
    static const size_t sizes[] = { 1024, 1536, 2048, 3072, 4096 };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        public_size(sizes[i]);
}

/* ---------------------------------------------------------------------------------------
 * ttest
 */

static void ttest_size(size_t bits, size_t samples)
{
    struct two_halves h;
    struct ttest_samples s;
    two_halves_init(&h, bits);
    ttest_samples_init(&s, samples);
    for (size_t i = 0; i < samples; i++) {
        ttest_exponents(&s, &h, ttest_draw(&s, i, &h));
        uint64_t t0 = tsc_start();
        if (!ctbn_avx2_modexp2_ct(h.c1, h.r1, h.b1, h.e1, bits, h.c2, h.r2, h.b2, h.e2, bits,
                                  h.scratch))
            die("modexp2 not taken");
        s.t[i] = (double)(tsc_stop() - t0);
    }
    printf("| %4zu | %7zu |", bits, samples);
    ttest_report(&s, 6);
    ttest_samples_free(&s);
    two_halves_free(&h);
}

static void ttest(size_t samples)
{
    if (ctbn_backend_select("avx2") != 0)
        die("the avx2 backend is not usable on this CPU");
    printf("Welch |t|, fixed (zero) vs random exponents, ctbn_avx2_modexp2_ct, cropped at "
           "pooled percentiles; |t| < 4.5: no leak detected\n\n");
    printf("| bits | samples | all    | p99.9  | p99    | p95    | p90    | p75    | p50    "
           "| max    | verdict | median ticks |\n");
    printf("|------|---------|--------|--------|--------|--------|--------|--------|--------"
           "|--------|---------|--------------|\n");
    ttest_size(1024, samples);
    ttest_size(1536, samples);
    ttest_size(2048, samples);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "cycles") == 0) {
        cycles();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "modexp2") == 0) {
        modexp2_table();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "public") == 0) {
        public_table();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "ttest") == 0) {
        size_t samples = argc >= 3 ? (size_t)strtoull(argv[2], NULL, 10) : 100000;
        if (samples < 100)
            die("at least 100 samples");
        ttest(samples);
        return 0;
    }
    fprintf(stderr, "usage: %s cycles | modexp2 | public | ttest [SAMPLES]\n", argv[0]);
    return 2;
}
