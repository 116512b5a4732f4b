/*
 * Random probable primes: independent random candidates, trial division, gcd(e, p - 1),
 * Miller-Rabin base 2, then the random-base rounds. Contract in prime.h.
 *
 * Why not the incremental search p, p + 2, p + 4, ... of OpenSSL's sieve: the candidates it
 * rejects on the way are neighbours of the prime it keeps, so their timing (which small
 * prime divided them) tells residues of the kept prime. Fresh candidates cost a screen
 * each, but the screen leaves after its first group for ~70% of them (the group of the
 * primes 3..47), and Miller-Rabin, which dominates, runs on the same number of survivors.
 * They also keep the Damgard-Landrock-Pomerance bound (for random k-bit candidates)
 * applicable to the rounds we run.
 */
#include <string.h>
#include "prime.h"

unsigned ctbn_prime_mr_rounds(size_t prime_bits, size_t nlen, size_t nprimes)
{
    /* CT: public inputs. */
    static const struct { size_t bits; unsigned rounds; } dlp[] = {
        /* smallest t with the DLP bound <= 2^-112 (and t <= k/9, where it holds) */
        {1126, 4}, {906, 5}, {761, 6}, {658, 7}, {581, 8}, {522, 9}, {474, 10},
        {436, 11}, {404, 12}, {377, 13}, {355, 14}, {335, 15},
    };
    unsigned t = 64;    /* below 335 bits: Rabin's worst case 4^-64 = 2^-128 */

    if (nprimes == 2 && nlen >= 3072)
        return 4;       /* FIPS 186-5 Table B.1, nlen = 3072 and 4096 (and above) */
    if (nprimes == 2 && nlen >= 2048)
        return 5;       /* FIPS 186-5 Table B.1, nlen = 2048 */
    for (size_t i = 0; i < sizeof(dlp) / sizeof(dlp[0]); i++) {
        if (prime_bits >= dlp[i].bits) {
            t = dlp[i].rounds;
            break;
        }
    }
    return t;
}

/* out[0..len) := random bytes, from the workspace's buffer (refilled in large blocks). */
static int take_random(const ctbn_prime_req *req, ctbn_prime_ws *ws, uint8_t *out, size_t len)
{
    if (len > sizeof(ws->rnd))
        return 0;
    if (ws->rnd_left < len) {
        if (!req->random(req->random_arg, ws->rnd, sizeof(ws->rnd)))
            return 0;
        ws->rnd_left = sizeof(ws->rnd);
    }
    uint8_t *src = ws->rnd + sizeof(ws->rnd) - ws->rnd_left;
    memcpy(out, src, len);
    memset(src, 0, len);        /* a byte is used once */
    ws->rnd_left -= len;
    return 1;
}

/* x (n limbs) := random limbs. */
static int random_limbs(const ctbn_prime_req *req, ctbn_prime_ws *ws, ctbn_limb *x, size_t n)
{
    uint8_t buf[8 * (CTBN_PRIME_MAX_LIMBS + 2)];
    if (!take_random(req, ws, buf, 8 * n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        ctbn_limb v = 0;
        for (size_t j = 0; j < 8; j++)
            v = (v << 8) | buf[8 * i + j];
        x[i] = v;
    }
    memset(buf, 0, 8 * n);
    return 1;
}

static int report(const ctbn_prime_req *req, int stage, unsigned long count)
{
    return req->progress == NULL || req->progress(req->progress_arg, stage, (int)count);
}

/* All ones if gcd(e, x - 1) = 1. CT: only n and en leak (x's verdict is then declassified). */
static ctbn_mask coprime_to_e(const ctbn_prime_req *req, ctbn_prime_ws *ws, const ctbn_limb *x,
                              size_t n)
{
    size_t en = req->en;
    ctbn_limb r[CTBN_PRIME_MAX_E_LIMBS], one[CTBN_PRIME_MAX_E_LIMBS];
    ctbn_mod_any_ct(r, x, n, req->e, en);         /* x mod e */
    ctbn_set_u64(one, en, 1);
    ctbn_mod_sub(r, r, one, req->e, en);          /* (x - 1) mod e */
    return ctbn_mod_inverse_ct(ws->tmp, r, req->e, en, ws->scratch);
}

int ctbn_prime_gen(ctbn_limb *p, const ctbn_prime_req *req, ctbn_prime_ws *ws)
{
    /*
     * CT: the loop's branches are on the verdicts of candidates that are then discarded
     * (sieve, gcd, each Miller-Rabin round), on public request fields, and on the random
     * source's and the progress callback's answers. The kept candidate passed every test,
     * each of which runs the same operations for any passing value.
     */
    size_t bits = req->bits, n = CTBN_LIMBS(bits);
    ctbn_limb *cand = ws->cand, *base = ws->base, *tmp = ws->tmp;
    unsigned long tested = 0;

    if (bits < CTBN_PRIME_MIN_BITS || n > CTBN_PRIME_MAX_LIMBS || req->top_bits < 1
        || req->top_bits > 3 || req->en < 1 || req->en > CTBN_PRIME_MAX_E_LIMBS
        || (req->e[0] & 1) == 0 || ctbn_bitlen_vartime(req->e, req->en) < 2
        || req->rounds < 1 || req->mod8 > 7 || (req->mod8 != 0 && (req->mod8 & 1) == 0)
        || req->random == NULL)
        return 0;
    ctbn_zero(p, n);
    if (ws->sieve.n != n && ctbn_sieve_init(&ws->sieve, n, 0) != 0)
        return 0;
    ws->stat_candidates = ws->stat_sieved = ws->stat_mr = 0;

    for (;;) {
        /* A fresh candidate: exactly `bits` bits, the top ones set, odd (and = mod8 modulo 8
           when asked: bits >= 64 keeps the low three bits apart from the top ones). */
        if (!random_limbs(req, ws, cand, n))
            return 0;
        if (bits % 64 != 0)
            cand[n - 1] &= ((ctbn_limb)1 << (bits % 64)) - 1;
        for (unsigned t = 0; t < req->top_bits; t++)
            cand[(bits - 1 - t) / 64] |= (ctbn_limb)1 << ((bits - 1 - t) % 64);
        cand[0] |= 1;
        if (req->mod8 != 0)
            cand[0] = (cand[0] & ~(ctbn_limb)7) | req->mod8;
        ws->stat_candidates++;

        if (ctbn_sieve_screen(&ws->sieve, cand) == 0)
            continue;
        ws->stat_sieved++;
        if (coprime_to_e(req, ws, cand, n) == 0)
            continue;

        /* Miller-Rabin: base 2 first (the cheap round that rejects the composites). */
        if (ctbn_mont_init(&ws->mont.ctx, cand, n) != 0)
            return 0;
        ctbn_mr_init(&ws->mr, &ws->mont.ctx, CTBN_MR_KEYGEN_MAX_TWOS);
        ws->stat_mr++;
        if (!report(req, 0, tested++))
            return 0;
        ctbn_mask pass = ctbn_mr_round_base2(&ws->mr, ws->scratch);

        /* Then the rounds with random bases b = 2 + (r mod (w - 3)), r of 64 more bits. */
        ctbn_limb small[CTBN_PRIME_MAX_LIMBS];
        ctbn_set_u64(small, n, 3);
        ctbn_sub(tmp, cand, small, n);      /* w - 3 > 0 */
        ctbn_set_u64(small, n, 2);
        for (unsigned r = 0; pass != 0 && r < req->rounds; r++) {
            if (!random_limbs(req, ws, ws->scratch, n + 1))
                return 0;
            ctbn_mod_any_ct(base, ws->scratch, n + 1, tmp, n);
            ctbn_add(base, base, small, n);     /* < w - 1: no carry out */
            pass = ctbn_mr_round(&ws->mr, base, ws->scratch);
            if (pass != 0 && !report(req, 1, r))
                return 0;
        }
        if (pass == 0)
            continue;
        ctbn_copy(p, cand, n);
        ctbn_zero(cand, n);
        ctbn_zero(base, n);
        return report(req, 3, 0);
    }
}
