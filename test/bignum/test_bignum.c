/*
 * Differential tests of the bignum engine (bignum/bignum.h) against OpenSSL's BN.
 *
 * Operands are random of random bit density (bn_oracle.c) plus edge values; moduli run from
 * one limb to 8192 bits, with special shapes (top limb all ones, 2^(k-1)+1, 2^k-1). Every
 * output and scratch buffer is malloc'ed with exactly the documented limb count so that an
 * ASan build catches overruns. The PRNG seed comes from CTRSA_TEST_SEED (else a fixed one)
 * and is printed with every failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/err.h>

#include "bignum.h"
#include "bn_oracle.h"

#define ONES (~(ctbn_limb)0)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Modulus bit lengths exercised by the modular tests: one-limb moduli, limb boundaries, and
 * every limb count the engine specialises (8, 12, 16, 24, 32, 48, 64 limbs) next to generic
 * counts (9, 17, 128). */
static const size_t mod_bits[] = {
    2, 3, 7, 31, 63, 64, 65, 127, 128, 129, 192, 255, 256, 511, 512, 521, 767, 768,
    1023, 1024, 1025, 1536, 2047, 2048, 3072, 4096, 8192,
};

/* Multiplies every iteration count: CTRSA_TEST_SCALE (default 1) for longer soak runs. */
static double test_scale = 1;

/* count scaled by CTRSA_TEST_SCALE, at least 1 */
static size_t scaled(size_t count)
{
    double c = (double)count * test_scale;
    return c < 1 ? 1 : (size_t)c;
}

/* Iterations for a size: scale * budget / n^degree, within [lo, scale * hi]. */
static size_t iters(size_t n, double budget, int degree, size_t lo, size_t hi)
{
    budget *= test_scale;
    hi = scaled(hi);
    double cost = 1;
    for (int i = 0; i < degree; i++)
        cost *= (double)n;
    double it = budget / cost;
    if (it < (double)lo)
        return lo;
    if (it > (double)hi)
        return hi;
    return (size_t)it;
}

/* ---- a modulus with its Montgomery context and oracle values ---- */

struct modulus {
    size_t n, bits;
    ctbn_limb *m;
    ctbn_mont *ctx;
    BIGNUM *bm, *r_mod_m, *rinv; /* m, R mod m, R^-1 mod m (R = 2^(64 n)) */
};

static void modulus_setup(struct modulus *md, const ctbn_limb *m, size_t n)
{
    BN_CTX *bctx = oracle_bn_ctx();
    md->n = n;
    md->m = limbs_alloc(n);
    memcpy(md->m, m, n * sizeof(ctbn_limb));
    md->bm = bn_from_limbs(m, n);
    md->bits = (size_t)BN_num_bits(md->bm);
    md->ctx = malloc(sizeof(ctbn_mont_max));
    assert_non_null(md->ctx);
    report_begin("mont_init, %zu-bit modulus", md->bits);
    report_operand("m", md->m, n);
    expect_word("mont_init return", (uint64_t)(int64_t)ctbn_mont_init(md->ctx, md->m, n), 0);
    md->r_mod_m = BN_new();
    BN_set_bit(md->r_mod_m, (int)(64 * n));
    BN_mod(md->r_mod_m, md->r_mod_m, md->bm, bctx);
    md->rinv = BN_mod_inverse(NULL, md->r_mod_m, md->bm, bctx);
    assert_non_null(md->rinv);
}

/* A random modulus of `bits` bits (kind drawn at random; MOD_TOP_ALL_ONES only if bits is a
 * multiple of 64). */
static void modulus_random(struct modulus *md, size_t bits)
{
    size_t n = CTBN_LIMBS(bits);
    ctbn_limb *m = limbs_alloc(n);
    enum mod_kind kind = MOD_RANDOM;
    uint64_t r = rng_below(10);
    if (r == 7 && bits % 64 == 0)
        kind = MOD_TOP_ALL_ONES;
    else if (r == 8)
        kind = MOD_TOP_BIT_PLUS1;
    else if (r == 9)
        kind = MOD_ALL_ONES;
    rand_modulus(m, n, bits, kind);
    modulus_setup(md, m, n);
    free(m);
}

static void modulus_free(struct modulus *md)
{
    free(md->m);
    free(md->ctx);
    BN_free(md->bm);
    BN_free(md->r_mod_m);
    BN_free(md->rinv);
}

/* For each modulus size, `count(n)` random moduli, each handed to fn. */
static void for_moduli(size_t (*count)(size_t n), void (*fn)(struct modulus *md))
{
    for (size_t s = 0; s < ARRAY_LEN(mod_bits); s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        size_t c = count(n);
        for (size_t i = 0; i < c; i++) {
            struct modulus md;
            modulus_random(&md, mod_bits[s]);
            fn(&md);
            modulus_free(&md);
        }
    }
}

#define SEED_TEST() oracle_seed_for(__func__)

/* ---- masks (static inline in bignum.h) ---- */

static void test_masks(void **state)
{
    (void)state;
    SEED_TEST();
    uint64_t v[24] = { 0, 1, 2, 3, (uint64_t)1 << 63, ((uint64_t)1 << 63) - 1,
                       ((uint64_t)1 << 63) + 1, ONES, ONES - 1, 0x100000000u, 0xffffffffu };
    for (size_t i = 11; i < ARRAY_LEN(v); i++)
        v[i] = rng_u64() >> rng_below(64);
    report_begin("mask helpers");
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        expect_word("mask_nonzero", ctbn_mask_nonzero(v[i]), v[i] != 0 ? ONES : 0);
        for (size_t j = 0; j < ARRAY_LEN(v); j++) {
            report_begin("masks x=0x%llx y=0x%llx", (unsigned long long)v[i],
                         (unsigned long long)v[j]);
            expect_word("mask_eq", ctbn_mask_eq(v[i], v[j]), v[i] == v[j] ? ONES : 0);
            expect_word("mask_lt", ctbn_mask_lt(v[i], v[j]), v[i] < v[j] ? ONES : 0);
            expect_word("select(ones)", ctbn_select(ONES, v[i], v[j]), v[i]);
            expect_word("select(0)", ctbn_select(0, v[i], v[j]), v[j]);
        }
    }
}

/* ---- byte strings ---- */

static size_t rand_limb_count(void)
{
    static const size_t big[] = { 32, 64, 128, 256 };
    return rng_below(8) == 0 ? big[rng_below(4)] : rng_range(1, 24);
}

static void test_to_bytes(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(3000); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n);
        rand_pattern(x, n, 64 * n);
        BIGNUM *bx = bn_from_limbs(x, n);
        size_t full = 8 * n;
        size_t len;
        switch (rng_below(4)) {
        case 0: len = full; break;
        case 1: len = (size_t)BN_num_bytes(bx); break;
        case 2: len = rng_range(0, full); break;
        default: len = full + rng_range(1, 24); break;
        }
        uint8_t *out = malloc(len == 0 ? 1 : len);
        uint8_t *want = malloc(full + len + 1);
        /* the value in full + len bytes; the last len bytes are the expected output */
        BN_bn2binpad(bx, want, (int)(full + len));
        int fits = (size_t)BN_num_bytes(bx) <= len;
        report_begin("to_bytes n=%zu len=%zu", n, len);
        report_operand("x", x, n);
        memset(out, 0xa5, len);
        ctbn_mask mk = ctbn_to_bytes(out, len, x, n);
        expect_word("fits mask", mk, fits ? ONES : 0);
        expect_bytes_eq("bytes", out, want + full, len);
        free(out);
        free(want);
        BN_free(bx);
        free(x);
    }
}

static void test_from_bytes(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(3000); it++) {
        size_t n = rand_limb_count();
        size_t full = 8 * n;
        size_t len;
        switch (rng_below(4)) {
        case 0: len = full; break;
        case 1: len = rng_range(0, full); break;
        case 2: len = rng_range(0, 3); break;
        default: len = full + rng_range(1, 24); break;
        }
        uint8_t *in = malloc(len == 0 ? 1 : len);
        for (size_t i = 0; i < len; i++)
            in[i] = (uint8_t)rng_u64();
        /* the bytes beyond n limbs: zero (fits), one nonzero byte, or random */
        if (len > full) {
            uint64_t mode = rng_below(3);
            if (mode < 2)
                memset(in, 0, len - full);
            if (mode == 1) /* often a single bit, so that every bit of every byte counts */
                in[rng_below(len - full)] = (uint8_t)(rng_below(2) ? 1u << rng_below(8)
                                                                   : 1 + rng_below(255));
        }
        /* sparse or all-ones contents now and then */
        if (rng_below(6) == 0)
            memset(in + (len > full ? len - full : 0), rng_below(2) ? 0xff : 0,
                   len > full ? full : len);
        BIGNUM *bv = BN_bin2bn(in, (int)len, NULL);
        int fits = BN_num_bits(bv) <= (int)(64 * n);
        BN_mask_bits(bv, (int)(64 * n));
        ctbn_limb *x = limbs_alloc(n);
        for (size_t i = 0; i < n; i++)
            x[i] = rng_u64();
        report_begin("from_bytes n=%zu len=%zu", n, len);
        ctbn_mask mk = ctbn_from_bytes(x, n, in, len);
        expect_word("fits mask", mk, fits ? ONES : 0);
        expect_limbs_bn("x", x, n, bv);
        /* round trip through to_bytes when it fits */
        if (fits && len > 0) {
            uint8_t *back = malloc(len);
            expect_word("to_bytes fits", ctbn_to_bytes(back, len, x, n), ONES);
            expect_bytes_eq("to_bytes(from_bytes(in))", back, in, len);
            free(back);
        }
        free(x);
        free(in);
        BN_free(bv);
    }
}

/* ---- zero / copy / set_u64 / eq / lt / is_zero ---- */

static void test_basic_moves(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(500); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n);
        rand_pattern(y, n, 64 * n);
        report_begin("zero/copy/set_u64 n=%zu", n);
        report_operand("y", y, n);
        ctbn_copy(x, y, n);
        expect_limbs_eq("copy", x, y, n);
        ctbn_copy(x, x, n);
        expect_limbs_eq("copy onto itself", x, y, n);
        ctbn_zero(x, n);
        expect_word("is_zero after zero", ctbn_is_zero(x, n), ONES);
        uint64_t v = rng_u64() >> rng_below(64);
        ctbn_set_u64(x, n, v);
        BIGNUM *bv = BN_new();
        BN_set_word(bv, v);
        expect_limbs_bn("set_u64", x, n, bv);
        BN_free(bv);
        free(x);
        free(y);
    }
}

static void test_compare(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(5000); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n);
        rand_pattern(x, n, 64 * n);
        switch (rng_below(4)) {
        case 0: /* equal */
            memcpy(y, x, n * sizeof(ctbn_limb));
            break;
        case 1: /* one bit apart */
            memcpy(y, x, n * sizeof(ctbn_limb));
            {
                size_t b = (size_t)rng_below(64 * n);
                y[b / 64] ^= (ctbn_limb)1 << (b % 64);
            }
            break;
        case 2: /* one limb apart by one */
            memcpy(y, x, n * sizeof(ctbn_limb));
            y[rng_below(n)] += rng_below(2) ? 1 : ONES;
            break;
        default:
            rand_pattern(y, n, 64 * n);
            break;
        }
        BIGNUM *bx = bn_from_limbs(x, n), *by = bn_from_limbs(y, n);
        int c = BN_cmp(bx, by);
        report_begin("compare n=%zu", n);
        report_operand("x", x, n);
        report_operand("y", y, n);
        expect_word("eq", ctbn_eq(x, y, n), c == 0 ? ONES : 0);
        expect_word("lt(x,y)", ctbn_lt(x, y, n), c < 0 ? ONES : 0);
        expect_word("lt(y,x)", ctbn_lt(y, x, n), c > 0 ? ONES : 0);
        expect_word("lt(x,x)", ctbn_lt(x, x, n), 0);
        expect_word("is_zero", ctbn_is_zero(x, n), BN_is_zero(bx) ? ONES : 0);
        BN_free(bx);
        BN_free(by);
        free(x);
        free(y);
    }
    /* is_zero on a single set bit anywhere */
    for (size_t n = 1; n <= 70; n++) {
        ctbn_limb *x = limbs_alloc(n);
        for (size_t b = 0; b < 64 * n; b += 1 + (size_t)rng_below(17)) {
            memset(x, 0, n * sizeof(ctbn_limb));
            x[b / 64] = (ctbn_limb)1 << (b % 64);
            report_begin("is_zero n=%zu bit %zu", n, b);
            expect_word("is_zero", ctbn_is_zero(x, n), 0);
        }
        free(x);
    }
}

/* ---- add / sub ---- */

static void check_add_sub(size_t n, const ctbn_limb *x, const ctbn_limb *y)
{
    ctbn_limb *r = limbs_alloc(n), *t = limbs_alloc(n);
    BIGNUM *bx = bn_from_limbs(x, n), *by = bn_from_limbs(y, n);
    BIGNUM *want = BN_new(), *two_n = BN_new();
    BN_set_bit(two_n, (int)(64 * n));

    report_begin("add n=%zu", n);
    report_operand("x", x, n);
    report_operand("y", y, n);
    /* x + y = carry * 2^64n + r */
    BN_add(want, bx, by);
    int c = BN_cmp(want, two_n) >= 0;
    if (c)
        BN_sub(want, want, two_n);
    expect_word("carry", ctbn_add(r, x, y, n), (uint64_t)c);
    expect_limbs_bn("sum", r, n, want);
    memcpy(t, x, n * sizeof(ctbn_limb));
    expect_word("carry (r = x)", ctbn_add(t, t, y, n), (uint64_t)c);
    expect_limbs_bn("sum (r = x)", t, n, want);
    memcpy(t, y, n * sizeof(ctbn_limb));
    expect_word("carry (r = y)", ctbn_add(t, x, t, n), (uint64_t)c);
    expect_limbs_bn("sum (r = y)", t, n, want);

    report_begin("sub n=%zu", n);
    report_operand("x", x, n);
    report_operand("y", y, n);
    BN_sub(want, bx, by);
    int b = BN_is_negative(want);
    if (b)
        BN_add(want, want, two_n);
    expect_word("borrow", ctbn_sub(r, x, y, n), (uint64_t)b);
    expect_limbs_bn("difference", r, n, want);
    memcpy(t, x, n * sizeof(ctbn_limb));
    expect_word("borrow (r = x)", ctbn_sub(t, t, y, n), (uint64_t)b);
    expect_limbs_bn("difference (r = x)", t, n, want);
    memcpy(t, y, n * sizeof(ctbn_limb));
    expect_word("borrow (r = y)", ctbn_sub(t, x, t, n), (uint64_t)b);
    expect_limbs_bn("difference (r = y)", t, n, want);

    /* x + x and x - x with full aliasing */
    report_begin("add/sub r = x = y, n=%zu", n);
    report_operand("x", x, n);
    BN_lshift1(want, bx);
    c = BN_cmp(want, two_n) >= 0;
    if (c)
        BN_sub(want, want, two_n);
    memcpy(t, x, n * sizeof(ctbn_limb));
    expect_word("carry", ctbn_add(t, t, t, n), (uint64_t)c);
    expect_limbs_bn("x + x", t, n, want);
    memcpy(t, x, n * sizeof(ctbn_limb));
    expect_word("borrow", ctbn_sub(t, t, t, n), 0);
    expect_word("x - x is zero", ctbn_is_zero(t, n), ONES);

    BN_free(bx);
    BN_free(by);
    BN_free(want);
    BN_free(two_n);
    free(r);
    free(t);
}

static void test_add_sub(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(3000); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n);
        rand_pattern(x, n, 64 * n);
        rand_pattern(y, n, 64 * n);
        if (rng_below(8) == 0) /* carry chains: y = ~x or y = 1 */
            for (size_t i = 0; i < n; i++)
                y[i] = rng_below(2) ? ~x[i] : (i == 0);
        check_add_sub(n, x, y);
        free(x);
        free(y);
    }
}

/* ---- cmov / cswap ---- */

static void test_cmov_cswap(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(2000); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n);
        ctbn_limb *x0 = limbs_alloc(n), *y0 = limbs_alloc(n);
        rand_pattern(x0, n, 64 * n);
        rand_pattern(y0, n, 64 * n);
        ctbn_mask mk = rng_below(2) ? ONES : 0;
        report_begin("cmov/cswap n=%zu mask=%s", n, mk ? "ones" : "zero");
        report_operand("x", x0, n);
        report_operand("y", y0, n);

        memcpy(x, x0, n * sizeof(ctbn_limb));
        memcpy(y, y0, n * sizeof(ctbn_limb));
        ctbn_cmov(mk, x, y, n);
        expect_limbs_eq("cmov x", x, mk ? y0 : x0, n);
        expect_limbs_eq("cmov leaves y", y, y0, n);
        ctbn_cmov(mk, x, x, n);
        expect_limbs_eq("cmov x onto itself", x, mk ? y0 : x0, n);

        memcpy(x, x0, n * sizeof(ctbn_limb));
        ctbn_cswap(mk, x, y, n);
        expect_limbs_eq("cswap x", x, mk ? y0 : x0, n);
        expect_limbs_eq("cswap y", y, mk ? x0 : y0, n);
        free(x);
        free(y);
        free(x0);
        free(y0);
    }
}

/* ---- bitlen_vartime ---- */

static void test_bitlen(void **state)
{
    (void)state;
    SEED_TEST();
    for (size_t it = 0; it < scaled(5000); it++) {
        size_t n = rand_limb_count();
        ctbn_limb *x = limbs_alloc(n);
        rand_pattern(x, n, 64 * n);
        if (rng_below(10) == 0)
            memset(x, 0, n * sizeof(ctbn_limb));
        BIGNUM *bx = bn_from_limbs(x, n);
        report_begin("bitlen_vartime n=%zu", n);
        report_operand("x", x, n);
        expect_word("bit length", ctbn_bitlen_vartime(x, n), (uint64_t)BN_num_bits(bx));
        BN_free(bx);
        free(x);
    }
}

/* ---- mul ---- */

static void test_mul(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t it = 0; it < scaled(1500); it++) {
        size_t an, bn;
        switch (rng_below(6)) {
        case 0: an = bn = rng_range(1, 3); break;
        case 1: an = 128; bn = 128; break;
        case 2: an = 1; bn = rng_range(1, 130); break;
        case 3: an = rng_range(1, 130); bn = 1; break;
        default: an = rng_range(1, 40); bn = rng_range(1, 40); break;
        }
        ctbn_limb *a = limbs_alloc(an), *b = limbs_alloc(bn), *r = limbs_alloc(an + bn);
        rand_pattern(a, an, 64 * an);
        rand_pattern(b, bn, 64 * bn);
        BIGNUM *ba = bn_from_limbs(a, an), *bb = bn_from_limbs(b, bn), *want = BN_new();
        BN_mul(want, ba, bb, bctx);
        for (size_t i = 0; i < an + bn; i++)
            r[i] = rng_u64(); /* the product must overwrite every limb */
        report_begin("mul an=%zu bn=%zu", an, bn);
        report_operand("a", a, an);
        report_operand("b", b, bn);
        ctbn_mul(r, a, an, b, bn);
        expect_limbs_bn("product", r, an + bn, want);
        BN_free(ba);
        BN_free(bb);
        BN_free(want);
        free(a);
        free(b);
        free(r);
    }
}

/* ---- modular: csub_mod, mod_add, mod_sub ---- */

static void check_mod_add_sub(struct modulus *md)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *x = limbs_alloc(n), *y = limbs_alloc(n), *r = limbs_alloc(n);
    ctbn_limb *t = limbs_alloc(n);
    BIGNUM *want = BN_new(), *bx, *by;
    BIGNUM *two_n = BN_new();
    BN_set_bit(two_n, (int)(64 * n));

    for (int k = 0; k < 4; k++) {
        rand_below(x, md->m, n);
        rand_below(y, md->m, n);
        bx = bn_from_limbs(x, n);
        by = bn_from_limbs(y, n);

        /* csub_mod on (extra:t) = x + y < 2m */
        report_begin("csub_mod, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("x", x, n);
        report_operand("y", y, n);
        BN_add(want, bx, by);
        ctbn_limb extra = BN_cmp(want, two_n) >= 0;
        BIGNUM *low = BN_dup(want);
        if (extra)
            BN_sub(low, low, two_n);
        limbs_from_bn(t, n, low);
        BN_free(low);
        int ge = BN_cmp(want, md->bm) >= 0;
        if (ge)
            BN_sub(want, want, md->bm);
        report_scalar("extra", extra);
        expect_word("csub_mod mask", ctbn_csub_mod(t, extra, md->m, n), ge ? ONES : 0);
        expect_limbs_bn("csub_mod (x + y)", t, n, want);
        /* csub_mod on x alone (< m): no subtraction */
        memcpy(t, x, n * sizeof(ctbn_limb));
        expect_word("csub_mod mask on x < m", ctbn_csub_mod(t, 0, md->m, n), 0);
        expect_limbs_eq("csub_mod on x < m", t, x, n);

        report_begin("mod_add, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("x", x, n);
        report_operand("y", y, n);
        BN_mod_add(want, bx, by, md->bm, bctx);
        ctbn_mod_add(r, x, y, md->m, n);
        expect_limbs_bn("x + y mod m", r, n, want);
        memcpy(t, x, n * sizeof(ctbn_limb));
        ctbn_mod_add(t, t, y, md->m, n);
        expect_limbs_bn("x + y mod m (r = x)", t, n, want);
        memcpy(t, y, n * sizeof(ctbn_limb));
        ctbn_mod_add(t, x, t, md->m, n);
        expect_limbs_bn("x + y mod m (r = y)", t, n, want);
        BN_mod_add(want, bx, bx, md->bm, bctx);
        memcpy(t, x, n * sizeof(ctbn_limb));
        ctbn_mod_add(t, t, t, md->m, n);
        expect_limbs_bn("x + x mod m (all aliased)", t, n, want);

        report_begin("mod_sub, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("x", x, n);
        report_operand("y", y, n);
        BN_mod_sub(want, bx, by, md->bm, bctx);
        ctbn_mod_sub(r, x, y, md->m, n);
        expect_limbs_bn("x - y mod m", r, n, want);
        memcpy(t, x, n * sizeof(ctbn_limb));
        ctbn_mod_sub(t, t, y, md->m, n);
        expect_limbs_bn("x - y mod m (r = x)", t, n, want);
        memcpy(t, y, n * sizeof(ctbn_limb));
        ctbn_mod_sub(t, x, t, md->m, n);
        expect_limbs_bn("x - y mod m (r = y)", t, n, want);
        memcpy(t, x, n * sizeof(ctbn_limb));
        ctbn_mod_sub(t, t, t, md->m, n);
        expect_word("x - x mod m is zero", ctbn_is_zero(t, n), ONES);
        BN_free(bx);
        BN_free(by);
    }
    BN_free(want);
    BN_free(two_n);
    free(x);
    free(y);
    free(r);
    free(t);
}

static size_t count_cheap(size_t n)
{
    return iters(n, 2e6, 2, 4, 600);
}

static void test_mod_add_sub(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_cheap, check_mod_add_sub);
}

/* ---- mont_init ---- */

static void check_mont_init(struct modulus *md)
{
    size_t n = md->n;
    const ctbn_mont *ctx = md->ctx;
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *rr = BN_new();
    report_begin("mont_init, %zu-bit m", md->bits);
    report_operand("m", md->m, n);
    expect_word("ctx->n", ctx->n, n);
    expect_word("ctx->bits", ctx->bits, md->bits);
    expect_limbs_eq("ctx->m", ctx->m, md->m, n);
    /* m0inv * m[0] = -1 mod 2^64 */
    expect_word("m0inv * m[0]", ctx->m0inv * md->m[0], ONES);
    ctbn_limb one[CTBN_MAX_LIMBS];
    ctbn_mont_one(ctx, one);
    expect_limbs_bn("ctbn_mont_one (R mod m)", one, n, md->r_mod_m);
    BN_mod_sqr(rr, md->r_mod_m, md->bm, bctx);
    expect_limbs_bn("ctx->rr (R^2 mod m)", ctx->rr, n, rr);
    BN_free(rr);
}

static size_t count_init(size_t n)
{
    return iters(n, 1e6, 2, 3, 400);
}

static void test_mont_init(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_init, check_mont_init);
    /* every special shape, at several sizes */
    static const size_t sizes[] = { 64, 128, 1024, 2048, 4096 };
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        for (int kind = 0; kind < MOD_KINDS; kind++) {
            size_t n = CTBN_LIMBS(sizes[s]);
            ctbn_limb *m = limbs_alloc(n);
            struct modulus md;
            rand_modulus(m, n, sizes[s], (enum mod_kind)kind);
            modulus_setup(&md, m, n);
            check_mont_init(&md);
            modulus_free(&md);
            free(m);
        }
    }
    /* the smallest modulus, 3 */
    {
        ctbn_limb *m = limbs_alloc(1);
        struct modulus md;
        m[0] = 3;
        modulus_setup(&md, m, 1);
        check_mont_init(&md);
        modulus_free(&md);
        free(m);
    }
    /* the largest size the engine accepts */
    {
        size_t n = CTBN_MAX_LIMBS;
        ctbn_limb *m = limbs_alloc(n);
        struct modulus md;
        rand_modulus(m, n, CTBN_MAX_BITS, MOD_RANDOM);
        modulus_setup(&md, m, n);
        check_mont_init(&md);
        modulus_free(&md);
        free(m);
    }
}

static void test_mont_init_rejects(void **state)
{
    (void)state;
    SEED_TEST();
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    ctbn_limb *m = limbs_alloc(CTBN_MAX_LIMBS + 1);
    for (size_t n = 1; n <= 40; n += 1 + (size_t)rng_below(5)) {
        report_begin("mont_init must reject, n=%zu", n);
        ctbn_zero(m, n);
        expect_word("m = 0", (uint64_t)(int64_t)ctbn_mont_init(ctx, m, n), (uint64_t)-1);
        ctbn_set_u64(m, n, 1);
        expect_word("m = 1", (uint64_t)(int64_t)ctbn_mont_init(ctx, m, n), (uint64_t)-1);
        rand_modulus(m, n, rand_mod_bits(n), MOD_RANDOM);
        m[0] &= ~(ctbn_limb)1;
        report_operand("m", m, n);
        expect_word("even m", (uint64_t)(int64_t)ctbn_mont_init(ctx, m, n), (uint64_t)-1);
        ctbn_set_u64(m, n, 2);
        expect_word("m = 2", (uint64_t)(int64_t)ctbn_mont_init(ctx, m, n), (uint64_t)-1);
    }
    report_begin("mont_init must reject bad n");
    rand_modulus(m, CTBN_MAX_LIMBS + 1, 64 * (CTBN_MAX_LIMBS + 1), MOD_RANDOM);
    expect_word("n = 0", (uint64_t)(int64_t)ctbn_mont_init(ctx, m, 0), (uint64_t)-1);
    expect_word("n = MAX + 1",
                (uint64_t)(int64_t)ctbn_mont_init(ctx, m, CTBN_MAX_LIMBS + 1), (uint64_t)-1);
    free(m);
    free(ctx);
}

/* ---- mont_mul / mont_sqr / to_mont / from_mont ---- */

/* x (n limbs) := a value below R = 2^(64n), at least m now and then (unreduced). */
static void rand_unreduced(ctbn_limb *x, const struct modulus *md)
{
    if (rng_below(2)) {
        rand_below(x, md->m, md->n);
        return;
    }
    do {
        rand_pattern(x, md->n, 64 * md->n);
    } while (rng_below(4) != 0 && ctbn_lt(x, md->m, md->n) == ONES);
    if (rng_below(8) == 0)
        memset(x, 0xff, md->n * sizeof(ctbn_limb)); /* R - 1 */
}

/* want := a * b * R^-1 mod m */
static void oracle_mont_mul(BIGNUM *want, const BIGNUM *a, const BIGNUM *b,
                            const struct modulus *md)
{
    BN_CTX *bctx = oracle_bn_ctx();
    BN_mod_mul(want, a, b, md->bm, bctx);
    BN_mod_mul(want, want, md->rinv, md->bm, bctx);
}

static void check_mont_mul(struct modulus *md)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *a = limbs_alloc(n), *b = limbs_alloc(n), *r = limbs_alloc(n);
    ctbn_limb *t = limbs_alloc(n);
    BIGNUM *want = BN_new();

    for (int k = 0; k < 3; k++) {
        rand_unreduced(a, md);
        rand_below(b, md->m, n);
        BIGNUM *ba = bn_from_limbs(a, n), *bb = bn_from_limbs(b, n);

        report_begin("mont_mul, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("a", a, n);
        report_operand("b", b, n);
        oracle_mont_mul(want, ba, bb, md);
        ctbn_mont_mul(md->ctx, r, a, b);
        expect_limbs_bn("a b R^-1 mod m", r, n, want);
        memcpy(t, a, n * sizeof(ctbn_limb));
        ctbn_mont_mul(md->ctx, t, t, b);
        expect_limbs_bn("a b R^-1 mod m (r = a)", t, n, want);
        memcpy(t, b, n * sizeof(ctbn_limb));
        ctbn_mont_mul(md->ctx, t, a, t);
        expect_limbs_bn("a b R^-1 mod m (r = b)", t, n, want);

        report_begin("mont_mul a = b, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("b", b, n);
        oracle_mont_mul(want, bb, bb, md);
        ctbn_mont_mul(md->ctx, r, b, b);
        expect_limbs_bn("b b R^-1 mod m", r, n, want);
        memcpy(t, b, n * sizeof(ctbn_limb));
        ctbn_mont_mul(md->ctx, t, t, t);
        expect_limbs_bn("b b R^-1 mod m (all aliased)", t, n, want);

        report_begin("mont_sqr, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("b", b, n);
        ctbn_mont_sqr(md->ctx, r, b);
        expect_limbs_bn("b^2 R^-1 mod m", r, n, want);
        memcpy(t, b, n * sizeof(ctbn_limb));
        ctbn_mont_sqr(md->ctx, t, t);
        expect_limbs_bn("b^2 R^-1 mod m (r = a)", t, n, want);

        report_begin("to_mont, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("a", a, n);
        BN_mod_mul(want, ba, md->r_mod_m, md->bm, bctx);
        ctbn_to_mont(md->ctx, r, a);
        expect_limbs_bn("a R mod m", r, n, want);
        memcpy(t, a, n * sizeof(ctbn_limb));
        ctbn_to_mont(md->ctx, t, t);
        expect_limbs_bn("a R mod m (r = a)", t, n, want);

        report_begin("from_mont, %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("a", a, n);
        BN_mod_mul(want, ba, md->rinv, md->bm, bctx);
        ctbn_from_mont(md->ctx, r, a);
        expect_limbs_bn("a R^-1 mod m", r, n, want);
        memcpy(t, a, n * sizeof(ctbn_limb));
        ctbn_from_mont(md->ctx, t, t);
        expect_limbs_bn("a R^-1 mod m (r = a)", t, n, want);

        /* round trip of a reduced value */
        report_begin("from_mont(to_mont(b)), %zu-bit m", md->bits);
        report_operand("m", md->m, n);
        report_operand("b", b, n);
        ctbn_to_mont(md->ctx, t, b);
        ctbn_from_mont(md->ctx, t, t);
        expect_limbs_eq("round trip", t, b, n);
        BN_free(ba);
        BN_free(bb);
    }
    BN_free(want);
    free(a);
    free(b);
    free(r);
    free(t);
}

static void test_mont_mul(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_cheap, check_mont_mul);
}

/* ---- mod_reduce ---- */

static void check_mod_reduce(struct modulus *md)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    size_t choices[] = { 2 * n, 2 * n, 1, n, n + 1, 2 * n + 1, 3 * n, 4 * n,
                         n > 1 ? n - 1 : 1, rng_range(1, 5 * n) };
    ctbn_limb *r = limbs_alloc(n);
    ctbn_limb *scratch = limbs_alloc(CTBN_REDUCE_SCRATCH(n));
    BIGNUM *want = BN_new();
    for (int k = 0; k < 3; k++) {
        size_t xn = choices[k == 0 ? 0 : rng_below(ARRAY_LEN(choices))];
        ctbn_limb *x = limbs_alloc(xn);
        rand_pattern(x, xn, 64 * xn);
        BIGNUM *bx = bn_from_limbs(x, xn);
        BN_mod(want, bx, md->bm, bctx);
        report_begin("mod_reduce xn=%zu, %zu-bit m", xn, md->bits);
        report_operand("m", md->m, n);
        report_operand("x", x, xn);
        ctbn_mod_reduce(md->ctx, r, x, xn, scratch);
        expect_limbs_bn("x mod m", r, n, want);
        BN_free(bx);
        free(x);
    }
    /* no limbs at all: zero */
    ctbn_limb none[1] = { 0 };
    memset(r, 0xA5, n * sizeof(ctbn_limb));
    ctbn_mod_reduce(md->ctx, r, none, 0, scratch);
    BN_zero(want);
    report_begin("mod_reduce xn=0, %zu-bit m", md->bits);
    expect_limbs_bn("empty x mod m", r, n, want);
    BN_free(want);
    free(r);
    free(scratch);
}

static void test_mod_reduce(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_cheap, check_mod_reduce);
}

/* ---- modexp_ct / modexp_public_vartime ---- */

/* Choose an exponent and its announced length for a modulus of `mbits` bits.
 * e is allocated with CTBN_LIMBS(*e_bits) limbs (at least one byte). */
static ctbn_limb *rand_exponent(size_t mbits, size_t *e_bits_out)
{
    size_t e_bits, true_bits;
    uint64_t kind = rng_below(9);
    switch (kind) {
    case 0: e_bits = mbits; true_bits = mbits; break;                     /* full length */
    case 1: e_bits = mbits; true_bits = rng_range(0, mbits); break;       /* shorter */
    case 2: true_bits = rng_range(1, mbits); e_bits = true_bits; break;   /* exact */
    case 3: true_bits = rng_range(1, mbits);                              /* announced > true */
        e_bits = true_bits + rng_range(1, 130); break;
    case 4: e_bits = rng_range(1, 70); true_bits = e_bits; break;         /* short */
    case 5: e_bits = rng_range(1, mbits + 64); true_bits = 0; break;      /* e = 0 */
    case 6: e_bits = rng_range(1, mbits + 64); true_bits = 1; break;      /* e = 1 */
    default: e_bits = rng_range(1, mbits + 64); true_bits = e_bits; break;
    }
    size_t en = CTBN_LIMBS(e_bits);
    ctbn_limb *e = limbs_alloc(en);
    memset(e, 0, en * sizeof(ctbn_limb));
    if (true_bits == 1) {
        e[0] = 1;
    } else if (true_bits > 0) {
        if (rng_below(6) == 0) {
            /* only the top bit */
            e[(true_bits - 1) / 64] = (ctbn_limb)1 << ((true_bits - 1) % 64);
        } else {
            rand_pattern(e, en, true_bits);
            if (rng_below(2)) /* force the exact length */
                e[(true_bits - 1) / 64] |= (ctbn_limb)1 << ((true_bits - 1) % 64);
        }
    }
    *e_bits_out = e_bits;
    return e;
}

static void check_modexp_ct(struct modulus *md)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *b = limbs_alloc(n), *r = limbs_alloc(n);
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP_SCRATCH(n));
    BIGNUM *want = BN_new();
    size_t e_bits;
    ctbn_limb *e = rand_exponent(md->bits, &e_bits);
    size_t en = CTBN_LIMBS(e_bits);
    rand_below(b, md->m, n);
    BIGNUM *bb = bn_from_limbs(b, n), *be = bn_from_limbs(e, en);
    BN_mod_exp(want, bb, be, md->bm, bctx);

    report_begin("modexp_ct e_bits=%zu (true %d), %zu-bit m", e_bits, BN_num_bits(be),
                 md->bits);
    report_operand("m", md->m, n);
    report_operand("b", b, n);
    report_operand("e", e, en);
    ctbn_modexp_ct(md->ctx, r, b, e, e_bits, scratch);
    expect_limbs_bn("b^e mod m", r, n, want);
    if (rng_below(3) == 0) {
        ctbn_limb *t = limbs_alloc(n);
        memcpy(t, b, n * sizeof(ctbn_limb));
        ctbn_modexp_ct(md->ctx, t, t, e, e_bits, scratch);
        expect_limbs_bn("b^e mod m (r = b)", t, n, want);
        free(t);
    }
    BN_free(bb);
    BN_free(be);
    BN_free(want);
    free(e);
    free(b);
    free(r);
    free(scratch);
}

static size_t count_exp(size_t n)
{
    return iters(n, 2e7, 3, 2, 200);
}

static void test_modexp_ct(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_exp, check_modexp_ct);
}

/* Each window width change point, from e_bits = 1 on, and the width bounded by the scratch
 * size (a table of at most 64 entries). */
static void test_modexp_window_edges(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[] = { 64, 521, 1024, 2048 };
    unsigned prev = 0;
    for (size_t eb = 1; eb <= 2 * CTBN_MAX_BITS; eb++) {
        unsigned w = ctbn_modexp_window(eb);
        report_begin("modexp_window(%zu)", eb);
        if (w < 1 || w > 6)
            fail_msg("modexp_window(%zu) = %u: outside 1..6 (scratch holds 64 entries)", eb, w);
        if (w == prev)
            continue;
        prev = w;
        /* at a change point: exponents of eb - 1, eb, eb + 1 announced bits */
        for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
            struct modulus md;
            modulus_random(&md, sizes[s]);
            for (size_t d = 0; d < 3; d++) {
                size_t e_bits = eb + d - 1;
                if (e_bits == 0 || e_bits > 4 * md.bits)
                    continue;
                size_t en = CTBN_LIMBS(e_bits);
                ctbn_limb *e = limbs_alloc(en), *b = limbs_alloc(md.n), *r = limbs_alloc(md.n);
                ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP_SCRATCH(md.n));
                rand_pattern(e, en, e_bits);
                rand_below(b, md.m, md.n);
                BIGNUM *bb = bn_from_limbs(b, md.n), *be = bn_from_limbs(e, en), *want = BN_new();
                BN_mod_exp(want, bb, be, md.bm, oracle_bn_ctx());
                report_begin("modexp_ct at window change e_bits=%zu (w=%u), %zu-bit m", e_bits,
                             w, md.bits);
                report_operand("m", md.m, md.n);
                report_operand("b", b, md.n);
                report_operand("e", e, en);
                ctbn_modexp_ct(md.ctx, r, b, e, e_bits, scratch);
                expect_limbs_bn("b^e mod m", r, md.n, want);
                BN_free(bb);
                BN_free(be);
                BN_free(want);
                free(e);
                free(b);
                free(r);
                free(scratch);
            }
            modulus_free(&md);
        }
    }
}

static void check_exp_public(struct modulus *md)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *b = limbs_alloc(n), *r = limbs_alloc(n);
    ctbn_limb *scratch = limbs_alloc(CTBN_EXP_VARTIME_SCRATCH(n));
    BIGNUM *want = BN_new();
    size_t en, true_bits;
    ctbn_limb *e;
    switch (rng_below(5)) {
    case 0: /* 65537, sometimes with leading zero limbs */
        en = rng_range(1, 3);
        e = limbs_alloc(en);
        ctbn_set_u64(e, en, 65537);
        break;
    case 1: /* 0, 1 or 3 */
        en = rng_range(1, 3);
        e = limbs_alloc(en);
        ctbn_set_u64(e, en, (uint64_t[]){ 0, 1, 3 }[rng_below(3)]);
        break;
    default: /* a random public exponent, up to the modulus length, with zero limbs above */
        true_bits = rng_range(1, md->bits);
        en = CTBN_LIMBS(true_bits) + rng_below(3);
        e = limbs_alloc(en);
        rand_pattern(e, en, true_bits);
        break;
    }
    rand_below(b, md->m, n);
    BIGNUM *bb = bn_from_limbs(b, n), *be = bn_from_limbs(e, en);
    BN_mod_exp(want, bb, be, md->bm, bctx);
    report_begin("modexp_public_vartime en=%zu, %zu-bit m", en, md->bits);
    report_operand("m", md->m, n);
    report_operand("b", b, n);
    report_operand("e", e, en);
    ctbn_modexp_public_vartime(md->ctx, r, b, e, en, scratch);
    expect_limbs_bn("b^e mod m", r, n, want);
    ctbn_limb *t = limbs_alloc(n);
    memcpy(t, b, n * sizeof(ctbn_limb));
    ctbn_modexp_public_vartime(md->ctx, t, t, e, en, scratch);
    expect_limbs_bn("b^e mod m (r = b)", t, n, want);
    free(t);
    BN_free(bb);
    BN_free(be);
    BN_free(want);
    free(e);
    free(b);
    free(r);
    free(scratch);
}

static size_t count_exp_public(size_t n)
{
    return iters(n, 1e7, 3, 2, 100);
}

static void test_modexp_public_vartime(void **state)
{
    (void)state;
    SEED_TEST();
    for_moduli(count_exp_public, check_exp_public);
}

/* Zero-length exponents: e_bits = 0 and en = 0 mean e = 0, so b^e = 1 mod m. */
static void test_modexp_empty_exponent(void **state)
{
    (void)state;
    SEED_TEST();
    struct modulus md;
    modulus_random(&md, 1024);
    size_t n = md.n;
    ctbn_limb *b = limbs_alloc(n), *r = limbs_alloc(n), *e = limbs_alloc(1);
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP_SCRATCH(n));
    e[0] = 0;
    rand_below(b, md.m, n);
    report_begin("modexp with a zero-length exponent");
    report_operand("m", md.m, n);
    report_operand("b", b, n);
    BIGNUM *one = BN_new();
    BN_one(one);
    ctbn_modexp_ct(md.ctx, r, b, e, 0, scratch);
    expect_limbs_bn("modexp_ct, e_bits = 0", r, n, one);
    ctbn_modexp_public_vartime(md.ctx, r, b, e, 0, scratch);
    expect_limbs_bn("modexp_public_vartime, en = 0", r, n, one);
    BN_free(one);
    free(b);
    free(r);
    free(e);
    free(scratch);
    modulus_free(&md);
}

/* ---- modexp2_ct ---- */

static void test_modexp2_ct(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[][2] = { { 64, 64 },     { 65, 200 },   { 512, 512 },
                                       { 1024, 1024 }, { 1024, 1000 }, { 1536, 1536 },
                                       { 2048, 2048 }, { 3, 2048 },    { 2048, 1023 } };
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        for (size_t it = 0; it < scaled(3); it++) {
            struct modulus m1, m2;
            modulus_random(&m1, sizes[s][0]);
            modulus_random(&m2, sizes[s][1]);
            size_t n1 = m1.n, n2 = m2.n, e1_bits, e2_bits;
            ctbn_limb *e1 = rand_exponent(m1.bits, &e1_bits);
            ctbn_limb *e2 = rand_exponent(m2.bits, &e2_bits);
            ctbn_limb *b1 = limbs_alloc(n1), *b2 = limbs_alloc(n2);
            ctbn_limb *r1 = limbs_alloc(n1), *r2 = limbs_alloc(n2);
            ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP2_SCRATCH(n1, n2));
            rand_below(b1, m1.m, n1);
            rand_below(b2, m2.m, n2);
            BIGNUM *bb1 = bn_from_limbs(b1, n1), *be1 = bn_from_limbs(e1, CTBN_LIMBS(e1_bits));
            BIGNUM *bb2 = bn_from_limbs(b2, n2), *be2 = bn_from_limbs(e2, CTBN_LIMBS(e2_bits));
            BIGNUM *w1 = BN_new(), *w2 = BN_new();
            BN_mod_exp(w1, bb1, be1, m1.bm, bctx);
            BN_mod_exp(w2, bb2, be2, m2.bm, bctx);
            report_begin("modexp2_ct e1_bits=%zu e2_bits=%zu, %zu/%zu-bit moduli", e1_bits,
                         e2_bits, m1.bits, m2.bits);
            report_operand("m1", m1.m, n1);
            report_operand("b1", b1, n1);
            report_operand("e1", e1, CTBN_LIMBS(e1_bits));
            report_operand("m2", m2.m, n2);
            report_operand("b2", b2, n2);
            report_operand("e2", e2, CTBN_LIMBS(e2_bits));
            ctbn_modexp2_ct(m1.ctx, r1, b1, e1, e1_bits, m2.ctx, r2, b2, e2, e2_bits, scratch);
            expect_limbs_bn("r1 = b1^e1 mod m1", r1, n1, w1);
            expect_limbs_bn("r2 = b2^e2 mod m2", r2, n2, w2);
            /* in place */
            ctbn_modexp2_ct(m1.ctx, b1, b1, e1, e1_bits, m2.ctx, b2, b2, e2, e2_bits, scratch);
            expect_limbs_bn("r1 (r1 = b1)", b1, n1, w1);
            expect_limbs_bn("r2 (r2 = b2)", b2, n2, w2);
            BN_free(bb1);
            BN_free(be1);
            BN_free(bb2);
            BN_free(be2);
            BN_free(w1);
            BN_free(w2);
            free(e1);
            free(e2);
            free(b1);
            free(b2);
            free(r1);
            free(r2);
            free(scratch);
            modulus_free(&m1);
            modulus_free(&m2);
        }
    }
}

/* ---- mod_inverse_ct ---- */

static void check_inverse(const ctbn_limb *a, const ctbn_limb *m, size_t n)
{
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *r = limbs_alloc(n), *scratch = limbs_alloc(CTBN_INVERSE_SCRATCH(n));
    BIGNUM *ba = bn_from_limbs(a, n), *bm = bn_from_limbs(m, n);
    BIGNUM *want = BN_mod_inverse(NULL, ba, bm, bctx);
    ERR_clear_error();
    for (size_t i = 0; i < n; i++)
        r[i] = rng_u64();
    report_begin("mod_inverse_ct, %d-bit m, %s", BN_num_bits(bm),
                 want != NULL ? "invertible" : "not invertible");
    report_operand("m", m, n);
    report_operand("a", a, n);
    ctbn_mask ok = ctbn_mod_inverse_ct(r, a, m, n, scratch);
    expect_word("invertible mask", ok, want != NULL ? ONES : 0);
    if (want != NULL) {
        expect_limbs_bn("a^-1 mod m", r, n, want);
    } else {
        BIGNUM *zero = BN_new();
        BN_zero(zero);
        expect_limbs_bn("r on failure (zero)", r, n, zero);
        BN_free(zero);
    }
    BN_free(ba);
    BN_free(bm);
    BN_free(want);
    free(r);
    free(scratch);
}

static void test_mod_inverse_ct(void **state)
{
    (void)state;
    SEED_TEST();
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t s = 0; s < ARRAY_LEN(mod_bits); s++) {
        size_t bits = mod_bits[s], n = CTBN_LIMBS(bits);
        size_t count = iters(n, 1e5, 2, 3, 100);
        ctbn_limb *m = limbs_alloc(n), *a = limbs_alloc(n);
        for (size_t it = 0; it < count; it++) {
            /* random odd modulus (mostly composite), random a below it */
            rand_modulus(m, n, bits, (enum mod_kind)(rng_below(4) == 0 ? rng_below(MOD_KINDS)
                                                                        : MOD_RANDOM));
            if (bits == 2)
                ctbn_set_u64(m, n, 3);
            rand_below(a, m, n);
            check_inverse(a, m, n);
        }
        /* the longest binary-GCD runs (2 * bits - 1 steps): a = m - 1 with m = 2^k - 1 or
         * m = 2^(k-1) + 1, and a = 2^(k-1) */
        for (int kind = MOD_TOP_BIT_PLUS1; kind <= MOD_ALL_ONES; kind++) {
            if (bits == 2)
                break;
            rand_modulus(m, n, 64 * n, (enum mod_kind)kind);
            memcpy(a, m, n * sizeof(ctbn_limb));
            a[0] -= 1; /* m is odd: no borrow */
            check_inverse(a, m, n);
            a[0] -= 1;
            check_inverse(a, m, n);
            ctbn_zero(a, n);
            a[n - 1] = (ctbn_limb)1 << 63;
            check_inverse(a, m, n);
        }
        /* composite m = p q (odd factors) with a = k p: not invertible */
        if (bits >= 8) {
            for (size_t it = 0; it < 3; it++) {
                BIGNUM *p = BN_new(), *q = BN_new(), *bm = BN_new(), *ba = BN_new();
                BN_rand(p, (int)(bits / 2), BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
                BN_rand(q, (int)(bits - bits / 2), BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ODD);
                BN_mul(bm, p, q, bctx);
                if (BN_num_bits(bm) > (int)(64 * n))
                    BN_rshift1(q, q), BN_set_bit(q, 0), BN_mul(bm, p, q, bctx);
                BN_rand_range(ba, q);
                BN_mul(ba, ba, p, bctx);
                limbs_from_bn(m, n, bm);
                limbs_from_bn(a, n, ba);
                check_inverse(a, m, n);
                BN_free(p);
                BN_free(q);
                BN_free(bm);
                BN_free(ba);
            }
        }
        /* prime moduli (as for qInv mod p), up to 1024 bits */
        if (bits >= 16 && bits <= 1024) {
            BIGNUM *p = BN_new();
            BN_generate_prime_ex(p, (int)bits, 0, NULL, NULL, NULL);
            limbs_from_bn(m, n, p);
            rand_below(a, m, n);
            check_inverse(a, m, n);
            ctbn_zero(a, n);
            check_inverse(a, m, n); /* 0 has no inverse */
            ctbn_set_u64(a, n, 1);
            check_inverse(a, m, n);
            BN_free(p);
        }
        free(m);
        free(a);
    }
}

/* ---- a modulus narrower than its limbs (top limb zero) ---- */

static void test_short_modulus(void **state)
{
    (void)state;
    SEED_TEST();
    /* The contract asks for an odd m > 1 in n limbs; it does not require the top limb to be
     * nonzero. Exercise a 1000-bit modulus in 20 limbs. */
    size_t n = 20;
    ctbn_limb *m = limbs_alloc(n);
    rand_modulus(m, n, 1000, MOD_RANDOM);
    struct modulus md;
    modulus_setup(&md, m, n);
    check_mont_init(&md);
    check_mont_mul(&md);
    check_mod_reduce(&md);
    check_modexp_ct(&md);
    modulus_free(&md);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masks),
        cmocka_unit_test(test_to_bytes),
        cmocka_unit_test(test_from_bytes),
        cmocka_unit_test(test_basic_moves),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_add_sub),
        cmocka_unit_test(test_cmov_cswap),
        cmocka_unit_test(test_bitlen),
        cmocka_unit_test(test_mul),
        cmocka_unit_test(test_mod_add_sub),
        cmocka_unit_test(test_mont_init),
        cmocka_unit_test(test_mont_init_rejects),
        cmocka_unit_test(test_mont_mul),
        cmocka_unit_test(test_mod_reduce),
        cmocka_unit_test(test_modexp_ct),
        cmocka_unit_test(test_modexp_window_edges),
        cmocka_unit_test(test_modexp_empty_exponent),
        cmocka_unit_test(test_modexp2_ct),
        cmocka_unit_test(test_modexp_public_vartime),
        cmocka_unit_test(test_mod_inverse_ct),
        cmocka_unit_test(test_short_modulus),
    };
    const char *scale = getenv("CTRSA_TEST_SCALE");
    if (scale != NULL && atof(scale) > 0)
        test_scale = atof(scale);
    fprintf(stderr, "bignum differential tests, CTRSA_TEST_SEED=0x%llx CTRSA_TEST_SCALE=%g\n",
            (unsigned long long)oracle_base_seed(), test_scale);
    /* The runs with CTRSA_CPU (meson.build: bignum-adx, -avx2, -avx512, -avx512y) must test
     * that backend wherever this CPU supports it, not the portable fallback: the engine
     * takes CTRSA_CPU silently, and a backend that stopped being chosen would pass here. */
    const char *want = getenv("CTRSA_CPU"), *names[8];
    size_t count = ctbn_backend_supported(names, 8);
    int supported = 0;
    for (size_t i = 0; i < count && i < 8; i++)
        supported |= want != NULL && strcmp(names[i], want) == 0;
    fprintf(stderr, "backend: %s (CTRSA_CPU=%s, %s here)\n", ctbn_backend_name(),
            want != NULL ? want : "unset", supported ? "supported" : "not supported");
    if (supported && strcmp(ctbn_backend_name(), want) != 0) {
        fprintf(stderr, "FAIL: CTRSA_CPU=%s is supported here but the engine runs %s\n", want,
                ctbn_backend_name());
        return 1;
    }
    return cmocka_run_group_tests_name("bignum", tests, NULL, NULL);
}
