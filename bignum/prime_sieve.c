/*
 * Trial division by the odd primes below 17864, without a division instruction on the
 * screened value. Contract in prime.h.
 *
 * x mod M for a group product M < 2^62: process the limbs from the least significant up,
 * acc := (acc + x_i) * 2^-64 mod M (one Montgomery reduction by M per limb), which leaves
 * acc = x * 2^(-64n) mod M; one more reduction of acc * (2^(64(n+1)) mod M) gives x mod M.
 * Then "p divides r" for each prime p of the group is r * p^-1 mod 2^64 <= (2^64 - 1) / p
 * (the multiplication by the inverse maps the multiples of p, and only them, onto
 * 0 .. (2^64 - 1) / p).
 */
#include <string.h>
#include "prime.h"

/* -m^-1 mod 2^64 for odd m (public). */
static uint64_t neg_inv64(uint64_t m)
{
    uint64_t x = (m * 3) ^ 2;
    for (int i = 0; i < 4; i++)
        x *= 2 - m * x;
    return (uint64_t)0 - x;
}

int ctbn_sieve_init(ctbn_sieve *s, size_t n, size_t nprimes)
{
    /* CT: public inputs only; the divisions below are on the public table. */
    static const size_t limit = CTBN_SIEVE_LARGEST + 1;
    uint8_t composite[CTBN_SIEVE_LARGEST + 1];

    if (n < 1 || n > CTBN_MAX_LIMBS || nprimes > CTBN_SIEVE_PRIMES)
        return -1;
    if (nprimes == 0)
        nprimes = CTBN_SIEVE_PRIMES;
    memset(s, 0, sizeof(*s));
    memset(composite, 0, sizeof(composite));
    s->n = n;
    for (size_t i = 3; i * i < limit; i += 2)
        if (!composite[i])
            for (size_t j = i * i; j < limit; j += 2 * i)
                composite[j] = 1;
    for (size_t i = 3; i < limit && s->nprimes < nprimes; i += 2) {
        if (composite[i])
            continue;
        uint64_t p = i;
        s->primes[s->nprimes] = (uint32_t)p;
        s->pinv[s->nprimes] = (uint64_t)0 - neg_inv64(p);
        s->plim[s->nprimes] = UINT64_MAX / p;
        s->nprimes++;
    }

    /* Greedy groups of consecutive primes with a product below 2^62. */
    size_t i = 0;
    while (i < s->nprimes) {
        ctbn_sieve_group *g = &s->groups[s->ngroups++];
        uint64_t m = 1;
        g->first = (uint32_t)i;
        while (i < s->nprimes && m <= ((uint64_t)1 << 62) / s->primes[i]) {
            m *= s->primes[i];
            i++;
        }
        g->count = (uint32_t)(i - g->first);
        g->m = m;
        g->m_ninv = neg_inv64(m);
        /* k := 2^(64(n+1)) mod m: n + 1 steps of multiplying by 2^64 (public values) */
        uint64_t k = 1;
        for (size_t j = 0; j < n + 1; j++)
            k = (uint64_t)(((unsigned __int128)k << 64) % m);
        g->k = k;
    }
    return 0;
}

/* t * 2^-64 mod m, fully reduced, for t < m * 2^64 (or acc + limb < m + 2^64). CT. */
static inline uint64_t redc(unsigned __int128 t, uint64_t m, uint64_t m_ninv)
{
    uint64_t q = (uint64_t)t * m_ninv;
    unsigned __int128 u = t + (unsigned __int128)q * m;   /* < 2^128: m < 2^62 */
    uint64_t r = (uint64_t)(u >> 64);                     /* < 2m + 2 */
    uint64_t d = r - m;
    /* r >= m iff r - m does not borrow (both < 2^63) */
    ctbn_mask ge = (ctbn_mask)0 - (((d >> 63) & 1) ^ 1);
    return ctbn_select(ge, d, r);
}

ctbn_mask ctbn_sieve_screen(const ctbn_sieve *s, const ctbn_limb *x)
{
    /*
     * CT: per group a fixed sequence of n + 1 reductions and one multiply-compare per
     * prime, accumulated in a mask. The only branch is the early exit after a group that
     * found a factor: the candidate is then rejected (and discarded by the caller), so
     * only failed candidates leak how far they got.
     */
    size_t n = s->n;
    for (size_t gi = 0; gi < s->ngroups; gi++) {
        const ctbn_sieve_group *g = &s->groups[gi];
        uint64_t acc = 0;
        for (size_t i = 0; i < n; i++)
            acc = redc((unsigned __int128)acc + x[i], g->m, g->m_ninv);
        /* acc * k < m^2: the reduction leaves r = x mod m, < m */
        uint64_t r = redc((unsigned __int128)acc * g->k, g->m, g->m_ninv);
        ctbn_mask hit = 0;
        for (size_t j = g->first; j < g->first + g->count; j++)
            hit |= ~ctbn_mask_lt(s->plim[j], r * s->pinv[j]);
        CTBN_DECLASSIFY(&hit, sizeof(hit)); /* a rejected candidate is discarded */
        if (hit != 0)    /* the candidate is rejected: its timing may leak */
            return 0;
    }
    return ~(ctbn_mask)0;
}
