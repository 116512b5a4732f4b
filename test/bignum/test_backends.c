/*
 * Every backend the CPU supports (bignum/backend.h) against the portable reference and
 * OpenSSL's BN: Montgomery multiplication and squaring for every limb count 1..33 and the
 * specialised ones up to 8192 bits, with operands that carry at every limb boundary,
 * unreduced a < R, moduli with all-ones top limbs (the squaring on the same carry shapes);
 * modexp_ct, modexp2_ct and the public-exponent path through the seam, with its edge
 * exponents (0, 1, even, two limbs); and the selection API itself.
 *
 * The PRNG seed comes from CTRSA_TEST_SEED (bn_oracle.c) and is printed with any failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h" /* ctbn_cpu_features, the core-trait rule */
#include "bignum.h"
#include "bn_oracle.h"

#define MAX_BACKENDS 8
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SEED_TEST() oracle_seed_for(__func__)

static const char *backends[MAX_BACKENDS];
static size_t n_backends;

static void use(const char *name)
{
    if (ctbn_backend_select(name) != 0)
        fail_msg("backend %s listed as supported but cannot be selected", name);
    assert_string_equal(ctbn_backend_name(), name);
}

/* ---- the selection API ---- */

static void test_select_api(void **state)
{
    (void)state;
    const char *names[MAX_BACKENDS];
    size_t count = ctbn_backend_supported(names, MAX_BACKENDS);
    assert_true(count >= 1 && count <= MAX_BACKENDS);
    assert_string_equal(names[0], "portable");
    assert_int_equal(ctbn_backend_supported(NULL, 0), count);
    for (size_t i = 0; i < count; i++)
        use(names[i]);

    /* unknown names fail and leave the active backend alone */
    use("portable");
    assert_int_equal(ctbn_backend_select("bogus"), -1);
    assert_int_equal(ctbn_backend_select(""), -1);
    assert_int_equal(ctbn_backend_select("ADX"), -1);
    assert_string_equal(ctbn_backend_name(), "portable");

    /* a known but unsupported backend fails too */
    static const char *all[] = { "portable", "adx", "avx512y", "avx2", "avx512", "ifma",
                                 "ifmaz" };
    for (size_t k = 0; k < ARRAY_LEN(all); k++) {
        int listed = 0;
        for (size_t i = 0; i < count; i++)
            listed |= strcmp(names[i], all[k]) == 0;
        if (!listed) {
            assert_int_equal(ctbn_backend_select(all[k]), -1);
            assert_string_equal(ctbn_backend_name(), "portable");
        }
    }

    /* "auto" (and NULL) pick the best: the last of the list, but ifmaz (last wherever IFMA
     * is) only on a core with zmm IFMA at the ymm rate, ifma (before it) elsewhere */
    const char *best = names[count - 1];
    if (strcmp(best, "ifmaz") == 0 &&
        !(ctbn_cpu_features() & CTBN_CPU_ZMM_IFMA_FULL_RATE)) {
        assert_string_equal(names[count - 2], "ifma");
        best = names[count - 2];
    }
    assert_int_equal(ctbn_backend_select("auto"), 0);
    assert_string_equal(ctbn_backend_name(), best);
    use("portable");
    assert_int_equal(ctbn_backend_select(NULL), 0);
    assert_string_equal(ctbn_backend_name(), best);
    use("portable");
}

/* The core-trait rule, on CPUs this test may not run on: zmm IFMA counts as full rate on
 * AMD family 26 (Zen 5) with IFMA, and nowhere else measured. */
static void test_core_traits(void **state)
{
    (void)state;
    unsigned ifma = CTBN_CPU_AVX512F | CTBN_CPU_AVX512IFMA;
    assert_int_equal(ctbn_cpu_core_traits(1, 26, ifma), CTBN_CPU_ZMM_IFMA_FULL_RATE);
    assert_int_equal(ctbn_cpu_core_traits(1, 26, CTBN_CPU_AVX2), 0); /* IFMA hidden */
    assert_int_equal(ctbn_cpu_core_traits(1, 25, ifma), 0);          /* Zen 4 */
    assert_int_equal(ctbn_cpu_core_traits(0, 6, ifma), 0);           /* Intel */
    assert_int_equal(ctbn_cpu_core_traits(0, 26, ifma), 0);          /* not AMD */
    /* and the detected features carry the rule's answer for this CPU */
    unsigned f = ctbn_cpu_features();
    if (!(f & CTBN_CPU_AVX512IFMA))
        assert_false(f & CTBN_CPU_ZMM_IFMA_FULL_RATE);
}

/* ---- Montgomery multiplication and squaring ---- */

struct modulus {
    size_t n, bits;
    ctbn_limb *m;
    ctbn_mont *ctx;
    BIGNUM *bm, *rinv;
};

static void modulus_new(struct modulus *md, size_t n, size_t bits, enum mod_kind kind)
{
    md->n = n;
    md->m = limbs_alloc(n);
    rand_modulus(md->m, n, bits, kind);
    md->ctx = malloc(sizeof(ctbn_mont_max));
    assert_non_null(md->ctx);
    report_begin("mont_init n=%zu", n);
    report_operand("m", md->m, n);
    expect_word("mont_init", (uint64_t)(int64_t)ctbn_mont_init(md->ctx, md->m, n), 0);
    md->bm = bn_from_limbs(md->m, n);
    md->bits = (size_t)BN_num_bits(md->bm);
    BIGNUM *r = BN_new();
    BN_set_bit(r, (int)(64 * n));
    md->rinv = BN_mod_inverse(NULL, r, md->bm, oracle_bn_ctx());
    assert_non_null(md->rinv);
    BN_free(r);
}

static void modulus_del(struct modulus *md)
{
    free(md->m);
    free(md->ctx);
    BN_free(md->bm);
    BN_free(md->rinv);
}

/*
 * a (n limbs, a < R, maybe >= m) and b (b < m) of a shape chosen by `shape`: the first
 * shapes make carries run through every limb boundary (runs of all-ones limbs, R - 1,
 * m - 1, 2^(64k) - 1 for each k), the rest are random of random density.
 */
static void operands(ctbn_limb *a, ctbn_limb *b, const struct modulus *md, size_t shape)
{
    size_t n = md->n;
    ctbn_limb one[CTBN_MAX_LIMBS];
    ctbn_set_u64(one, n, 1);
    if (shape < n) {
        /* a = 2^(64 (shape+1)) - 1: ones up to a limb boundary; b = m - 1 */
        memset(a, 0, n * sizeof(ctbn_limb));
        memset(a, 0xff, (shape + 1) * sizeof(ctbn_limb));
        ctbn_sub(b, md->m, one, n);
        return;
    }
    switch (shape - n) {
    case 0: /* R - 1 and m - 1: the largest allowed operands */
        memset(a, 0xff, n * sizeof(ctbn_limb));
        ctbn_sub(b, md->m, one, n);
        return;
    case 1: /* m - 1 squared */
        ctbn_sub(a, md->m, one, n);
        ctbn_copy(b, a, n);
        return;
    case 2: /* a = m exactly (unreduced), b random */
        ctbn_copy(a, md->m, n);
        rand_below(b, md->m, n);
        return;
    case 3: /* zero and one */
        ctbn_zero(a, n);
        ctbn_copy(b, one, n);
        return;
    default:
        if (rng_below(3) == 0)
            rand_pattern(a, n, 64 * n); /* often >= m: unreduced */
        else
            rand_below(a, md->m, n);
        rand_below(b, md->m, n);
        return;
    }
}

/* Run mont_mul and mont_sqr on every backend; all must agree with BN. */
static void check_mont_all(const struct modulus *md, const ctbn_limb *a, const ctbn_limb *b)
{
    size_t n = md->n;
    BN_CTX *bctx = oracle_bn_ctx();
    ctbn_limb *r = limbs_alloc(n), *t = limbs_alloc(n);
    BIGNUM *ba = bn_from_limbs(a, n), *bb = bn_from_limbs(b, n);
    BIGNUM *w_mul = BN_new(), *w_sqr = BN_new();
    BN_mod_mul(w_mul, ba, bb, md->bm, bctx);
    BN_mod_mul(w_mul, w_mul, md->rinv, md->bm, bctx);
    BN_mod_mul(w_sqr, bb, bb, md->bm, bctx);
    BN_mod_mul(w_sqr, w_sqr, md->rinv, md->bm, bctx);
    BIGNUM *a_sqr = NULL;
    if (ctbn_lt(a, md->m, n)) {
        a_sqr = BN_new();
        BN_mod_mul(a_sqr, ba, ba, md->bm, bctx);
        BN_mod_mul(a_sqr, a_sqr, md->rinv, md->bm, bctx);
    }

    for (size_t k = 0; k < n_backends; k++) {
        use(backends[k]);
        report_begin("[%s] mont_mul/mont_sqr n=%zu, %zu-bit m", backends[k], n, md->bits);
        report_operand("m", md->m, n);
        report_operand("a", a, n);
        report_operand("b", b, n);
        ctbn_mont_mul(md->ctx, r, a, b);
        expect_limbs_bn("a b R^-1", r, n, w_mul);
        ctbn_copy(t, a, n);
        ctbn_mont_mul(md->ctx, t, t, b);
        expect_limbs_bn("a b R^-1 (r = a)", t, n, w_mul);
        ctbn_copy(t, b, n);
        ctbn_mont_mul(md->ctx, t, a, t);
        expect_limbs_bn("a b R^-1 (r = b)", t, n, w_mul);
        ctbn_mont_sqr(md->ctx, r, b);
        expect_limbs_bn("b^2 R^-1", r, n, w_sqr);
        ctbn_copy(t, b, n);
        ctbn_mont_sqr(md->ctx, t, t);
        expect_limbs_bn("b^2 R^-1 (r = a)", t, n, w_sqr);
        ctbn_mont_mul(md->ctx, r, b, b);
        expect_limbs_bn("b b R^-1 by mont_mul", r, n, w_sqr);
        if (a_sqr != NULL) {
            /* the squaring on a's shapes too (carries at every limb boundary), when a < m */
            ctbn_mont_sqr(md->ctx, r, a);
            expect_limbs_bn("a^2 R^-1", r, n, a_sqr);
            ctbn_copy(t, a, n);
            ctbn_mont_sqr(md->ctx, t, t);
            expect_limbs_bn("a^2 R^-1 (r = a)", t, n, a_sqr);
        }
    }
    BN_free(ba);
    BN_free(bb);
    BN_free(w_mul);
    BN_free(w_sqr);
    BN_free(a_sqr);
    free(r);
    free(t);
}

static void test_mont_every_size(void **state)
{
    (void)state;
    SEED_TEST();
    /* every limb count up to 33 (unrolled quads plus every remainder), then the specialised
     * RSA counts and 8192 bits */
    size_t counts[33 + 5];
    size_t nc = 0;
    for (size_t n = 1; n <= 33; n++)
        counts[nc++] = n;
    counts[nc++] = 48;
    counts[nc++] = 64;
    counts[nc++] = 65;
    counts[nc++] = 96;
    counts[nc++] = 128;
    for (size_t c = 0; c < nc; c++) {
        size_t n = counts[c];
        for (int kind = 0; kind < MOD_KINDS; kind++) {
            struct modulus md;
            size_t bits = kind == MOD_TOP_ALL_ONES ? 64 * n : rand_mod_bits(n);
            if (kind == MOD_ALL_ONES && rng_below(2))
                bits = 64 * n; /* 2^(64n) - 1: every limb all ones */
            modulus_new(&md, n, bits, (enum mod_kind)kind);
            ctbn_limb *a = limbs_alloc(n), *b = limbs_alloc(n);
            size_t shapes = n + 4 + (n <= 32 ? 8 : 2);
            for (size_t s = 0; s < shapes; s++) {
                operands(a, b, &md, s);
                check_mont_all(&md, a, b);
            }
            free(a);
            free(b);
            modulus_del(&md);
        }
    }
    use("portable");
}

/* ---- modexp_ct, modexp2_ct, modexp_public_vartime through the seam ---- */

static void check_modexp_all(const struct modulus *md, size_t e_bits)
{
    size_t n = md->n, en = CTBN_LIMBS(e_bits);
    ctbn_limb *b = limbs_alloc(n), *r = limbs_alloc(n), *e = limbs_alloc(en);
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP_SCRATCH(n));
    rand_below(b, md->m, n);
    rand_pattern(e, en, e_bits);
    BIGNUM *bb = bn_from_limbs(b, n), *be = bn_from_limbs(e, en), *want = BN_new();
    BN_mod_exp(want, bb, be, md->bm, oracle_bn_ctx());
    for (size_t k = 0; k < n_backends; k++) {
        use(backends[k]);
        report_begin("[%s] modexp_ct e_bits=%zu, %zu-bit m", backends[k], e_bits, md->bits);
        report_operand("m", md->m, n);
        report_operand("b", b, n);
        report_operand("e", e, en);
        ctbn_modexp_ct(md->ctx, r, b, e, e_bits, scratch);
        expect_limbs_bn("b^e mod m", r, n, want);
        report_begin("[%s] modexp_public_vartime en=%zu, %zu-bit m", backends[k], en,
                     md->bits);
        report_operand("m", md->m, n);
        report_operand("b", b, n);
        report_operand("e", e, en);
        ctbn_limb *vs = limbs_alloc(CTBN_EXP_VARTIME_SCRATCH(n));
        ctbn_modexp_public_vartime(md->ctx, r, b, e, en, vs);
        expect_limbs_bn("b^e mod m", r, n, want);
        free(vs);
    }
    BN_free(bb);
    BN_free(be);
    BN_free(want);
    free(b);
    free(r);
    free(e);
    free(scratch);
}

static void test_modexp_through_seam(void **state)
{
    (void)state;
    SEED_TEST();
    /* the RSA CRT half sizes first (what a whole-modexp hook may take), then odd ones */
    static const size_t bits[] = { 1024, 1536, 2048, 1023, 1000, 64, 65, 130, 512, 3072 };
    for (size_t i = 0; i < ARRAY_LEN(bits); i++) {
        for (int it = 0; it < 2; it++) {
            struct modulus md;
            size_t n = CTBN_LIMBS(bits[i]);
            enum mod_kind kind = it == 0 ? MOD_RANDOM
                                 : (bits[i] % 64 == 0 ? MOD_TOP_ALL_ONES : MOD_ALL_ONES);
            modulus_new(&md, n, bits[i], kind);
            check_modexp_all(&md, it == 0 ? md.bits : rng_range(1, md.bits + 64));
            modulus_del(&md);
        }
    }
    use("portable");
}

/*
 * The public-exponent path's edge exponents on every backend: e = 0, 1, 2, 3, 2^16, 65537,
 * 2^16 + 2 (even: the path that ends with a conversion), 2^64 + 1 (two limbs), a random even
 * and a random odd one; r aliasing b; bases 0, 1, m - 1 and random; moduli of every RSA size
 * and odd ones.
 */
static void test_public_exponents(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t bits[] = { 512, 1024, 1536, 2048, 3072, 4096, 64, 130, 777 };
    static const uint64_t small_e[][2] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 },
                                           { 65536, 0 }, { 65537, 0 }, { 65538, 0 },
                                           { 1, 1 }, { 0, 0 }, { 0, 0 } };
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t i = 0; i < ARRAY_LEN(bits); i++) {
        struct modulus md;
        size_t n = CTBN_LIMBS(bits[i]);
        modulus_new(&md, n, bits[i], i % 2 ? MOD_TOP_ALL_ONES : MOD_RANDOM);
        ctbn_limb *b = limbs_alloc(n), *r = limbs_alloc(n), *e = limbs_alloc(2);
        ctbn_limb *vs = limbs_alloc(CTBN_EXP_VARTIME_SCRATCH(n));
        for (size_t k = 0; k < ARRAY_LEN(small_e); k++) {
            e[0] = small_e[k][0];
            e[1] = small_e[k][1];
            if (k == ARRAY_LEN(small_e) - 2) {
                rand_pattern(e, 2, 128);
                e[0] &= ~(uint64_t)1; /* random even */
            } else if (k == ARRAY_LEN(small_e) - 1) {
                rand_pattern(e, 2, 128);
                e[0] |= 1;            /* random odd */
            }
            for (int shape = 0; shape < 4; shape++) {
                ctbn_limb one[CTBN_MAX_LIMBS];
                ctbn_set_u64(one, n, 1);
                if (shape == 0)
                    ctbn_zero(b, n);
                else if (shape == 1)
                    ctbn_copy(b, one, n);
                else if (shape == 2)
                    ctbn_sub(b, md.m, one, n);
                else
                    rand_below(b, md.m, n);
                BIGNUM *bb = bn_from_limbs(b, n), *be = bn_from_limbs(e, 2), *want = BN_new();
                BN_mod_exp(want, bb, be, md.bm, bctx);
                for (size_t q = 0; q < n_backends; q++) {
                    use(backends[q]);
                    report_begin("[%s] modexp_public_vartime, %zu-bit m", backends[q], md.bits);
                    report_operand("m", md.m, n);
                    report_operand("b", b, n);
                    report_operand("e", e, 2);
                    ctbn_modexp_public_vartime(md.ctx, r, b, e, 2, vs);
                    expect_limbs_bn("b^e mod m", r, n, want);
                    ctbn_copy(r, b, n);
                    ctbn_modexp_public_vartime(md.ctx, r, r, e, 2, vs);
                    expect_limbs_bn("b^e mod m (r = b)", r, n, want);
                    ctbn_modexp_public_vartime(md.ctx, r, b, e, 1, vs);
                    BIGNUM *low = bn_from_limbs(e, 1), *w1 = BN_new();
                    BN_mod_exp(w1, bb, low, md.bm, bctx);
                    expect_limbs_bn("b^e[0] mod m (en = 1)", r, n, w1);
                    BN_free(low);
                    BN_free(w1);
                }
                BN_free(bb);
                BN_free(be);
                BN_free(want);
            }
        }
        free(b);
        free(r);
        free(e);
        free(vs);
        modulus_del(&md);
    }
    use("portable");
}

static void test_modexp2_through_seam(void **state)
{
    (void)state;
    SEED_TEST();
    static const size_t sizes[][2] = { { 1024, 1024 }, { 1536, 1536 }, { 2048, 2048 },
                                       { 1024, 1000 }, { 2048, 1536 }, { 100, 2048 } };
    BN_CTX *bctx = oracle_bn_ctx();
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        struct modulus m1, m2;
        modulus_new(&m1, CTBN_LIMBS(sizes[s][0]), sizes[s][0], MOD_RANDOM);
        modulus_new(&m2, CTBN_LIMBS(sizes[s][1]), sizes[s][1], MOD_RANDOM);
        size_t n1 = m1.n, n2 = m2.n, e1_bits = m1.bits, e2_bits = m2.bits - 1;
        ctbn_limb *b1 = limbs_alloc(n1), *b2 = limbs_alloc(n2);
        ctbn_limb *e1 = limbs_alloc(CTBN_LIMBS(e1_bits)), *e2 = limbs_alloc(CTBN_LIMBS(e2_bits));
        ctbn_limb *r1 = limbs_alloc(n1), *r2 = limbs_alloc(n2);
        ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP2_SCRATCH(n1, n2));
        rand_below(b1, m1.m, n1);
        rand_below(b2, m2.m, n2);
        rand_pattern(e1, CTBN_LIMBS(e1_bits), e1_bits);
        rand_pattern(e2, CTBN_LIMBS(e2_bits), e2_bits);
        BIGNUM *w1 = BN_new(), *w2 = BN_new();
        BIGNUM *bb1 = bn_from_limbs(b1, n1), *be1 = bn_from_limbs(e1, CTBN_LIMBS(e1_bits));
        BIGNUM *bb2 = bn_from_limbs(b2, n2), *be2 = bn_from_limbs(e2, CTBN_LIMBS(e2_bits));
        BN_mod_exp(w1, bb1, be1, m1.bm, bctx);
        BN_mod_exp(w2, bb2, be2, m2.bm, bctx);
        for (size_t k = 0; k < n_backends; k++) {
            use(backends[k]);
            report_begin("[%s] modexp2_ct %zu/%zu-bit moduli", backends[k], m1.bits, m2.bits);
            report_operand("m1", m1.m, n1);
            report_operand("b1", b1, n1);
            report_operand("m2", m2.m, n2);
            report_operand("b2", b2, n2);
            ctbn_modexp2_ct(m1.ctx, r1, b1, e1, e1_bits, m2.ctx, r2, b2, e2, e2_bits, scratch);
            expect_limbs_bn("r1", r1, n1, w1);
            expect_limbs_bn("r2", r2, n2, w2);
        }
        BN_free(w1);
        BN_free(w2);
        BN_free(bb1);
        BN_free(be1);
        BN_free(bb2);
        BN_free(be2);
        free(b1);
        free(b2);
        free(e1);
        free(e2);
        free(r1);
        free(r2);
        free(scratch);
        modulus_del(&m1);
        modulus_del(&m2);
    }
    use("portable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_api),
        cmocka_unit_test(test_core_traits),
        cmocka_unit_test(test_mont_every_size),
        cmocka_unit_test(test_modexp_through_seam),
        cmocka_unit_test(test_modexp2_through_seam),
        cmocka_unit_test(test_public_exponents),
    };
    n_backends = ctbn_backend_supported(backends, MAX_BACKENDS);
    fprintf(stderr, "backend tests, CTRSA_TEST_SEED=0x%llx, backends:",
            (unsigned long long)oracle_base_seed());
    for (size_t k = 0; k < n_backends; k++)
        fprintf(stderr, " %s", backends[k]);
    fprintf(stderr, "\n");
    return cmocka_run_group_tests_name("bignum-backends", tests, NULL, NULL);
}
