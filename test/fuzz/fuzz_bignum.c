/*
 * The engine against OpenSSL's BN on operands from the input, on every backend this CPU
 * supports (bignum.h's selection API): Montgomery multiplication and squaring, the
 * constant-time modexp (one and two moduli), the public-exponent modexp, the inverse,
 * reductions and the byte conversions. Each result must equal BN's.
 *
 * Input: an operation byte, then length-prefixed big-endian operands (modulus, a, b, and
 * for two moduli a second modulus and operands). The modulus is forced odd (except for
 * the any-modulus reduction); its limb count is the public length every operand takes.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>

#include "bignum.h"
#include "fuzz_util.h"

#define MAX_BYTES 512 /* 4096-bit operands */
/* Exponentiations dominate the cost of an execution (every backend runs each): the
 * constant-time ones on at most 2048-bit moduli with at most 1024-bit exponents, the
 * public one with at most 512-bit exponents (public exponents are short). */
#define MAX_EXP_BYTES 256
#define MAX_E_BYTES 128
#define MAX_PUBLIC_E_BYTES 64

static BN_CTX *bnctx;

/* A BIGNUM from n limbs (little-endian host layout, independent of ctbn_to_bytes). */
static BIGNUM *bn_of(const ctbn_limb *x, size_t n)
{
    BIGNUM *b = BN_lebin2bn((const unsigned char *)x, (int)(n * 8), NULL);
    if (b == NULL)
        fz_fail("BN_lebin2bn");
    return b;
}

/* x (n limbs) := b, which must fit. */
static void limbs_of(ctbn_limb *x, size_t n, const BIGNUM *b)
{
    if (BN_bn2lebinpad(b, (unsigned char *)x, (int)(n * 8)) < 0)
        fz_fail("BN_bn2lebinpad");
}

static ctbn_limb *alloc_limbs(size_t n)
{
    ctbn_limb *x = calloc(n ? n : 1, sizeof(ctbn_limb));
    if (x == NULL)
        fz_fail("out of memory");
    return x;
}

static void expect(const char *what, const char *be, const ctbn_limb *got, size_t n,
                   const BIGNUM *want)
{
    BIGNUM *g = bn_of(got, n);
    if (BN_cmp(g, want) != 0) {
        char *gs = BN_bn2hex(g), *ws = BN_bn2hex(want);
        fz_fail("%s on %s: got %s, want %s", what, be, gs, ws);
    }
    BN_free(g);
}

/* An odd modulus > 1 from the input, its limb count and context (0 if unusable). */
static int read_modulus(fz_in *in, size_t max, ctbn_limb *m, size_t *n, BIGNUM **bm)
{
    size_t len;
    const uint8_t *p = fz_bytes(in, max, &len);

    *bm = BN_bin2bn(p, (int)len, NULL);
    if (*bm == NULL || !BN_set_bit(*bm, 0) || BN_is_one(*bm))
        return 0;
    *n = CTBN_LIMBS(BN_num_bits(*bm));
    limbs_of(m, *n, *bm);
    return 1;
}

/* An operand below bound (BN) from the input, in n limbs (any value below 2^(64 n) when
 * bound is NULL). */
static BIGNUM *read_below(fz_in *in, size_t max, const BIGNUM *bound, ctbn_limb *x, size_t n)
{
    size_t len;
    const uint8_t *p = fz_bytes(in, max, &len);
    BIGNUM *b = BN_bin2bn(p, (int)len, NULL);

    if (b == NULL || (bound != NULL && !BN_nnmod(b, b, bound, bnctx)))
        fz_fail("BN");
    if (bound == NULL)
        BN_mask_bits(b, (int)(64 * n));
    limbs_of(x, n, b);
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ctbn_mont_max ctx_room, ctx2_room; /* contexts with room for any modulus */
    ctbn_mont *const pctx = &ctx_room.ctx, *const pctx2 = &ctx2_room.ctx;
    static ctbn_limb m[CTBN_MAX_LIMBS], m2[CTBN_MAX_LIMBS], a[CTBN_MAX_LIMBS],
        b[CTBN_MAX_LIMBS], e[CTBN_MAX_LIMBS], r[2 * CTBN_MAX_LIMBS],
        r2[CTBN_MAX_LIMBS], a2[CTBN_MAX_LIMBS], e2[CTBN_MAX_LIMBS];
    const char *backends[8];
    size_t nbe = ctbn_backend_supported(backends, 8);
    fz_in in = { data, size };
    unsigned op = fz_u8(&in) % 9;
    size_t n = 0, n2 = 0, ebits = 0, e2bits = 0, len;
    BIGNUM *bm = NULL, *bm2 = NULL, *ba = NULL, *bb = NULL, *be_ = NULL, *ba2 = NULL,
           *be2 = NULL, *want = BN_new(), *want2 = BN_new(), *t = BN_new();
    ctbn_limb *scratch = NULL;
    size_t maxb = (op == 2 || op == 4) ? MAX_EXP_BYTES : MAX_BYTES;

    if (bnctx == NULL && (bnctx = BN_CTX_new()) == NULL)
        fz_fail("BN_CTX_new");
    if (want == NULL || want2 == NULL || t == NULL)
        fz_fail("BN_new");

    if (op == 6) {
        /* Byte conversion: from_bytes into n limbs, to_bytes into len2 bytes. */
        const uint8_t *p = fz_bytes(&in, MAX_BYTES, &len);
        size_t nl = fz_u8(&in) % (CTBN_LIMBS(8 * MAX_BYTES) + 1), len2 = fz_u16(&in) % 600;
        uint8_t *o1 = malloc(len2 ? len2 : 1), *o0 = malloc(len2 ? len2 : 1);
        BIGNUM *v = BN_bin2bn(p, (int)len, NULL);
        if (nl == 0)
            nl = 1;
        ctbn_mask fits = ctbn_from_bytes(a, nl, p, len);
        int fits0 = BN_num_bits(v) <= (int)(64 * nl);
        if (fits != (fits0 ? ~(ctbn_mask)0 : 0))
            fz_fail("ctbn_from_bytes: fits mask %llx", (unsigned long long)fits);
        BN_mask_bits(v, (int)(64 * nl));
        expect("ctbn_from_bytes", "any", a, nl, v);
        fits = ctbn_to_bytes(o1, len2, a, nl);
        fits0 = BN_num_bytes(v) <= (int)len2;
        if (fits != (fits0 ? ~(ctbn_mask)0 : 0))
            fz_fail("ctbn_to_bytes: fits mask");
        BN_mask_bits(v, (int)(8 * len2));
        if (BN_bn2binpad(v, o0, (int)len2) < 0 || memcmp(o1, o0, len2) != 0)
            fz_fail("ctbn_to_bytes: bytes differ");
        BN_free(v);
        free(o1);
        free(o0);
        goto done;
    }
    if (op == 8) {
        /* Reduction modulo any m > 0 (even ones too). */
        size_t l2;
        const uint8_t *pm = fz_bytes(&in, MAX_BYTES, &len);
        bm = BN_bin2bn(pm, (int)len, NULL);
        if (BN_is_zero(bm))
            goto done;
        n = CTBN_LIMBS(BN_num_bits(bm));
        limbs_of(m, n, bm);
        const uint8_t *px = fz_bytes(&in, 2 * MAX_BYTES, &l2);
        ba = BN_bin2bn(px, (int)l2, NULL);
        size_t xn = CTBN_LIMBS(8 * l2);
        if (xn == 0)
            xn = 1;
        limbs_of(r, xn, ba);
        ctbn_mod_any_ct(a, r, xn, m, n);
        BN_mod(want, ba, bm, bnctx);
        expect("ctbn_mod_any_ct", "any", a, n, want);
        goto done;
    }

    if (!read_modulus(&in, maxb, m, &n, &bm))
        goto done;
    /* a: below R for the multiplication, 2n limbs of anything for the reduction. */
    if (op == 7)
        ba = read_below(&in, 2 * maxb, NULL, r, 2 * n);
    else
        ba = read_below(&in, maxb, op == 0 ? NULL : bm, a, n);
    bb = read_below(&in, maxb, bm, b, n);
    if (op == 2 || op == 3 || op == 4) {
        const uint8_t *p = fz_bytes(&in, op == 3 ? MAX_PUBLIC_E_BYTES : MAX_E_BYTES, &len);
        be_ = BN_bin2bn(p, (int)len, NULL);
        ebits = len ? 8 * len : 1;
        memset(e, 0, sizeof(e));
        limbs_of(e, CTBN_LIMBS(ebits) ? CTBN_LIMBS(ebits) : 1, be_);
    }
    if (op == 4) {
        if (!read_modulus(&in, MAX_EXP_BYTES, m2, &n2, &bm2))
            goto done;
        ba2 = read_below(&in, MAX_EXP_BYTES, bm2, a2, n2);
        const uint8_t *p = fz_bytes(&in, MAX_E_BYTES, &len);
        be2 = BN_bin2bn(p, (int)len, NULL);
        e2bits = len ? 8 * len : 1;
        memset(e2, 0, sizeof(e2));
        limbs_of(e2, CTBN_LIMBS(e2bits) ? CTBN_LIMBS(e2bits) : 1, be2);
    }

    /* The expected results. R = 2^(64 n). */
    switch (op) {
    case 0: case 1: /* a b R^-1 (a^2 R^-1 for the squaring, with a < m) */
        BN_zero(t);
        BN_set_bit(t, (int)(64 * n));
        if (BN_mod_inverse(t, t, bm, bnctx) == NULL)
            fz_fail("R has no inverse");
        BN_mod_mul(want, ba, op == 0 ? bb : ba, bm, bnctx);
        BN_mod_mul(want, want, t, bm, bnctx);
        break;
    case 2: case 3: case 4:
        BN_mod_exp(want, bb, be_, bm, bnctx);
        if (op == 4)
            BN_mod_exp(want2, ba2, be2, bm2, bnctx);
        break;
    case 5: /* a^-1 mod m, or nothing */
        ERR_set_mark();
        if (BN_mod_inverse(want, ba, bm, bnctx) == NULL)
            BN_zero(want);
        ERR_pop_to_mark();
        break;
    case 7: /* a (2n limbs, any value) mod m */
        BN_mod(want, ba, bm, bnctx);
        break;
    }

    if (ctbn_mont_init(pctx, m, n) != 0 || (op == 4 && ctbn_mont_init(pctx2, m2, n2) != 0))
        fz_fail("ctbn_mont_init refused an odd modulus > 1");
    scratch = alloc_limbs(CTBN_MODEXP2_SCRATCH(n, n2 ? n2 : 1) + CTBN_INVERSE_SCRATCH(n)
                          + CTBN_REDUCE_SCRATCH(n) + CTBN_EXP_VARTIME_SCRATCH(n));
    for (size_t i = 0; i < nbe; i++) {
        const char *be = backends[i];
        if (ctbn_backend_select(be) != 0)
            fz_fail("cannot select %s", be);
        /* The context's R^2 and R depend on no backend; rebuild it anyway on each. */
        if (ctbn_mont_init(pctx, m, n) != 0)
            fz_fail("ctbn_mont_init");
        switch (op) {
        case 0:
            ctbn_mont_mul(pctx, r, a, b);
            expect("ctbn_mont_mul", be, r, n, want);
            break;
        case 1:
            ctbn_copy(r, a, n);
            ctbn_mont_sqr(pctx, r, r); /* in place: r MAY alias a */
            expect("ctbn_mont_sqr", be, r, n, want);
            break;
        case 2:
            ctbn_modexp_ct(pctx, r, b, e, ebits, scratch);
            expect("ctbn_modexp_ct", be, r, n, want);
            break;
        case 3:
            ctbn_modexp_public_vartime(pctx, r, b, e, CTBN_LIMBS(ebits), scratch);
            expect("ctbn_modexp_public_vartime", be, r, n, want);
            break;
        case 4:
            ctbn_modexp2_ct(pctx, r, b, e, ebits, pctx2, r2, a2, e2, e2bits, scratch);
            expect("ctbn_modexp2_ct (first)", be, r, n, want);
            expect("ctbn_modexp2_ct (second)", be, r2, n2, want2);
            break;
        case 5: {
            ctbn_mask ok = ctbn_mod_inverse_ct(r, a, m, n, scratch);
            if ((ok != 0) != !BN_is_zero(want) || (ok != 0 && ok != ~(ctbn_mask)0))
                fz_fail("ctbn_mod_inverse_ct on %s: mask %llx", be, (unsigned long long)ok);
            expect("ctbn_mod_inverse_ct", be, r, n, want);
            break;
        }
        case 7: {
            static ctbn_limb x[2 * CTBN_MAX_LIMBS];
            limbs_of(x, 2 * n, ba);
            ctbn_mod_reduce(pctx, a, x, 2 * n, scratch);
            expect("ctbn_mod_reduce", be, a, n, want);
            break;
        }
        }
    }
done:
    free(scratch);
    BN_free(bm); BN_free(bm2); BN_free(ba); BN_free(bb); BN_free(be_); BN_free(ba2);
    BN_free(be2); BN_free(want); BN_free(want2); BN_free(t);
    return 0;
}
