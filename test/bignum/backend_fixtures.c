/*
 * The vector backends' shared test fixtures (contracts in backend_fixtures.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "backend_fixtures.h"

#define UNTOUCHED_BYTE 0x5A

void use_backend(const char *name)
{
    if (ctbn_backend_select(name) != 0)
        fail_msg("backend %s not selectable", name);
}

/* ---- moduli ---- */

void modulus_make(struct modulus *md, size_t n, size_t bits, enum mod_kind kind)
{
    md->n = n;
    md->m = limbs_alloc(n);
    rand_modulus(md->m, n, bits, kind);
    md->ctx = malloc(sizeof(ctbn_mont_max));
    assert_non_null(md->ctx);
    assert_int_equal(ctbn_mont_init(md->ctx, md->m, n), 0);
    md->bits = md->ctx->bits;
    md->bm = bn_from_limbs(md->m, n);
}

void modulus_random(struct modulus *md, size_t full_bits)
{
    size_t n = CTBN_LIMBS(full_bits), bits = full_bits;
    enum mod_kind kind = (enum mod_kind)rng_below(MOD_KINDS);
    if (rng_below(5) == 0 && kind != MOD_TOP_ALL_ONES)
        bits = full_bits - 1 - rng_below(40);
    modulus_make(md, n, bits, kind);
}

void modulus_free(struct modulus *md)
{
    free(md->m);
    free(md->ctx);
    BN_free(md->bm);
}

/* ---- bases and exponents ---- */

void base_make(ctbn_limb *b, const struct modulus *md, enum base_kind kind)
{
    size_t n = md->n;
    switch (kind) {
    case BASE_ZERO:
    case BASE_ONE:
        memset(b, 0, n * sizeof(ctbn_limb));
        b[0] = kind == BASE_ONE;
        break;
    case BASE_M_MINUS_1:
        memcpy(b, md->m, n * sizeof(ctbn_limb));
        b[0] -= 1; /* m is odd: no borrow */
        break;
    default:
        rand_below(b, md->m, n);
        break;
    }
}

/* e (CTBN_LIMBS(e_bits) limbs) := an exponent of public length e_bits whose true length is
 * random up to it: zero, the top bit alone, all ones (every window 2^w - 1) or a random
 * pattern. */
static void rand_exponent(ctbn_limb *e, size_t e_bits)
{
    size_t en = CTBN_LIMBS(e_bits);
    memset(e, 0, en * sizeof(ctbn_limb));
    if (e_bits == 0)
        return;
    switch (rng_below(5)) {
    case 0: /* zero */
        break;
    case 1: /* top bit only */
        e[(e_bits - 1) / 64] = (ctbn_limb)1 << ((e_bits - 1) % 64);
        break;
    case 2: /* all ones: every window 2^w - 1 */
        for (size_t i = 0; i < en; i++)
            e[i] = ~(ctbn_limb)0;
        if (e_bits % 64)
            e[en - 1] >>= 64 - e_bits % 64;
        break;
    default:
        rand_pattern(e, en, e_bits);
        break;
    }
}

BIGNUM *bn_modexp_want(const struct modulus *md, const ctbn_limb *b, const ctbn_limb *e,
                       size_t en)
{
    BIGNUM *bb = bn_from_limbs(b, md->n), *be = bn_from_limbs(e, en), *want = BN_new();
    assert_non_null(want);
    assert_int_equal(BN_mod_exp(want, bb, be, md->bm, oracle_bn_ctx()), 1);
    BN_free(bb);
    BN_free(be);
    return want;
}

void fill_untouched(ctbn_limb *r, size_t n)
{
    memset(r, UNTOUCHED_BYTE, n * sizeof(ctbn_limb));
}

void expect_untouched(const char *what, const ctbn_limb *r, size_t n)
{
    ctbn_limb fill;
    memset(&fill, UNTOUCHED_BYTE, sizeof(fill));
    for (size_t i = 0; i < n; i++)
        if (r[i] != fill)
            fail_msg("%s: limb %zu = %016llx was written", what, i, (unsigned long long)r[i]);
}

/* ---- AMM kernels in radix 2^w ---- */

BIGNUM *bn_from_radix(const uint64_t *d, unsigned w, size_t digits)
{
    BIGNUM *r = BN_new(), *t = BN_new();
    assert_non_null(r);
    assert_non_null(t);
    BN_zero(r);
    for (size_t j = digits; j-- > 0;) {
        BN_lshift(r, r, (int)w);
        BN_set_word(t, d[j]);
        BN_add(r, r, t);
    }
    BN_free(t);
    return r;
}

BIGNUM *bn_rand_below_2m(const struct modulus *md)
{
    ctbn_limb x[CTBN_MAX_LIMBS + 1];
    size_t n = md->n;
    BIGNUM *v;
    switch (rng_below(8)) {
    case 0:
        v = BN_new();
        BN_set_word(v, rng_below(2));
        break;
    case 1:
        v = BN_dup(md->bm);
        BN_sub_word(v, 1);
        break;
    case 2:
        v = BN_dup(md->bm);
        break;
    case 3:
        v = BN_dup(md->bm);
        BN_lshift1(v, v);
        BN_sub_word(v, 1);
        break;
    default:
        rand_pattern(x, n, 64 * n);
        v = bn_from_limbs(x, n);
        BN_mod(v, v, md->bm, oracle_bn_ctx());
        if (rng_below(2))
            BN_add(v, v, md->bm);
        break;
    }
    assert_non_null(v);
    return v;
}

void expect_amm_value(const char *what, const uint64_t *r, const uint64_t *a,
                      const uint64_t *b, const struct modulus *md, unsigned w, size_t digits)
{
    BN_CTX *bctx = oracle_bn_ctx();
    BIGNUM *br = bn_from_radix(r, w, digits), *ba = bn_from_radix(a, w, digits);
    BIGNUM *bb = bn_from_radix(b, w, digits), *lhs = BN_new(), *rhs = BN_new();
    BIGNUM *m2 = BN_new();
    BN_lshift1(m2, md->bm);
    if (BN_cmp(br, m2) >= 0)
        fail_msg("%s: result not below 2m", what);
    BN_lshift(lhs, br, (int)(w * digits));
    BN_mod(lhs, lhs, md->bm, bctx);
    BN_mod_mul(rhs, ba, bb, md->bm, bctx);
    if (BN_cmp(lhs, rhs) != 0) {
        char *sa = BN_bn2hex(ba), *sb = BN_bn2hex(bb), *sm = BN_bn2hex(md->bm);
        fail_msg("%s: r R' != a b mod m\n a=%s\n b=%s\n m=%s", what, sa, sb, sm);
    }
    BN_free(br);
    BN_free(ba);
    BN_free(bb);
    BN_free(lhs);
    BN_free(rhs);
    BN_free(m2);
}

/* ---- the whole-modexp hooks ---- */

/* One half's operands: base b and exponent e (en limbs), BN's answer, the result under test
 * r and the portable backend's rp; each buffer its own allocation, so that ASan sees an
 * overrun. */
struct half {
    const struct modulus *md;
    size_t en;
    ctbn_limb *b, *e, *r, *rp;
    BIGNUM *want;
};

/* h's buffers for md and an exponent of en limbs; b and e not yet set. */
static void half_alloc(struct half *h, const struct modulus *md, size_t en)
{
    h->md = md;
    h->en = en;
    h->b = limbs_alloc(md->n);
    h->e = limbs_alloc(en);
    h->r = limbs_alloc(md->n);
    h->rp = limbs_alloc(md->n);
    h->want = NULL;
}

/* A base of kind bk and a random exponent of public length e_bits, and BN's answer. */
static void half_make(struct half *h, const struct modulus *md, size_t e_bits,
                      enum base_kind bk)
{
    half_alloc(h, md, CTBN_LIMBS(e_bits));
    base_make(h->b, md, bk);
    rand_exponent(h->e, e_bits);
    h->want = bn_modexp_want(md, h->b, h->e, h->en);
}

/* Name the half's modulus, base and exponent in the failure report (names: literals). */
static void half_report(const struct half *h, const char *m, const char *b, const char *e)
{
    report_operand(m, h->md->m, h->md->n);
    report_operand(b, h->b, h->md->n);
    report_operand(e, h->e, h->en);
}

static void half_free(struct half *h)
{
    ctbn_limb *owned[] = { h->b, h->e, h->r, h->rp };
    for (size_t i = 0; i < ARRAY_LEN(owned); i++)
        free(owned[i]);
    BN_free(h->want);
}

/* The engine's one-half entry points (ctbn_modexp_ct: elen = e_bits; ctbn_modexp_public_vartime:
 * elen = en). */
typedef void seam_fn(const ctbn_mont *, ctbn_limb *, const ctbn_limb *, const ctbn_limb *,
                     size_t, ctbn_limb *);

/* Through `seam` (named `what`) on the selected backend BN's answer, into r and with r = b;
 * then on the portable backend the same limbs (into rp). */
static void check_seam(const char *what, seam_fn *seam, struct half *h, size_t elen,
                       ctbn_limb *scratch)
{
    const ctbn_mont *ctx = h->md->ctx;
    size_t n = h->md->n;
    char label[128];
    fill_untouched(h->r, n);
    seam(ctx, h->r, h->b, h->e, elen, scratch);
    snprintf(label, sizeof(label), "%s through the seam", what);
    expect_limbs_bn(label, h->r, n, h->want);
    memcpy(h->r, h->b, n * sizeof(ctbn_limb));
    seam(ctx, h->r, h->r, h->e, elen, scratch);
    snprintf(label, sizeof(label), "%s through the seam (r = b)", what);
    expect_limbs_bn(label, h->r, n, h->want);
    use_backend("portable");
    seam(ctx, h->rp, h->b, h->e, elen, scratch);
    snprintf(label, sizeof(label), "%s: hook's backend vs portable", what);
    expect_limbs_eq(label, h->r, h->rp, n);
}

void check_modexp(const struct hooks *H, const struct modulus *md, size_t e_bits,
                  enum base_kind bk)
{
    size_t n = md->n;
    struct half h;
    half_make(&h, md, e_bits, bk);
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP_SCRATCH(n));
    report_begin("%s modexp_ct e_bits=%zu, %zu-bit m (n=%zu)", H->backend, e_bits, md->bits,
                 n);
    half_report(&h, "m", "b", "e");
    use_backend(H->backend);
    /* the hook takes the sizes it has kernels for (and only those) */
    int taken = H->modexp(md->ctx, h.r, h.b, h.e, e_bits, scratch);
    assert_int_equal(taken, H->takes(n));
    if (taken)
        expect_limbs_bn("modexp_ct hook", h.r, n, h.want);
    check_seam("modexp_ct", ctbn_modexp_ct, &h, e_bits, scratch);
    half_free(&h);
    free(scratch);
}

void check_modexp2(const struct hooks *H, const struct modulus *m1, const struct modulus *m2,
                   size_t e1_bits, size_t e2_bits, enum base_kind bk1, enum base_kind bk2)
{
    size_t n = m1->n;
    struct half h1, h2;
    half_make(&h1, m1, e1_bits, bk1);
    half_make(&h2, m2, e2_bits, bk2);
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP2_SCRATCH(n, n));
    report_begin("%s modexp2_ct e1_bits=%zu e2_bits=%zu, %zu/%zu-bit moduli", H->backend,
                 e1_bits, e2_bits, m1->bits, m2->bits);
    half_report(&h1, "m1", "b1", "e1");
    half_report(&h2, "m2", "b2", "e2");
    use_backend(H->backend);
    assert_int_equal(H->modexp2(m1->ctx, h1.r, h1.b, h1.e, e1_bits, m2->ctx, h2.r, h2.b, h2.e,
                                e2_bits, scratch), 1);
    expect_limbs_bn("hook r1", h1.r, n, h1.want);
    expect_limbs_bn("hook r2", h2.r, n, h2.want);
    memcpy(h1.r, h1.b, n * sizeof(ctbn_limb));
    memcpy(h2.r, h2.b, n * sizeof(ctbn_limb));
    ctbn_modexp2_ct(m1->ctx, h1.r, h1.r, h1.e, e1_bits, m2->ctx, h2.r, h2.r, h2.e, e2_bits,
                    scratch);
    expect_limbs_bn("seam r1 (r1 = b1)", h1.r, n, h1.want);
    expect_limbs_bn("seam r2 (r2 = b2)", h2.r, n, h2.want);
    use_backend("portable");
    ctbn_modexp2_ct(m1->ctx, h1.rp, h1.b, h1.e, e1_bits, m2->ctx, h2.rp, h2.b, h2.e, e2_bits,
                    scratch);
    expect_limbs_eq("hook vs portable r1", h1.r, h1.rp, n);
    expect_limbs_eq("hook vs portable r2", h2.r, h2.rp, n);
    half_free(&h1);
    half_free(&h2);
    free(scratch);
}

int check_public(const struct hooks *H, const struct modulus *md, const ctbn_limb *b,
                 const ctbn_limb *e, size_t en)
{
    size_t n = md->n;
    struct half h;
    half_alloc(&h, md, en);
    memcpy(h.b, b, n * sizeof(ctbn_limb));
    memcpy(h.e, e, en * sizeof(ctbn_limb));
    h.want = bn_modexp_want(md, h.b, h.e, en);
    ctbn_limb *scratch = limbs_alloc(CTBN_EXP_VARTIME_SCRATCH(n));
    report_begin("%s public path, %zu-bit m (n=%zu), e of %zu limbs", H->backend, md->bits, n,
                 en);
    half_report(&h, "m", "b", "e");
    use_backend(H->backend);
    if (H->public_any != NULL) {
        fill_untouched(h.r, n);
        assert_int_equal(H->public_any(md->ctx, h.r, h.b, h.e, en, scratch), 1);
        expect_limbs_bn("ungated public path", h.r, n, h.want);
        memcpy(h.r, h.b, n * sizeof(ctbn_limb));
        assert_int_equal(H->public_any(md->ctx, h.r, h.r, h.e, en, scratch), 1);
        expect_limbs_bn("ungated public path (r = b)", h.r, n, h.want);
    }
    /* the hook computes or declines without writing, the same with r = b */
    fill_untouched(h.r, n);
    int taken = H->public_hook(md->ctx, h.r, h.b, h.e, en, scratch);
    if (taken)
        expect_limbs_bn("public hook", h.r, n, h.want);
    else
        expect_untouched("public hook declined", h.r, n);
    memcpy(h.r, h.b, n * sizeof(ctbn_limb));
    assert_int_equal(H->public_hook(md->ctx, h.r, h.r, h.e, en, scratch), taken);
    if (taken)
        expect_limbs_bn("public hook (r = b)", h.r, n, h.want);
    else
        expect_limbs_eq("declined: r untouched", h.r, h.b, n);
    check_seam("modexp_public_vartime", ctbn_modexp_public_vartime, &h, en, scratch);
    half_free(&h);
    free(scratch);
    return taken;
}

/* A refusal check's operands: a random base, e = 65537, r filled (fill_untouched), scratch;
 * the report names the hook (what), the modulus and the base; H's backend selected. */
struct refusal {
    ctbn_limb *r, *b, *scratch, e[1];
};

static void refusal_begin(struct refusal *f, const struct hooks *H, const struct modulus *md,
                          size_t scratch_limbs, const char *what)
{
    size_t n = md->n;
    f->r = limbs_alloc(n);
    f->b = limbs_alloc(n);
    f->scratch = limbs_alloc(scratch_limbs);
    f->e[0] = 65537;
    rand_below(f->b, md->m, n);
    report_begin("%s %s, %zu-bit m (n=%zu): refused", H->backend, what, md->bits, n);
    report_operand("m", md->m, n);
    report_operand("b", f->b, n);
    fill_untouched(f->r, n);
    use_backend(H->backend);
}

static void refusal_free(struct refusal *f)
{
    free(f->r);
    free(f->b);
    free(f->scratch);
}

void check_refused(const struct hooks *H, const struct modulus *md)
{
    size_t n = md->n;
    struct refusal f;
    refusal_begin(&f, H, md, CTBN_MODEXP2_SCRATCH(n, n), "private hooks");
    assert_int_equal(H->modexp(md->ctx, f.r, f.b, f.e, 17, f.scratch), 0);
    assert_int_equal(H->modexp2(md->ctx, f.r, f.b, f.e, 17, md->ctx, f.r, f.b, f.e, 17,
                                f.scratch), 0);
    expect_untouched("refused size", f.r, n);
    refusal_free(&f);
    check_modexp(H, md, 17, BASE_RANDOM); /* through the seam: the generic path */
}

void check_halves_refused(const struct hooks *H, const struct modulus *m1,
                          const struct modulus *m2)
{
    size_t n1 = m1->n, n2 = m2->n;
    ctbn_limb *scratch = limbs_alloc(CTBN_MODEXP2_SCRATCH(n1, n2));
    ctbn_limb *r1 = limbs_alloc(n1), *r2 = limbs_alloc(n2);
    ctbn_limb *b1 = limbs_alloc(n1), *b2 = limbs_alloc(n2), e[1] = { 3 };
    memset(b1, 0, n1 * sizeof(ctbn_limb));
    memset(b2, 0, n2 * sizeof(ctbn_limb));
    b1[0] = 2;
    b2[0] = 3;
    report_begin("%s modexp2 hook, halves of %zu and %zu limbs: refused", H->backend, n1, n2);
    use_backend(H->backend);
    assert_int_equal(H->modexp2(m1->ctx, r1, b1, e, 2, m2->ctx, r2, b2, e, 2, scratch), 0);
    assert_int_equal(H->modexp2(m2->ctx, r2, b2, e, 2, m1->ctx, r1, b1, e, 2, scratch), 0);
    ctbn_limb *owned[] = { scratch, r1, r2, b1, b2 };
    for (size_t i = 0; i < ARRAY_LEN(owned); i++)
        free(owned[i]);
}

void check_public_refused(const struct hooks *H, const struct modulus *md)
{
    size_t n = md->n;
    struct refusal f;
    refusal_begin(&f, H, md, CTBN_EXP_VARTIME_SCRATCH(n), "public hook");
    assert_int_equal(H->public_hook(md->ctx, f.r, f.b, f.e, 1, f.scratch), 0);
    if (H->public_any != NULL)
        assert_int_equal(H->public_any(md->ctx, f.r, f.b, f.e, 1, f.scratch), 0);
    expect_untouched("public path refused", f.r, n);
    BIGNUM *want = bn_modexp_want(md, f.b, f.e, 1);
    ctbn_modexp_public_vartime(md->ctx, f.r, f.b, f.e, 1, f.scratch);
    expect_limbs_bn("b^65537 through the seam (generic code)", f.r, n, want);
    BN_free(want);
    refusal_free(&f);
}
