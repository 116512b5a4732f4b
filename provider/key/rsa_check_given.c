/*
 * The key-pair check (EVP_PKEY_check, EVP_PKEY_pairwise_check) of a key the engine cannot
 * compute with: a modulus below 512 or above 16384 bits, an even n, an e that is even, 1 or
 * not below n. OpenSSL 3.0's default provider imports such keys and checks them with
 * rsa_validate_keypair_multiprime, which is arithmetic on the numbers, not an RSA
 * operation; this file gives the same verdicts on the numbers as imported (key->factors).
 * Contract in rsa_op_internal.h.
 *
 * Secret: d, the factors, the CRT exponents and coefficients. They go through
 * constant-time engine paths (ctbn_mul, ctbn_mod_any_ct, the constant-time Miller-Rabin of
 * prime.h) and only each step's verdict is branched on: a step that fails ends the check,
 * whose verdict is then "invalid". Public: n, e, every number's announced length, and the
 * bit length of each factor (as for the factors of a key the engine computes with).
 */
#include <string.h>
#include <openssl/crypto.h>
#include "prime.h"
#include "rsa_op_internal.h"

/* The longest number the check takes, in limbs: twice the engine's modulus (a product of
 * two factors of the largest modulus, a d as long as such an n). Longer keys are refused. */
#define GIVEN_MAX_LIMBS (2 * (size_t)CTBN_MAX_LIMBS)
/* Factors below 2^SMALL_PRIME_BITS are tested by trial division (Miller-Rabin needs w > 3). */
#define SMALL_PRIME_BITS 15

typedef struct given_pair {
    const CTRSA_KEY *key;
    const ctrsa_key_numbers *f;
    size_t np;
    size_t nl, el, dl;                       /* limbs of n, e, d (announced lengths) */
    ctbn_limb *n, *e, *d;
    size_t pl[CTRSA_MAX_PRIMES], pbits[CTRSA_MAX_PRIMES];
    ctbn_limb *p[CTRSA_MAX_PRIMES];          /* the factors, pl[i] limbs each */
    ctbn_limb *pm1[CTRSA_MAX_PRIMES];        /* p_i - 1, pl[i] limbs */
} given_pair;

static size_t limbs_of(size_t len)
{
    return len == 0 ? 1 : CTBN_LIMBS(8 * len);
}

/* A zeroed array of n limbs; NULL on failure. */
static ctbn_limb *limbs_new(size_t n)
{
    return OPENSSL_zalloc(n * sizeof(ctbn_limb));
}

static void limbs_free(ctbn_limb *x, size_t n)
{
    OPENSSL_clear_free(x, x != NULL ? n * sizeof(ctbn_limb) : 0);
}

static int refuse(const given_pair *g, const char *why)
{
    CTRSA_RAISE(g->key->prov, CTRSA_R_INVALID_KEY, "%s", why);
    return 0;
}

static int no_memory(const given_pair *g)
{
    CTRSA_RAISE(g->key->prov, CTRSA_R_MALLOC_FAILURE, "key-pair check");
    return 0;
}

/* All ones if a <= b, for any 64-bit values. CT. */
static ctbn_mask le_u64(uint64_t a, uint64_t b)
{
    return ~ctbn_mask_lt(b, a);
}

/*
 * All ones if x < 2^SMALL_PRIME_BITS is prime: 2, or odd, at least 3, and divisible by no
 * odd d with d < x and d^2 < 2^SMALL_PRIME_BITS (d | x  <=>  x * d^-1 mod 2^64 <= (2^64 - 1)
 * / d, for odd d: no division instruction on x). CT: every d is visited.
 */
static ctbn_mask small_prime_ct(uint64_t x)
{
    ctbn_mask composite = 0;

    for (uint64_t d = 3; d * d < ((uint64_t)1 << SMALL_PRIME_BITS); d += 2) {
        uint64_t inv = d;                 /* d^-1 mod 2^64 by Newton: public d */
        for (int i = 0; i < 5; i++)
            inv *= 2 - d * inv;
        composite |= le_u64(x * inv, UINT64_MAX / d) & ctbn_mask_lt(d, x);
    }
    return ctbn_mask_eq(x, 2)
           | (ctbn_mask_nonzero(x & 1) & ~ctbn_mask_lt(x, 3) & ~composite);
}

/* The Miller-Rabin workspace: about 20 KB, on the heap, wiped after use. */
typedef struct mr_ws {
    ctbn_mont_max mont;
    ctbn_mr mr;
    ctbn_limb pm3[CTBN_MAX_LIMBS], two[CTBN_MAX_LIMBS], base[CTBN_MAX_LIMBS];
    ctbn_limb rnd[CTBN_MAX_LIMBS + 1];
    ctbn_limb scratch[CTBN_MR_SCRATCH(CTBN_MAX_LIMBS)];
} mr_ws;

/*
 * *prime := all ones if factor i is prime, as BN_check_prime decides: trial division below
 * 2^SMALL_PRIME_BITS; above, an odd factor through as many Miller-Rabin rounds as OpenSSL
 * (64, or 128 above 2048 bits), with bases uniform in [2, p - 2] to within 2^-64 (64 extra
 * random bits reduced modulo p - 3). 0 on an allocation or random source failure (raised).
 * CT: only the factor's bit length leaks, and that an even factor is not prime.
 */
static int factor_is_prime(const given_pair *g, size_t i, ctbn_mask *prime)
{
    size_t pl = g->pl[i], bits = g->pbits[i];
    unsigned rounds = bits > 2048 ? 128 : 64;
    mr_ws *ws;

    if (bits < 2) {
        *prime = 0;
        return 1;
    }
    if (bits <= SMALL_PRIME_BITS) {
        *prime = small_prime_ct(g->p[i][0]);
        return 1;
    }
    ws = OPENSSL_zalloc(sizeof(*ws));
    if (ws == NULL)
        return no_memory(g);
    int ok = 1;
    if (ctbn_mont_init(&ws->mont.ctx, g->p[i], pl) != 0) {
        *prime = 0;   /* even (p > 2): not prime, and the check fails on it */
        goto end;
    }
    ctbn_mr_init(&ws->mr, &ws->mont.ctx, bits - 1);
    ctbn_set_u64(ws->two, pl, 3);
    ctbn_sub(ws->pm3, g->p[i], ws->two, pl);       /* p >= 2^15: p - 3 > 0 */
    ctbn_set_u64(ws->two, pl, 2);
    *prime = ~(ctbn_mask)0;
    for (unsigned r = 0; r < rounds; r++) {
        if (!ctrsa_random_bytes(g->key->prov, (uint8_t *)ws->rnd, (pl + 1) * sizeof(ctbn_limb))) {
            ok = 0;
            break;
        }
        ctbn_mod_any_ct(ws->base, ws->rnd, pl + 1, ws->pm3, pl);
        ctbn_add(ws->base, ws->base, ws->two, pl);  /* 2 <= base <= p - 2 */
        *prime &= ctbn_mr_round(&ws->mr, ws->base, ws->scratch);
    }
end:
    OPENSSL_clear_free(ws, sizeof(*ws));
    return ok;
}

/*
 * All ones if (a * b) mod m == 1, or m == 1 when one_ok (an exponent check modulo p - 1
 * for p = 2, which OpenSSL's lcm absorbs). a: an limbs, b: bn limbs, m: ml limbs, m > 0.
 * -1 (raised) if memory ran out. CT: only the lengths leak.
 */
static int product_is_one(const given_pair *g, const ctbn_limb *a, size_t an, const ctbn_limb *b,
                          size_t bn, const ctbn_limb *m, size_t ml, ctbn_mask *out)
{
    ctbn_limb *prod = limbs_new(an + bn), *r = limbs_new(ml), *one = limbs_new(ml);
    int ok = prod != NULL && r != NULL && one != NULL;

    if (ok) {
        ctbn_mul(prod, a, an, b, bn);
        ctbn_mod_any_ct(r, prod, an + bn, m, ml);
        ctbn_set_u64(one, ml, 1);
        *out = ctbn_eq(r, one, ml);
    } else {
        no_memory(g);
    }
    limbs_free(prod, an + bn);
    limbs_free(r, ml);
    limbs_free(one, ml);
    return ok;
}

/* All ones if x (xn limbs) == y (yn limbs) as values. CT: only the lengths leak. */
static ctbn_mask equal_values(const ctbn_limb *x, size_t xn, const ctbn_limb *y, size_t yn)
{
    ctbn_mask eq = ~(ctbn_mask)0;
    size_t n = xn > yn ? xn : yn;

    for (size_t i = 0; i < n; i++)
        eq &= ctbn_mask_eq(i < xn ? x[i] : 0, i < yn ? y[i] : 0);
    return eq;
}

/* All ones if the n limbs at x are all zero (n = 0: all ones). CT: only n leaks. */
static ctbn_mask zero_limbs(const ctbn_limb *x, size_t n)
{
    return n == 0 ? ~(ctbn_mask)0 : ctbn_is_zero(x, n);
}

/* 1 if the verdict mask is all ones; otherwise refuses with why. The verdict is public. */
static int require(const given_pair *g, ctbn_mask verdict, const char *why)
{
    CTBN_DECLASSIFY(&verdict, sizeof(verdict));
    return verdict != 0 ? 1 : refuse(g, why);
}

/* n is the product of the factors. */
static int check_product(const given_pair *g)
{
    size_t total = 0;
    for (size_t i = 0; i < g->np; i++)
        total += g->pl[i];
    ctbn_limb *acc = limbs_new(total), *tmp = limbs_new(total);
    int ok = 0;

    if (acc == NULL || tmp == NULL) {
        no_memory(g);
    } else {
        size_t len = g->pl[0];
        ctbn_copy(acc, g->p[0], len);
        for (size_t i = 1; i < g->np; i++) {
            ctbn_mul(tmp, acc, len, g->p[i], g->pl[i]);
            len += g->pl[i];
            ctbn_copy(acc, tmp, len);
        }
        ok = require(g, equal_values(acc, len, g->n, g->nl), "the product of the factors is not n");
    }
    limbs_free(acc, total);
    limbs_free(tmp, total);
    return ok;
}

/* e * d = 1 modulo lambda(n) = lcm(p_i - 1): modulo each p_i - 1, where p_i - 1 = 1 counts
 * only if some other p_j - 1 is not 1 (lambda(n) = 1 leaves e * d mod 1 = 0). */
static int check_exponent(const given_pair *g)
{
    ctbn_mask all = ~(ctbn_mask)0, all_one = ~(ctbn_mask)0;

    for (size_t i = 0; i < g->np; i++) {
        ctbn_mask is_one;
        ctbn_mask m_is_one = ctbn_mask_eq(g->pm1[i][0], 1) & zero_limbs(g->pm1[i] + 1, g->pl[i] - 1);
        if (!product_is_one(g, g->e, g->el, g->d, g->dl, g->pm1[i], g->pl[i], &is_one))
            return 0;
        all &= is_one | m_is_one;
        all_one &= m_is_one;
    }
    return require(g, all & ~all_one, "e * d != 1 mod lambda(n)");
}

/* The CRT exponent of factor i is d mod (p_i - 1). */
static int check_crt_exponent(const given_pair *g, size_t i)
{
    size_t pl = g->pl[i], xl = limbs_of(g->f->exps[i].len);
    ctbn_limb *r = limbs_new(pl), *x = limbs_new(xl);
    int ok = 0;

    if (r == NULL || x == NULL) {
        no_memory(g);
    } else {
        ctbn_from_bytes(x, xl, g->f->exps[i].p, g->f->exps[i].len);
        ctbn_mod_any_ct(r, g->d, g->dl, g->pm1[i], pl);
        ok = require(g, equal_values(r, pl, x, xl), "a CRT exponent is not d mod (p - 1)");
    }
    limbs_free(r, pl);
    limbs_free(x, xl);
    return ok;
}

/*
 * Coefficient i (1-based) is the inverse modulo its prime of the product of the earlier
 * primes: qInv = q^-1 mod p for i = 1, t_i = (p_1 ... p_i)^-1 mod p_(i+1) after. It is the
 * inverse exactly when it is below the prime and their product is 1 modulo it.
 */
static int check_coefficient(const given_pair *g, size_t i)
{
    size_t mi = i == 1 ? 0 : i, ml = g->pl[mi], cl = limbs_of(g->f->coeffs[i - 1].len);
    size_t ol = 0;
    for (size_t j = 0; j < (i == 1 ? 0 : i); j++)
        ol += g->pl[j];
    if (i == 1)
        ol = g->pl[1];
    ctbn_limb *c = limbs_new(cl > ml ? cl : ml), *other = limbs_new(ol), *tmp = limbs_new(ol);
    int ok = 0;

    if (c == NULL || other == NULL || tmp == NULL) {
        no_memory(g);
        goto end;
    }
    ctbn_from_bytes(c, cl, g->f->coeffs[i - 1].p, g->f->coeffs[i - 1].len);
    ctbn_mask below = zero_limbs(c + ml, cl > ml ? cl - ml : 0) & ctbn_lt(c, g->p[mi], ml);
    if (i == 1) {
        ctbn_copy(other, g->p[1], ol);
    } else {
        size_t len = g->pl[0];
        ctbn_copy(other, g->p[0], len);
        for (size_t j = 1; j < i; j++) {
            ctbn_mul(tmp, other, len, g->p[j], g->pl[j]);
            len += g->pl[j];
            ctbn_copy(other, tmp, len);
        }
    }
    ctbn_mask is_one;
    if (product_is_one(g, c, ml, other, ol, g->p[mi], ml, &is_one))
        ok = require(g, below & is_one, "a CRT coefficient is not the inverse of its factor");
end:
    limbs_free(c, cl > ml ? cl : ml);
    limbs_free(other, ol);
    limbs_free(tmp, ol);
    return ok;
}

/* The checks in turn, on the loaded numbers. */
static int check_loaded(const given_pair *g)
{
    const ctrsa_key_numbers *f = g->f;

    for (size_t i = 0; i < g->np; i++) {
        ctbn_mask prime;
        if (!factor_is_prime(g, i, &prime) || !require(g, prime, "a factor is not prime"))
            return 0;
    }
    if (!check_product(g) || !check_exponent(g))
        return 0;
    /* The CRT values, when the key has them (a two-prime key may come without) */
    int with_crt = f->exps[0].len > 0 && f->exps[1].len > 0 && f->coeffs[0].len > 0;
    for (size_t i = with_crt ? 0 : 2; i < g->np; i++)
        if (!check_crt_exponent(g, i) || (i > 0 && !check_coefficient(g, i)))
            return 0;
    return 1;
}

static int check_given_pair_fn(void *arg)
{
    given_pair *g = arg;
    const ctrsa_key_numbers *f = g->f;
    int ok = 0;

    g->nl = limbs_of(f->n.len);
    g->el = limbs_of(f->e.len);
    g->dl = limbs_of(f->d.len);
    g->n = limbs_new(g->nl);
    g->e = limbs_new(g->el);
    g->d = limbs_new(g->dl);
    if (g->n == NULL || g->e == NULL || g->d == NULL) {
        no_memory(g);
        goto end;
    }
    ctbn_from_bytes(g->n, g->nl, f->n.p, f->n.len);
    ctbn_from_bytes(g->e, g->el, f->e.p, f->e.len);
    ctbn_from_bytes(g->d, g->dl, f->d.p, f->d.len);
    for (size_t i = 0; i < g->np; i++) {
        size_t len = limbs_of(f->primes[i].len);
        ctbn_limb *tmp = limbs_new(len);
        if (tmp == NULL) {
            no_memory(g);
            goto end;
        }
        ctbn_from_bytes(tmp, len, f->primes[i].p, f->primes[i].len);
        /* the bit length of a factor is public, as for a key the engine computes with */
        g->pbits[i] = ctbn_bitlen_vartime(tmp, len);
        g->pl[i] = g->pbits[i] > 0 ? CTBN_LIMBS(g->pbits[i]) : 1;
        g->p[i] = limbs_new(g->pl[i]);
        g->pm1[i] = limbs_new(g->pl[i]);
        if (g->p[i] != NULL)
            ctbn_copy(g->p[i], tmp, g->pl[i]);
        limbs_free(tmp, len);
        if (g->p[i] == NULL || g->pm1[i] == NULL) {
            no_memory(g);
            goto end;
        }
        if (g->pbits[i] > CTBN_MAX_BITS) {
            CTRSA_RAISE(g->key->prov, CTRSA_R_KEY_TOO_LARGE, "factor %zu has %zu bits, at "
                        "most %d are checked", i + 1, g->pbits[i], CTBN_MAX_BITS);
            goto end;
        }
        ctbn_sub_word(g->pm1[i], g->p[i], 1, g->pl[i]);   /* p = 0 fails as not prime */
    }
    ok = check_loaded(g);
end:
    limbs_free(g->n, g->nl);
    limbs_free(g->e, g->el);
    limbs_free(g->d, g->dl);
    for (size_t i = 0; i < g->np; i++) {
        limbs_free(g->p[i], g->pl[i]);
        limbs_free(g->pm1[i], g->pl[i]);
    }
    return ok;
}

int ctrsa_key_check_given_pair(const CTRSA_KEY *key)
{
    const ctrsa_key_numbers *f = key->factors;
    given_pair g;
    ctrsa_num e = f->e;

    memset(&g, 0, sizeof(g));
    g.key = key;
    g.f = f;
    g.np = f->nprimes;
    if (!key->has_private || g.np < 2) {
        CTRSA_RAISE(key->prov, CTRSA_R_MISSING_KEY_PART, "the key-pair check needs d and the "
                    "factors");
        return 0;
    }
    if (g.np > 2 && g.np > ctrsa_multiprime_cap(key->bits)) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "%zu primes: a modulus of %zu bits has at "
                    "most %zu", g.np, key->bits, ctrsa_multiprime_cap(key->bits));
        return 0;
    }
    while (e.len > 0 && e.p[0] == 0) {
        e.p++;
        e.len--;
    }
    if (e.len == 0 || (e.p[e.len - 1] & 1) == 0 || (e.len == 1 && e.p[0] == 1))
        return refuse(&g, "e must be odd and greater than 1");
    size_t longest = f->n.len > f->d.len ? f->n.len : f->d.len;
    if (f->e.len > longest)
        longest = f->e.len;
    if (limbs_of(longest) > GIVEN_MAX_LIMBS) {
        CTRSA_RAISE(key->prov, CTRSA_R_KEY_TOO_LARGE, "the key is too large to check");
        return 0;
    }
    return ctrsa_on_secret_stack(key->prov, check_given_pair_fn, &g);
}
