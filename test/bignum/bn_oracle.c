/* Test support for the engine's differential tests; see bn_oracle.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bn_oracle.h"

/* ---- PRNG ---- */

#define DEFAULT_SEED 0x6374727361u /* "ctrsa" */

static uint64_t rng_state[4];
static const char *current_test = "?";

uint64_t oracle_base_seed(void)
{
    const char *env = getenv("CTRSA_TEST_SEED");
    if (env != NULL && *env != '\0')
        return strtoull(env, NULL, 0);
    return DEFAULT_SEED;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void oracle_seed_for(const char *test_name)
{
    uint64_t s = oracle_base_seed();
    /* FNV-1a of the name, so that each test has its own stream */
    uint64_t h = 0xcbf29ce484222325u;
    for (const char *p = test_name; *p != '\0'; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3u;
    s ^= h;
    for (int i = 0; i < 4; i++)
        rng_state[i] = splitmix64(&s);
    current_test = test_name;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_u64(void)
{
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(uint64_t bound)
{
    /* the modulo bias is irrelevant for test coverage */
    return rng_u64() % bound;
}

size_t rng_range(size_t lo, size_t hi)
{
    return lo + (size_t)rng_below((uint64_t)(hi - lo) + 1);
}

/* ---- operands ---- */

ctbn_limb *limbs_alloc(size_t n)
{
    ctbn_limb *x = malloc(n == 0 ? 1 : n * sizeof(ctbn_limb));
    if (x == NULL) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return x;
}

static void set_bit(ctbn_limb *x, size_t i)
{
    x[i / 64] |= (ctbn_limb)1 << (i % 64);
}

static void clear_above(ctbn_limb *x, size_t n, size_t bits)
{
    for (size_t i = 0; i < n; i++) {
        if (bits <= 64 * i)
            x[i] = 0;
        else if (bits < 64 * (i + 1))
            x[i] &= ((ctbn_limb)1 << (bits - 64 * i)) - 1;
    }
}

void rand_pattern(ctbn_limb *x, size_t n, size_t bits)
{
    /* shorten the bit length now and then */
    if (bits > 0 && rng_below(4) == 0)
        bits = rng_range(0, bits);
    memset(x, 0, n * sizeof(ctbn_limb));
    switch (rng_below(8)) {
    case 0:
    case 1: /* dense */
        for (size_t i = 0; i < n; i++)
            x[i] = rng_u64();
        break;
    case 2: /* sparse: about one bit in 32 */
        for (size_t i = 0; i < n; i++)
            x[i] = rng_u64() & rng_u64() & rng_u64() & rng_u64() & rng_u64();
        break;
    case 3: { /* runs of ones and zeros, of random lengths */
        size_t pos = 0;
        int one = (int)rng_below(2);
        while (pos < bits) {
            size_t len = 1 + (size_t)rng_below((uint64_t)1 << rng_below(9));
            for (size_t j = pos; j < pos + len && j < bits; j++)
                if (one)
                    set_bit(x, j);
            pos += len;
            one = !one;
        }
        break;
    }
    case 4: /* limbs that are all ones, zero, or special */
        for (size_t i = 0; i < n; i++) {
            static const ctbn_limb pick[] = { 0, ~(ctbn_limb)0, 1, (ctbn_limb)1 << 63,
                                              ~(ctbn_limb)0 >> 1, ~(ctbn_limb)1 };
            uint64_t r = rng_below(8);
            x[i] = r < 6 ? pick[r] : rng_u64();
        }
        break;
    case 5: /* all ones */
        for (size_t i = 0; i < n; i++)
            x[i] = ~(ctbn_limb)0;
        break;
    case 6: /* a small value */
        if (n > 0)
            x[0] = rng_u64() >> rng_below(64);
        break;
    default: /* the top bit alone, sometimes plus a small value */
        if (bits > 0) {
            set_bit(x, bits - 1);
            if (rng_below(2))
                x[0] |= rng_below(4);
        }
        break;
    }
    clear_above(x, n, bits);
}

void rand_below(ctbn_limb *x, const ctbn_limb *m, size_t n)
{
    BIGNUM *bm = bn_from_limbs(m, n);
    BIGNUM *bx;
    uint64_t edge = rng_below(16);

    if (edge < 5) {
        /* 0, 1, 2, m-1, m-2 (each only if below m) */
        static const int delta[] = { 0, 1, 2, -1, -2 };
        bx = BN_new();
        if (delta[edge] >= 0) {
            BN_set_word(bx, (BN_ULONG)delta[edge]);
        } else {
            BN_copy(bx, bm);
            BN_sub_word(bx, (BN_ULONG)-delta[edge]);
        }
        if (BN_is_negative(bx) || BN_cmp(bx, bm) >= 0)
            BN_zero(bx);
    } else {
        rand_pattern(x, n, (size_t)BN_num_bits(bm));
        bx = bn_from_limbs(x, n);
        /* x < 2^bits(m) <= 2m, so one subtraction reduces it */
        if (BN_cmp(bx, bm) >= 0)
            BN_sub(bx, bx, bm);
    }
    limbs_from_bn(x, n, bx);
    BN_free(bx);
    BN_free(bm);
}

size_t rand_mod_bits(size_t n)
{
    size_t lo = 64 * (n - 1) + 1;
    if (lo < 2)
        lo = 2;
    return rng_range(lo, 64 * n);
}

void rand_modulus(ctbn_limb *m, size_t n, size_t bits, enum mod_kind kind)
{
    memset(m, 0, n * sizeof(ctbn_limb));
    switch (kind) {
    case MOD_TOP_ALL_ONES:
        for (size_t i = 0; i < n; i++)
            m[i] = rng_u64();
        m[n - 1] = ~(ctbn_limb)0;
        break;
    case MOD_TOP_BIT_PLUS1:
        set_bit(m, bits - 1);
        break;
    case MOD_ALL_ONES:
        for (size_t i = 0; i < bits; i++)
            set_bit(m, i);
        break;
    default: {
        /* a pattern of full length with the top bit forced */
        size_t tries = 0;
        do {
            rand_pattern(m, n, bits);
        } while (rng_below(2) == 0 && ++tries < 3);
        clear_above(m, n, bits);
        set_bit(m, bits - 1);
        break;
    }
    }
    m[0] |= 1;
}

/* ---- BIGNUM conversion ---- */

static BN_CTX *the_bn_ctx;

BN_CTX *oracle_bn_ctx(void)
{
    if (the_bn_ctx == NULL)
        the_bn_ctx = BN_CTX_new();
    return the_bn_ctx;
}

BIGNUM *bn_from_limbs(const ctbn_limb *x, size_t n)
{
    uint8_t *buf = malloc(n * 8 + 1);
    BIGNUM *b;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 8; j++)
            buf[n * 8 - 1 - (8 * i + j)] = (uint8_t)(x[i] >> (8 * j));
    b = BN_bin2bn(buf, (int)(n * 8), NULL);
    free(buf);
    if (b == NULL)
        fail_msg("BN_bin2bn failed");
    return b;
}

void limbs_from_bn(ctbn_limb *x, size_t n, const BIGNUM *b)
{
    uint8_t *buf = malloc(n * 8 + 1);
    if (BN_is_negative(b) || BN_bn2binpad(b, buf, (int)(n * 8)) < 0) {
        free(buf);
        fail_msg("oracle value is negative or wider than %zu limbs", n);
    }
    for (size_t i = 0; i < n; i++) {
        ctbn_limb v = 0;
        for (size_t j = 0; j < 8; j++)
            v |= (ctbn_limb)buf[n * 8 - 1 - (8 * i + j)] << (8 * j);
        x[i] = v;
    }
    free(buf);
}

/* ---- failure reports ---- */

#define MAX_OPERANDS 12

static char report_what[256];
static struct {
    const char *name;
    const ctbn_limb *x;
    size_t n;
    uint64_t scalar;
    int is_scalar;
} operands[MAX_OPERANDS];
static size_t n_operands;

void report_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(report_what, sizeof(report_what), fmt, ap);
    va_end(ap);
    n_operands = 0;
}

void report_operand(const char *name, const ctbn_limb *x, size_t n)
{
    if (n_operands < MAX_OPERANDS) {
        operands[n_operands].name = name;
        operands[n_operands].x = x;
        operands[n_operands].n = n;
        operands[n_operands].is_scalar = 0;
        n_operands++;
    }
}

void report_scalar(const char *name, uint64_t v)
{
    if (n_operands < MAX_OPERANDS) {
        operands[n_operands].name = name;
        operands[n_operands].scalar = v;
        operands[n_operands].is_scalar = 1;
        n_operands++;
    }
}

static void print_limbs(const char *label, const ctbn_limb *x, size_t n)
{
    fprintf(stderr, "  %s (%zu limbs) = 0x", label, n);
    if (n == 0)
        fprintf(stderr, "0");
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, "%016llx", (unsigned long long)x[i]);
    fprintf(stderr, "\n");
}

static void print_report_header(const char *what)
{
    fprintf(stderr, "\nMISMATCH in %s: %s (%s)\n", current_test, report_what, what);
    fprintf(stderr, "  reproduce with CTRSA_TEST_SEED=0x%llx\n",
            (unsigned long long)oracle_base_seed());
    for (size_t i = 0; i < n_operands; i++) {
        if (operands[i].is_scalar)
            fprintf(stderr, "  %s = %llu\n", operands[i].name,
                    (unsigned long long)operands[i].scalar);
        else
            print_limbs(operands[i].name, operands[i].x, operands[i].n);
    }
}

void expect_limbs_bn(const char *what, const ctbn_limb *got, size_t n, const BIGNUM *want)
{
    BIGNUM *bg = bn_from_limbs(got, n);
    int same = BN_cmp(bg, want) == 0;
    BN_free(bg);
    if (!same) {
        char *hex = BN_bn2hex(want);
        print_report_header(what);
        fprintf(stderr, "  expected = 0x%s\n", hex);
        print_limbs("actual  ", got, n);
        OPENSSL_free(hex);
        fail_msg("%s: %s differs from OpenSSL", report_what, what);
    }
}

void expect_limbs_eq(const char *what, const ctbn_limb *got, const ctbn_limb *want, size_t n)
{
    if (memcmp(got, want, n * sizeof(ctbn_limb)) != 0) {
        print_report_header(what);
        print_limbs("expected", want, n);
        print_limbs("actual  ", got, n);
        fail_msg("%s: %s differs", report_what, what);
    }
}

static void print_bytes(const char *label, const uint8_t *b, size_t len)
{
    fprintf(stderr, "  %s (%zu bytes) = ", label, len);
    for (size_t i = 0; i < len; i++)
        fprintf(stderr, "%02x", b[i]);
    fprintf(stderr, "\n");
}

void expect_bytes_eq(const char *what, const uint8_t *got, const uint8_t *want, size_t len)
{
    if (len > 0 && memcmp(got, want, len) != 0) {
        print_report_header(what);
        print_bytes("expected", want, len);
        print_bytes("actual  ", got, len);
        fail_msg("%s: %s differ", report_what, what);
    }
}

void expect_word(const char *what, uint64_t got, uint64_t want)
{
    if (got != want) {
        print_report_header(what);
        fprintf(stderr, "  expected = 0x%llx\n  actual   = 0x%llx\n",
                (unsigned long long)want, (unsigned long long)got);
        fail_msg("%s: %s is 0x%llx, expected 0x%llx", report_what, what,
                 (unsigned long long)got, (unsigned long long)want);
    }
}

size_t oracle_scaled(size_t count, size_t at_least)
{
    const char *env = getenv("CTRSA_TEST_SCALE");
    double f = env != NULL ? atof(env) : 1.0;
    size_t n = f > 0 ? (size_t)((double)count * f) : count;
    return n < at_least ? at_least : n;
}
