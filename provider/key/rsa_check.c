/*
 * The public-key check of EVP_PKEY_public_check (keymgmt validate, public selection), with
 * the verdicts of OpenSSL 3.0's ossl_rsa_sp800_56b_check_public outside FIPS mode: n odd,
 * e odd and greater than 1, no prime factor below 752 (its gcd with the product of the odd
 * primes 3..751), and n composite but not a prime power (FIPS 186-4 C.3.2's enhanced
 * Miller-Rabin: a witness of compositeness whose gcd test finds no factor).
 *
 * Public: n, e and everything derived from them (the bases are random but reveal nothing
 * about a key that has only public values here). Every function of the public check is
 * variable time.
 *
 * Also the key validation of EVP_PKEY_check and of key generation (ctrsa_key_validate):
 * the pairwise test, which runs the private and the public operation, so it sits here, on
 * the side that uses both, and not in the key object (rsa_key.c), which the operations use.
 */
#include <string.h>
#include <openssl/crypto.h>
#include "prime.h"
#include "rsa_op_internal.h"

/*
 * Rounds of the enhanced Miller-Rabin test. A round that finds no witness counts against
 * n (a prime passes them all and is refused), so fewer rounds than OpenSSL's 64 or 128 can
 * only refuse, with probability at most 4^-5, a composite n that OpenSSL would accept; a
 * real RSA modulus is shown composite by its first round. It bounds the time a prime n of
 * 16384 bits costs (OpenSSL spends 128 full-length exponentiations on it).
 */
#define CHECK_MR_ROUNDS 5
/* OpenSSL's small-factor bound: the odd primes below it divide no valid n. */
#define CHECK_SMALL_FACTOR_BOUND 752

/* 1 if p (odd, small) is prime. */
static int small_is_prime_vartime(unsigned p)
{
    for (unsigned d = 3; d * d <= p; d += 2)
        if (p % d == 0)
            return 0;
    return 1;
}

/* The smallest odd prime below CHECK_SMALL_FACTOR_BOUND dividing n (nl limbs), or 0. */
static unsigned small_factor_vartime(const ctbn_limb *n, size_t nl)
{
    for (unsigned p = 3; p < CHECK_SMALL_FACTOR_BOUND; p += 2) {
        unsigned __int128 r = 0;

        if (!small_is_prime_vartime(p))
            continue;
        for (size_t i = nl; i > 0; i--)
            r = ((r << 64) | n[i - 1]) % p;
        if (r == 0)
            return p;
    }
    return 0;
}

/* 1 if x (nl limbs) equals the small value v. */
static int equals_u64(const ctbn_limb *x, size_t nl, uint64_t v)
{
    if (x[0] != v)
        return 0;
    for (size_t i = 1; i < nl; i++)
        if (x[i] != 0)
            return 0;
    return 1;
}

/* 1 if gcd(x, n) = 1 for 0 < x (nl limbs). g and scratch: nl and CTBN_GCD_SCRATCH(nl). */
static int coprime_vartime(const ctbn_limb *x, const ctbn_limb *n, size_t nl, ctbn_limb *g,
                           ctbn_limb *scratch)
{
    ctbn_gcd_ct(g, x, n, nl, scratch);
    return equals_u64(g, nl, 1);
}

enum mr_verdict { MR_ERROR, MR_PROBABLY_PRIME, MR_COMPOSITE_WITH_FACTOR, MR_COMPOSITE_NOT_POWER };

/* The odd modulus a Miller-Rabin test runs on: public, with its Montgomery context. */
typedef struct mr_target {
    CTRSA_PROVCTX *prov;
    const ctbn_mont *mont;
    size_t nl, bits, k;       /* limbs, bit length (> 2) and byte length of n */
} mr_target;

/*
 * FIPS 186-4 C.3.2 (enhanced Miller-Rabin) on the odd t->mont->m > 3 with CHECK_MR_ROUNDS
 * random bases from the public DRBG, as OpenSSL's ossl_bn_miller_rabin_is_prime with
 * enhanced = 1.
 */
static enum mr_verdict enhanced_mr_vartime(const mr_target *t)
{
    const ctbn_mont *mont = t->mont;
    size_t nl = t->nl, a = 0;
    const ctbn_limb *n = mont->m;
    enum mr_verdict verdict = MR_ERROR;
    ctbn_limb two[1] = { 2 }, one[1] = { 1 };
    /* n1 = n - 1, m = (n - 1) / 2^a, then b, z, x, g and the scratch */
    size_t words = 6 * nl + CTBN_EXP_VARTIME_SCRATCH(nl) + CTBN_GCD_SCRATCH(nl);
    ctbn_limb *buf = OPENSSL_zalloc(words * sizeof(ctbn_limb));
    uint8_t *bytes = OPENSSL_zalloc(t->k);

    if (buf == NULL || bytes == NULL) {
        CTRSA_RAISE(t->prov, CTRSA_R_MALLOC_FAILURE, "public key check");
        goto end;
    }
    ctbn_limb *n1 = buf, *m = n1 + nl, *b = m + nl, *z = b + nl, *x = z + nl, *g = x + nl;
    ctbn_limb *scratch = g + nl;

    ctbn_copy(n1, n, nl);
    ctbn_sub(n1, n1, one, 1);     /* n is odd: no borrow past the first limb */
    ctbn_copy(m, n1, nl);
    while ((m[0] & 1) == 0) {     /* n - 1 > 0 is even: a >= 1 */
        for (size_t i = 0; i < nl; i++)
            m[i] = (m[i] >> 1) | (i + 1 < nl ? m[i + 1] << 63 : 0);
        a++;
    }
    for (int round = 0; round < CHECK_MR_ROUNDS; round++) {
        /* b in [2, 2^(bits - 1)), so 1 < b < n - 1 */
        if (!ctrsa_random_bytes(t->prov, bytes, t->k))
            goto end;
        ctbn_from_bytes(b, nl, bytes, t->k);
        for (size_t i = 0; i < nl; i++) {
            size_t lo = 64 * i, top = t->bits - 1;
            if (lo >= top)
                b[i] = 0;
            else if (top - lo < 64)
                b[i] &= ((ctbn_limb)1 << (top - lo)) - 1;
        }
        if (ctbn_bitlen_vartime(b, nl) < 2)
            b[0] = 2;
        if (!coprime_vartime(b, n, nl, g, scratch)) {
            verdict = MR_COMPOSITE_WITH_FACTOR;
            goto end;
        }
        ctbn_modexp_public_vartime(mont, z, b, m, nl, scratch);
        if (equals_u64(z, nl, 1) || ctbn_eq(z, n1, nl))
            continue;
        int witness = 1;
        for (size_t j = 1; j < a; j++) {
            ctbn_copy(x, z, nl);
            ctbn_modexp_public_vartime(mont, z, x, two, 1, scratch);
            if (ctbn_eq(z, n1, nl)) {
                witness = 0;
                break;
            }
            if (equals_u64(z, nl, 1))
                break;          /* x is a nontrivial square root of 1 */
        }
        if (!witness)
            continue;
        if (!equals_u64(z, nl, 1)) {
            ctbn_copy(x, z, nl);
            ctbn_modexp_public_vartime(mont, z, x, two, 1, scratch);
            if (!equals_u64(z, nl, 1))
                ctbn_copy(x, z, nl);    /* x = b^(n-1) != 1: Fermat witness */
        }
        /* x != 1 here; gcd(x - 1, n) > 1 finds a factor (n is a prime power, or unlucky) */
        ctbn_sub_word(x, x, 1, nl);
        if (ctbn_is_zero(x, nl) || !coprime_vartime(x, n, nl, g, scratch))
            verdict = MR_COMPOSITE_WITH_FACTOR;
        else
            verdict = MR_COMPOSITE_NOT_POWER;
        goto end;
    }
    verdict = MR_PROBABLY_PRIME;
end:
    OPENSSL_free(buf);
    OPENSSL_free(bytes);
    return verdict;
}

/*
 * The public check's last steps on the odd n held by t: no prime factor below
 * CHECK_SMALL_FACTOR_BOUND, then the enhanced Miller-Rabin verdict, which must be
 * "composite, not a prime power", or below CTRSA_MIN_BITS (OpenSSL's RSA_MIN_MODULUS_BITS)
 * also "composite with a factor found" (ossl_rsa_sp800_56b_check_public outside FIPS mode).
 * 1 if n passes; else raises why and returns 0.
 */
static int check_modulus_vartime(const mr_target *t)
{
    unsigned f;

    if ((f = small_factor_vartime(t->mont->m, t->nl)) != 0) {
        CTRSA_RAISE(t->prov, CTRSA_R_INVALID_KEY, "n has the small factor %u", f);
        return 0;
    }
    switch (enhanced_mr_vartime(t)) {
    case MR_COMPOSITE_NOT_POWER:
        return 1;
    case MR_PROBABLY_PRIME:
        CTRSA_RAISE(t->prov, CTRSA_R_INVALID_KEY, "n is prime");
        return 0;
    case MR_COMPOSITE_WITH_FACTOR:
        if (t->bits < CTRSA_MIN_BITS)
            return 1;
        CTRSA_RAISE(t->prov, CTRSA_R_INVALID_KEY, "n is a prime power (a factor was found)");
        return 0;
    case MR_ERROR:
    default:
        return 0;   /* raised by the random source or the allocation */
    }
}

/* OpenSSL's public check refuses n above OPENSSL_RSA_MAX_MODULUS_BITS ("modulus too
 * large") before anything else; every n it goes on with fits the engine. */
#define CHECK_MAX_MODULUS_BITS 16384
_Static_assert(CHECK_MAX_MODULUS_BITS <= CTBN_MAX_BITS, "the public check's n fits the engine");

/* x without its leading zero bytes (a public number as imported). */
static ctrsa_num strip_zeros(ctrsa_num x)
{
    while (x.len > 0 && x.p[0] == 0) {
        x.p++;
        x.len--;
    }
    return x;
}

/*
 * The public check of a key the engine cannot compute with, on n and e as imported, in
 * the order of ossl_rsa_sp800_56b_check_public: at most 16384 bits, n odd, e odd and
 * above 1 (e may be above n: the check does not compare them), then check_modulus_vartime
 * on a Montgomery context made for the check. n = 1 fails, as OpenSSL's Miller-Rabin
 * refuses a w below 5.
 */
static int check_public_given_vartime(const CTRSA_KEY *key)
{
    ctrsa_num n = strip_zeros(key->factors->n), e = strip_zeros(key->factors->e);
    size_t nl;
    ctbn_limb *limbs;
    ctbn_mont *mont;
    int ok = 0;

    if (key->bits > CHECK_MAX_MODULUS_BITS) {
        CTRSA_RAISE(key->prov, CTRSA_R_MODULUS_TOO_LARGE, "n has %zu bits, at most %d are "
                    "checked (OpenSSL's maximum)", key->bits, CHECK_MAX_MODULUS_BITS);
        return 0;
    }
    if (n.len == 0 || (n.p[n.len - 1] & 1) == 0) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, n.len == 0 ? "n is zero" : "n is even");
        return 0;
    }
    if (e.len == 0 || (e.p[e.len - 1] & 1) == 0 || (e.len == 1 && e.p[0] == 1)) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "e must be odd and greater than 1");
        return 0;
    }
    if (key->bits < 3) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "n is 1");
        return 0;
    }
    nl = CTBN_LIMBS(key->bits);
    limbs = OPENSSL_zalloc(nl * sizeof(ctbn_limb));
    mont = OPENSSL_zalloc(CTBN_MONT_BYTES(nl));
    if (limbs == NULL || mont == NULL) {
        CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "public key check");
    } else {
        ctbn_from_bytes(limbs, nl, n.p, n.len);
        if (ctbn_mont_init(mont, limbs, nl) != 0) {   /* odd and above 1: cannot fail */
            CTRSA_RAISE(key->prov, CTRSA_R_INTERNAL, "public key check");
        } else {
            mr_target t = { key->prov, mont, nl, key->bits, (key->bits + 7) / 8 };
            ok = check_modulus_vartime(&t);
        }
    }
    OPENSSL_free(limbs);
    OPENSSL_free(mont);
    return ok;
}

static int check_public(void *arg)
{
    const CTRSA_KEY *key = arg;
    if (!ctrsa_key_is_computable(key))
        return check_public_given_vartime(key);
    /* n odd and 1 < e < n odd hold since import (ctrsa_key_set) */
    mr_target t = { key->prov, key->mont_n, key->nlimbs, key->bits, key->k };
    return check_modulus_vartime(&t);
}

/* On the module's stack: Miller-Rabin's modexps have large frames (rsa_key.h). */
int ctrsa_key_check_public(const CTRSA_KEY *key)
{
    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key != NULL ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART, "no public key");
        return 0;
    }
    return ctrsa_on_module_stack(key->prov, check_public, (void *)key);
}

int ctrsa_key_check_pair(const CTRSA_KEY *key)
{
    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key != NULL ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART, "no public key");
        return 0;
    }
    if (!key->has_private) {
        CTRSA_RAISE(key->prov, CTRSA_R_NOT_PRIVATE_KEY, "a key-pair check needs a private key");
        return 0;
    }
    if (!ctrsa_key_is_computable(key))
        return ctrsa_key_check_given_pair(key);
    return ctrsa_key_check_public(key) && ctrsa_key_validate(key, 1);
}

/*
 * Contract in rsa_op.h. Secret: d and the key's private numbers, used through the private
 * operation only (constant time). Public: x, a random value from the public DRBG, its image
 * and the verdict.
 */
static int pairwise(void *arg);

int ctrsa_key_validate(const CTRSA_KEY *key, int check_private)
{
    if (!key->has_public || !ctrsa_key_computable(key))
        return 0;
    if (!check_private)
        return 1;
    if (!key->has_private)
        return 0;
    if (key->d_unusable)   /* nothing to run the pairwise test with: the arithmetic alone */
        return ctrsa_key_check_kept_pair(key);
    if (!ctrsa_key_d_usable(key))
        return 0;
    /* On the module's stack: the public-exponent kernels' frames are large (rsa_key.h);
     * the private operation nested in it is wiped. */
    return ctrsa_on_module_stack(key->prov, pairwise, (void *)key);
}

static int pairwise(void *arg)
{
    const CTRSA_KEY *key = arg;
    /* The numbers were checked on import; the pairwise test runs the real operations. */
    size_t k = key->k;
    uint8_t *x = OPENSSL_zalloc(k), *s = OPENSSL_zalloc(k), *y = OPENSSL_zalloc(k);
    int ok = 0;
    if (x != NULL && s != NULL && y != NULL
        && ctrsa_random_bytes(key->prov, x + 1, k - 1)
        && ctrsa_key_private_op((CTRSA_KEY *)key, s, x)
        && ctrsa_key_public_op_unbounded(key, y, s))
        ok = CRYPTO_memcmp(x, y, k) == 0;
    if (!ok)
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "pairwise test failed");
    OPENSSL_clear_free(x, k);
    OPENSSL_clear_free(s, k);
    OPENSSL_clear_free(y, k);
    return ok;
}
