/*
 * The private operation (sign, decrypt): blinding from the key's cache (blinding.c), CRT with
 * both halves through the engine's two-at-once modexp and recombination (crt_exp.c),
 * unblinding, and a check of the result with the public exponent before anything is written
 * out. Contract in rsa_op.h.
 *
 * Secret: d, p, q, dP, dQ, qInv, the blinding pair, and every intermediate value; the input
 * and output are handled as secret too (a decrypted block is). Public: the key's lengths,
 * whether the input is below n (a property of the ciphertext), and whether the final check
 * passed (it fails only on a fault).
 */
#include <string.h>
#include <openssl/crypto.h>
#include "rsa_op_internal.h"

typedef struct private_call {
    CTRSA_KEY *key;
    uint8_t *out;
    const uint8_t *in;
} private_call;

/* The operation itself, on the secret stack (ctrsa_on_secret_stack wipes it after). */
static int private_op(void *arg)
{
    private_call *a = arg;
    CTRSA_KEY *key = a->key;
    uint8_t *out = a->out;
    const uint8_t *in = a->in;
    size_t nl = key->nlimbs;
    ctbn_limb *scratch = ctrsa_thread_scratch(key->prov, key->scratch_limbs);
    if (scratch == NULL)
        return 0;
    ctrsa_blinding_slot *slot = ctrsa_blinding_acquire(key, scratch);
    if (slot == NULL)
        return 0;

    /* Layout: c, cb, mb, m, chk (nl each), then the CRT temporaries, then the modexp's. */
    ctbn_limb *c = scratch, *cb = c + nl, *mb = cb + nl, *m = mb + nl, *chk = m + nl;
    ctbn_limb *tmp = scratch + CTRSA_CRT_TEMPS_AT(nl);
    ctbn_limb *work = scratch + CTRSA_WORK_AT(nl);

    ctbn_from_bytes(c, nl, in, key->k);
    if (!ctbn_lt(c, key->mont_n->m, nl)) {
        pthread_mutex_unlock(&slot->lock); /* pair unused: no need to advance it */
        OPENSSL_cleanse(c, nl * sizeof(ctbn_limb));
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
    if (!ok) {
        CTRSA_RAISE(key->prov, CTRSA_R_FAULT_DETECTED,
                    "the private-key result failed its check; nothing was released");
        return 0;
    }
    return 1;
}

int ctrsa_key_private_op(CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    if (key == NULL || !key->has_private) {
        CTRSA_RAISE(key ? key->prov : NULL, CTRSA_R_NOT_PRIVATE_KEY,
                    "a private key is needed");
        return 0;
    }
    if (!ctrsa_key_private_computable(key))
        return 0;
    private_call a = { key, out, in };
    return ctrsa_on_secret_stack(key->prov, private_op, &a);
}
