/*
 * The RSA key object: import with validation, Montgomery contexts built once, export view,
 * match, dup. Contracts in rsa_key.h. What computes with the key (rsa_private.c,
 * rsa_public.c, the blinding cache in blinding.c, the pairwise test in rsa_check.c) uses
 * this file and is never called from it: it includes rsa_key_internal.h, not rsa_op.h.
 *
 * Secrets: d, the primes, the CRT exponents and coefficients. Their checks on import run on
 * constant-time engine paths; only the verdict (key accepted or not) is branched on, and a
 * rejected key is not used. Public: n, e, and every length (bit length of n and of each prime).
 */
#include <stdio.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "core_version.h"
#include "rsa_key_internal.h"
#include "prime.h"

CTRSA_KEY *ctrsa_key_new(CTRSA_PROVCTX *prov)
{
    CTRSA_KEY *key = OPENSSL_zalloc(sizeof(*key));
    if (key == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "key object");
        return NULL;
    }
    key->prov = prov;
    key->refs = 1;
    pthread_mutex_init(&key->d_hash_lock, NULL);
    return key;   /* no blinding slots yet (key->slots NULL): the first private op makes them */
}

/* A Montgomery context sized to its modulus (CTBN_MONT_BYTES), zeroed; NULL on failure. */
static ctbn_mont *mont_new(size_t limbs)
{
    return OPENSSL_zalloc(CTBN_MONT_BYTES(limbs));
}

/* Wipe and free a context from mont_new (its size is read from it: n is set by init, and a
 * context that never reached init is all zeros, so n = 0 wipes just the struct). */
static void mont_free(ctbn_mont *ctx)
{
    if (ctx != NULL)
        OPENSSL_clear_free(ctx, CTBN_MONT_BYTES(ctx->n));
}

/* Limbs of the CRT secrets block: dP, qInv in Montgomery form (plimbs each), dQ (qlimbs). */
static size_t crt_secret_limbs(const CTRSA_KEY *key)
{
    return 2 * key->plimbs + key->qlimbs;
}

/* Free every number of the key (public and private), wiping secrets. Locks stay. */
static void key_clear(CTRSA_KEY *key)
{
    mont_free(key->mont_n);
    OPENSSL_free(key->e);
    OPENSSL_clear_free(key->d, key->d ? key->nlimbs * sizeof(ctbn_limb) : 0);
    mont_free(key->mont_p);
    mont_free(key->mont_q);
    OPENSSL_clear_free(key->crt_secrets, key->crt_secrets ? crt_secret_limbs(key) * sizeof(ctbn_limb) : 0);
    OPENSSL_clear_free(key->factors, key->factors_len);
}

/* Release the key's locks and blinding pairs (the slots' buffers are wiped). */
static void key_release_locks(CTRSA_KEY *key)
{
    ctrsa_key_blinding_slots_free(key);
    pthread_mutex_destroy(&key->d_hash_lock);
}

void ctrsa_key_free(CTRSA_KEY *key)
{
    if (key == NULL)
        return;
    if (__atomic_sub_fetch(&key->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    key_clear(key);
    key_release_locks(key);
    OPENSSL_clear_free(key, sizeof(*key));
}

int ctrsa_key_up_ref(CTRSA_KEY *key)
{
    __atomic_add_fetch(&key->refs, 1, __ATOMIC_ACQ_REL);
    return 1;
}

/* Skip leading zero bytes of a PUBLIC number. */
static ctrsa_num strip_public(ctrsa_num x)
{
    while (x.len > 0 && x.p[0] == 0) {
        x.p++;
        x.len--;
    }
    return x;
}

/* Allocate limbs (zeroed). */
static ctbn_limb *limbs_new(size_t n)
{
    return OPENSSL_zalloc((n ? n : 1) * sizeof(ctbn_limb));
}

/* Raise "memory allocation failed" for `what` and return 0. */
static int no_memory(const CTRSA_KEY *key, const char *what)
{
    CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "%s", what);
    return 0;
}

/*
 * Load a secret number into `limbs` limbs. Fails (0) if it does not fit. The verdict is a
 * property of the key's encoding, not a secret worth hiding from the importer.
 */
static int load(ctbn_limb *x, size_t limbs, ctrsa_num v)
{
    return ctbn_from_bytes(x, limbs, v.p, v.len) != 0;
}

/* Write x (limbs limbs) as len big-endian bytes at *w, point *num at them, advance *w. */
static void put(ctrsa_num *num, uint8_t **w, size_t len, const ctbn_limb *x, size_t limbs)
{
    ctbn_to_bytes(*w, len, x, limbs);
    *num = (ctrsa_num){ *w, len };
    *w += len;
}

/* Bit length of a secret prime: its announced length, public by convention. */
static size_t prime_bits(ctrsa_num v)
{
    ctbn_limb tmp[CTBN_MAX_LIMBS];
    if (!load(tmp, CTBN_MAX_LIMBS, v))
        return 0;
    size_t bits = ctbn_bitlen_vartime(tmp, CTBN_MAX_LIMBS);
    OPENSSL_cleanse(tmp, sizeof(tmp));
    return bits;
}

/*
 * 1 if (a * b) mod m == 1 for the secret a (an limbs), b (bn limbs), and any m (mn limbs),
 * 0 if not, -1 if memory ran out (raised here, so that the caller does not call the key
 * invalid).
 */
static int product_is_one_mod(const CTRSA_KEY *key, const ctbn_limb *a, size_t an,
                              const ctbn_limb *b, size_t bn, const ctbn_limb *m, size_t mn)
{
    ctbn_limb *prod = limbs_new(an + bn), *r = limbs_new(mn), *one = limbs_new(mn);
    int ok = -1;
    if (prod != NULL && r != NULL && one != NULL) {
        ctbn_mul(prod, a, an, b, bn);
        ctbn_mod_any_ct(r, prod, an + bn, m, mn);
        ctbn_set_u64(one, mn, 1);
        ok = ctbn_eq(r, one, mn) != 0;
    } else {
        no_memory(key, "key check");
    }
    OPENSSL_clear_free(prod, (an + bn) * sizeof(ctbn_limb));
    OPENSSL_clear_free(r, mn * sizeof(ctbn_limb));
    OPENSSL_free(one);
    return ok;
}

/*
 * The numbers of a key as imported, kept for export only, in one allocation: the numbers
 * struct followed by the bytes (wiped on free). Keys of three to five primes run on d and
 * keep their factors, exponents and coefficients this way (all = 0); a key the engine
 * cannot compute with (key->unusable) keeps everything, n, e and d included (all = 1).
 * Two-prime keys export from their working numbers instead (ctrsa_key_get_numbers).
 * Secret: d and the factors' numbers; copied byte for byte, their lengths as given.
 */
static int keep_numbers(CTRSA_KEY *key, const ctrsa_key_numbers *in, int all)
{
    size_t total = sizeof(ctrsa_key_numbers);
    if (all)
        total += in->n.len + in->e.len + in->d.len;
    for (size_t i = 0; i < in->nprimes; i++)
        total += in->primes[i].len + in->exps[i].len
                 + (i + 1 < in->nprimes ? in->coeffs[i].len : 0);
    uint8_t *blob = OPENSSL_zalloc(total);
    if (blob == NULL)
        return 0;
    ctrsa_key_numbers *out = (ctrsa_key_numbers *)blob;
    uint8_t *w = blob + sizeof(*out);
    out->nprimes = in->nprimes;
#define KEEP(field) do { \
        if (in->field.len > 0) \
            memcpy(w, in->field.p, in->field.len); \
        out->field = (ctrsa_num){ w, in->field.len }; \
        w += in->field.len; \
    } while (0)
    if (all) {
        KEEP(n);
        KEEP(e);
        KEEP(d);
    }
    for (size_t i = 0; i < in->nprimes; i++) {
        KEEP(primes[i]);
        KEEP(exps[i]);
        if (i + 1 < in->nprimes)
            KEEP(coeffs[i]);
    }
#undef KEEP
    key->factors = out;
    key->factors_len = total;
    return 1;
}

/*
 * 1 if the len bytes at p are all zero (len 0 included), else 0. Used on the secret d: every
 * byte is read whatever the values, and the caller branches on the verdict alone. CT: only
 * len (the importer's encoding) leaks.
 */
static int bytes_are_zero(const uint8_t *p, size_t len)
{
    unsigned acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= p[i];
    return (int)(((acc - 1) >> 8) & 1);   /* acc in 0..255: 1 exactly when acc == 0 */
}

/* Bit length of a PUBLIC big-endian number already stripped of leading zero bytes. */
static size_t public_bits(ctrsa_num x)
{
    if (x.len == 0)
        return 0;
    size_t bits = 8 * x.len;
    for (uint8_t top = x.p[0]; (top & 0x80) == 0; top <<= 1)
        bits--;
    return bits;
}

/*
 * Whether the engine computes with the public key (n, e): 0 if it does, else the reason
 * code, with the why[] text for the error each operation raises. The engine takes odd
 * moduli of CTRSA_MIN_BITS to CTBN_MAX_BITS bits and an odd e with 1 < e < n; OpenSSL's
 * default provider imports other keys too and refuses them when an operation runs, so
 * ctrsa imports them, keeps their numbers for export and refuses every operation.
 * n and e are stripped of leading zero bytes: a zero one has len 0, and no byte of it is
 * read. Public values only.
 */
static int engine_refuses(ctrsa_num n, ctrsa_num e, size_t bits, char *why, size_t whylen)
{
    if (n.len == 0) {
        snprintf(why, whylen, "n is zero");
        return CTRSA_R_INVALID_KEY;
    }
    if (bits > CTBN_MAX_BITS) {
        snprintf(why, whylen, "n has %zu bits, at most %d are supported", bits, CTBN_MAX_BITS);
        return CTRSA_R_MODULUS_TOO_LARGE;
    }
    if (bits < CTRSA_MIN_BITS) {
        snprintf(why, whylen, "n has %zu bits, at least %d are needed", bits, CTRSA_MIN_BITS);
        return CTRSA_R_KEY_TOO_SMALL;
    }
    if ((n.p[n.len - 1] & 1) == 0) {
        snprintf(why, whylen, "n is even");
        return CTRSA_R_INVALID_KEY;
    }
    if (e.len == 0) {
        snprintf(why, whylen, "e is zero");
        return CTRSA_R_INVALID_KEY;
    }
    size_t ebits = public_bits(e);
    if (ebits < 2 || (e.p[e.len - 1] & 1) == 0 || ebits > bits
        || (ebits == bits && memcmp(e.p, n.p, n.len) >= 0)) {
        snprintf(why, whylen, "e must be odd, greater than 1 and less than n");
        return CTRSA_R_INVALID_KEY;
    }
    return 0;
}

int ctrsa_key_is_computable(const CTRSA_KEY *key)
{
    return key->unusable == 0;
}

int ctrsa_key_computable(const CTRSA_KEY *key)
{
    if (key->unusable == 0)
        return 1;
    CTRSA_RAISE(key->prov, key->unusable, "%s", key->unusable_why);
    return 0;
}

int ctrsa_key_d_usable(const CTRSA_KEY *key)
{
    if (key->d_unusable) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "%s", key->d_unusable_why);
        return 0;
    }
    if (!key->d_zero)
        return 1;
    CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "d is zero: the key cannot sign or decrypt");
    return 0;
}

/*
 * The order of two big-endian numbers of any encoded lengths: -1, 0 or 1 for a < b, a = b,
 * a > b. Every byte of both is read, over the longer length; the lengths are the importer's
 * encoding (public), the values may be secret. CT: only the lengths leak.
 */
static int bytes_cmp(ctrsa_num a, ctrsa_num b)
{
    size_t len = a.len > b.len ? a.len : b.len;
    unsigned lt = 0, gt = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned x = i + a.len >= len ? a.p[i + a.len - len] : 0;
        unsigned y = i + b.len >= len ? b.p[i + b.len - len] : 0;
        unsigned undecided = 1 ^ (lt | gt);
        lt |= undecided & (((x - y) >> 8) & 1);   /* x, y in 0..255: borrow when x < y */
        gt |= undecided & (((y - x) >> 8) & 1);
    }
    return (int)gt - (int)lt;
}

int ctrsa_key_check_private(const CTRSA_KEY *key)
{
    int ok;

    if (!key->has_private) {
        CTRSA_RAISE(key->prov, CTRSA_R_NOT_PRIVATE_KEY, "a private-key check needs a private key");
        return 0;
    }
    if (key->unusable != 0 || key->d_unusable) {
        /* the numbers as given (keep_numbers): d compared with n, zero or not */
        ctrsa_num d = key->factors->d, n = key->factors->n;
        ok = !bytes_are_zero(d.p, d.len) && bytes_cmp(d, n) < 0;
    } else {
        ok = !key->d_zero;   /* 0 <= d < n holds since import (set_private) */
    }
    if (!ok)
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "d must be between 1 and n - 1");
    return ok;
}

/* set_public and set_factors are defined below; the kept-pair check runs them on a copy. */
static int set_public(CTRSA_KEY *key, const ctrsa_key_numbers *nums);
static int set_factors(CTRSA_KEY *key, const ctrsa_key_numbers *nums, const ctbn_limb *d,
                       size_t dl);

typedef struct check_factors_call {
    CTRSA_KEY *copy;
    const ctrsa_key_numbers *f;
    const ctbn_limb *d;
    size_t dl;
} check_factors_call;

/* On the secret stack: n's Montgomery set-up (large frames) and set_factors' work on the
 * secret numbers. */
static int check_factors_call_fn(void *arg)
{
    check_factors_call *a = arg;
    return set_public(a->copy, a->f) && set_factors(a->copy, a->f, a->d, a->dl);
}

int ctrsa_key_check_kept_pair(const CTRSA_KEY *key)
{
    const ctrsa_key_numbers *f = key->factors;
    int ok = 0;

    if (!key->d_unusable)
        return 1;
    if (f->nprimes < 2) {
        CTRSA_RAISE(key->prov, CTRSA_R_MISSING_KEY_PART, "the key-pair check needs the factors");
        return 0;
    }
    /* d at its own length, up to twice n's (a longer one cannot be congruent to anything
     * the check would accept here, and is refused) */
    size_t dl = CTBN_LIMBS(8 * (f->d.len > 0 ? f->d.len : 1));
    if (dl < key->nlimbs)
        dl = key->nlimbs;
    if (dl > 2 * CTBN_MAX_LIMBS) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "d is too long for its key");
        return 0;
    }
    CTRSA_KEY *copy = ctrsa_key_new(key->prov);
    ctbn_limb *d = limbs_new(dl);
    if (copy != NULL && d != NULL) {
        load(d, dl, f->d);
        /* the factors against n, each exponent and coefficient, and e * d = 1 modulo
         * each p_i - 1, as the default provider's check (rsa_validate_keypair_multiprime) */
        check_factors_call c = { copy, f, d, dl };
        ok = ctrsa_on_secret_stack(key->prov, check_factors_call_fn, &c);
    } else if (d == NULL) {
        no_memory(key, "key check");
    }
    OPENSSL_clear_free(d, d != NULL ? dl * sizeof(ctbn_limb) : 0);
    ctrsa_key_free(copy);
    return ok;
}

int ctrsa_key_e_below_2(const CTRSA_KEY *key)
{
    if (!key->has_public || key->unusable == 0)
        return 0;   /* a computable key's e is odd and above 1 (engine_refuses) */
    ctrsa_num e = strip_public(key->factors->e);
    return e.len == 0 || (e.len == 1 && e.p[0] == 1);
}

int ctrsa_key_private_computable(const CTRSA_KEY *key)
{
    return ctrsa_key_computable(key) && ctrsa_key_d_usable(key);
}

static int set_public(CTRSA_KEY *key, const ctrsa_key_numbers *nums)
{
    CTRSA_PROVCTX *prov = key->prov;
    /* Absent (len 0) is refused; present and zero is a key the engine cannot compute with,
     * which imports as in the default provider (engine_refuses). */
    if (nums->n.len == 0 || nums->e.len == 0) {
        CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "the key needs n and e");
        return 0;
    }
    ctrsa_num n = strip_public(nums->n), e = strip_public(nums->e);
    key->bits = public_bits(n);
    key->k = (key->bits + 7) / 8;
    key->unusable = engine_refuses(n, e, key->bits, key->unusable_why,
                                   sizeof(key->unusable_why));
    if (key->unusable != 0) {
        /* No Montgomery context, no e in limbs: nothing is computed on this key. */
        key->has_public = 1;
        return 1;
    }
    key->nlimbs = CTBN_LIMBS(key->bits);
    ctbn_limb nl[CTBN_MAX_LIMBS];
    load(nl, key->nlimbs, n);
    key->mont_n = mont_new(key->nlimbs);
    if (key->mont_n == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "Montgomery context");
        return 0;
    }
    if (ctbn_mont_init(key->mont_n, nl, key->nlimbs) != 0) {   /* n odd, checked above */
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "n is not a valid modulus");
        return 0;
    }
    /* e (odd, 1 < e < n, checked above) is kept at its own length (one limb for 65537). */
    ctbn_limb el[CTBN_MAX_LIMBS];
    load(el, key->nlimbs, e);
    key->en = CTBN_LIMBS(ctbn_bitlen_vartime(el, key->nlimbs));
    key->e = limbs_new(key->en);
    if (key->e == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "public exponent");
        return 0;
    }
    ctbn_copy(key->e, el, key->en);
    key->has_public = 1;
    return 1;
}

/*
 * The CRT values of a key of np primes imported without them, from the secret d (nlimbs)
 * and primes (ctbn_rsa_crt_from_d_multi_ct): exp[i] := d mod (p_i - 1) (limbs[i] limbs),
 * coeff[0] := q^-1 mod p (limbs[0]), coeff[i-1] := (p_1 ... p_i-1)^-1 mod p_i (limbs[i]).
 * 1 on success; 0 (raised) if a coefficient does not exist or memory ran out. The values
 * are then checked as imported ones are. CT: only the limb counts leak; the verdict is a
 * property of the key.
 */
static int derive_crt(CTRSA_KEY *key, size_t np, ctbn_limb *const prime[],
                      const size_t limbs[], const ctbn_limb *d, ctbn_limb *const exp[],
                      ctbn_limb *const coeff[])
{
    size_t sum = 0;
    for (size_t i = 0; i < np; i++)
        sum += limbs[i];
    size_t ws_limbs = CTBN_RSA_CRT_FROM_D_MULTI_SCRATCH(sum);
    ctbn_limb *ws = limbs_new(ws_limbs);
    if (ws == NULL)
        return no_memory(key, "CRT values");
    ctbn_mask ok = ctbn_rsa_crt_from_d_multi_ct((const ctbn_limb *const *)prime, limbs, np, d,
                                                key->nlimbs, exp, coeff, ws);
    OPENSSL_clear_free(ws, ws_limbs * sizeof(ctbn_limb));
    if (ok == 0) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY, "the factors are not coprime (%s)",
                    np == 2 ? "q has no inverse mod p"
                            : "a factor has no inverse of the product of those before it");
        return 0;
    }
    return 1;
}

/*
 * Keep the numbers of a key of three or more primes for export (keep_numbers), with the
 * CRT values derived at import in place of the absent ones: each exponent at its prime's
 * byte length, each coefficient at its modulus' (bits[] are the primes' public lengths).
 * Secret: the values; written on the caller's (secret) stack, the bytes wiped after copying.
 */
static int keep_derived(CTRSA_KEY *key, const ctrsa_key_numbers *nums,
                        ctbn_limb *const exp[], ctbn_limb *const coeff[], const size_t bits[],
                        const size_t limbs[])
{
    size_t np = nums->nprimes, total = 0;
    for (size_t i = 0; i < np; i++)
        total += 2 * ((bits[i] + 7) / 8);
    uint8_t *buf = OPENSSL_zalloc(total), *w = buf;
    if (buf == NULL)
        return no_memory(key, "key numbers");
    ctrsa_key_numbers full = *nums;
    for (size_t i = 0; i < np; i++) {
        put(&full.exps[i], &w, (bits[i] + 7) / 8, exp[i], limbs[i]);
        if (i + 1 < np) {
            size_t c = i == 0 ? 0 : i + 1;   /* coefficient i+1's modulus (qInv's is p) */
            put(&full.coeffs[i], &w, (bits[c] + 7) / 8, coeff[i], limbs[c]);
        }
    }
    int ok = keep_numbers(key, &full, 0);
    OPENSSL_clear_free(buf, total);
    return ok ? 1 : no_memory(key, "key numbers");
}

/*
 * Check and load the factors (two or more), their exponents and coefficients. A key given
 * none of its exponents and coefficients, with two primes or with nums->derive_from_pq,
 * gets them derived from d (derive_crt) and then checked like imported ones; a key of three
 * or more primes keeps its numbers for export (key->factors), the derived ones included.
 * d has dl limbs: nl, or more for a d not below n, which is checked
 * (ctrsa_key_check_kept_pair) and never derived from. Secret: d, the factors, exponents and
 * coefficients; public: their announced lengths and which were given.
 */
static int set_factors(CTRSA_KEY *key, const ctrsa_key_numbers *nums, const ctbn_limb *d,
                       size_t dl)
{
    CTRSA_PROVCTX *prov = key->prov;
    size_t np = nums->nprimes, nl = key->nlimbs;
    size_t limbs[CTRSA_MAX_PRIMES], bits[CTRSA_MAX_PRIMES];
    ctbn_limb *prime[CTRSA_MAX_PRIMES] = {0}, *exp[CTRSA_MAX_PRIMES] = {0};
    ctbn_limb *dcoeff[CTRSA_MAX_PRIMES - 1] = {0};   /* derived coefficients, derive only */
    ctbn_limb *prod = NULL, *tmp = NULL, *pm1 = NULL, *coeff = NULL;
    int ok = 0;
    size_t sum = 0;
    /* Which numbers were given is public (the caller's parameters), never their values. */
    int none_given = 1;
    for (size_t i = 0; i < np; i++)
        none_given &= nums->exps[i].len == 0 && (i + 1 == np || nums->coeffs[i].len == 0);
    int derive = none_given && dl == nl && (np == 2 || nums->derive_from_pq);

    for (size_t i = 0; i < np; i++) {
        if (nums->primes[i].len == 0
            || (!derive && (nums->exps[i].len == 0
                            || (i + 1 < np && nums->coeffs[i].len == 0)))) {
            CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART,
                        "factor %zu needs its CRT exponent and coefficient", i + 1);
            goto end;
        }
        bits[i] = prime_bits(nums->primes[i]);
        limbs[i] = CTBN_LIMBS(bits[i]);
        sum += limbs[i];
        if (bits[i] < 2 || bits[i] > key->bits) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "factor %zu has a bad size", i + 1);
            goto end;
        }
        prime[i] = limbs_new(limbs[i]);
        exp[i] = limbs_new(limbs[i]);
        if (derive && i > 0)
            dcoeff[i - 1] = limbs_new(limbs[i == 1 ? 0 : i]);   /* its modulus' length */
        if (prime[i] == NULL || exp[i] == NULL || (derive && i > 0 && dcoeff[i - 1] == NULL)) {
            no_memory(key, "factors");
            goto end;
        }
        load(prime[i], limbs[i], nums->primes[i]);
        if ((prime[i][0] & 1) == 0) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "factor %zu is even", i + 1);
            goto end;
        }
        if (derive)
            continue;   /* exp[i] is derived below, once every factor is loaded */
        if (!load(exp[i], limbs[i], nums->exps[i]) || !ctbn_lt(exp[i], prime[i], limbs[i])) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "CRT exponent %zu is not below its factor",
                        i + 1);
            goto end;
        }
    }

    /* The product of the factors is n. */
    prod = limbs_new(sum + nl);
    tmp = limbs_new(sum + nl);
    pm1 = limbs_new(nl);
    coeff = limbs_new(nl);
    if (prod == NULL || tmp == NULL || pm1 == NULL || coeff == NULL) {
        no_memory(key, "key check");
        goto end;
    }
    if (derive && !derive_crt(key, np, prime, limbs, d, exp, dcoeff))
        goto end;
    ctbn_copy(prod, prime[0], limbs[0]);
    size_t prod_limbs = limbs[0];
    for (size_t i = 1; i < np; i++) {
        /* Coefficient check before prod grows: coeff * (r_1...r_i-1) = 1 mod r_i, except
         * the first, qInv, which is q^-1 mod p (OpenSSL and RFC 8017 order). */
        size_t cp = i == 1 ? 0 : i;          /* index of the coefficient's modulus */
        if (derive)
            ctbn_copy(coeff, dcoeff[i - 1], limbs[cp]);
        else if (!load(coeff, limbs[cp], nums->coeffs[i - 1])
                 || !ctbn_lt(coeff, prime[cp], limbs[cp])) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "coefficient %zu is not below its factor", i);
            goto end;
        }
        const ctbn_limb *other = i == 1 ? prime[1] : prod;
        size_t other_limbs = i == 1 ? limbs[1] : prod_limbs;
        int is_one = product_is_one_mod(key, coeff, limbs[cp], other, other_limbs,
                                        prime[cp], limbs[cp]);
        if (is_one != 1) {
            if (is_one < 0)
                goto end;
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "coefficient %zu is wrong%s", i,
                        i == 1 ? " (qInv * q != 1 mod p)" : "");
            goto end;
        }
        ctbn_mul(tmp, prod, prod_limbs, prime[i], limbs[i]);
        prod_limbs += limbs[i];
        ctbn_copy(prod, tmp, prod_limbs);
    }
    ctbn_limb diff = 0;
    for (size_t j = nl; j < prod_limbs; j++)
        diff |= prod[j];
    if (prod_limbs < nl || diff != 0 || !ctbn_eq(prod, key->mont_n->m, nl)) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "the product of the factors is not n");
        goto end;
    }

    /* e * d = 1 and e * d_i = 1 mod (r_i - 1): d is an inverse of e mod lambda(n). */
    for (size_t i = 0; i < np; i++) {
        ctbn_limb one[1] = {1};
        ctbn_zero(pm1, nl);
        ctbn_copy(pm1, prime[i], limbs[i]);
        ctbn_sub(pm1, pm1, one, 1); /* prime is odd: no borrow past the first limb */
        int is_one = product_is_one_mod(key, key->e, key->en, exp[i], limbs[i], pm1,
                                        limbs[i]);
        if (is_one != 1) {
            if (is_one < 0)
                goto end;
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "e * d%zu != 1 mod (factor%zu - 1)", i + 1,
                        i + 1);
            goto end;
        }
        is_one = product_is_one_mod(key, key->e, key->en, d, dl, pm1, limbs[i]);
        if (is_one != 1) {
            if (is_one < 0)
                goto end;
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "e * d != 1 mod lambda(n)");
            goto end;
        }
    }

    if (np == 2) {
        /* The CRT path keeps p, q, dP, dQ and qInv in Montgomery form. */
        key->crt = 1;
        key->plimbs = limbs[0];
        key->qlimbs = limbs[1];
        key->pbits = bits[0];
        key->qbits = bits[1];
        key->mont_p = mont_new(limbs[0]);
        key->mont_q = mont_new(limbs[1]);
        key->crt_secrets = limbs_new(crt_secret_limbs(key));
        if (key->mont_p == NULL || key->mont_q == NULL || key->crt_secrets == NULL) {
            no_memory(key, "CRT values");
            goto end;
        }
        if (ctbn_mont_init(key->mont_p, prime[0], limbs[0]) != 0
            || ctbn_mont_init(key->mont_q, prime[1], limbs[1]) != 0) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "a factor is not a valid modulus");
            goto end;
        }
        key->dp = key->crt_secrets;
        key->qinv_mont = key->dp + limbs[0];
        key->dq = key->qinv_mont + limbs[0];
        if (derive)
            ctbn_copy(coeff, dcoeff[0], limbs[0]);
        else
            load(coeff, limbs[0], nums->coeffs[0]);
        ctbn_to_mont(key->mont_p, key->qinv_mont, coeff);
        key->crt_derived = derive && !nums->derive_from_pq;
        ctbn_copy(key->dp, exp[0], limbs[0]);
        ctbn_copy(key->dq, exp[1], limbs[1]);
    } else if (derive && !keep_derived(key, nums, exp, dcoeff, bits, limbs)) {
        goto end;
    }
    ok = 1;
end:
    for (size_t i = 0; i < np; i++) {
        OPENSSL_clear_free(prime[i], (prime[i] ? limbs[i] : 0) * sizeof(ctbn_limb));
        OPENSSL_clear_free(exp[i], (exp[i] ? limbs[i] : 0) * sizeof(ctbn_limb));
        if (i > 0 && dcoeff[i - 1] != NULL)
            OPENSSL_clear_free(dcoeff[i - 1], limbs[i == 1 ? 0 : i] * sizeof(ctbn_limb));
    }
    OPENSSL_clear_free(prod, (sum + nl) * sizeof(ctbn_limb));
    OPENSSL_clear_free(tmp, (sum + nl) * sizeof(ctbn_limb));
    OPENSSL_clear_free(pm1, nl * sizeof(ctbn_limb));
    OPENSSL_clear_free(coeff, nl * sizeof(ctbn_limb));
    return ok;
}

/*
 * Limbs of the private operation's scratch (the layout in rsa_key_internal.h: its own values,
 * the CRT temporaries, then the larger of the modexp's scratch and the blinding refresh's
 * inverse), computed once at import. Public: the key's lengths only.
 */
static size_t private_scratch_limbs(const CTRSA_KEY *key)
{
    size_t modexp = key->crt ? CTBN_MODEXP2_SCRATCH(key->plimbs, key->qlimbs)
                             : CTBN_MODEXP_SCRATCH(key->nlimbs);
    if (modexp < CTBN_INVERSE_SCRATCH(key->nlimbs) + key->nlimbs)
        modexp = CTBN_INVERSE_SCRATCH(key->nlimbs) + key->nlimbs;
    return modexp + CTRSA_WORK_AT(key->nlimbs);
}

static int set_private(CTRSA_KEY *key, const ctrsa_key_numbers *nums)
{
    CTRSA_PROVCTX *prov = key->prov;
    if (nums->nprimes == 1 || nums->nprimes > CTRSA_MAX_PRIMES) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "a key has 0 or 2 to %d factors, not %zu",
                    CTRSA_MAX_PRIMES, nums->nprimes);
        return 0;
    }
    key->d = limbs_new(key->nlimbs);
    if (key->d == NULL)
        return no_memory(key, "private exponent");
    /* d = 0 imports as the default provider imports it, and no private operation runs
     * (ctrsa_key_private_computable). ctbn_is_zero reads every limb; only its verdict is
     * branched on, which is "not zero" for every key that can sign. */
    int below_n = load(key->d, key->nlimbs, nums->d)
                  && ctbn_lt(key->d, key->mont_n->m, key->nlimbs);
    key->d_zero = below_n && ctbn_is_zero(key->d, key->nlimbs) != 0;
    CTBN_DECLASSIFY(&below_n, sizeof(below_n));           /* the public verdicts on d */
    CTBN_DECLASSIFY(&key->d_zero, sizeof(key->d_zero));
    if (!below_n || (key->d_zero && nums->nprimes > 0)) {
        /* A d not below n, or zero with the factors: the default provider imports both and
         * computes with the CRT values; ctrsa keeps every number as given and computes
         * with none of them (d_unusable in rsa_key_internal.h). */
        OPENSSL_clear_free(key->d, key->nlimbs * sizeof(ctbn_limb));
        key->d = NULL;
        key->d_unusable = 1;
        key->d_unusable_why = below_n ? "d is zero: the key cannot sign or decrypt"
                                      : "d is not below n: the key cannot sign or decrypt";
        if (!keep_numbers(key, nums, 1))
            return no_memory(key, "key numbers");
        key->has_private = 1;
        return 1;
    }
    if (nums->nprimes >= 2 && !set_factors(key, nums, key->d, key->nlimbs))
        return 0;
    key->scratch_limbs = private_scratch_limbs(key);
    key->has_private = 1;
    return 1;
}

typedef struct numbers_call {
    CTRSA_KEY *key;
    const ctrsa_key_numbers *nums;
} numbers_call;

static int set_public_call_fn(void *arg)
{
    numbers_call *a = arg;
    return set_public(a->key, a->nums);
}

static int set_private_call_fn(void *arg)
{
    numbers_call *a = arg;
    return set_private(a->key, a->nums);
}

/* 1 if x (big-endian) has a bit set at position nbits or above. CT: x is secret, its byte
 * length and nbits public; the caller branches on the verdict alone. */
static int wider_than(const ctrsa_num *x, size_t nbits)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < x->len; i++) {
        size_t lsb = 8 * (x->len - 1 - i); /* this byte's lowest bit position: public */
        uint8_t m = lsb >= nbits ? 0xff : lsb + 8 <= nbits ? 0 : (uint8_t)(0xff << (nbits - lsb));
        acc |= x->p[i] & m;
    }
    int wide = acc != 0;
    CTBN_DECLASSIFY(&wide, sizeof(wide));
    return wide;
}

/* From 3.4 the default provider refuses at import a key whose d, factors, CRT exponents or
 * coefficients have more bits than n (ossl_rsa_check_factors, openssl/openssl#25190);
 * ctrsa follows the loading core. */
static int numbers_fit_n(CTRSA_PROVCTX *prov, const ctrsa_key_numbers *nums)
{
    if (prov == NULL || prov->core_version < CTRSA_CORE_3_4)
        return 1;
    size_t i = 0, nbits = 0;
    while (i < nums->n.len && nums->n.p[i] == 0)
        i++;
    if (i < nums->n.len) {
        nbits = 8 * (nums->n.len - i);
        for (uint8_t top = nums->n.p[i]; (top & 0x80) == 0; top <<= 1)
            nbits--;
    }
    int wide = wider_than(&nums->d, nbits);
    for (size_t j = 0; j < CTRSA_MAX_PRIMES; j++)
        wide |= wider_than(&nums->primes[j], nbits) | wider_than(&nums->exps[j], nbits);
    for (size_t j = 0; j + 1 < CTRSA_MAX_PRIMES; j++)
        wide |= wider_than(&nums->coeffs[j], nbits);
    if (wide) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY,
                    "d, a factor, a CRT exponent or a coefficient has more bits than n");
        return 0;
    }
    return 1;
}

int ctrsa_key_set(CTRSA_KEY *key, const ctrsa_key_numbers *nums)
{
    if (!numbers_fit_n(key->prov, nums))
        return 0;
    /* Build into a fresh object, then move it in: the key is unchanged on failure. */
    CTRSA_KEY *fresh = ctrsa_key_new(key->prov);
    if (fresh == NULL)
        return 0;
    /* set_public's Montgomery constants of n on the module's stack (their frames are
     * large), set_private's work (qInv into Montgomery form, the CRT exponents derived
     * from d) on the secret stack, wiped whatever the outcome */
    numbers_call call = { fresh, nums };
    int ok = ctrsa_on_module_stack(key->prov, set_public_call_fn, &call);
    if (ok && fresh->unusable != 0) {
        /* Kept as given, for export; has_private as the default provider says (d given). */
        fresh->has_private = nums->d.len > 0;
        /* the private-key check alone asks that d be non-zero (bytes_are_zero: CT) */
        fresh->d_zero = fresh->has_private && bytes_are_zero(nums->d.p, nums->d.len);
        if (!keep_numbers(fresh, nums, 1)) {
            CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "key numbers");
            ok = 0;
        }
    } else {
        ok = ok && (nums->d.len == 0
                    || ctrsa_on_secret_stack(key->prov, set_private_call_fn, &call));
    }
    if (ok && nums->d.len == 0 && nums->nprimes > 0) {
        CTRSA_RAISE(key->prov, CTRSA_R_MISSING_KEY_PART, "factors were given without d");
        ok = 0;
    }
    if (ok && fresh->unusable == 0 && !fresh->d_unusable && nums->nprimes > 2
        && fresh->factors == NULL && !keep_numbers(fresh, nums, 0)) {
        CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "key numbers");
        ok = 0;
    }
    if (!ok) {
        ctrsa_key_free(fresh);
        return 0;
    }
    /* fresh's locks were never used: release them, then move its numbers into key. */
    key_release_locks(fresh);
    key_clear(key);
    key_release_locks(key);
    ctrsa_pss_restriction pss = key->pss;
    int refs = key->refs, is_pss = key->is_pss;
    memcpy(key, fresh, sizeof(*key));
    key->pss = pss;
    key->refs = refs;
    key->is_pss = is_pss;
    pthread_mutex_init(&key->d_hash_lock, NULL);
    /* key->slots is NULL, as fresh's was after key_release_locks: no pair of the old
     * numbers survives, and the next private operation makes new ones. */
    OPENSSL_free(fresh);
    return 1;
}

typedef struct qinv_call {
    const CTRSA_KEY *key;
    ctbn_limb *out;
} qinv_call;

/* qInv out of Montgomery form, on the secret stack (the multiplication's frames hold it). */
static int qinv_from_mont(void *arg)
{
    qinv_call *a = arg;
    ctbn_from_mont(a->key->mont_p, a->out, a->key->qinv_mont);
    return 1;
}

int ctrsa_key_get_numbers(const CTRSA_KEY *key, ctrsa_key_numbers *out, int include_private)
{
    memset(out, 0, sizeof(*out));
    if (!key->has_public)
        return 1;
    include_private = include_private && key->has_private;
    if (key->unusable != 0 || key->d_unusable) {
        /* Every number as imported (pointers into key->factors); no blob of its own. */
        const ctrsa_key_numbers *f = key->factors;
        out->n = f->n;
        out->e = f->e;
        if (include_private) {
            out->d = f->d;
            out->nprimes = f->nprimes;
            memcpy(out->primes, f->primes, sizeof(out->primes));
            memcpy(out->exps, f->exps, sizeof(out->exps));
            memcpy(out->coeffs, f->coeffs, sizeof(out->coeffs));
        }
        return 1;
    }
    size_t k = key->k, ebytes = (ctbn_bitlen_vartime(key->e, key->en) + 7) / 8;
    size_t pb = (key->pbits + 7) / 8, qb = (key->qbits + 7) / 8;
    size_t total = k + ebytes;
    if (include_private)
        total += k + (key->crt ? 3 * pb + 2 * qb : 0);
    out->blob = OPENSSL_zalloc(total);
    if (out->blob == NULL) {
        CTRSA_RAISE(key->prov, CTRSA_R_MALLOC_FAILURE, "key numbers");
        return 0;
    }
    out->blob_len = total;
    uint8_t *w = out->blob;
    /* Public numbers at their own lengths; secret ones at their announced lengths (n's for
     * d, the prime's for its exponent and coefficient), leading zeros and all. */
    put(&out->n, &w, k, key->mont_n->m, key->nlimbs);
    put(&out->e, &w, ebytes, key->e, key->en);
    if (!include_private)
        return 1;
    put(&out->d, &w, k, key->d, key->nlimbs);
    if (key->crt && key->crt_derived) {
        /* As the default provider: the factors, not the CRT values derived at import. */
        out->nprimes = 2;
        put(&out->primes[0], &w, pb, key->mont_p->m, key->plimbs);
        put(&out->primes[1], &w, qb, key->mont_q->m, key->qlimbs);
    } else if (key->crt) {
        ctbn_limb qinv[CTBN_MAX_LIMBS];
        qinv_call qc = { key, qinv };
        if (!ctrsa_on_secret_stack(key->prov, qinv_from_mont, &qc)) {
            ctrsa_key_numbers_clear(out);
            return 0;
        }
        out->nprimes = 2;
        put(&out->primes[0], &w, pb, key->mont_p->m, key->plimbs);
        put(&out->primes[1], &w, qb, key->mont_q->m, key->qlimbs);
        put(&out->exps[0], &w, pb, key->dp, key->plimbs);
        put(&out->exps[1], &w, qb, key->dq, key->qlimbs);
        put(&out->coeffs[0], &w, pb, qinv, key->plimbs);
        OPENSSL_cleanse(qinv, key->plimbs * sizeof(ctbn_limb));
    } else if (key->factors != NULL) {
        const ctrsa_key_numbers *f = key->factors;
        out->nprimes = f->nprimes;
        memcpy(out->primes, f->primes, sizeof(out->primes));
        memcpy(out->exps, f->exps, sizeof(out->exps));
        memcpy(out->coeffs, f->coeffs, sizeof(out->coeffs));
    }
    return 1;
}

void ctrsa_key_numbers_clear(ctrsa_key_numbers *nums)
{
    if (nums->blob != NULL)
        OPENSSL_clear_free(nums->blob, nums->blob_len);
    memset(nums, 0, sizeof(*nums));
}

int ctrsa_key_has_public(const CTRSA_KEY *key) { return key != NULL && key->has_public; }
int ctrsa_key_has_private(const CTRSA_KEY *key) { return key != NULL && key->has_private; }
size_t ctrsa_key_bits(const CTRSA_KEY *key) { return key->bits; }
size_t ctrsa_key_size(const CTRSA_KEY *key) { return key->k; }
CTRSA_PROVCTX *ctrsa_key_provctx(const CTRSA_KEY *key) { return key->prov; }
ctrsa_pss_restriction *ctrsa_key_pss(CTRSA_KEY *key) { return &key->pss; }
const ctrsa_pss_restriction *ctrsa_key_pss_const(const CTRSA_KEY *key) { return &key->pss; }
void ctrsa_key_set_pss_type(CTRSA_KEY *key) { key->is_pss = 1; }
int ctrsa_key_is_pss(const CTRSA_KEY *key) { return key->is_pss; }

/*
 * Security strength of an RSA modulus (NIST SP 800-56B rev 2 appendix D, as OpenSSL
 * computes it): the table values; otherwise the GNFS estimate in whole bits, rounded to the
 * nearest multiple of 8 (halves up), and capped so that it never exceeds the next table
 * value (192 up to 7680 bits, 256 up to 15360). A 1024-bit key is 80 bits, as OpenSSL says
 * (rounding down gave 72; test_compat checks against the default provider).
 */
size_t ctrsa_multiprime_cap(size_t bits)
{
    return bits < 1024 ? 2 : bits < 4096 ? 3 : bits < 8192 ? 4 : 5;
}

int ctrsa_key_security_bits(const CTRSA_KEY *key)
{
    static const struct { size_t bits; int strength; } table[] = {
        {2048, 112}, {3072, 128}, {4096, 152}, {6144, 176}, {7680, 192}, {8192, 200},
        {15360, 256},
    };
    size_t n = key->bits;
    size_t nprimes = key->factors != NULL ? key->factors->nprimes : 0;
    if (nprimes > 2 && nprimes > ctrsa_multiprime_cap(n))
        return 0;   /* as OpenSSL's RSA_security_bits */
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (n == table[i].bits)
            return table[i].strength;
    if (n < 8)
        return 0;
    /* 1.923 * cbrt(x * ln(x)^2) - 4.69, x = n * ln 2, in bits; integer-free approximation
     * by bisection on the table would be coarser, so use the formula. */
    double x = (double)n * 0.69314718055994530942;
    double lx = __builtin_log(x);
    double y = (1.923 * __builtin_cbrt(x * lx * lx) - 4.69) / 0.69314718055994530942;
    int s = (int)y;
    s = (s + 4) & ~7;
    if (n <= 7680 && s > 192)
        s = 192;
    else if (n <= 15360 && s > 256)
        s = 256;
    return s;
}

int ctrsa_key_match(const CTRSA_KEY *a, const CTRSA_KEY *b, int want_private)
{
    if (!a->has_public || !b->has_public)
        return 0;
    if (a->unusable != 0 || b->unusable != 0) {
        /* Usability depends on n and e only: equal keys are both unusable. */
        if (a->unusable == 0 || b->unusable == 0)
            return 0;
        ctrsa_num an = strip_public(a->factors->n), bn = strip_public(b->factors->n);
        ctrsa_num ae = strip_public(a->factors->e), be = strip_public(b->factors->e);
        if (an.len != bn.len || ae.len != be.len || memcmp(an.p, bn.p, an.len) != 0
            || memcmp(ae.p, be.p, ae.len) != 0)
            return 0;
        if (!want_private)
            return 1;
        /* d as given (its length public as the importer's encoding); values compared in
         * constant time */
        const ctrsa_num *ad = &a->factors->d, *bd = &b->factors->d;
        return a->has_private && b->has_private && ad->len == bd->len
               && CRYPTO_memcmp(ad->p, bd->p, ad->len) == 0;
    }
    /* n and e are public and kept without leading zero limbs: lengths, then values. */
    if (a->nlimbs != b->nlimbs || a->en != b->en
        || !ctbn_eq(a->mont_n->m, b->mont_n->m, a->nlimbs) || !ctbn_eq(a->e, b->e, a->en))
        return 0;
    if (!want_private)
        return 1;
    if (!a->has_private || !b->has_private)
        return 0;
    if (a->d_unusable && b->d_unusable)
        return bytes_cmp(a->factors->d, b->factors->d) == 0;   /* the values as given */
    if (a->d_unusable || b->d_unusable)
        return a->d_zero && b->d_zero;   /* a kept d is not below n, or zero */
    return ctbn_eq(a->d, b->d, a->nlimbs) != 0;
}

CTRSA_KEY *ctrsa_key_dup(const CTRSA_KEY *key, int with_private)
{
    CTRSA_KEY *copy = ctrsa_key_new(key->prov);
    if (copy == NULL)
        return NULL;
    copy->pss = key->pss;
    copy->is_pss = key->is_pss;
    if (!key->has_public)
        return copy;
    ctrsa_key_numbers nums;
    if (!ctrsa_key_get_numbers(key, &nums, with_private)) {
        ctrsa_key_free(copy);
        return NULL;
    }
    int ok = ctrsa_key_set(copy, &nums);
    ctrsa_key_numbers_clear(&nums);
    if (!ok) {
        ctrsa_key_free(copy);
        return NULL;
    }
    return copy;
}

int ctrsa_key_d_hash(CTRSA_KEY *key, uint8_t out[32])
{
    int ok = 0;
    if (!key->has_private || !ctrsa_key_private_computable(key))
        return 0;
    pthread_mutex_lock(&key->d_hash_lock);
    if (!key->d_hash_ready) {
        uint8_t *dk = OPENSSL_zalloc(key->k);
        EVP_MD *sha256 = EVP_MD_fetch(key->prov->libctx, "SHA2-256", NULL);
        unsigned int len = 0;
        if (dk != NULL && sha256 != NULL) {
            ctbn_to_bytes(dk, key->k, key->d, key->nlimbs);
            key->d_hash_ready = EVP_Digest(dk, key->k, key->d_hash, &len, sha256, NULL) == 1;
        }
        EVP_MD_free(sha256);
        OPENSSL_clear_free(dk, key->k);
    }
    if (key->d_hash_ready) {
        memcpy(out, key->d_hash, 32);
        ok = 1;
    }
    pthread_mutex_unlock(&key->d_hash_lock);
    if (!ok)
        CTRSA_RAISE(key->prov, CTRSA_R_INTERNAL, "SHA-256 of d is not available");
    return ok;
}
