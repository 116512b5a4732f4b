/*
 * A dudect-style timing test of decryption through EVP: can the time of one
 * EVP_PKEY_decrypt (or EVP_PKEY_decapsulate) tell one class of ciphertext from another?
 * Issue 20, item 7: OAEP's failure must cost what its success costs.
 *
 *   ttest_decrypt [MODE] [--provider NAME] [--samples N] [--plant]
 *
 * MODE (default oaep), one 2048-bit key, classes interleaved at random:
 *   oaep    OAEP (SHA-256, MGF1-SHA-256, a label): class "valid" (half the samples) against
 *           two invalid kinds (a quarter each): "bad-Y", the first byte of EM nonzero, and
 *           "bad-lhash", a valid encoding under another label (so lHash' != lHash).
 *   pkcs1   PKCS#1 v1.5 with implicit rejection off: "valid" against "bad-header"
 *           (0x00 0x03 ...) and "no-separator" (no zero byte after the padding).
 *   rsasve  the RSA KEM's decapsulation (RSASVE), which has no invalid ciphertext that is
 *           secret (its range check is on the public c): "fixed", one random c, against
 *           "random", a fresh random c each time; dudect's fixed-vs-random test.
 * The comparisons: class 0 against class 1, class 0 against class 2, class 1 against
 * class 2, and class 0 against classes 1 and 2 together (all but rsasve). N (default
 * 100000, as CI runs it: 100 to 130 s at 2048 bits on an Intel Xeon) is the expected
 * number of class-0 samples; there are 2N decryptions in all. CTRSA_TEST_SCALE, when set,
 * multiplies N (a reduced run: less power against a small leak).
 * --provider (default ctrsa) names the provider that decrypts (checked with
 * EVP_PKEY_CTX_get0_provider); "default" measures OpenSSL's own for comparison.
 * --plant adds, inside the timed region and only after a failed decryption, one error
 * raised and cleared (what main's ctrsa did before issue 20), to check that N samples see
 * a leak of that size.
 *
 * Inputs are made in batches before the batch is timed, all classes by the same calls (an
 * encoding, then a raw public-key operation on the default provider), only the bytes
 * differing; each sample is one rdtsc-timed call between lfences; the error queue is
 * cleared after every call, outside the timed region. As the bench/ t-tests do: Welch's t
 * on all samples and on the samples below pooled percentiles (99.9 to 50: dudect's crop of
 * the slow tail that noise makes), and the largest |t| decides: below 4.5, no leak
 * detected.
 *
 * Not flaking on a shared machine: the classes are interleaved, so noise lands on every
 * class alike and only widens the spread; a |t| of 4.5 or more is measured again on fresh
 * samples, and two runs of three at 4.5 or more fail the test (a clean first run passes
 * at once). Noise that happens to favour one class rarely comes back in the same
 * direction; a real difference does, and grows with N (a leak of main's former size,
 * 5.4 to 7.7 per run, fails about 3 times in 4 or more, where "every run of three" let it
 * pass about half the time).
 *
 * Exit status: 0 no leak detected, 1 a leak in two runs, 2 a setup error.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* RSA_padding_add_* build the test's encodings */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if !defined(__x86_64__)
#error "ttest_decrypt reads the TSC; test/ct/meson.build builds it only for x86-64"
#endif
#include <x86intrin.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "welch.h"

#define BITS 2048
#define K (BITS / 8)
#define BATCH 200
#define MAX_RUNS 3
#define T_LIMIT 4.5

enum mode { MODE_OAEP, MODE_PKCS1, MODE_RSASVE };

static const char *const class_names[3][3] = {
    { "valid", "bad-Y", "bad-lhash" },
    { "valid", "bad-header", "no-separator" },
    { "fixed", "random", "" },
};

static const unsigned char label_good[] = "ctrsa ttest label";
static const unsigned char label_bad[] = "another label....";

static OSSL_LIB_CTX *libctx;
static EVP_PKEY *pkey;
static enum mode mode = MODE_OAEP;
static const char *provider = "ctrsa";
static int plant;

static void die(const char *what)
{
    fprintf(stderr, "ttest_decrypt: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(2);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- inputs ---------------------------------------------------------------------------- */

/* The raw public-key operation on the default provider: ct := em^e mod n. */
static EVP_PKEY_CTX *raw_enc;

static void raw_encrypt(unsigned char ct[K], const unsigned char em[K])
{
    size_t len = K;

    if (EVP_PKEY_encrypt(raw_enc, ct, &len, em, K) != 1 || len != K)
        die("raw encryption failed");
}

/*
 * ct := a ciphertext of class cls (0, 1 or 2). Every class runs the same calls; the class
 * only chooses bytes (the label hashed in, a byte set to one value or another).
 */
static void make_input(int cls, unsigned char ct[K], const unsigned char fixed[K])
{
    unsigned char em[K], msg[32];
    const EVP_MD *sha256 = EVP_sha256();

    if (RAND_bytes(msg, sizeof(msg)) != 1)
        die("RAND_bytes");
    switch (mode) {
    case MODE_OAEP: {
        const unsigned char *label = cls == 2 ? label_bad : label_good;
        if (RSA_padding_add_PKCS1_OAEP_mgf1(em, K, msg, sizeof(msg), label,
                                            (int)sizeof(label_good) - 1, sha256, sha256) != 1)
            die("OAEP encoding");
        /* bad-Y: a nonzero first byte below 0x80 (a 2048-bit n starts at 0x80 or more) */
        em[0] = cls == 1 ? (unsigned char)(1 + msg[0] % 0x7f) : em[0];
        break;
    }
    case MODE_PKCS1:
        /* no zero in M, so that without the separator no later byte can stand in for it */
        for (size_t i = 0; i < sizeof(msg); i++)
            msg[i] |= 1;
        if (RSA_padding_add_PKCS1_type_2(em, K, msg, sizeof(msg)) != 1)
            die("PKCS#1 encoding");
        em[1] = cls == 1 ? 0x03 : em[1];
        /* the separator sits right before the 32-byte message */
        em[K - sizeof(msg) - 1] = cls == 2 ? (unsigned char)(1 + msg[0] % 0xff) : 0;
        break;
    case MODE_RSASVE:
        /* c uniform below 2^2047 <= n - 1, and at least 2 with overwhelming probability */
        if (RAND_bytes(em, K) != 1)
            die("RAND_bytes");
        em[0] &= 0x7f;
        em[K - 1] |= 2;
        if (cls == 0) {
            memcpy(ct, fixed, K);
            return;
        }
        memcpy(ct, em, K);
        return;
    }
    raw_encrypt(ct, em);
}

/* ---- the operation under test ---------------------------------------------------------- */

static EVP_PKEY_CTX *op_ctx(void)
{
    char propq[64];
    EVP_PKEY_CTX *ctx;
    const OSSL_PROVIDER *p;

    snprintf(propq, sizeof(propq), "provider=%s", provider);
    ctx = EVP_PKEY_CTX_new_from_pkey(libctx, pkey, propq);
    if (ctx == NULL)
        die("EVP_PKEY_CTX_new_from_pkey");
    if (mode == MODE_RSASVE) {
        if (EVP_PKEY_decapsulate_init(ctx, NULL) != 1
            || EVP_PKEY_CTX_set_kem_op(ctx, "RSASVE") != 1)
            die("decapsulate_init");
    } else {
        if (EVP_PKEY_decrypt_init(ctx) != 1)
            die("decrypt_init");
        if (mode == MODE_OAEP) {
            unsigned char *l = OPENSSL_memdup(label_good, sizeof(label_good) - 1);
            if (l == NULL || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) != 1
                || EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) != 1
                || EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) != 1
                || EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, l, (int)sizeof(label_good) - 1) != 1)
                die("OAEP parameters");
        } else {
            unsigned int off = 0;
            OSSL_PARAM params[] = {
                OSSL_PARAM_uint("implicit-rejection", &off), OSSL_PARAM_END
            };
            /* (OpenSSL 3.0's default provider has no implicit rejection and ignores it) */
            if (EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) != 1
                || EVP_PKEY_CTX_set_params(ctx, params) != 1)
                die("PKCS#1 parameters, implicit rejection off");
        }
    }
    p = EVP_PKEY_CTX_get0_provider(ctx);
    if (p == NULL || strcmp(OSSL_PROVIDER_get0_name(p), provider) != 0)
        die("the operation is not in the provider asked for");
    return ctx;
}

/* One timed call; *ok := its result. */
static uint64_t timed_call(EVP_PKEY_CTX *ctx, const unsigned char ct[K], int *ok)
{
    unsigned char out[K];
    size_t outlen = K;
    uint64_t t0, t1;
    int r;

    _mm_lfence();
    t0 = __rdtsc();
    _mm_lfence();
    if (mode == MODE_RSASVE)
        r = EVP_PKEY_decapsulate(ctx, out, &outlen, ct, K);
    else
        r = EVP_PKEY_decrypt(ctx, out, &outlen, ct, K);
    if (plant && r != 1) {
        /* main's defect, planted: an error raised (and dropped) on failure only */
        ERR_set_mark();
        ERR_raise_data(ERR_LIB_USER, ERR_R_INTERNAL_ERROR, "%s", "planted");
        ERR_pop_to_mark();
    }
    _mm_lfence();
    t1 = __rdtsc();
    _mm_lfence();
    *ok = r == 1;
    OPENSSL_cleanse(out, sizeof(out));
    return t1 - t0;
}

/* ---- statistics ------------------------------------------------------------------------ */


/* The comparisons: classes whose bit is in `left` against those whose bit is in `right`. */
static const struct cmp {
    unsigned left, right;
} cmps[] = { { 1, 2 }, { 1, 4 }, { 2, 4 }, { 1, 6 } };

static const double pct[] = { 100, 99.9, 99, 95, 90, 75, 50 };
#define N_PCT (sizeof(pct) / sizeof(pct[0]))

static void cmp_name(const struct cmp *c, char *buf, size_t size)
{
    const char *const *names = class_names[mode];
    if (c->right == 6)
        snprintf(buf, size, "%s vs invalid", names[0]);
    else
        snprintf(buf, size, "%s vs %s", names[c->left == 1 ? 0 : 1],
                 names[c->right == 2 ? 1 : 2]);
}

/* One run of 2N samples; prints its table and returns the largest |t|. */
static double run(EVP_PKEY_CTX *ctx, size_t n, uint64_t *seed, const unsigned char *fixed)
{
    size_t total = 2 * n, done = 0, i, ncmp = mode == MODE_RSASVE ? 1 : 4;
    double *t = malloc(total * sizeof(double)), *sorted = malloc(total * sizeof(double));
    unsigned char *cls = malloc(total), (*cts)[K] = malloc(BATCH * sizeof(*cts));
    size_t count[3] = { 0, 0, 0 };
    double maxt = 0;
    int ok;

    if (t == NULL || sorted == NULL || cls == NULL || cts == NULL)
        die("out of memory");
    while (done < total) {
        size_t b = total - done < BATCH ? total - done : BATCH;
        for (i = 0; i < b; i++) {
            uint64_t r = xorshift(seed);
            /* half class 0; the other half split between 1 and 2 (all class 1 for rsasve) */
            cls[done + i] = (unsigned char)((r & 1) == 0 ? 0
                                            : mode == MODE_RSASVE ? 1 : 1 + ((r >> 1) & 1));
            make_input(cls[done + i], cts[i], fixed);
        }
        for (i = 0; i < b; i++) {
            t[done + i] = (double)timed_call(ctx, cts[i], &ok);
            ERR_clear_error();
            /* the verdict must be the class's: valid (and every RSASVE c) decrypts */
            if (ok != (cls[done + i] == 0 || mode == MODE_RSASVE))
                die("a decryption's result is not its class's");
        }
        done += b;
    }
    for (i = 0; i < total; i++)
        count[cls[i]]++;

    memcpy(sorted, t, total * sizeof(double));
    qsort(sorted, total, sizeof(double), cmp_double);
    for (size_t c = 0; c < ncmp; c++) {
        char name[64];
        double row = 0;
        cmp_name(&cmps[c], name, sizeof(name));
        printf("| %-26s |", name);
        for (size_t p = 0; p < N_PCT; p++) {
            double thr = sorted[(size_t)((double)(total - 1) * pct[p] / 100.0)];
            struct acc a[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
            for (i = 0; i < total; i++) {
                unsigned bit = 1u << cls[i];
                if (t[i] > thr)
                    continue;
                if (cmps[c].left & bit)
                    acc_push(&a[0], t[i]);
                else if (cmps[c].right & bit)
                    acc_push(&a[1], t[i]);
            }
            double tv = fabs(welch_t(&a[0], &a[1]));
            row = tv > row ? tv : row;
            printf(" %6.2f |", tv);
        }
        printf(" %6.2f |\n", row);
        maxt = row > maxt ? row : maxt;
    }
    printf("samples: %zu %s, %zu %s", count[0], class_names[mode][0], count[1],
           class_names[mode][1]);
    if (mode != MODE_RSASVE)
        printf(", %zu %s", count[2], class_names[mode][2]);
    printf("; median %.0f ticks\n", sorted[total / 2]);
    fflush(stdout);
    free(t);
    free(sorted);
    free(cls);
    free(cts);
    return maxt;
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void setup(void)
{
    const char *dir = getenv("CTRSA_MODULE_DIR");
    EVP_PKEY_CTX *kg;

    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL)
        die("OSSL_LIB_CTX_new");
    if (dir != NULL && !OSSL_PROVIDER_set_default_search_path(libctx, dir))
        die("module search path");
    if (OSSL_PROVIDER_load(libctx, "default") == NULL)
        die("cannot load the default provider");
    if (strcmp(provider, "default") != 0 && OSSL_PROVIDER_load(libctx, provider) == NULL)
        die("cannot load the provider under test (CTRSA_MODULE_DIR?)");
    kg = EVP_PKEY_CTX_new_from_name(libctx, "RSA", "provider=default");
    if (kg == NULL || EVP_PKEY_keygen_init(kg) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_bits(kg, BITS) != 1 || EVP_PKEY_generate(kg, &pkey) != 1)
        die("key generation");
    EVP_PKEY_CTX_free(kg);
    raw_enc = EVP_PKEY_CTX_new_from_pkey(libctx, pkey, "provider=default");
    if (raw_enc == NULL || EVP_PKEY_encrypt_init(raw_enc) != 1
        || EVP_PKEY_CTX_set_rsa_padding(raw_enc, RSA_NO_PADDING) != 1)
        die("raw encryption context");
}

int main(int argc, char **argv)
{
    size_t n = 100000;
    unsigned char fixed[K];
    uint64_t seed;
    EVP_PKEY_CTX *ctx;
    int r, leaks = 0, runs = 0;
    double maxt = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "oaep") == 0)
            mode = MODE_OAEP;
        else if (strcmp(argv[i], "pkcs1") == 0)
            mode = MODE_PKCS1;
        else if (strcmp(argv[i], "rsasve") == 0)
            mode = MODE_RSASVE;
        else if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
            provider = argv[++i];
        else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
            n = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--plant") == 0)
            plant = 1;
        else {
            fprintf(stderr, "usage: %s [oaep|pkcs1|rsasve] [--provider NAME] [--samples N] "
                    "[--plant]\n", argv[0]);
            return 2;
        }
    }
    {
        /* CTRSA_TEST_SCALE (a multiplier, as the bignum suite reads it): fewer samples for
           a reduced run (.ci/compat CTRSA_COMPAT_REDUCED); the full count elsewhere */
        const char *scale = getenv("CTRSA_TEST_SCALE");
        double f = scale != NULL ? strtod(scale, NULL) : 1.0;

        if (f > 0 && f != 1.0) {
            n = (size_t)((double)n * f);
            printf("CTRSA_TEST_SCALE=%g: %zu samples per side\n", f, n);
        }
    }
    if (n < 100)
        die("at least 100 samples");
    setup();
    ctx = op_ctx();
    if (RAND_bytes((unsigned char *)&seed, sizeof(seed)) != 1)
        die("RAND_bytes");
    seed |= 1;
    if (mode == MODE_RSASVE)
        make_input(1, fixed, NULL); /* the fixed class's c: one random value */
    /* warm-up, not counted: the first calls fill caches and the blinding pair */
    for (int i = 0; i < 50; i++) {
        unsigned char ct[K];
        make_input(mode == MODE_RSASVE ? i % 2 : i % 3, ct, fixed);
        timed_call(ctx, ct, &r);
        ERR_clear_error();
    }

    printf("ttest_decrypt %s, %d-bit key, provider %s%s: Welch |t| between classes, "
           "cropped at pooled percentiles; |t| < %.1f: no leak detected\n",
           mode == MODE_OAEP ? "oaep" : mode == MODE_PKCS1 ? "pkcs1 (implicit rejection off)"
                                                           : "rsasve",
           BITS, provider, plant ? " (a leak planted)" : "", T_LIMIT);
    while (runs < MAX_RUNS) {
        double m;
        printf("\nrun %d, %zu samples per side:\n\n", runs + 1, n);
        printf("| comparison                 | all    | p99.9  | p99    | p95    | p90    "
               "| p75    | p50    | max    |\n");
        printf("|----------------------------|--------|--------|--------|--------|--------"
               "|--------|--------|--------|\n");
        m = run(ctx, n, &seed, fixed);
        runs++;
        maxt = m > maxt ? m : maxt;
        if (m >= T_LIMIT)
            leaks++;
        /* A clean first run passes; after a high one, two of three runs decide. */
        if (leaks == 0 || leaks >= 2 || runs == MAX_RUNS)
            break;
        if (m >= T_LIMIT)
            printf("max |t| = %.2f >= %.1f: measured again on fresh samples\n", m, T_LIMIT);
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_CTX_free(raw_enc);
    EVP_PKEY_free(pkey);
    OSSL_LIB_CTX_free(libctx);
    if (leaks >= 2) {
        printf("\nLEAK: max |t| >= %.1f in %d of %d runs (largest %.2f)\n", T_LIMIT, leaks,
               runs, maxt);
        return 1;
    }
    printf("\nno leak detected (max |t| below %.1f in %d of %d run%s)\n", T_LIMIT,
           runs - leaks, runs, runs == 1 ? "" : "s");
    return 0;
}
