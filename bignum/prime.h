/*
 * ctrsa bignum engine: prime generation and the RSA private numbers. The contract of every
 * operation; conventions as in bignum.h (limbs least significant first, public limb counts,
 * masks, "MAY / MUST NOT alias", a CT: line per function).
 *
 * Files: prime_sieve.c (trial division by small primes), prime_mr.c (Miller-Rabin on the
 * Montgomery arithmetic), prime_gen.c (candidates, rounds, the random source), shift_gcd_ct.c
 * (secret shifts, gcd, exact division), rsa_derive_ct.c (d, the CRT exponents and
 * coefficients from the primes). No OpenSSL, no allocation: workspaces are caller-provided.
 *
 * What may leak during key generation: everything about a candidate that is THROWN AWAY
 * (how far it got, why it failed), since it is independent of the prime that is kept:
 * candidates are drawn independently from the random source (no incremental search, whose
 * rejected neighbours would tell residues of the kept prime). Nothing about a kept prime,
 * d, the CRT exponents or coefficients beyond their public lengths and the fact that they
 * passed: every test that a kept value passes runs the same operations whatever the value.
 */
#ifndef CTRSA_PRIME_H
#define CTRSA_PRIME_H

#include "bignum.h"

/* ---------------------------------------------------------------------------------------
 * Secret shifts, gcd and exact division (shift_gcd_ct.c)
 */

/* The number of trailing zero bits of x (64n if x = 0), as a value. CT: only n leaks. */
ctbn_limb ctbn_ctz_ct(const ctbn_limb *x, size_t n);

/*
 * r := x >> s (logical) and r := x << s mod 2^(64n), for a SECRET shift s < 64n: one masked
 * stage per bit of the largest possible shift (a logarithmic shifter). r MAY alias x.
 * CT: only n leaks; s and x are secret.
 */
void ctbn_rshift_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb s);
void ctbn_lshift_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb s);

/*
 * g := gcd(a, b) for any a, b of n limbs, not both zero (gcd(0, b) = b). Binary gcd (Stein)
 * with a fixed count of 2*64*n iterations of masked swaps, subtractions and halvings, after
 * the common power of two is taken out with a secret shift and put back at the end.
 * g MUST NOT alias a or b. scratch: CTBN_GCD_SCRATCH(n) limbs.
 * CT: only n leaks; a and b are secret.
 */
#define CTBN_GCD_SCRATCH(n) (2 * (size_t)(n))
void ctbn_gcd_ct(ctbn_limb *g, const ctbn_limb *a, const ctbn_limb *b, size_t n,
                 ctbn_limb *scratch);

/*
 * r := x^-1 mod 2^(64n) for an odd x, by Newton's iteration r := r*(2 - x*r), a fixed number
 * of full-width steps (each doubles the correct low bits). r MUST NOT alias x.
 * scratch: CTBN_INV_POW2_SCRATCH(n) limbs. CT: only n leaks.
 */
#define CTBN_INV_POW2_SCRATCH(n) (6 * (size_t)(n))
void ctbn_inv_pow2_ct(ctbn_limb *r, const ctbn_limb *x, size_t n, ctbn_limb *scratch);

/*
 * q := x / y for an odd y that divides x EXACTLY (n limbs each): q = x * y^-1 mod 2^(64n),
 * no division instruction (whose latency may depend on the operands). If y does not divide
 * x, q is x * y^-1 mod 2^(64n), not a quotient. q MUST NOT alias x or y.
 * scratch: CTBN_DIVEXACT_SCRATCH(n) limbs. CT: only n leaks.
 */
#define CTBN_DIVEXACT_SCRATCH(n) (CTBN_INV_POW2_SCRATCH(n) + 3 * (size_t)(n))
void ctbn_divexact_ct(ctbn_limb *q, const ctbn_limb *x, const ctbn_limb *y, size_t n,
                      ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Trial division by small primes (prime_sieve.c)
 *
 * The odd primes 3 .. CTBN_SIEVE_LARGEST (the first CTBN_SIEVE_PRIMES of them) are packed
 * into groups whose product M fits in 62 bits. Screening x computes x mod M for each group
 * with Montgomery reductions by M (multiplications only: no division instruction, whose
 * latency may depend on the secret operand), then tests each prime of the group for
 * divisibility with a multiply and a compare (x = 0 mod p  <=>  x * p^-1 mod 2^64 <= (2^64-1)/p).
 */
#define CTBN_SIEVE_PRIMES 2047     /* odd primes below 17864 */
#define CTBN_SIEVE_LARGEST 17863
#define CTBN_SIEVE_MAX_GROUPS CTBN_SIEVE_PRIMES

typedef struct ctbn_sieve_group {
    uint64_t m;          /* product of the group's primes, odd, < 2^62 */
    uint64_t m_ninv;     /* -m^-1 mod 2^64 */
    uint64_t k;          /* 2^(64(n+1)) mod m: undoes the 2^-64 of each reduction step */
    uint32_t first, count;  /* the group's primes: primes[first .. first+count) */
} ctbn_sieve_group;

typedef struct ctbn_sieve {
    size_t n;                                  /* limb count of the screened values */
    size_t nprimes, ngroups;                   /* public table sizes */
    uint32_t primes[CTBN_SIEVE_PRIMES];
    uint64_t pinv[CTBN_SIEVE_PRIMES];          /* p^-1 mod 2^64 */
    uint64_t plim[CTBN_SIEVE_PRIMES];          /* floor((2^64 - 1) / p) */
    ctbn_sieve_group groups[CTBN_SIEVE_MAX_GROUPS];
} ctbn_sieve;

/*
 * Build the table for screening n-limb values (1 <= n <= CTBN_MAX_LIMBS): the primes by
 * Eratosthenes, their inverses, the groups. Uses division on the public table only.
 * nprimes: how many of the table's primes to use (1..CTBN_SIEVE_PRIMES; 0 means all).
 * Returns 0 on success, -1 if n or nprimes is out of range. CT: public inputs only.
 */
int ctbn_sieve_init(ctbn_sieve *s, size_t n, size_t nprimes);

/*
 * All ones if x (s->n limbs) has no prime factor in the table, 0 if it has one. For an x
 * that is itself a table prime the answer is 0: use it for x > CTBN_SIEVE_LARGEST.
 * CT: for an x that passes, only s->n and the table size leak (every group is visited, each
 * test is a mask). For an x that fails, the screen stops after the first group holding a
 * factor, so that group's index leaks: callers discard failed candidates.
 */
ctbn_mask ctbn_sieve_screen(const ctbn_sieve *s, const ctbn_limb *x);

/* ---------------------------------------------------------------------------------------
 * Miller-Rabin (prime_mr.c), FIPS 186-5 B.3.1, on the engine's Montgomery arithmetic
 */

/* The largest count of squarings a round performs in key generation (see ctbn_mr_init). */
#define CTBN_MR_KEYGEN_MAX_TWOS 64

/* Scratch limbs for the rounds with modulus limb count n. */
#define CTBN_MR_SCRATCH(n) (CTBN_MODEXP_SCRATCH(n) + 4 * (size_t)(n))

typedef struct ctbn_mr {
    const ctbn_mont *mont;             /* Montgomery context of the candidate w */
    size_t max_twos;                   /* public bound on the squarings of a round */
    ctbn_limb a;                       /* w - 1 = 2^a * m, m odd (secret) */
    ctbn_limb m[CTBN_MAX_LIMBS];       /* (secret) */
    ctbn_limb minus_one[CTBN_MAX_LIMBS];  /* w - 1 in Montgomery form: w - (R mod w) */
    ctbn_limb one[CTBN_MAX_LIMBS];        /* 1 in Montgomery form: R mod w */
} ctbn_mr;

/*
 * Prepare the rounds for the odd candidate w > 3 held by mont (built with ctbn_mont_init):
 * a and m with w - 1 = 2^a * m, by a constant-time count of trailing zeros and a secret
 * shift. Each round squares max_twos - 1 times whatever a is, with the checks of the steps
 * j >= a masked off. max_twos is public: pass mont->bits - 1 for the exact test. With a
 * smaller bound, a w with a > max_twos may be rounded down to "composite" (never the
 * reverse), which is how key generation keeps its rounds short: it passes
 * CTBN_MR_KEYGEN_MAX_TWOS and so rejects the primes p with 2^65 | p - 1 (a fraction of
 * 2^-64 of them) instead of squaring mont->bits times.
 * CT: only mont->n, mont->bits and max_twos leak.
 */
void ctbn_mr_init(ctbn_mr *mr, const ctbn_mont *mont, size_t max_twos);

/*
 * One round with base 2: all ones if w passes (is a strong probable prime to base 2).
 * 2^m is computed left to right over the public bit length of w with a squaring and a
 * masked modular doubling per bit (no table, no multiplication by the base), which is what
 * makes this round cheaper than a round with a general base.
 * scratch: CTBN_MR_SCRATCH(mont->n) limbs. CT: only n, bits and max_twos leak.
 */
ctbn_mask ctbn_mr_round_base2(const ctbn_mr *mr, ctbn_limb *scratch);

/*
 * One round with the base b (mont->n limbs, 2 <= b <= w - 2, normal form): all ones if w
 * passes. b^m by the constant-time fixed-window ctbn_modexp_ct with exponent length
 * mont->bits, then max_twos - 1 squarings with masked checks.
 * scratch: CTBN_MR_SCRATCH(mont->n) limbs. CT: only n, bits and max_twos leak.
 */
ctbn_mask ctbn_mr_round(const ctbn_mr *mr, const ctbn_limb *b, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Prime generation (prime_gen.c)
 */

/* The random source: fill buf[0..len) with random bytes; 1 on success, 0 on failure. */
typedef int (*ctbn_random_fn)(void *arg, uint8_t *buf, size_t len);

/*
 * Progress and cancellation, as OpenSSL's key generation callbacks: stage 0 for each
 * candidate that reaches Miller-Rabin, 1 for each random-base round passed, 3 when a prime
 * was found (2 is left to the caller: OpenSSL uses it when a prime is regenerated);
 * `count` counts within the current prime. Return 0 to abort the generation. May be NULL.
 */
typedef int (*ctbn_progress_fn)(void *arg, int stage, int count);

/* The smallest prime size ctbn_prime_gen accepts, in bits. */
#define CTBN_PRIME_MIN_BITS 64

/*
 * Miller-Rabin rounds with random bases for a prime of prime_bits bits of a modulus of
 * nlen bits made of nprimes primes:
 *   - two primes, nlen >= 2048: FIPS 186-5 Table B.1 (probable primes p and q): 5 rounds
 *     for nlen 2048, 4 for nlen >= 3072;
 *   - otherwise (1024-bit moduli, multi-prime keys): the smallest t for which the
 *     Damgard-Landrock-Pomerance average-case bound on a random k-bit candidate,
 *     k^(3/2) 2^t t^(-1/2) 4^(2 - sqrt(t k)) (the bound the FIPS tables come from), is
 *     at most 2^-112 — never fewer than FIPS's 4.
 * The base-2 round that filters candidates comes in addition to these.
 * CT: public inputs.
 */
unsigned ctbn_prime_mr_rounds(size_t prime_bits, size_t nlen, size_t nprimes);

/* A prime request: all public. */
typedef struct ctbn_prime_req {
    size_t bits;            /* the prime's exact bit length, >= CTBN_PRIME_MIN_BITS */
    unsigned top_bits;      /* 1..3: the top bits forced to one (2 for p, q: |pq| = 2*bits) */
    const ctbn_limb *e;     /* gcd(e, p - 1) = 1 is required; e odd, > 1 */
    size_t en;              /* limbs of e, 1..CTBN_PRIME_MAX_E_LIMBS */
    unsigned rounds;        /* random-base Miller-Rabin rounds, >= 1 */
    unsigned mod8;          /* 0: any residue; 1, 3, 5 or 7: p = mod8 (mod 8), FIPS 186-5
                               A.1.3's optional a (for p) and b (for q) */
    ctbn_random_fn random;
    void *random_arg;
    ctbn_progress_fn progress;   /* may be NULL */
    void *progress_arg;
} ctbn_prime_req;

#define CTBN_PRIME_MAX_E_LIMBS 4        /* e < 2^256, FIPS 186-5's upper bound */
#define CTBN_PRIME_MAX_LIMBS (CTBN_MAX_LIMBS / 2)   /* a factor of the largest modulus */
#define CTBN_PRIME_RANDOM_BUF 4096

/* Workspace of ctbn_prime_gen: about 200 KB, allocate it (zeroed) and wipe it after use. */
typedef struct ctbn_prime_ws {
    ctbn_sieve sieve;
    ctbn_mont_max mont;
    ctbn_mr mr;
    ctbn_limb cand[CTBN_PRIME_MAX_LIMBS + 1];
    ctbn_limb base[CTBN_PRIME_MAX_LIMBS + 2];
    ctbn_limb tmp[CTBN_PRIME_MAX_LIMBS + 2];
    ctbn_limb scratch[CTBN_MR_SCRATCH(CTBN_PRIME_MAX_LIMBS)];
    uint8_t rnd[CTBN_PRIME_RANDOM_BUF];
    size_t rnd_left;
    /* Statistics of the last call (public: about rejected candidates only). */
    unsigned long stat_candidates, stat_sieved, stat_mr;
} ctbn_prime_ws;

/*
 * p (CTBN_LIMBS(req->bits) limbs) := a random probable prime of exactly req->bits bits with
 * its top req->top_bits bits set, p = req->mod8 (mod 8) when req->mod8 is not 0 (each
 * candidate's three low bits are set to it, the others stay uniform), gcd(e, p - 1) = 1,
 * having passed base 2 and req->rounds
 * random-base Miller-Rabin rounds (bases uniform in [2, p - 2] to within 2^-64: 64 extra
 * random bits reduced modulo p - 3, so that the number of draws does not depend on p).
 * Each candidate is fresh random (independent of the others), screened by the sieve, then
 * the gcd check, then the base-2 round, then the random rounds.
 * Returns 1 on success; 0 if the random source failed, progress asked to stop, or the
 * request is out of range (p is then zero).
 * CT: a kept prime went through the same operations as any passing candidate: only
 * req's public fields leak, and how many candidates were rejected before it (they are
 * independent of it).
 */
int ctbn_prime_gen(ctbn_limb *p, const ctbn_prime_req *req, ctbn_prime_ws *ws);

/* ---------------------------------------------------------------------------------------
 * RSA private numbers from the primes (rsa_derive_ct.c)
 */

/*
 * r (mn limbs) := e^-1 mod m, for a PUBLIC odd e > 1 (en limbs, en <= mn) and a secret
 * m > 1 of mn limbs, EVEN or odd (p - 1, lambda(n)). Returns all ones if gcd(e, m) = 1,
 * else 0 (r is then meaningless).
 * Route, all constant-time: u := m mod e (bit-serial reduction by the public e);
 * v := u^-1 mod e (ctbn_mod_inverse_ct, e odd); then m*v = 1 mod e, so
 * 1 + m*(e - v) = 0 mod e, and r := (1 + m*(e - v)) / e, an exact division done as a
 * multiplication by e^-1 mod 2^(64 mn). Check: r*e = 1 + m*(e - v) = 1 mod m, and
 * 0 < r < m because 1 <= e - v <= e - 1.
 * r MUST NOT alias e or m. scratch: CTBN_INV_PUBLIC_SCRATCH(mn, en) limbs.
 * CT: only mn and en leak; m is secret (e is public but not branched on either).
 */
#define CTBN_INV_PUBLIC_SCRATCH(mn, en) (12 * ((size_t)(mn) + (size_t)(en)))
ctbn_mask ctbn_inv_public_ct(ctbn_limb *r, const ctbn_limb *e, size_t en, const ctbn_limb *m,
                             size_t mn, ctbn_limb *scratch);

/*
 * l (n limbs) := lcm(a, b) for EVEN a, b > 0 of n limbs whose product a*b fits in n limbs
 * (true for (p-1) and (q-1) padded to n's limb count, or for lcm(p_1-1 .. p_i-1) and
 * p_{i+1}-1 when the primes multiply to n): g := gcd(a, b) (ctbn_gcd_ct), g = 2^k * g',
 * l := ((a*b) >> k) / g' by exact division. l MUST NOT alias a or b.
 * scratch: CTBN_LCM_SCRATCH(n) limbs. CT: only n leaks.
 */
#define CTBN_LCM_SCRATCH(n) \
    (6 * (size_t)(n) + CTBN_GCD_SCRATCH(n) + CTBN_DIVEXACT_SCRATCH(n))
void ctbn_lcm_ct(ctbn_limb *l, const ctbn_limb *a, const ctbn_limb *b, size_t n,
                 ctbn_limb *scratch);

/* All ones if |a - b| > 2^t (n limbs each, public t < 64n). CT: only n and t leak. */
ctbn_mask ctbn_diff_exceeds_ct(const ctbn_limb *a, const ctbn_limb *b, size_t n, size_t t);

/* The most primes of a generated key (as the key object: CTRSA_MAX_PRIMES). */
#define CTBN_RSA_MAX_PRIMES 5

/*
 * The private numbers of the RSA key with the k primes primes[i] (plimbs[i] limbs each, odd,
 * distinct, each > 2, their product of nl limbs) and the public odd e > 1 (en limbs):
 *   d (nl limbs)              := e^-1 mod lambda(n), lambda = lcm(p_1 - 1, ..., p_k - 1)
 *   exps[i] (plimbs[i] limbs) := e^-1 mod (p_i - 1)                  (dP, dQ, d_i)
 *   coeffs[0] (plimbs[0])     := p_2^-1 mod p_1                      (qInv)
 *   coeffs[i-1] (plimbs[i]), i >= 2 := (p_1 ... p_i-1)^-1 mod p_i     (t_i, RFC 8017)
 * Returns all ones on success, 0 if some gcd(e, p_i - 1) != 1 or the primes are not
 * coprime. Nothing MAY alias. scratch: CTBN_RSA_DERIVE_SCRATCH(nl) limbs.
 * CT: only k, the limb counts and en leak.
 */
#define CTBN_RSA_DERIVE_SCRATCH(nl) \
    (8 * (size_t)(nl) + CTBN_LCM_SCRATCH(nl) + CTBN_INV_PUBLIC_SCRATCH(nl, CTBN_PRIME_MAX_E_LIMBS) \
     + CTBN_INVERSE_SCRATCH(nl))
ctbn_mask ctbn_rsa_derive_ct(const ctbn_limb *const primes[], const size_t plimbs[], size_t k,
                             const ctbn_limb *e, size_t en, size_t nl, ctbn_limb *d,
                             ctbn_limb *const exps[], ctbn_limb *const coeffs[],
                             ctbn_limb *scratch);

/*
 * The CRT numbers of a two-prime key from its private exponent, for a key imported with n,
 * e, d, p and q but without them (what RSA_set0_key + RSA_set0_factors or a JWK without dp,
 * dq and qi give):
 *   dp (pn limbs)   := d mod (p - 1)
 *   dq (qn limbs)   := d mod (q - 1)
 *   qinv (pn limbs) := q^-1 mod p
 * for odd p, q > 1 (pn, qn limbs) and any d (dn limbs). Returns all ones if q is invertible
 * mod p, else 0 (qinv is then zero). Whether d is a private exponent for e is not checked
 * here: the caller checks e * dp = 1 mod (p - 1) as it does for imported CRT exponents.
 * Nothing MAY alias. scratch: CTBN_RSA_CRT_FROM_D_SCRATCH(pn, qn) limbs, zeroed on return.
 * CT: only pn, qn and dn leak; p, q and d are secret (two bit-serial reductions by the
 * even p - 1 and q - 1, one of q by p, one fixed-count inverse).
 */
#define CTBN_RSA_CRT_FROM_D_SCRATCH(pn, qn) (6 * (size_t)(pn) + (size_t)(qn))
ctbn_mask ctbn_rsa_crt_from_d_ct(const ctbn_limb *p, size_t pn, const ctbn_limb *q, size_t qn,
                                 const ctbn_limb *d, size_t dn, ctbn_limb *dp, ctbn_limb *dq,
                                 ctbn_limb *qinv, ctbn_limb *scratch);

/*
 * The CRT numbers of a key of k >= 2 primes from its private exponent, for a key imported
 * with n, e, d and its primes but without them (OpenSSL 3.3+'s rsa-derive-from-pq):
 *   exps[i] (plimbs[i] limbs)       := d mod (p_i - 1)                (dP, dQ, d_i)
 *   coeffs[0] (plimbs[0] limbs)     := p_2^-1 mod p_1                 (qInv)
 *   coeffs[i-1] (plimbs[i]), i >= 2 := (p_1 ... p_i-1)^-1 mod p_i     (t_i, RFC 8017)
 * for odd primes[i] > 1 (plimbs[i] limbs, their sum `sum`) and any d (dn limbs); k = 2
 * gives what ctbn_rsa_crt_from_d_ct gives. Returns all ones if every coefficient exists
 * (each prime coprime to the product of the earlier ones), else 0 (that coefficient is then
 * zero). As there, d is not checked against e: the caller checks the results as it checks
 * imported CRT values. Nothing MAY alias. scratch: CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum)
 * limbs, zeroed on return.
 * CT: only k, the limb counts and dn leak; the primes and d are secret (bit-serial
 * reductions, fixed-count inverses).
 */
#define CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum) (8 * (size_t)(sum))
ctbn_mask ctbn_rsa_crt_from_d_multi_ct(const ctbn_limb *const primes[], const size_t plimbs[],
                                       size_t k, const ctbn_limb *d, size_t dn,
                                       ctbn_limb *const exps[], ctbn_limb *const coeffs[],
                                       ctbn_limb *scratch);

#endif /* CTRSA_PRIME_H */
