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
#include "rsa_op_internal.h"

int ctrsa_key_public_exponent_ok(const CTRSA_KEY *key)
{
    if (!ctrsa_key_computable(key))
        return 0;
    /*
     * OpenSSL's bound (rsa_ossl_public_encrypt/_decrypt): above RSA_SMALL_MODULUS_BITS, e
     * may have at most RSA_MAX_PUBEXP_BITS bits. Checked before any arithmetic, so a key
     * made to burn CPU fails at once. Import accepts such keys, as OpenSSL's does.
     */
    if (key != NULL && key->has_public && key->bits > CTRSA_SMALL_MODULUS_BITS
        && ctbn_bitlen_vartime(key->e, key->en) > CTRSA_MAX_PUBEXP_BITS) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_KEY,
                    "e has %zu bits: with a modulus above %d bits, ctrsa (as OpenSSL) takes "
                    "public exponents of at most %d bits", ctbn_bitlen_vartime(key->e, key->en),
                    CTRSA_SMALL_MODULUS_BITS, CTRSA_MAX_PUBEXP_BITS);
        return 0;
    }
    return 1;
}

typedef struct public_call {
    const CTRSA_KEY *key;
    uint8_t *out;
    const uint8_t *in;
} public_call;

static int public_op(void *arg)
{
    public_call *a = arg;
    if (!ctrsa_key_public_exponent_ok(a->key))
        return 0;
    return ctrsa_key_public_op_unbounded(a->key, a->out, a->in);
}

/* On the module's stack: the public-exponent kernels' frames are large (rsa_key.h). */
int ctrsa_key_public_op(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    public_call a = { key, out, in };
    return ctrsa_on_module_stack(key != NULL ? key->prov : NULL, public_op, &a);
}

int ctrsa_key_encrypt_op(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    /* the secret stack: the kernels' frames hold partial products of in */
    public_call a = { key, out, in };
    return ctrsa_on_secret_stack(key != NULL ? key->prov : NULL, public_op, &a);
}

int ctrsa_key_public_op_unbounded(const CTRSA_KEY *key, uint8_t *out, const uint8_t *in)
{
    ctbn_limb c[CTBN_MAX_LIMBS], r[CTBN_MAX_LIMBS];
    ctbn_limb scratch[CTBN_EXP_VARTIME_SCRATCH(CTBN_MAX_LIMBS)];
    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART, "no public key");
        return 0;
    }
    if (!ctrsa_key_computable(key))
        return 0;
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
