/*
 * Constant-time cases for the engine (bignum/bignum.h): every secret input is marked
 * undefined, only lengths (limb counts, announced exponent lengths, the bit length and the
 * parity of a secret modulus) stay defined.
 *
 * Expected results are computed first, on defined copies, with the engine itself (the
 * differential test in test/bignum checks the engine against OpenSSL); the outputs are marked
 * defined again before they are compared.
 */
#include <stdlib.h>
#include <string.h>

#include "bignum.h"
#include "ct_case.h"

#define LB sizeof(ctbn_limb)

/* Moduli tried by most cases: one limb, a short top limb (16 limbs, a size the engine
 * specialises), a generic limb count (18), and RSA-4096's prime size (32 limbs). */
/* 512, 3072 and 4096 bits reach the fixed-size 8/48/64-limb kernels (RSA-1024 CRT halves,
 * RSA-3072/4096 moduli). */
static const size_t mod_bits[] = { 61, 512, 1000, 1100, 2048, 3072, 4096 };
#define N_SIZES (sizeof(mod_bits) / sizeof(mod_bits[0]))

/* Fixed primes (test inputs), big-endian hex. */
static const char *const primes[] = {
    "1C6F626E4591A46F",
    "C6A7236586C13AC03DA896FB0480FB6822E6DA3FA98B83F508A2636E04A39F4A63F363AC886F40483EC7E4"
    "03F7504649027CAE077FFD75403756021E2908735D3B6C2A58A302159FE4E9F0E96A2564A7B652772974F7"
    "8C00E302EF3202DC94D3E119F50E656EEC4533BDF61CDD367EA572CA2F2F5758AA4F3E415BCB65",
    "FB06BF49BC2ED1B7AD96B52DD7A1CC5067DAE4DF7D0D64B9803A16EBA844B60044F190F0D7B7EAA42917E4"
    "9F3C5DB06F1BC0360CD1CB77487344CFBF7A0F2C522763D62BA3E942E895229BD76DE71A6F1E8B9E06D36B"
    "927E631C89AF0ACC9803B5B92FE2CB1660B5F9BE3000B3EDD5C1DEEF3A7B69A0EF84FD6FC1E44504AE07",
};
#define N_PRIMES (sizeof(primes) / sizeof(primes[0]))

static ctbn_limb *alloc_limbs(size_t n)
{
    ctbn_limb *x = calloc(n == 0 ? 1 : n, LB);
    if (x == NULL)
        abort();
    return x;
}

/* x (n limbs) := the hex string (public test input). */
static void from_hex(ctbn_limb *x, size_t n, const char *hex)
{
    size_t len = strlen(hex);
    memset(x, 0, n * LB);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint64_t d = (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        x[i / 16] |= d << (4 * (i % 16));
    }
}

/* m (n limbs) := a random odd modulus of exactly `bits` bits (public test input). */
static void random_modulus(ctbn_limb *m, size_t n, size_t bits)
{
    ct_rand_bytes(m, n * LB);
    if (bits % 64 != 0)
        m[n - 1] &= ((ctbn_limb)1 << (bits % 64)) - 1;
    m[(bits - 1) / 64] |= (ctbn_limb)1 << ((bits - 1) % 64);
    m[0] |= 1;
}

/* x (n limbs) := a random value below m (the top limb is masked below m's top limb). */
static void random_below(ctbn_limb *x, const ctbn_limb *m, size_t n)
{
    ct_rand_bytes(x, n * LB);
    x[n - 1] %= m[n - 1];
}

/* The parts of a Montgomery context derived from a secret modulus: all but n and bits. */
static void ctx_secret(const ctbn_mont *ctx)
{
    ct_secret(&ctx->m0inv, sizeof(ctx->m0inv));
    ct_secret(ctx->m, ctx->n * sizeof(ctbn_limb));
    ct_secret(ctx->rr, ctx->n * sizeof(ctbn_limb));
}

static int same(const ctbn_limb *x, const ctbn_limb *y, size_t n)
{
    ct_public(x, n * LB);
    ct_public(y, n * LB);
    return memcmp(x, y, n * LB) == 0;
}

/* A context for a random secret modulus of `bits` bits, set up while it is public, then
 * marked secret. */
static ctbn_mont *secret_ctx_new(size_t bits)
{
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    size_t n = CTBN_LIMBS(bits);
    ctbn_limb *m = alloc_limbs(n);
    if (ctx == NULL)
        abort();
    random_modulus(m, n, bits);
    if (ctbn_mont_init(ctx, m, n) != 0)
        abort();
    free(m);
    ctx_secret(ctx);
    return ctx;
}

/* ---- cases ---- */

static int case_bytes(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]), len = 8 * n;
        uint8_t *in = malloc(len + 3), *out = malloc(len + 3);
        ctbn_limb *x = alloc_limbs(n);
        ct_rand_bytes(in, len + 3);
        in[0] = in[1] = in[2] = 0; /* three leading zero bytes: it fits */

        ct_secret(in, len + 3);
        ctbn_mask fits = ctbn_from_bytes(x, n, in, len + 3);
        ctbn_mask fits_short = ctbn_to_bytes(out, len - 1, x, n);
        ctbn_mask fits_long = ctbn_to_bytes(out, len + 3, x, n);
        ct_public(&fits, sizeof(fits));
        ct_public(&fits_long, sizeof(fits_long));
        ct_public(&fits_short, sizeof(fits_short));
        ct_public(in, len + 3);
        ct_public(out, len + 3);
        if (fits != ~(ctbn_mask)0 || fits_long != ~(ctbn_mask)0 ||
            memcmp(in, out, len + 3) != 0)
            rc = ct_fail("bytes", "from_bytes/to_bytes round trip");
        /* fits_short depends on the value's top byte: only check it is a mask */
        if (fits_short != 0 && fits_short != ~(ctbn_mask)0)
            rc = ct_fail("bytes", "to_bytes mask");
        free(in);
        free(out);
        free(x);
    }
    return rc;
}

static int case_compare_select(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_limb *x = alloc_limbs(n), *y = alloc_limbs(n), *x0 = alloc_limbs(n);
        ctbn_limb *y0 = alloc_limbs(n);
        ct_rand_bytes(x0, n * LB);
        memcpy(y0, x0, n * LB);
        y0[0] ^= 1; /* differ in the lowest bit only, so lt must scan every limb */
        memcpy(x, x0, n * LB);
        memcpy(y, y0, n * LB);
        ctbn_mask want_lt = (x0[0] & 1) ? 0 : ~(ctbn_mask)0;

        ct_secret(x, n * LB);
        ct_secret(y, n * LB);
        ctbn_mask eq = ctbn_eq(x, y, n);
        ctbn_mask lt = ctbn_lt(x, y, n);
        ctbn_mask zero = ctbn_is_zero(x, n);
        ctbn_mask mk = ctbn_mask_lt(x[0], y[0]) ^ ctbn_mask_eq(x[n - 1], y[n - 1]) ^
                       ctbn_mask_nonzero(x[0]);
        uint64_t sel = ctbn_select(lt, x[0], y[0]);
        ctbn_cswap(lt, x, y, n); /* swaps when x < y: then x holds the larger */
        ctbn_cmov(eq, x, y, n);  /* never moves */
        ct_public(&eq, sizeof(eq));
        ct_public(&lt, sizeof(lt));
        ct_public(&zero, sizeof(zero));
        ct_public(&mk, sizeof(mk));
        ct_public(&sel, sizeof(sel));
        if (eq != 0 || lt != want_lt || zero != 0)
            rc = ct_fail("compare", "eq/lt/is_zero");
        if (sel != (lt ? x0[0] : y0[0]))
            rc = ct_fail("compare", "select");
        (void)mk;
        if (!same(x, lt ? y0 : x0, n) || !same(y, lt ? x0 : y0, n))
            rc = ct_fail("compare", "cswap/cmov");
        free(x);
        free(y);
        free(x0);
        free(y0);
    }
    return rc;
}

static int case_add_sub_mul(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_limb *x = alloc_limbs(n), *y = alloc_limbs(n), *r = alloc_limbs(n);
        ctbn_limb *p = alloc_limbs(2 * n), *x0 = alloc_limbs(n);
        ct_rand_bytes(x, n * LB);
        ct_rand_bytes(y, n * LB);
        memcpy(x0, x, n * LB);

        ct_secret(x, n * LB);
        ct_secret(y, n * LB);
        ctbn_limb c = ctbn_add(r, x, y, n);
        ctbn_limb b = ctbn_sub(r, r, y, n);
        ctbn_mul(p, x, n, y, n);
        ct_public(&c, sizeof(c));
        ct_public(&b, sizeof(b));
        ct_public(p, 2 * n * LB);
        if (c != b || !same(r, x0, n))
            rc = ct_fail("add_sub_mul", "(x + y) - y");
        free(x);
        free(y);
        free(r);
        free(p);
        free(x0);
    }
    return rc;
}

static int case_mod_add_sub(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_limb *m = alloc_limbs(n), *x = alloc_limbs(n), *y = alloc_limbs(n);
        ctbn_limb *r = alloc_limbs(n), *t = alloc_limbs(n), *x0 = alloc_limbs(n);
        random_modulus(m, n, mod_bits[s]);
        random_below(x, m, n);
        random_below(y, m, n);
        memcpy(x0, x, n * LB);

        ct_secret(m, n * LB);
        ct_secret(x, n * LB);
        ct_secret(y, n * LB);
        ctbn_mod_add(r, x, y, m, n);
        ctbn_mod_sub(r, r, y, m, n);
        /* csub_mod on x + y with its carry */
        ctbn_limb carry = ctbn_add(t, x, y, n);
        ctbn_mask sub = ctbn_csub_mod(t, carry, m, n);
        ctbn_mod_sub(t, t, y, m, n);
        ct_public(&sub, sizeof(sub));
        if (!same(r, x0, n) || !same(t, x0, n))
            rc = ct_fail("mod_add_sub", "(x + y) - y mod m");
        if (sub != 0 && sub != ~(ctbn_mask)0)
            rc = ct_fail("mod_add_sub", "csub_mod mask");
        free(m);
        free(x);
        free(y);
        free(r);
        free(t);
        free(x0);
    }
    return rc;
}

static int case_mont_init_secret_prime(void)
{
    int rc = 0;
    ctbn_mont *pub = malloc(sizeof(ctbn_mont_max)), *sec = malloc(sizeof(ctbn_mont_max));
    if (pub == NULL || sec == NULL)
        abort();
    for (size_t i = 0; i < N_PRIMES; i++) {
        size_t n = (strlen(primes[i]) + 15) / 16;
        ctbn_limb *p = alloc_limbs(n);
        from_hex(p, n, primes[i]);
        size_t bits = ctbn_bitlen_vartime(p, n);
        if (ctbn_mont_init(pub, p, n) != 0)
            abort();

        /* p is secret except its bit length (the leading zeros and the top one) and its
         * parity: mont_init may branch on those. */
        ct_secret(p, n * LB);
        ct_public_bits(p, bits - 1, 64 * n - (bits - 1));
        ct_public_bits(p, 0, 1);
        int ret = ctbn_mont_init(sec, p, n);
        ct_public(&ret, sizeof(ret));
        ct_public(sec, CTBN_MONT_BYTES(n));
        if (ret != 0 || sec->n != pub->n || sec->bits != pub->bits ||
            sec->m0inv != pub->m0inv || !same(sec->rr, pub->rr, n) ||
            !same(sec->m, pub->m, n))
            rc = ct_fail("mont_init", "context differs from the public set-up");
        free(p);
    }
    free(pub);
    free(sec);
    return rc;
}

static int case_mont_mul(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_mont *ctx = secret_ctx_new(mod_bits[s]);
        ctbn_limb *a = alloc_limbs(n), *b = alloc_limbs(n), *r = alloc_limbs(n);
        ctbn_limb *t = alloc_limbs(n), *a0 = alloc_limbs(n), *u = alloc_limbs(n);
        ct_public(ctx->m, n * LB);
        random_below(a, ctx->m, n);
        random_below(b, ctx->m, n);
        ct_secret(ctx->m, n * LB);
        memcpy(a0, a, n * LB);
        ct_rand_bytes(u, n * LB); /* unreduced, below R */

        ct_secret(a, n * LB);
        ct_secret(b, n * LB);
        ct_secret(u, n * LB);
        /* (a b / R)(a b / R) vs sqr; to/from round trip; an unreduced left operand */
        ctbn_mont_mul(ctx, r, a, b);
        ctbn_mont_mul(ctx, t, r, r);
        ctbn_mont_sqr(ctx, r, r);
        ctbn_mont_mul(ctx, u, u, b);
        ctbn_to_mont(ctx, a, a);
        ctbn_from_mont(ctx, a, a);
        ctbn_from_mont(ctx, u, u);
        if (!same(r, t, n) || !same(a, a0, n))
            rc = ct_fail("mont_mul", "sqr vs mul, or to/from round trip");
        free(ctx);
        free(a);
        free(b);
        free(r);
        free(t);
        free(a0);
        free(u);
    }
    return rc;
}

static int case_mod_reduce(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_mont *ctx = secret_ctx_new(mod_bits[s]);
        ctbn_limb *x = alloc_limbs(2 * n), *r = alloc_limbs(n), *hi = alloc_limbs(n);
        ctbn_limb *scratch = alloc_limbs(CTBN_REDUCE_SCRATCH(n));
        ct_rand_bytes(x, 2 * n * LB);

        ct_secret(x, 2 * n * LB);
        /* x mod m, and the same from the halves: (hi R + lo) = MontMul(hi, RR) + lo */
        ctbn_mod_reduce(ctx, r, x, 2 * n, scratch);
        ctbn_limb *lo = alloc_limbs(n);
        ctbn_mod_reduce(ctx, lo, x, n, scratch);
        ctbn_mod_reduce(ctx, hi, x + n, n, scratch);
        ctbn_mont_mul(ctx, hi, hi, ctx->rr);
        ctbn_mod_add(hi, hi, lo, ctx->m, n);
        if (!same(r, hi, n))
            rc = ct_fail("mod_reduce", "2n-limb reduction vs halves");
        free(ctx);
        free(x);
        free(r);
        free(hi);
        free(lo);
        free(scratch);
    }
    return rc;
}

/* x mod m for any modulus (even ones too: p - 1 in key checks), x and m secret; checked
 * against mod_reduce on an odd modulus and against the identity (q*m + r) mod m = r. */
static int case_mod_any(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_mont *ctx = secret_ctx_new(mod_bits[s]);
        ctbn_limb *x = alloc_limbs(2 * n), *r = alloc_limbs(n), *want = alloc_limbs(n);
        ctbn_limb *even = alloc_limbs(n), *scratch = alloc_limbs(CTBN_REDUCE_SCRATCH(n));
        ct_rand_bytes(x, 2 * n * LB);
        ct_secret(x, 2 * n * LB);
        ctbn_mod_any_ct(r, x, 2 * n, ctx->m, n);
        ctbn_mod_reduce(ctx, want, x, 2 * n, scratch);
        if (!same(r, want, n))
            rc = ct_fail("mod_any", "odd modulus: differs from mod_reduce");
        /* m - 1 (even, secret): x mod (m-1) computed twice must agree and be below m-1. */
        ctbn_limb one[1] = { 1 };
        ctbn_copy(even, ctx->m, n);
        ctbn_sub(even, even, one, 1);
        ctbn_mod_any_ct(r, x, 2 * n, even, n);
        ctbn_mask below = ctbn_lt(r, even, n);
        ct_public(&below, sizeof(below));
        if (!below)
            rc = ct_fail("mod_any", "even modulus: result not reduced");
        free(ctx);
        free(x);
        free(r);
        free(want);
        free(even);
        free(scratch);
    }
    return rc;
}

/* b^e with e of e_bits announced bits, secret b, e and modulus; checked against the public
 * square-and-multiply on defined copies. */
static int modexp_one(size_t bits, size_t e_bits, size_t e_true_bits)
{
    size_t n = CTBN_LIMBS(bits), en = CTBN_LIMBS(e_bits);
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    ctbn_limb *m = alloc_limbs(n), *b = alloc_limbs(n), *e = alloc_limbs(en);
    ctbn_limb *r = alloc_limbs(n), *want = alloc_limbs(n);
    ctbn_limb *scratch = alloc_limbs(CTBN_MODEXP_SCRATCH(n));
    int rc = 0;
    if (ctx == NULL)
        abort();
    random_modulus(m, n, bits);
    random_below(b, m, n);
    ct_rand_bytes(e, en * LB);
    for (size_t i = e_true_bits; i < 64 * en; i++)
        e[i / 64] &= ~((ctbn_limb)1 << (i % 64));
    if (ctbn_mont_init(ctx, m, n) != 0)
        abort();
    ctbn_modexp_public_vartime(ctx, want, b, e, en, scratch);

    ctx_secret(ctx);
    ct_secret(b, n * LB);
    ct_secret(e, en * LB);
    ctbn_modexp_ct(ctx, r, b, e, e_bits, scratch);
    if (!same(r, want, n))
        rc = ct_fail("modexp_ct", "differs from modexp_public_vartime");
    free(ctx);
    free(m);
    free(b);
    free(e);
    free(r);
    free(want);
    free(scratch);
    return rc;
}

static int case_modexp_ct(void)
{
    int rc = 0;
    rc |= modexp_one(61, 61, 61);
    rc |= modexp_one(61, 7, 3);       /* a short exponent, window 1 */
    rc |= modexp_one(1000, 1000, 1000);
    rc |= modexp_one(1000, 1000, 200); /* announced length above the true one */
    rc |= modexp_one(1100, 1100, 1100);
    rc |= modexp_one(1536, 1536, 1536); /* RSA-3072's halves: avx2's friendly modulus */
    rc |= modexp_one(2048, 2048, 2048);
    rc |= modexp_one(2048, 130, 0);    /* e = 0 */
    return rc;
}

/* Both CRT-like halves at once (bits1, bits2 of the same limb count on the AVX2 path), the
 * moduli, bases and exponents secret, against modexp_public_vartime. */
static int modexp2_one(size_t bits1, size_t bits2)
{
    int rc = 0;
    size_t n1 = CTBN_LIMBS(bits1), n2 = CTBN_LIMBS(bits2);
    ctbn_mont *c1 = malloc(sizeof(ctbn_mont_max)), *c2 = malloc(sizeof(ctbn_mont_max));
    ctbn_limb *m1 = alloc_limbs(n1), *m2 = alloc_limbs(n2);
    ctbn_limb *b1 = alloc_limbs(n1), *b2 = alloc_limbs(n2), *e1 = alloc_limbs(n1);
    ctbn_limb *e2 = alloc_limbs(n2), *r1 = alloc_limbs(n1), *r2 = alloc_limbs(n2);
    ctbn_limb *w1 = alloc_limbs(n1), *w2 = alloc_limbs(n2);
    ctbn_limb *scratch = alloc_limbs(CTBN_MODEXP2_SCRATCH(n1, n2));
    if (c1 == NULL || c2 == NULL)
        abort();
    random_modulus(m1, n1, bits1);
    random_modulus(m2, n2, bits2);
    random_below(b1, m1, n1);
    random_below(b2, m2, n2);
    ct_rand_bytes(e1, n1 * LB);
    random_below(e2, m2, n2);
    if (ctbn_mont_init(c1, m1, n1) != 0 || ctbn_mont_init(c2, m2, n2) != 0)
        abort();
    ctbn_modexp_public_vartime(c1, w1, b1, e1, n1, scratch);
    ctbn_modexp_public_vartime(c2, w2, b2, e2, n2, scratch);

    ctx_secret(c1);
    ctx_secret(c2);
    ct_secret(b1, n1 * LB);
    ct_secret(b2, n2 * LB);
    ct_secret(e1, n1 * LB);
    ct_secret(e2, n2 * LB);
    ctbn_modexp2_ct(c1, r1, b1, e1, bits1, c2, r2, b2, e2, bits2, scratch);
    if (!same(r1, w1, n1) || !same(r2, w2, n2))
        rc = ct_fail("modexp2_ct", "differs from modexp_public_vartime");
    free(c1);
    free(c2);
    free(m1);
    free(m2);
    free(b1);
    free(b2);
    free(e1);
    free(e2);
    free(r1);
    free(r2);
    free(w1);
    free(w2);
    free(scratch);
    return rc;
}

static int case_modexp2_ct(void)
{
    int rc = modexp2_one(1024, 1000);
    /* RSA-3072's and RSA-4096's halves: the AVX2 path's Montgomery-friendly moduli, one
     * of them shorter than its limbs */
    rc |= modexp2_one(1536, 1536);
    rc |= modexp2_one(2048, 2040);
    return rc;
}

/* b^e mod m with a secret base and public e (en limbs), the modulus secret too if
 * secret_m, against modexp_ct. */
static int public_secret_base_one(size_t bits, const ctbn_limb *e, size_t en, int secret_m)
{
    int rc = 0;
    size_t n = CTBN_LIMBS(bits);
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    ctbn_limb *m = alloc_limbs(n), *b = alloc_limbs(n), *r = alloc_limbs(n);
    ctbn_limb *want = alloc_limbs(n), *scratch = alloc_limbs(CTBN_MODEXP_SCRATCH(n));
    if (ctx == NULL)
        abort();
    random_modulus(m, n, bits);
    random_below(b, m, n);
    if (ctbn_mont_init(ctx, m, n) != 0)
        abort();
    ctbn_modexp_ct(ctx, want, b, e, 64 * en, scratch);

    /* e is public (a verify or a blinding set-up), and so is the modulus there; b is
     * secret */
    ct_secret(b, n * LB);
    if (secret_m)
        ctx_secret(ctx);
    ctbn_modexp_public_vartime(ctx, r, b, e, en, scratch);
    if (!same(r, want, n))
        rc = ct_fail("modexp_public_vartime", "differs from modexp_ct");
    free(ctx);
    free(m);
    free(b);
    free(r);
    free(want);
    free(scratch);
    return rc;
}

/*
 * Every size with e = 65537; and at the sizes of the avx2 backend's public path (its own
 * conversions, R'^2 set-up and kernels, 1024 to 4096 bits) also e = 3 and a 64-bit e, so
 * that whichever exponents its size table takes are covered (ct-bignum-avx2).
 */
static int case_modexp_public_secret_base(void)
{
    int rc = 0;
    const ctbn_limb e65537[1] = { 65537 }, e3[1] = { 3 };
    const ctbn_limb e64[1] = { 0xC3A5C85C97CB3127ull };
    for (size_t s = 0; s < N_SIZES; s++)
        rc |= public_secret_base_one(mod_bits[s], e65537, 1, 0);
    static const size_t pub_bits[] = { 1024, 1536, 2048, 3072, 4096 };
    for (size_t s = 0; s < sizeof(pub_bits) / sizeof(pub_bits[0]); s++) {
        rc |= public_secret_base_one(pub_bits[s], e3, 1, 0);
        rc |= public_secret_base_one(pub_bits[s], e64, 1, 0);
        rc |= public_secret_base_one(pub_bits[s], e65537, 1, 1);
    }
    return rc;
}

static int case_mod_inverse_ct(void)
{
    int rc = 0;
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = CTBN_LIMBS(mod_bits[s]);
        ctbn_limb *m = alloc_limbs(n), *a = alloc_limbs(n), *r = alloc_limbs(n);
        ctbn_limb *scratch = alloc_limbs(CTBN_INVERSE_SCRATCH(n));
        ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
        if (ctx == NULL)
            abort();
        for (int kind = 0; kind < 3; kind++) {
            /* 0: random a below a random odd m (invertible or not, the mask says which);
             * 1: a = 0, never invertible; 2: m = 3 q and a = 3, not invertible. */
            random_modulus(m, n, mod_bits[s]);
            if (kind == 0) {
                random_below(a, m, n);
            } else if (kind == 1) {
                memset(a, 0, n * LB);
            } else {
                ctbn_limb three = 3, *t = alloc_limbs(n + 1);
                random_modulus(a, n, mod_bits[s] - 2); /* q */
                ctbn_mul(t, a, n, &three, 1);
                memcpy(m, t, n * LB);
                ctbn_set_u64(a, n, 3);
                free(t);
            }
            ctbn_limb *a0 = alloc_limbs(n), *m0 = alloc_limbs(n);
            memcpy(a0, a, n * LB);
            memcpy(m0, m, n * LB);

            ct_secret(m, n * LB);
            ct_secret(a, n * LB);
            ctbn_mask ok = ctbn_mod_inverse_ct(r, a, m, n, scratch);
            ct_public(&ok, sizeof(ok));
            ct_public(r, n * LB);
            ct_public(m, n * LB);
            ct_public(a, n * LB);
            if (kind != 0 && ok != 0)
                rc = ct_fail("mod_inverse_ct", "a non-invertible a reported invertible");
            if (ok == ~(ctbn_mask)0) {
                /* a r = 1 mod m: MontMul(MontMul(a, r), R^2) = a r */
                ctbn_limb *t = alloc_limbs(n), *one = alloc_limbs(n);
                if (ctbn_mont_init(ctx, m0, n) != 0)
                    abort();
                ctbn_mont_mul(ctx, t, a0, r);
                ctbn_mont_mul(ctx, t, t, ctx->rr);
                ctbn_set_u64(one, n, 1);
                if (!same(t, one, n))
                    rc = ct_fail("mod_inverse_ct", "a r != 1 mod m");
                free(t);
                free(one);
            } else if (ok != 0) {
                rc = ct_fail("mod_inverse_ct", "mask is neither 0 nor all ones");
            }
            free(a0);
            free(m0);
        }
        free(m);
        free(a);
        free(r);
        free(scratch);
        free(ctx);
    }
    return rc;
}

const struct ct_case ct_bignum_cases[] = {
    { "bytes", "from_bytes/to_bytes of a secret value", case_bytes },
    { "compare", "eq/lt/is_zero/masks/select/cswap/cmov on secrets", case_compare_select },
    { "add_sub_mul", "add/sub/mul of secrets", case_add_sub_mul },
    { "mod_add_sub", "mod_add/mod_sub/csub_mod, secret modulus", case_mod_add_sub },
    { "mont_init", "mont_init on a secret prime (bit length public)",
      case_mont_init_secret_prime },
    { "mont_mul", "mont_mul/sqr/to_mont/from_mont, secret modulus", case_mont_mul },
    { "mod_reduce", "mod_reduce of a secret 2n-limb value, secret modulus", case_mod_reduce },
    { "mod_any", "mod_any_ct of a secret value by secret odd and even moduli", case_mod_any },
    { "modexp_ct", "modexp_ct, secret base, exponent and modulus", case_modexp_ct },
    { "modexp2_ct", "modexp2_ct, both halves secret", case_modexp2_ct },
    { "modexp_public", "modexp_public_vartime with a secret base",
      case_modexp_public_secret_base },
    { "mod_inverse_ct", "mod_inverse_ct, secret a and modulus", case_mod_inverse_ct },
    { NULL, NULL, NULL },
};
