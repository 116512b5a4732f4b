/*
 * The private operation (sign, decrypt): blinding from the key's cache, CRT with both halves
 * through the engine's two-at-once modexp, recombination, unblinding, and a check of the
 * result with the public exponent before anything is written out.
 *
 * Secret: d, p, q, dP, dQ, qInv, the blinding pair, and every intermediate value; the input
 * and output are handled as secret too (a decrypted block is). Public: the key's lengths,
 * whether the input is below n (a property of the ciphertext), and whether the final check
 * passed (it fails only on a fault).
 */
#include <string.h>
#include <openssl/crypto.h>
#include "rsa_key_internal.h"

/* Contract in rsa_key_internal.h. */
__attribute__((noinline)) void ctrsa_scrub_stack(void)
{
    /* memset, then an empty asm that takes the area and clobbers memory, so the stores
     * cannot be dropped: one AVX2 memset instead of 32768 volatile byte stores (those were
     * about 1.7% of an RSA-2048 signature on Zen 3) */
    uint8_t area[CTRSA_SCRUB_STACK_BYTES];
    memset(area, 0, sizeof(area));
    __asm__ volatile("" : : "r"(area) : "memory");
}

size_t ctrsa_key_private_scratch_limbs(const CTRSA_KEY *key)
{
    size_t modexp = key->crt ? CTBN_MODEXP2_SCRATCH(key->plimbs, key->qlimbs)
                             : CTBN_MODEXP_SCRATCH(key->nlimbs);
    if (modexp < CTBN_INVERSE_SCRATCH(key->nlimbs) + key->nlimbs)
        modexp = CTBN_INVERSE_SCRATCH(key->nlimbs) + key->nlimbs;
    return modexp + CTRSA_WORK_AT(key->nlimbs);
}

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

int ctrsa_key_private_op(CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    if (key == NULL || !key->has_private) {
        CTRSA_RAISE(key ? key->prov : NULL, CTRSA_R_NOT_PRIVATE_KEY,
                    "a private key is needed");
        return 0;
    }
    if (!ctrsa_key_computable(key))
        return 0;
    size_t nl = key->nlimbs;
    ctbn_limb *scratch = ctrsa_thread_scratch(key->prov, key->scratch_limbs);
    if (scratch == NULL)
        return 0;
    ctrsa_blinding_slot *slot = ctrsa_blinding_acquire(key, scratch);
    if (slot == NULL) {
        ctrsa_scrub_stack(); /* a failed refresh ran modexps too */
        return 0;
    }

    /* Layout: c, cb, mb, m, chk (nl each), then the CRT temporaries, then the modexp's. */
    ctbn_limb *c = scratch, *cb = c + nl, *mb = cb + nl, *m = mb + nl, *chk = m + nl;
    ctbn_limb *tmp = scratch + CTRSA_CRT_TEMPS_AT(nl);
    ctbn_limb *work = scratch + CTRSA_WORK_AT(nl);

    ctbn_from_bytes(c, nl, in, key->k);
    if (!ctbn_lt(c, key->mont_n->m, nl)) {
        pthread_mutex_unlock(&slot->lock); /* pair unused: no need to advance it */
        OPENSSL_cleanse(c, nl * sizeof(ctbn_limb));
        ctrsa_scrub_stack(); /* acquiring the pair may have refreshed it: modexps ran */
        CTRSA_RAISE(key->prov, CTRSA_R_INPUT_TOO_LARGE, "the input is not less than n");
        return 0;
    }

    ctbn_mont_mul(key->mont_n, cb, c, slot->A); /* cb = c * r^e mod n */
    if (key->crt)
        ctrsa_key_crt_exp(key, mb, cb, key->dp, key->dq, tmp, work);
    else
        ctbn_modexp_ct(key->mont_n, mb, cb, key->d, key->bits, work);
    ctbn_mont_mul(key->mont_n, m, mb, slot->Ai); /* m = mb * r^-1 mod n */

    /* The result must map back to the input under e: a fault is never released. */
    ctbn_modexp_public_vartime(key->mont_n, chk, m, key->e, key->en, tmp);
    ctbn_mask ok = ctbn_eq(chk, c, nl);
    CTBN_DECLASSIFY(&ok, sizeof(ok)); /* a fault or not: the one public verdict */
    if (ok)
        ctbn_to_bytes(out, key->k, m, nl);
    OPENSSL_cleanse(scratch, key->scratch_limbs * sizeof(ctbn_limb));
    ctrsa_blinding_release(key, slot);
    ctrsa_scrub_stack();
    if (!ok) {
        CTRSA_RAISE(key->prov, CTRSA_R_FAULT_DETECTED,
                    "the private-key result failed its check; nothing was released");
        return 0;
    }
    return 1;
}
