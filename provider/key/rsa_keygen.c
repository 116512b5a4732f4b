/*
 * RSA and RSA-PSS key generation on the engine (contract in rsa_keygen.h; the parameters
 * in provider/ops/keygen.h).
 *
 * Steps: the primes one by one (ctbn_prime_gen: fresh random candidates, of the residue
 * mod 8 that rsa-a or rsa-b asks for, sieve, gcd(e, p - 1) = 1, Miller-Rabin base 2 then
 * the FIPS 186-5 rounds with random bases), each new prime at distance > 2^(bits_i - 100)
 * from the earlier ones (FIPS 186-5 A.1.3 step 5.4 for two primes: |p - q| >
 * 2^(nlen/2 - 100)); then d, the CRT exponents and coefficients (ctbn_rsa_derive_ct),
 * d > 2^(nlen/2) (FIPS 186-5 A.1.1); then the numbers go through ctrsa_key_set like an
 * imported key (checks, Montgomery contexts) and the pairwise test of ctrsa_key_validate.
 *
 * Secrets: the primes, d, the CRT values, and every intermediate. What is branched on: the
 * verdicts of rejected candidates (inside ctbn_prime_gen), and the verdicts of the distance
 * and d-size checks, which fail with negligible probability (2^-98 and below) and then
 * discard the values concerned. Public: the sizes, e, the number of primes, rsa-a and rsa-b.
 */
#include <string.h>
#include <openssl/crypto.h>
#include "prov.h"
#include "rsa_keygen.h"
#include "rsa_op.h"

/* The secret numbers of one generation, wiped on release. */
typedef struct gen_numbers {
    size_t k, nl, bits[CTBN_RSA_MAX_PRIMES], limbs[CTBN_RSA_MAX_PRIMES];
    ctbn_limb primes[CTBN_RSA_MAX_PRIMES][CTBN_PRIME_MAX_LIMBS];
    ctbn_limb exps[CTBN_RSA_MAX_PRIMES][CTBN_PRIME_MAX_LIMBS];
    ctbn_limb coeffs[CTBN_RSA_MAX_PRIMES][CTBN_PRIME_MAX_LIMBS];
    ctbn_limb d[CTBN_MAX_LIMBS], n[CTBN_MAX_LIMBS + CTBN_RSA_MAX_PRIMES];
    ctbn_limb prod[CTBN_MAX_LIMBS + CTBN_RSA_MAX_PRIMES];
    ctbn_limb a[CTBN_PRIME_MAX_LIMBS], b[CTBN_PRIME_MAX_LIMBS];
    ctbn_limb scratch[CTBN_RSA_DERIVE_SCRATCH(CTBN_MAX_LIMBS)];
    ctbn_prime_ws ws;
} gen_numbers;

/*
 * Prime candidates and Miller-Rabin bases come from the private DRBG: the primes stay
 * secret (OpenSSL draws them with BN_priv_rand_ex); the public one serves what is seen.
 */
static int gen_random(void *arg, uint8_t *buf, size_t len)
{
    return ctrsa_random_priv_bytes(arg, buf, len);
}

/*
 * All ones if prime i is far enough from each earlier prime: |p_i - p_j| > 2^(b - 100),
 * b the smaller of their bit lengths (for two primes of an nlen-bit key, nlen/2 rounded
 * down: FIPS 186-5 A.1.3). CT: only the sizes leak; the verdict is then branched on.
 */
static ctbn_mask far_from_earlier(gen_numbers *g, size_t i)
{
    ctbn_mask ok = ~(ctbn_mask)0;
    for (size_t j = 0; j < i; j++) {
        size_t n = g->limbs[i] > g->limbs[j] ? g->limbs[i] : g->limbs[j];
        size_t b = g->bits[i] < g->bits[j] ? g->bits[i] : g->bits[j];
        ctbn_zero(g->a, n);
        ctbn_zero(g->b, n);
        ctbn_copy(g->a, g->primes[i], g->limbs[i]);
        ctbn_copy(g->b, g->primes[j], g->limbs[j]);
        ok &= ctbn_diff_exceeds_ct(g->a, g->b, n, b - 100);
    }
    return ok;
}

/* Generate the primes, d and the CRT values into g. 1 on success (error raised if not). */
static int generate_numbers(CTRSA_PROVCTX *prov, const ctrsa_keygen_req *request,
                            gen_numbers *g, const ctbn_limb *e, size_t en)
{
    size_t k = g->k;

    for (;;) {
        for (size_t i = 0; i < k; i++) {
            ctbn_prime_req req = {
                .bits = g->bits[i], .top_bits = k == 2 ? 2 : 3, .e = e, .en = en,
                .rounds = ctbn_prime_mr_rounds(g->bits[i], request->bits, k),
                /* rsa-a for p, rsa-b for q; keys of more primes ignore them (keygen.h) */
                .mod8 = k == 2 ? request->mod8[i] : 0,
                .random = gen_random, .random_arg = prov,
                .progress = request->progress, .progress_arg = request->progress_arg,
            };
            do {
                if (!ctbn_prime_gen(g->primes[i], &req, &g->ws)) {
                    CTRSA_RAISE(prov, CTRSA_R_KEYGEN_FAILED,
                                "prime generation stopped (random source or callback)");
                    return 0;
                }
                /* declassified verdict: a prime too close to another is discarded */
                if (far_from_earlier(g, i) != 0)
                    break;
                if (!request->progress(request->progress_arg, 2, (int)i)) {
                    CTRSA_RAISE(prov, CTRSA_R_KEYGEN_FAILED, "stopped by the callback");
                    return 0;
                }
            } while (1);
        }
        if (k == 2 && g->bits[0] == g->bits[1]) {
            /* p > q, as OpenSSL's keys have it: a masked swap */
            ctbn_cswap(ctbn_lt(g->primes[0], g->primes[1], g->limbs[0]), g->primes[0],
                       g->primes[1], g->limbs[0]);
        }
        const ctbn_limb *primes[CTBN_RSA_MAX_PRIMES];
        ctbn_limb *exps[CTBN_RSA_MAX_PRIMES], *coeffs[CTBN_RSA_MAX_PRIMES];
        for (size_t i = 0; i < k; i++) {
            primes[i] = g->primes[i];
            exps[i] = g->exps[i];
            coeffs[i] = g->coeffs[i];
        }
        if (ctbn_rsa_derive_ct(primes, g->limbs, k, e, en, g->nl, g->d, exps, coeffs,
                               g->scratch) == 0) {
            /* cannot happen for distinct primes with gcd(e, p_i - 1) = 1 */
            CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "the generated primes gave no private exponent");
            return 0;
        }
        /* d > 2^(nlen/2) (FIPS 186-5 A.1.1); otherwise start again with new primes */
        ctbn_limb *half = g->prod;
        ctbn_zero(half, g->nl);
        half[(request->bits / 2) / 64] = (ctbn_limb)1 << ((request->bits / 2) % 64);
        if (ctbn_lt(half, g->d, g->nl) != 0)
            return 1;
        if (!request->progress(request->progress_arg, 2, (int)k)) {
            CTRSA_RAISE(prov, CTRSA_R_KEYGEN_FAILED, "stopped by the callback");
            return 0;
        }
    }
}

/* n := the product of the primes (g->nl limbs); 1 if it has exactly `bits` bits. */
static int multiply_primes(gen_numbers *g, size_t bits)
{
    size_t len = g->limbs[0];
    ctbn_zero(g->n, sizeof(g->n) / sizeof(g->n[0]));
    ctbn_copy(g->n, g->primes[0], len);
    for (size_t i = 1; i < g->k; i++) {
        ctbn_mul(g->prod, g->n, len, g->primes[i], g->limbs[i]);
        len += g->limbs[i];
        ctbn_copy(g->n, g->prod, len);
    }
    /* n is public: its length may be checked with a variable-time function */
    return ctbn_bitlen_vartime(g->n, len) == bits;
}

/* Serialise g into the key numbers (pointing into blob) and set the key. */
static int set_key(const ctrsa_keygen_req *req, gen_numbers *g, CTRSA_KEY *key)
{
    size_t nbytes = (req->bits + 7) / 8, pbytes[CTBN_RSA_MAX_PRIMES], total = 2 * nbytes;
    ctrsa_key_numbers nums;
    uint8_t *blob, *w;
    int ok;

    for (size_t i = 0; i < g->k; i++) {
        pbytes[i] = (g->bits[i] + 7) / 8;
        total += 3 * pbytes[i];
    }
    blob = OPENSSL_zalloc(total);
    if (blob == NULL) {
        CTRSA_RAISE(ctrsa_key_provctx(key), CTRSA_R_MALLOC_FAILURE, "key numbers");
        return 0;
    }
    memset(&nums, 0, sizeof(nums));
    w = blob;
    ctbn_to_bytes(w, nbytes, g->n, g->nl);
    nums.n = (ctrsa_num){w, nbytes};
    w += nbytes;
    nums.e = (ctrsa_num){req->e, req->e_len};
    ctbn_to_bytes(w, nbytes, g->d, g->nl);
    nums.d = (ctrsa_num){w, nbytes};
    w += nbytes;
    nums.nprimes = g->k;
    for (size_t i = 0; i < g->k; i++) {
        /* coefficient i-1 lives modulo prime 0 (qInv) or prime i (t_i) */
        size_t c = i == 1 ? 0 : i;
        ctbn_to_bytes(w, pbytes[i], g->primes[i], g->limbs[i]);
        nums.primes[i] = (ctrsa_num){w, pbytes[i]};
        w += pbytes[i];
        ctbn_to_bytes(w, pbytes[i], g->exps[i], g->limbs[i]);
        nums.exps[i] = (ctrsa_num){w, pbytes[i]};
        w += pbytes[i];
        if (i >= 1) {
            ctbn_to_bytes(w, pbytes[c], g->coeffs[i - 1], g->limbs[c]);
            nums.coeffs[i - 1] = (ctrsa_num){w, pbytes[c]};
            w += pbytes[c];
        }
    }
    ok = ctrsa_key_set(key, &nums);
    OPENSSL_clear_free(blob, total);
    return ok;
}

typedef struct generate_call {
    CTRSA_PROVCTX *prov;
    const ctrsa_keygen_req *req;
    gen_numbers *g;
    const ctbn_limb *e;
    size_t en;
} generate_call;

static int generate_call_fn(void *arg)
{
    generate_call *a = arg;
    return generate_numbers(a->prov, a->req, a->g, a->e, a->en);
}

CTRSA_KEY *ctrsa_key_generate(CTRSA_PROVCTX *prov, const ctrsa_keygen_req *req)
{
    gen_numbers *g = NULL;
    CTRSA_KEY *key = NULL;
    ctbn_limb e[CTBN_PRIME_MAX_E_LIMBS];
    size_t en;

    en = CTBN_LIMBS(8 * req->e_len);
    ctbn_from_bytes(e, en, req->e, req->e_len);

    g = OPENSSL_zalloc(sizeof(*g));
    key = ctrsa_key_new(prov);
    if (g == NULL || key == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "key generation");
        goto err;
    }
    if (req->pss != NULL) {
        ctrsa_key_set_pss_type(key);
        *ctrsa_key_pss(key) = *req->pss;
    }
    /* Prime sizes as OpenSSL's: bits / k each, the remainder spread over the first ones. */
    g->k = req->primes;
    g->nl = CTBN_LIMBS(req->bits);
    for (size_t i = 0; i < g->k; i++) {
        g->bits[i] = req->bits / g->k + (i < req->bits % g->k);
        g->limbs[i] = CTBN_LIMBS(g->bits[i]);
    }
    /* On the secret stack: the engine kernels' frames hold values of the secret candidates
     * (Miller-Rabin's modexps, the derivation of d and the CRT values). */
    generate_call gc = { prov, req, g, e, en };
    int ok = ctrsa_on_secret_stack(prov, generate_call_fn, &gc);
    if (!ok)
        goto err;
    if (!multiply_primes(g, req->bits)) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "the primes' product has the wrong size");
        goto err;
    }
    if (!set_key(req, g, key) || !ctrsa_key_validate(key, 1)) {
        CTRSA_RAISE(prov, CTRSA_R_KEYGEN_FAILED, "the generated key failed its checks");
        goto err;
    }
    OPENSSL_clear_free(g, sizeof(*g));
    return key;
err:
    OPENSSL_clear_free(g, g != NULL ? sizeof(*g) : 0);
    ctrsa_key_free(key);
    return NULL;
}
