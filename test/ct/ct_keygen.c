/*
 * Constant-time cases for key generation: what runs on a prime that is kept must not
 * depend on it. Primes come from OpenSSL's BN_generate_prime_ex (public set-up), then are
 * marked secret: the sieve screen of a passing candidate, Miller-Rabin set-up and rounds
 * (base 2 and a secret random base), the derivation of d, dP, dQ, qInv (lcm by a
 * constant-time gcd, inverses modulo even numbers through the public e), and the check that
 * |p - q| is large; and the CRT numbers from d for keys imported without them (two primes,
 * and three). Results are
 * marked public only to check them against BN.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>

#include "ct_case.h"
#include "prime.h"

#define LB sizeof(ctbn_limb)

static void bn_to_limbs(ctbn_limb *x, size_t n, const BIGNUM *v)
{
    uint8_t buf[CTBN_MAX_BITS / 8];
    BN_bn2binpad(v, buf, (int)(8 * n));
    ctbn_from_bytes(x, n, buf, 8 * n);
}

static int limbs_equal_bn(const ctbn_limb *x, size_t n, const BIGNUM *v)
{
    ctbn_limb want[CTBN_MAX_LIMBS];
    bn_to_limbs(want, n, v);
    ct_public(x, n * LB);
    return memcmp(x, want, n * LB) == 0;
}

static BIGNUM *prime_bn(int bits)
{
    BIGNUM *p = BN_new();
    if (p == NULL || BN_generate_prime_ex(p, bits, 0, NULL, NULL, NULL) != 1)
        abort();
    return p;
}

static int ct_sieve_and_mr(void)
{
    static const int sizes[] = { 512, 1024, 1536 };
    int rc = 0;
    ctbn_sieve *sieve = malloc(sizeof(*sieve));
    ctbn_mont *mont = malloc(sizeof(ctbn_mont_max));
    ctbn_mr *mr = malloc(sizeof(*mr));
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && rc == 0; s++) {
        size_t n = CTBN_LIMBS(sizes[s]);
        ctbn_limb p[CTBN_MAX_LIMBS], b[CTBN_MAX_LIMBS];
        ctbn_limb *scratch = calloc(CTBN_MR_SCRATCH(n), LB);
        BIGNUM *pb = prime_bn(sizes[s]);
        bn_to_limbs(p, n, pb);
        if (ctbn_sieve_init(sieve, n, 0) != 0 || ctbn_mont_init(mont, p, n) != 0)
            abort();
        ct_secret(p, n * LB);
        ct_secret(mont->m, n * LB);
        ct_secret(mont->rr, n * LB);
        ct_secret(&mont->m0inv, sizeof(mont->m0inv));

        ctbn_mask pass = ctbn_sieve_screen(sieve, p);
        ct_public(&pass, sizeof(pass));
        if (!pass)
            rc = ct_fail("sieve-mr", "a prime failed the sieve");

        ctbn_mr_init(mr, mont, CTBN_MR_KEYGEN_MAX_TWOS);
        pass = ctbn_mr_round_base2(mr, scratch);
        ct_rand_bytes(b, n * LB);
        b[n - 1] &= ((ctbn_limb)1 << ((sizes[s] - 2) % 64)) - 1; /* 2 <= b < p - 1 */
        b[0] |= 2;
        ct_secret(b, n * LB);
        pass &= ctbn_mr_round(mr, b, scratch);
        ct_public(&pass, sizeof(pass));
        if (!pass)
            rc = ct_fail("sieve-mr", "a prime failed Miller-Rabin");

        /* A composite (p * 3 + 2 is odd; with overwhelming odds not prime): the rounds
         * run the same way and answer no. */
        BIGNUM *c = BN_new();
        BN_mul_word(pb, 3);
        BN_add_word(pb, 2);
        BN_copy(c, pb);
        if (BN_num_bits(c) <= (int)(64 * n) && BN_check_prime(c, NULL, NULL) == 0) {
            ctbn_limb w[CTBN_MAX_LIMBS];
            bn_to_limbs(w, n, c);
            if (ctbn_mont_init(mont, w, n) != 0)
                abort();
            ct_secret(mont->m, n * LB);
            ct_secret(mont->rr, n * LB);
            ctbn_mr_init(mr, mont, CTBN_MR_KEYGEN_MAX_TWOS);
            pass = ctbn_mr_round_base2(mr, scratch) & ctbn_mr_round(mr, b, scratch);
            ct_public(&pass, sizeof(pass));
            if (pass)
                rc = ct_fail("sieve-mr", "a composite passed");
        }
        BN_free(c);
        BN_free(pb);
        free(scratch);
    }
    free(sieve);
    free(mont);
    free(mr);
    return rc;
}

static int ct_derive(void)
{
    const size_t pbits = 1024, nl = 2 * CTBN_LIMBS(pbits), pl = CTBN_LIMBS(pbits);
    int rc = 0;
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *pb = prime_bn((int)pbits), *qb = prime_bn((int)pbits), *eb = BN_new();
    BIGNUM *p1 = BN_new(), *q1 = BN_new(), *lam = BN_new(), *g = BN_new(), *want = BN_new();
    BN_set_word(eb, 65537);
    ctbn_limb p[CTBN_MAX_LIMBS] = {0}, q[CTBN_MAX_LIMBS] = {0}, e[1] = { 65537 };
    ctbn_limb d[CTBN_MAX_LIMBS], dp[CTBN_MAX_LIMBS], dq[CTBN_MAX_LIMBS], qinv[CTBN_MAX_LIMBS];
    ctbn_limb *scratch = calloc(CTBN_RSA_DERIVE_SCRATCH(nl), LB);
    bn_to_limbs(p, pl, pb);
    bn_to_limbs(q, pl, qb);
    ct_secret(p, pl * LB);
    ct_secret(q, pl * LB);

    ctbn_mask far = ctbn_diff_exceeds_ct(p, q, pl, pbits - 100);
    const ctbn_limb *primes[2] = { p, q };
    size_t plimbs[2] = { pl, pl };
    ctbn_limb *exps[2] = { dp, dq }, *coeffs[1] = { qinv };
    ctbn_mask ok = ctbn_rsa_derive_ct(primes, plimbs, 2, e, 1, nl, d, exps, coeffs, scratch);
    ct_public(&far, sizeof(far));
    ct_public(&ok, sizeof(ok));

    /* The same numbers from BN: d = e^-1 mod lcm(p-1, q-1). */
    BN_sub(p1, pb, BN_value_one());
    BN_sub(q1, qb, BN_value_one());
    BN_gcd(g, p1, q1, bctx);
    BN_mul(lam, p1, q1, bctx);
    BN_div(lam, NULL, lam, g, bctx);
    if (!ok || BN_mod_inverse(want, eb, lam, bctx) == NULL) {
        rc = ct_fail("derive", "derivation refused a good pair of primes");
    } else {
        if (!limbs_equal_bn(d, nl, want))
            rc = ct_fail("derive", "d");
        BN_mod_inverse(want, eb, p1, bctx);
        if (!limbs_equal_bn(dp, pl, want))
            rc = ct_fail("derive", "dP");
        BN_mod_inverse(want, eb, q1, bctx);
        if (!limbs_equal_bn(dq, pl, want))
            rc = ct_fail("derive", "dQ");
        BN_mod_inverse(want, qb, pb, bctx);
        if (!limbs_equal_bn(qinv, pl, want))
            rc = ct_fail("derive", "qInv");
    }
    if (!far)
        rc = ct_fail("derive", "two random primes found close");
    free(scratch);
    BN_free(pb); BN_free(qb); BN_free(eb); BN_free(p1); BN_free(q1); BN_free(lam);
    BN_free(g); BN_free(want);
    BN_CTX_free(bctx);
    return rc;
}

/* dP, dQ, qInv from the secret d, p and q of a key imported without its CRT values
 * (1024-bit p, 1000-bit q: unequal lengths, d at n's length). */
static int ct_crt_from_d(void)
{
    const size_t pl = CTBN_LIMBS(1024), ql = CTBN_LIMBS(1000), nl = pl + ql;
    int rc = 0;
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *pb = prime_bn(1024), *qb = prime_bn(1000), *eb = BN_new(), *db = BN_new();
    BIGNUM *phi = BN_new(), *p1 = BN_new(), *q1 = BN_new(), *want = BN_new();
    ctbn_limb p[CTBN_MAX_LIMBS] = {0}, q[CTBN_MAX_LIMBS] = {0}, d[CTBN_MAX_LIMBS] = {0};
    ctbn_limb dp[CTBN_MAX_LIMBS], dq[CTBN_MAX_LIMBS], qinv[CTBN_MAX_LIMBS];
    ctbn_limb *scratch = calloc(CTBN_RSA_CRT_FROM_D_SCRATCH(pl, ql), LB);
    BN_set_word(eb, 65537);
    BN_sub(p1, pb, BN_value_one());
    BN_sub(q1, qb, BN_value_one());
    BN_mul(phi, p1, q1, bctx);
    if (BN_mod_inverse(db, eb, phi, bctx) == NULL)
        BN_rand_range(db, phi);         /* gcd(e, phi) > 1: any d serves the reduction */
    bn_to_limbs(p, pl, pb);
    bn_to_limbs(q, ql, qb);
    bn_to_limbs(d, nl, db);
    ct_secret(p, pl * LB);
    ct_secret(q, ql * LB);
    ct_secret(d, nl * LB);

    ctbn_mask ok = ctbn_rsa_crt_from_d_ct(p, pl, q, ql, d, nl, dp, dq, qinv, scratch);
    ct_public(&ok, sizeof(ok));
    if (!ok)
        rc = ct_fail("crt-from-d", "q found not invertible mod p");
    BN_mod(want, db, p1, bctx);
    if (!limbs_equal_bn(dp, pl, want))
        rc = ct_fail("crt-from-d", "dP");
    BN_mod(want, db, q1, bctx);
    if (!limbs_equal_bn(dq, ql, want))
        rc = ct_fail("crt-from-d", "dQ");
    BN_mod_inverse(want, qb, pb, bctx);
    if (!limbs_equal_bn(qinv, pl, want))
        rc = ct_fail("crt-from-d", "qInv");
    free(scratch);
    BN_free(pb); BN_free(qb); BN_free(eb); BN_free(db); BN_free(phi); BN_free(p1);
    BN_free(q1); BN_free(want);
    BN_CTX_free(bctx);
    return rc;
}

/* The CRT numbers of a three-prime key imported without them, from the secret d and primes
 * (704, 672 and 672 bits: unequal limb counts, d at n's length). */
static int ct_crt_from_d_multi(void)
{
    static const int bits[3] = { 704, 672, 672 };
    size_t pl[3], nl = 0;
    int rc = 0;
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *pb[3], *db = BN_new(), *pm1 = BN_new(), *prod = BN_new(), *want = BN_new();
    ctbn_limb p[3][CTBN_MAX_LIMBS], ex[3][CTBN_MAX_LIMBS], co[3][CTBN_MAX_LIMBS];
    ctbn_limb d[CTBN_MAX_LIMBS] = {0};
    for (size_t i = 0; i < 3; i++) {
        pb[i] = prime_bn(bits[i]);
        pl[i] = CTBN_LIMBS((size_t)bits[i]);
        nl += pl[i];
        memset(p[i], 0, sizeof(p[i]));
        bn_to_limbs(p[i], pl[i], pb[i]);
        ct_secret(p[i], pl[i] * LB);
    }
    BN_rand(db, (int)(64 * nl) - 1, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
    bn_to_limbs(d, nl, db);
    ct_secret(d, nl * LB);
    ctbn_limb *scratch = calloc(CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(nl), LB);
    const ctbn_limb *primes[3] = { p[0], p[1], p[2] };
    ctbn_limb *exps[3] = { ex[0], ex[1], ex[2] }, *coeffs[2] = { co[0], co[2] };

    ctbn_mask ok = ctbn_rsa_crt_from_d_multi_ct(primes, pl, 3, d, nl, exps, coeffs, scratch);
    ct_public(&ok, sizeof(ok));
    if (!ok)
        rc = ct_fail("crt-from-d-multi", "a coefficient found missing");
    for (size_t i = 0; i < 3; i++) {
        BN_sub(pm1, pb[i], BN_value_one());
        BN_mod(want, db, pm1, bctx);
        if (!limbs_equal_bn(ex[i], pl[i], want))
            rc = ct_fail("crt-from-d-multi", "an exponent");
    }
    BN_mod_inverse(want, pb[1], pb[0], bctx);
    if (!limbs_equal_bn(co[0], pl[0], want))
        rc = ct_fail("crt-from-d-multi", "qInv");
    BN_mul(prod, pb[0], pb[1], bctx);
    BN_mod_inverse(want, prod, pb[2], bctx);
    if (!limbs_equal_bn(co[2], pl[2], want))
        rc = ct_fail("crt-from-d-multi", "t_3");
    free(scratch);
    for (size_t i = 0; i < 3; i++)
        BN_free(pb[i]);
    BN_free(db); BN_free(pm1); BN_free(prod); BN_free(want);
    BN_CTX_free(bctx);
    return rc;
}

const struct ct_case ct_keygen_cases[] = {
    { "sieve-mr", "sieve screen of a passing prime, Miller-Rabin rounds (base 2, secret base)",
      ct_sieve_and_mr },
    { "derive", "d, dP, dQ, qInv from secret 1024-bit primes; |p - q| check", ct_derive },
    { "crt-from-d", "dP, dQ, qInv from a secret d, p, q (key imported without CRT values)",
      ct_crt_from_d },
    { "crt-from-d-multi", "d_i, qInv, t_3 from a secret d and three primes (rsa-derive-from-pq)",
      ct_crt_from_d_multi },
    { NULL, NULL, NULL }
};
