/*
 * The AVX-512 IFMA backend: its speed and a statistical constant-time test.
 *
 *   bench_ifma_ct speed [--quick]   ns per constant-time modexp (one half) and modexp2 (both
 *                                   halves) at 512/1024/1536/2048 bits, full-length exponents:
 *                                   ifma, ifmaz, adx, portable and OpenSSL's
 *                                   BN_mod_exp_mont_consttime, interleaved rounds, process
 *                                   CPU time, medians; and TSC ticks per AMM and AMS.
 *   bench_ifma_ct cycles            only the TSC ticks per AMM and AMS kernel call.
 *   bench_ifma_ct ttest [SAMPLES]   dudect-style Welch t-test on ctbn_ifma_modexp2_ct at 512,
 *                                   1024 and 2048 bits (and ctbn_ifmaz_modexp2_ct at 512 and
 *                                   1024, where its 512-bit kernels differ): class 0 = a fixed exponent (zero), class 1
 *                                   = random exponents, classes interleaved at random, bases
 *                                   random in both; one rdtsc-timed call per sample. Prints
 *                                   |t| uncropped and cropped at several percentiles (the
 *                                   largest counts): |t| < 4.5 means no leak detected. Then
 *                                   the same on a deliberately leaky copy of the modexp (it
 *                                   skips the multiplication for a zero window and reads only
 *                                   the selected table entry) to show the test can see a leak.
 *                                   Default 100000 samples per size and variant.
 *
 * Valgrind cannot decode AVX-512, hence this statistical test for the IFMA path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* x86-64 only (bench/meson.build builds it nowhere else): IFMA kernels, rdtsc, lfence. */
#if !defined(__x86_64__)
#error "bench_ifma_ct measures the x86-64 AVX-512 IFMA backend; build it only for x86-64"
#endif

#include <openssl/bn.h>

#include "backend.h"
#include "bignum.h"
#include "ct_harness.h"
#include "ifma.h"

const char bench_name[] = "bench_ifma_ct";

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------
 * speed
 */

/* The engine's operands and the same numbers as OpenSSL BIGNUMs. */
struct fixture {
    struct two_halves h;
    BN_CTX *bctx;
    BN_MONT_CTX *mont1, *mont2;
    BIGNUM *bm1, *bm2, *bb1, *bb2, *be1, *be2, *br;
};

static BIGNUM *bn_of(const ctbn_limb *x, size_t n)
{
    uint8_t buf[8 * CTBN_MAX_LIMBS];
    ctbn_to_bytes(buf, 8 * n, x, n);
    BIGNUM *r = BN_bin2bn(buf, (int)(8 * n), NULL);
    if (r == NULL)
        die("BN_bin2bn");
    return r;
}

static void fixture_init(struct fixture *f, size_t bits)
{
    struct two_halves *h = &f->h;
    two_halves_init(h, bits);
    f->bctx = BN_CTX_new();
    f->bm1 = bn_of(h->m1, h->n);
    f->bm2 = bn_of(h->m2, h->n);
    f->bb1 = bn_of(h->b1, h->n);
    f->bb2 = bn_of(h->b2, h->n);
    f->be1 = bn_of(h->e1, h->n);
    f->be2 = bn_of(h->e2, h->n);
    f->br = BN_new();
    f->mont1 = BN_MONT_CTX_new();
    f->mont2 = BN_MONT_CTX_new();
    if (f->bctx == NULL || f->br == NULL || f->mont1 == NULL || f->mont2 == NULL ||
        !BN_MONT_CTX_set(f->mont1, f->bm1, f->bctx) ||
        !BN_MONT_CTX_set(f->mont2, f->bm2, f->bctx))
        die("fixture");
}

/* One operation of a side: `two` = both halves. */
typedef void op_fn(struct fixture *f, int two);

static void op_engine(struct fixture *f, int two)
{
    struct two_halves *h = &f->h;
    if (two)
        ctbn_modexp2_ct(h->c1, h->r1, h->b1, h->e1, h->bits, h->c2, h->r2, h->b2, h->e2, h->bits,
                        h->scratch);
    else
        ctbn_modexp_ct(h->c1, h->r1, h->b1, h->e1, h->bits, h->scratch);
}

static void op_openssl(struct fixture *f, int two)
{
    if (!BN_mod_exp_mont_consttime(f->br, f->bb1, f->be1, f->bm1, f->bctx, f->mont1))
        die("BN_mod_exp_mont_consttime");
    if (two && !BN_mod_exp_mont_consttime(f->br, f->bb2, f->be2, f->bm2, f->bctx, f->mont2))
        die("BN_mod_exp_mont_consttime");
}

struct side {
    const char *name; /* backend name, or "openssl" */
    op_fn *op;
};

static void run_op(const struct side *s, struct fixture *f, int two)
{
    if (s->op == op_engine && ctbn_backend_select(s->name) != 0)
        die("backend vanished");
    s->op(f, two);
}

static void speed_size(size_t bits, size_t rounds, const struct side *sides, size_t nsides)
{
    struct fixture f;
    fixture_init(&f, bits);
    /* all sides agree before timing */
    ctbn_limb want[CTBN_MAX_LIMBS];
    for (size_t s = 0; s < nsides; s++) {
        if (sides[s].op != op_engine)
            continue;
        run_op(&sides[s], &f, 1);
        if (s == 0)
            memcpy(want, f.h.r1, f.h.n * sizeof(ctbn_limb));
        else if (memcmp(want, f.h.r1, f.h.n * sizeof(ctbn_limb)) != 0)
            die("backends disagree");
    }
    for (int two = 0; two < 2; two++) {
        double t[8][64];
        size_t reps = two ? 4 : 8;
        for (size_t k = 0; k < rounds; k++) {
            for (size_t s = 0; s < nsides; s++) {
                run_op(&sides[s], &f, two); /* warm, and the backend selected */
                double t0 = cpu_ns();
                for (size_t i = 0; i < reps; i++)
                    sides[s].op(&f, two);
                t[s][k] = (cpu_ns() - t0) / (double)reps;
            }
        }
        printf("| %4zu | %-7s |", bits, two ? "modexp2" : "modexp");
        double ref = 0;
        for (size_t s = 0; s < nsides; s++) {
            double ns = median(t[s], rounds);
            if (s == 0)
                ref = ns;
            printf(" %9.0f (%4.2fx) |", ns / 1000.0 * 1000.0, ns / ref);
        }
        printf("\n");
        fflush(stdout);
    }
}

/* Cycles (rdtsc, TSC ticks) per AMM, one and two at a time, median of batches; zmm: the
 * ifmaz backend's 512-bit kernels (a row "D z" where they differ, at 10 and 20 digits). */
static void amm_cycles(size_t bits, int zmm)
{
    size_t n = bits / 64, digits = ctbn_ifma_digits(n);
    ctbn_limb m1[CTBN_MAX_LIMBS], m2[CTBN_MAX_LIMBS], tmp[CTBN_MAX_LIMBS];
    ctbn_mont *c1 = make_modulus(n, m1), *c2 = make_modulus(n, m2);
    ctbn_ifma_mod *mod1 = aligned_alloc(64, sizeof(*mod1)), *mod2 = aligned_alloc(64, sizeof(*mod2));
    if (mod1 == NULL || mod2 == NULL)
        die("out of memory");
    ctbn_ifma_mod_init(mod1, c1, tmp);
    ctbn_ifma_mod_init(mod2, c2, tmp);
    _Alignas(64) uint64_t a1[CTBN_IFMA_MAX_LANES], a2[CTBN_IFMA_MAX_LANES];
    memcpy(a1, mod1->rr, sizeof(a1));
    memcpy(a2, mod2->rr, sizeof(a2));
    ctbn_ifma_amm_x1_fn *x1 = zmm ? ctbn_ifma_amm_x1_zmm_for(digits) : ctbn_ifma_amm_x1_for(digits);
    ctbn_ifma_amm_x2_fn *x2 = zmm ? ctbn_ifma_amm_x2_zmm_for(digits) : ctbn_ifma_amm_x2_for(digits);
    ctbn_ifma_ams_x1_fn *s1 = zmm ? ctbn_ifma_ams_x1_zmm_for(digits) : ctbn_ifma_ams_x1_for(digits);
    ctbn_ifma_ams_x2_fn *s2 = zmm ? ctbn_ifma_ams_x2_zmm_for(digits) : ctbn_ifma_ams_x2_for(digits);
    double c_x1[31], c_x2[31], c_s1[31], c_s2[31];
    const int iters = 2000;
    for (int k = 0; k < 31; k++) {
        uint64_t t0 = __rdtsc();
        for (int i = 0; i < iters; i++)
            x1(a1, a1, a1, mod1);
        uint64_t t1 = __rdtsc();
        for (int i = 0; i < iters; i++)
            x2(a1, a1, a1, mod1, a2, a2, a2, mod2);
        uint64_t t2 = __rdtsc();
        for (int i = 0; i < iters; i++)
            s1(a1, a1, mod1);
        uint64_t t3 = __rdtsc();
        for (int i = 0; i < iters; i++)
            s2(a1, a1, mod1, a2, a2, mod2);
        uint64_t t4 = __rdtsc();
        c_x1[k] = (double)(t1 - t0) / iters;
        c_x2[k] = (double)(t2 - t1) / iters;
        c_s1[k] = (double)(t3 - t2) / iters;
        c_s2[k] = (double)(t4 - t3) / iters;
    }
    double cx1 = median(c_x1, 31), cx2 = median(c_x2, 31);
    double cs1 = median(c_s1, 31), cs2 = median(c_s2, 31);
    printf("| %4zu | %2zu%s | %6.0f | %6.0f (%5.0f each) | %6.0f | %6.0f (%5.0f each) |\n",
           bits, digits, zmm ? " z" : "", cx1, cx2, cx2 / 2, cs1, cs2, cs2 / 2);
    free(mod1);
    free(mod2);
    free(c1);
    free(c2);
}

static void speed(int quick)
{
    static const struct side all[] = {
        { "ifma", op_engine },
        { "ifmaz", op_engine },
        { "adx", op_engine },
        { "portable", op_engine },
        { "openssl", op_openssl },
    };
    struct side sides[5];
    size_t nsides = 0;
    for (size_t i = 0; i < 5; i++) {
        if (all[i].op == op_engine && ctbn_backend_select(all[i].name) != 0) {
            fprintf(stderr, "backend %s not usable here: left out\n", all[i].name);
            continue;
        }
        sides[nsides++] = all[i];
    }
    if (nsides == 0 || strcmp(sides[0].name, "ifma") != 0)
        die("the ifma backend is not usable on this CPU");
    size_t rounds = quick ? 5 : 15;
    printf("ns per operation (median of %zu interleaved rounds, process CPU time); modexp2 = "
           "both halves; ratio = side / ifma\n\n", rounds);
    printf("| bits | op      |");
    for (size_t s = 0; s < nsides; s++)
        printf(" %-16s |", sides[s].name);
    printf("\n|------|---------|");
    for (size_t s = 0; s < nsides; s++)
        printf("------------------|");
    printf("\n");
    static const size_t sizes[] = { 512, 1024, 1536, 2048 };
    for (size_t i = 0; i < 4; i++)
        speed_size(sizes[i], rounds, sides, nsides);

    printf("\nTSC ticks per multiplication (AMM) and squaring (AMS), one (x1) and two at a "
           "time (x2); the TSC runs at the nominal clock, not the core's\n\n");
    printf("| bits | D  | AMM x1 | AMM x2              | AMS x1 | AMS x2              |\n");
    printf("|------|----|--------|---------------------|--------|---------------------|\n");
    for (size_t i = 0; i < 4; i++)
        amm_cycles(sizes[i], 0);
}

/* ---------------------------------------------------------------------------------------
 * ttest
 */


/*
 * The leaky copy: the same arithmetic as ifma_modexp.c on the same kernels, but the table
 * lookup reads only the selected entry (secret memory index) and a zero window skips its
 * multiplication (secret branch). Two halves, full-length exponents of e_bits, window 5.
 */
static void leaky_modexp2(const ctbn_mont *c1, ctbn_limb *r1, const ctbn_limb *b1,
                          const ctbn_limb *e1, const ctbn_mont *c2, ctbn_limb *r2,
                          const ctbn_limb *b2, const ctbn_limb *e2, size_t e_bits,
                          uint64_t *table1, uint64_t *table2)
{
    size_t n = c1->n, digits = ctbn_ifma_digits(n), lanes = CTBN_IFMA_LANES(digits);
    ctbn_ifma_amm_x2_fn *amm = ctbn_ifma_amm_x2_for(digits);
    static ctbn_ifma_mod mod1, mod2;
    static _Alignas(64) uint64_t one[CTBN_IFMA_MAX_LANES] = { 1 };
    _Alignas(64) uint64_t x1[CTBN_IFMA_MAX_LANES], x2[CTBN_IFMA_MAX_LANES];
    _Alignas(64) uint64_t acc1[CTBN_IFMA_MAX_LANES], acc2[CTBN_IFMA_MAX_LANES];
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    ctbn_ifma_mod_init(&mod1, c1, tmp);
    ctbn_ifma_mod_init(&mod2, c2, tmp);
    ctbn_ifma_from_radix64(x1, digits, b1, n);
    ctbn_ifma_from_radix64(x2, digits, b2, n);
#define T1(i) (table1 + (size_t)(i) * lanes)
#define T2(i) (table2 + (size_t)(i) * lanes)
    amm(T1(0), mod1.rr, one, &mod1, T2(0), mod2.rr, one, &mod2);
    amm(T1(1), x1, mod1.rr, &mod1, T2(1), x2, mod2.rr, &mod2);
    for (size_t i = 2; i < 32; i++)
        amm(T1(i), T1(i - 1), T1(1), &mod1, T2(i), T2(i - 1), T2(1), &mod2);
    size_t windows = (e_bits + 4) / 5;
    memcpy(acc1, T1(0), lanes * 8);
    memcpy(acc2, T2(0), lanes * 8);
    for (size_t k = windows; k-- > 0;) {
        for (int s = 0; s < 5; s++)
            amm(acc1, acc1, acc1, &mod1, acc2, acc2, acc2, &mod2);
        size_t pos = 5 * k, limb = pos / 64, sh = pos % 64;
        uint64_t w1 = e1[limb] >> sh, w2 = e2[limb] >> sh;
        if (sh > 59 && limb + 1 < n) {
            w1 |= e1[limb + 1] << (64 - sh);
            w2 |= e2[limb + 1] << (64 - sh);
        }
        w1 &= 31;
        w2 &= 31;
        if (w1 | w2) /* LEAK: a secret branch */
            amm(acc1, acc1, T1(w1), &mod1, acc2, acc2, T2(w2), &mod2); /* LEAK: index */
    }
    amm(acc1, acc1, one, &mod1, acc2, acc2, one, &mod2);
    ctbn_ifma_to_radix64(r1, n, acc1, digits);
    ctbn_csub_mod(r1, 0, c1->m, n);
    ctbn_ifma_to_radix64(r2, n, acc2, digits);
    ctbn_csub_mod(r2, 0, c2->m, n);
#undef T1
#undef T2
}

/* What a t-test row times: the ifma or ifmaz two-half hook, their single-modulus hooks
 * (the x1 kernels), or the deliberately leaky copy. */
enum { VARIANT_IFMA, VARIANT_IFMAZ, VARIANT_IFMA_X1, VARIANT_IFMAZ_X1, VARIANT_LEAKY };

static void ttest_size(size_t bits, size_t samples, int variant)
{
    struct two_halves h;
    struct ttest_samples s;
    two_halves_init(&h, bits);
    ttest_samples_init(&s, samples);
    uint64_t *tab1 = aligned_alloc(64, 32 * 40 * 8), *tab2 = aligned_alloc(64, 32 * 40 * 8);
    if (tab1 == NULL || tab2 == NULL)
        die("out of memory");

    for (size_t i = 0; i < samples; i++) {
        /* inputs are prepared outside the timed region; the fixed class: exponent zero */
        ttest_exponents(&s, &h, ttest_draw(&s, i, &h));
        uint64_t t0 = tsc_start();
        if (variant == VARIANT_LEAKY)
            leaky_modexp2(h.c1, h.r1, h.b1, h.e1, h.c2, h.r2, h.b2, h.e2, bits, tab1, tab2);
        else if (variant == VARIANT_IFMA_X1)
            ctbn_ifma_modexp_ct(h.c1, h.r1, h.b1, h.e1, bits, h.scratch);
        else if (variant == VARIANT_IFMAZ_X1)
            ctbn_ifmaz_modexp_ct(h.c1, h.r1, h.b1, h.e1, bits, h.scratch);
        else if (variant == VARIANT_IFMAZ)
            ctbn_ifmaz_modexp2_ct(h.c1, h.r1, h.b1, h.e1, bits, h.c2, h.r2, h.b2, h.e2, bits,
                                  h.scratch);
        else
            ctbn_ifma_modexp2_ct(h.c1, h.r1, h.b1, h.e1, bits, h.c2, h.r2, h.b2, h.e2, bits,
                                 h.scratch);
        s.t[i] = (double)(tsc_stop() - t0);
    }

    static const char *const label[] = { "ifma", "ifmaz", "ifma1", "ifmaz1", "leaky" };
    printf("| %4zu | %-6s | %7zu |", bits, label[variant], samples);
    ttest_report(&s, 7);
    ttest_samples_free(&s);
    free(tab1);
    free(tab2);
    two_halves_free(&h);
}

/* bits: one modulus size of the three, or 0 for all. */
static void ttest(size_t samples, size_t bits)
{
    if (ctbn_backend_select("ifma") != 0)
        die("the ifma backend is not usable on this CPU");
    printf("Welch |t|, fixed (zero) vs random exponent, %zu samples per row, cropped at "
           "pooled percentiles; |t| < 4.5: no leak detected\n\n", samples);
    printf("| bits | kernel | samples | all     | p99.9   | p99     | p95     | p90     | p75  "
           "   | p50     | max     | verdict | median ticks |\n");
    printf("|------|--------|---------|---------|---------|---------|---------|---------|------"
           "---|---------|---------|---------|--------------|\n");
    static const size_t sizes[] = { 512, 1024, 2048 };
    for (size_t i = 0; i < 3; i++) {
        if (bits != 0 && sizes[i] != bits)
            continue;
        ttest_size(sizes[i], samples, VARIANT_IFMA);
        /* the ifmaz backend's kernels differ at 10 and 20 digits (512, 1024-bit halves) */
        if (sizes[i] <= 1024)
            ttest_size(sizes[i], samples, VARIANT_IFMAZ);
        ttest_size(sizes[i], samples, VARIANT_IFMA_X1);
        if (sizes[i] <= 1024)
            ttest_size(sizes[i], samples, VARIANT_IFMAZ_X1);
        ttest_size(sizes[i], samples / 10 > 1000 ? samples / 10 : samples, VARIANT_LEAKY);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "speed") == 0) {
        speed(argc >= 3 && strcmp(argv[2], "--quick") == 0);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "cycles") == 0) {
        if (ctbn_backend_select("ifma") != 0)
            die("the ifma backend is not usable on this CPU");
        static const size_t sizes[] = { 512, 1024, 1536, 2048 };
        printf("| bits | D  | AMM x1 | AMM x2              | AMS x1 | AMS x2              |\n");
        printf("|------|----|--------|---------------------|--------|---------------------|\n");
        for (size_t i = 0; i < 4; i++)
            amm_cycles(sizes[i], 0);
        /* the ifmaz backend's 512-bit kernels where they differ (10 and 20 digits) */
        amm_cycles(512, 1);
        amm_cycles(1024, 1);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "ttest") == 0) {
        size_t samples = argc >= 3 ? (size_t)strtoull(argv[2], NULL, 10) : 100000;
        if (samples < 100)
            die("need at least 100 samples");
        ttest(samples, argc >= 4 ? (size_t)strtoull(argv[3], NULL, 10) : 0);
        return 0;
    }
    fprintf(stderr, "usage: bench_ifma_ct speed [--quick] | cycles | ttest [SAMPLES [BITS]]\n");
    return 2;
}
