/*
 * The CRT exponentiation on a two-prime key (contract in rsa_op_internal.h): both halves in
 * one two-at-once modexp of the engine, then Garner's recombination. The private operation
 * (rsa_private.c) runs it with dP and dQ, the blinding cache (blinding.c) with p-2 and q-2
 * for its Fermat inverses; it is in a file of its own so that neither of those two calls
 * the other.
 *
 * Secret: x, the exponents, the primes' residues and every intermediate; out is secret too.
 * Public: the key's lengths (plimbs, qlimbs, pbits, qbits), which alone steer the code.
 */
#include "rsa_op_internal.h"

void ctrsa_key_crt_exp(const CTRSA_KEY *key, ctbn_limb *out, const ctbn_limb *x,
                       const ctbn_limb *ep, const ctbn_limb *eq, ctbn_limb *tmp,
                       ctbn_limb *work)
{
    size_t nl = key->nlimbs, pl = key->plimbs, ql = key->qlimbs;
    ctbn_limb *xp = tmp, *xq = xp + pl, *mp = xq + ql, *mq = mp + pl, *mqp = mq + ql;
    ctbn_limb *h = mqp + pl, *prod = h + pl, *red = prod + pl + ql;

    ctbn_mod_reduce(key->mont_p, xp, x, nl, red);
    ctbn_mod_reduce(key->mont_q, xq, x, nl, red);
    ctbn_modexp2_ct(key->mont_p, mp, xp, ep, key->pbits,
                    key->mont_q, mq, xq, eq, key->qbits, work);
    /* h = (mp - mq) * qInv mod p; qinv_mont is in Montgomery form, so one MontMul. */
    ctbn_mod_reduce(key->mont_p, mqp, mq, ql, red);
    ctbn_mod_sub(mp, mp, mqp, key->mont_p->m, pl);
    ctbn_mont_mul(key->mont_p, h, mp, key->qinv_mont);
    /* result = mq + q * h < n, computed over pl + ql >= nl limbs. */
    ctbn_mul(prod, key->mont_q->m, ql, h, pl);
    ctbn_zero(red, pl + ql);
    ctbn_copy(red, mq, ql);
    ctbn_add(prod, prod, red, pl + ql);
    ctbn_copy(out, prod, nl);
}
