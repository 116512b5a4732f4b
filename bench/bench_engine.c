/*
 * Engine benchmark: Montgomery multiplication and squaring, the constant-time modexp and the
 * public-exponent path of ctrsa's engine against OpenSSL's BN_mod_mul_montgomery (with a == b
 * for the squaring, which BN detects), BN_mod_exp_mont_consttime and BN_mod_exp_mont (each
 * with a BN_MONT_CTX built once), at 512 to 4096-bit moduli: full-length exponents for the
 * constant-time modexp, e = 65537 for the public path (verify, encrypt).
 *
 * The two sides run interleaved (A B A B ...) in the same process, timed with process CPU
 * time; each reports the median ns/op over the rounds, and the ratio is OpenSSL / ctrsa
 * (> 1 means ctrsa is faster). Results go to stdout as a Markdown table, progress to stderr.
 * Before timing, both sides must give the same result (the program aborts otherwise).
 *
 * usage: bench_engine [--quick] [--backend NAME] [--sizes BITS,BITS,...]
 *   --backend   run ctrsa's engine on that backend (portable, adx, ifma, auto); default: the
 *               engine's own default (CTRSA_CPU if set, else portable)
 *   --sizes     modulus sizes in bits (default 1024,1536,2048; "all" for 512..4096)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "bignum.h"

struct side {
    const char *op;
    size_t bits;
    double ns_ctrsa, ns_openssl;
};

/* The fixture of one modulus size, for both libraries. */
struct fixture {
    size_t bits, n;
    ctbn_mont *ctx;
    ctbn_limb *a, *b, *e, *r, *scratch;
    BN_CTX *bctx;
    BN_MONT_CTX *mont;
    BIGNUM *bm, *ba, *bb, *be, *br, *ba_m, *bb_m; /* *_m: Montgomery form */
    BIGNUM *be_pub;                               /* 65537 */
    ctbn_limb e_pub[1];
};

static void die(const char *msg)
{
    fprintf(stderr, "bench_engine: %s\n", msg);
    exit(1);
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void to_limbs(ctbn_limb *x, size_t n, const BIGNUM *v)
{
    uint8_t *buf = malloc(8 * n);
    if (buf == NULL || BN_bn2binpad(v, buf, (int)(8 * n)) < 0)
        die("BN_bn2binpad");
    if (ctbn_from_bytes(x, n, buf, 8 * n) != ~(ctbn_mask)0)
        die("ctbn_from_bytes");
    free(buf);
}

static int same_value(const ctbn_limb *x, size_t n, const BIGNUM *v)
{
    ctbn_limb *y = calloc(n, sizeof(ctbn_limb));
    int eq;
    if (y == NULL)
        die("out of memory");
    to_limbs(y, n, v);
    eq = memcmp(x, y, n * sizeof(ctbn_limb)) == 0;
    free(y);
    return eq;
}

static void fixture_init(struct fixture *f, size_t bits)
{
    f->bits = bits;
    f->n = CTBN_LIMBS(bits);
    f->bctx = BN_CTX_new();
    f->mont = BN_MONT_CTX_new();
    f->bm = BN_new();
    f->ba = BN_new();
    f->bb = BN_new();
    f->be = BN_new();
    f->br = BN_new();
    f->ba_m = BN_new();
    f->bb_m = BN_new();
    f->be_pub = BN_new();
    f->e_pub[0] = 65537;
    if (f->bctx == NULL || f->mont == NULL || f->br == NULL || f->ba_m == NULL ||
        f->bb_m == NULL || f->be_pub == NULL || !BN_set_word(f->be_pub, 65537))
        die("out of memory");
    /* an odd modulus of exactly `bits` bits, operands below it, a full-length exponent */
    if (!BN_rand(f->bm, (int)bits, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD) ||
        !BN_rand_range(f->ba, f->bm) || !BN_rand_range(f->bb, f->bm) ||
        !BN_rand(f->be, (int)bits, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY))
        die("BN_rand");
    if (!BN_MONT_CTX_set(f->mont, f->bm, f->bctx) ||
        !BN_to_montgomery(f->ba_m, f->ba, f->mont, f->bctx) ||
        !BN_to_montgomery(f->bb_m, f->bb, f->mont, f->bctx))
        die("BN_MONT_CTX_set");

    f->ctx = malloc(sizeof(ctbn_mont_max));
    f->a = calloc(f->n, sizeof(ctbn_limb));
    f->b = calloc(f->n, sizeof(ctbn_limb));
    f->e = calloc(f->n, sizeof(ctbn_limb));
    f->r = calloc(f->n, sizeof(ctbn_limb));
    f->scratch = calloc(CTBN_MODEXP_SCRATCH(f->n), sizeof(ctbn_limb));
    if (f->ctx == NULL || f->a == NULL || f->b == NULL || f->e == NULL || f->r == NULL ||
        f->scratch == NULL)
        die("out of memory");
    ctbn_limb *m = calloc(f->n, sizeof(ctbn_limb));
    if (m == NULL)
        die("out of memory");
    to_limbs(m, f->n, f->bm);
    if (ctbn_mont_init(f->ctx, m, f->n) != 0)
        die("ctbn_mont_init");
    free(m);
    /* the same Montgomery-form operands on both sides (R = 2^(64 n) for both) */
    to_limbs(f->a, f->n, f->ba_m);
    to_limbs(f->b, f->n, f->bb_m);
    to_limbs(f->e, f->n, f->be);
}

static void fixture_free(struct fixture *f)
{
    BN_CTX_free(f->bctx);
    BN_MONT_CTX_free(f->mont);
    BN_free(f->bm);
    BN_free(f->ba);
    BN_free(f->bb);
    BN_free(f->be);
    BN_free(f->br);
    BN_free(f->ba_m);
    BN_free(f->bb_m);
    BN_free(f->be_pub);
    free(f->ctx);
    free(f->a);
    free(f->b);
    free(f->e);
    free(f->r);
    free(f->scratch);
}

/* ---- the timed operations ---- */

static void run_ctrsa_mul(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        ctbn_mont_mul(f->ctx, f->r, f->a, f->b);
}

static void run_openssl_mul(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        if (!BN_mod_mul_montgomery(f->br, f->ba_m, f->bb_m, f->mont, f->bctx))
            die("BN_mod_mul_montgomery");
}

static void run_ctrsa_sqr(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        ctbn_mont_sqr(f->ctx, f->r, f->a);
}

static void run_openssl_sqr(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        if (!BN_mod_mul_montgomery(f->br, f->ba_m, f->ba_m, f->mont, f->bctx))
            die("BN_mod_mul_montgomery");
}

static void run_ctrsa_pub(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        ctbn_modexp_public_vartime(f->ctx, f->r, f->a, f->e_pub, 1, f->scratch);
}

static void run_openssl_pub(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        if (!BN_mod_exp_mont(f->br, f->ba_m, f->be_pub, f->bm, f->bctx, f->mont))
            die("BN_mod_exp_mont");
}

static void run_ctrsa_exp(struct fixture *f, size_t reps)
{
    /* the base is a (Montgomery form of the test value, itself a value below m) */
    for (size_t i = 0; i < reps; i++)
        ctbn_modexp_ct(f->ctx, f->r, f->a, f->e, f->bits, f->scratch);
}

static void run_openssl_exp(struct fixture *f, size_t reps)
{
    for (size_t i = 0; i < reps; i++)
        if (!BN_mod_exp_mont_consttime(f->br, f->ba_m, f->be, f->bm, f->bctx, f->mont))
            die("BN_mod_exp_mont_consttime");
}

static void check_same(struct fixture *f)
{
    run_ctrsa_mul(f, 1);
    run_openssl_mul(f, 1);
    if (!same_value(f->r, f->n, f->br))
        die("Montgomery products differ between ctrsa and OpenSSL");
    run_ctrsa_sqr(f, 1);
    run_openssl_sqr(f, 1);
    if (!same_value(f->r, f->n, f->br))
        die("Montgomery squares differ between ctrsa and OpenSSL");
    run_ctrsa_pub(f, 1);
    run_openssl_pub(f, 1);
    if (!same_value(f->r, f->n, f->br))
        die("public-exponent results differ between ctrsa and OpenSSL");
    run_ctrsa_exp(f, 1);
    run_openssl_exp(f, 1);
    if (!same_value(f->r, f->n, f->br))
        die("modexp results differ between ctrsa and OpenSSL");
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t k)
{
    qsort(v, k, sizeof(double), cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Repetitions so that one batch of `run` takes about target_ns of CPU time. */
static size_t calibrate(void (*run)(struct fixture *, size_t), struct fixture *f,
                        double target_ns)
{
    size_t reps = 1;
    for (;;) {
        double t0 = cpu_ns();
        run(f, reps);
        double dt = cpu_ns() - t0;
        if (dt >= target_ns / 4 || reps > ((size_t)1 << 30)) {
            double per = dt / (double)reps;
            size_t want = (size_t)(target_ns / (per > 1 ? per : 1));
            return want > 0 ? want : 1;
        }
        reps *= 4;
    }
}

/* Interleaved rounds: A B A B ...; medians of ns/op into *a_ns and *b_ns. */
static void time_pair(struct fixture *f, void (*a)(struct fixture *, size_t),
                      void (*b)(struct fixture *, size_t), size_t rounds, double target_ns,
                      double *a_ns, double *b_ns)
{
    size_t ra = calibrate(a, f, target_ns), rb = calibrate(b, f, target_ns);
    double *ta = malloc(rounds * sizeof(double)), *tb = malloc(rounds * sizeof(double));
    if (ta == NULL || tb == NULL)
        die("out of memory");
    for (size_t k = 0; k < rounds; k++) {
        double t0 = cpu_ns();
        a(f, ra);
        double t1 = cpu_ns();
        b(f, rb);
        double t2 = cpu_ns();
        ta[k] = (t1 - t0) / (double)ra;
        tb[k] = (t2 - t1) / (double)rb;
    }
    *a_ns = median(ta, rounds);
    *b_ns = median(tb, rounds);
    free(ta);
    free(tb);
}

/* Parse "all" or a comma-separated list of sizes (multiples of 64 from 128 to 8192). */
static size_t parse_sizes(const char *arg, size_t *sizes, size_t max)
{
    static const size_t all[] = { 512, 1024, 1536, 2048, 3072, 4096 };
    size_t k = 0;
    if (strcmp(arg, "all") == 0) {
        for (; k < sizeof(all) / sizeof(all[0]) && k < max; k++)
            sizes[k] = all[k];
        return k;
    }
    while (*arg != '\0' && k < max) {
        char *end;
        unsigned long v = strtoul(arg, &end, 10);
        if (end == arg || v < 128 || v > 8192 || v % 64 != 0)
            return 0;
        sizes[k++] = v;
        arg = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return 0;
    }
    return k;
}

struct op {
    const char *name;
    void (*ctrsa)(struct fixture *, size_t);
    void (*openssl)(struct fixture *, size_t);
};

int main(int argc, char **argv)
{
    static const struct op ops[] = {
        { "mont_mul", run_ctrsa_mul, run_openssl_mul },
        { "mont_sqr", run_ctrsa_sqr, run_openssl_sqr },
        { "modexp_ct (full-length e)", run_ctrsa_exp, run_openssl_exp },
        { "modexp_public_vartime (e = 65537)", run_ctrsa_pub, run_openssl_pub },
    };
    size_t sizes[16] = { 1024, 1536, 2048 };
    size_t nsizes = 3;
    int quick = 0;
    const char *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc &&
                   (nsizes = parse_sizes(argv[++i], sizes, 16)) > 0) {
            continue;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--backend NAME] [--sizes all|BITS,...]\n",
                    argv[0]);
            return 2;
        }
    }
    if (backend != NULL && ctbn_backend_select(backend) != 0) {
        fprintf(stderr, "bench_engine: backend %s is not supported here\n", backend);
        return 2;
    }
    size_t rounds = quick ? 5 : 15;
    double target = quick ? 10e6 : 50e6; /* CPU ns per batch */
    size_t nops = sizeof(ops) / sizeof(ops[0]);
    struct side *results = calloc(nsizes * nops, sizeof(struct side));
    size_t nres = 0;
    if (results == NULL)
        die("out of memory");

    for (size_t s = 0; s < nsizes; s++) {
        struct fixture f;
        fixture_init(&f, sizes[s]);
        check_same(&f);
        for (size_t o = 0; o < nops; o++) {
            fprintf(stderr, "bench_engine: %zu-bit %s ...\n", sizes[s], ops[o].name);
            results[nres].op = ops[o].name;
            results[nres].bits = sizes[s];
            time_pair(&f, ops[o].ctrsa, ops[o].openssl, rounds, target,
                      &results[nres].ns_ctrsa, &results[nres].ns_openssl);
            nres++;
        }
        fixture_free(&f);
    }

    printf("| operation | modulus bits | ctrsa ns/op | OpenSSL ns/op | OpenSSL / ctrsa |\n");
    printf("|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < nres; i++)
        printf("| %s | %zu | %.0f | %.0f | %.2f |\n", results[i].op, results[i].bits,
               results[i].ns_ctrsa, results[i].ns_openssl,
               results[i].ns_openssl / results[i].ns_ctrsa);
    printf("\nctrsa backend: %s. Median of %zu interleaved rounds, process CPU time; OpenSSL: "
           "BN_mod_mul_montgomery, BN_mod_exp_mont_consttime and BN_mod_exp_mont "
           "(BN_MONT_CTX built once), %s.\n",
           ctbn_backend_name(), rounds, OpenSSL_version(OPENSSL_VERSION));
    free(results);
    return 0;
}
