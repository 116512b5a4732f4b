/*
 * The public operation (verify, encrypt): the fast verify path. Square-and-multiply over
 * the bits of e with the key's Montgomery context of n, built once at import.
 *
 * Public: e, n and their lengths, which drive every branch. The input is public for
 * verification but, for encryption, is the padded plaintext: it only enters Montgomery
 * multiplications (constant time), the one branch on it is "input >= n" (never taken for
 * OAEP or PKCS#1 blocks, whose first byte is zero; for raw RSA it only says the message is
 * refused), and the stack copies are wiped.
 */
#include <openssl/crypto.h>
#include "rsa_key_internal.h"

int ctrsa_key_public_op(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    ctbn_limb c[CTBN_MAX_LIMBS], r[CTBN_MAX_LIMBS];
    ctbn_limb scratch[CTBN_EXP_VARTIME_SCRATCH(CTBN_MAX_LIMBS)];
    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART, "no public key");
        return 0;
    }
    size_t nl = key->nlimbs;
    ctbn_from_bytes(c, nl, in, key->k);
    if (!ctbn_lt(c, key->mont_n->m, nl)) {
        ctrsa_cleanse(c, nl * sizeof(ctbn_limb));
        CTRSA_RAISE(key->prov, CTRSA_R_INPUT_TOO_LARGE, "the input is not less than n");
        return 0;
    }
    ctbn_modexp_public_vartime(key->mont_n, r, c, key->e, key->en, scratch);
    ctbn_to_bytes(out, key->k, r, nl);
    ctrsa_cleanse(c, nl * sizeof(ctbn_limb));
    ctrsa_cleanse(r, nl * sizeof(ctbn_limb));
    ctrsa_cleanse(scratch, CTBN_EXP_VARTIME_SCRATCH(nl) * sizeof(ctbn_limb));
    return 1;
}
