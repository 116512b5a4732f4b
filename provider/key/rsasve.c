/*
 * RSASVE (NIST SP 800-56B rev. 2, 7.2.1): the secret-value encapsulation behind the "RSA"
 * KEM (provider/ops/kem.c), on the key object.
 *
 * Generate: z uniform in [2, n-2] (1 < z < n-1, the standard's range, as OpenSSL's default
 * provider draws it), c = z^e mod n; the secret is z as k bytes, big-endian, zero-padded.
 * Recover: z = c^d mod n by the key's private operation (blinded, CRT, checked with e), for
 * 1 < c < n-1 only (SP 800-56B's RSADP range; OpenSSL 3.5's default provider refuses the
 * rest too, 3.0's accepted any c < n).
 *
 * Secret: z and every candidate drawn for it. Public: n, e, k, the ciphertext, and how many
 * candidates were drawn (each rejected candidate is thrown away, so the count says nothing
 * about the z kept).
 */
#include <string.h>
#include "rsa_op_internal.h"
#include "rsasve.h"

/* Each draw is accepted with probability > 1/2, so 128 draws fail with p < 2^-128. */
#define RSASVE_MAX_DRAWS 128

/*
 * z[0..k) and zl (nlimbs) := a uniform value in [2, n-2], from the private DRBG by rejection
 * sampling on bits(n)-bit candidates.
 * CT: the candidates are secret: they are compared with masks (ctbn_lt), and only the
 * accept/reject verdict of each is declassified.
 */
static int random_z(CTRSA_KEY *key, uint8_t *z, ctbn_limb *zl)
{
    ctbn_limb nm1[CTBN_MAX_LIMBS], two[CTBN_MAX_LIMBS];
    size_t nl = key->nlimbs, k = key->k, top = key->bits % 8;
    int ok = 0;

    /* n - 1 (n is odd, so clear bit 0); z < n - 1 and z >= 2 give [2, n-2]. */
    ctbn_copy(nm1, key->mont_n->m, nl);
    nm1[0] &= ~(ctbn_limb)1;
    ctbn_set_u64(two, nl, 2);
    for (int i = 0; i < RSASVE_MAX_DRAWS && !ok; i++) {
        if (!ctrsa_random_priv_bytes(key->prov, z, k))
            break;
        if (top != 0)
            z[0] &= (uint8_t)((1u << top) - 1);
        ctbn_from_bytes(zl, nl, z, k);
        ctbn_mask in_range = ctbn_lt(zl, nm1, nl) & ~ctbn_lt(zl, two, nl);
        CTBN_DECLASSIFY(&in_range, sizeof(in_range)); /* a verdict on a candidate */
        ok = in_range != 0;
    }
    if (!ok) {
        ctrsa_cleanse(z, k);
        ctrsa_cleanse(zl, nl * sizeof(ctbn_limb));
        CTRSA_RAISE(key->prov, CTRSA_R_RANDOM_FAILURE,
                    "no RSASVE secret in [2, n-2] after %d draws", RSASVE_MAX_DRAWS);
    }
    return ok;
}

typedef struct rsasve_call {
    CTRSA_KEY *key;
    uint8_t *z, *c;
} rsasve_call;

/*
 * CT: z is secret and only enters the Montgomery multiplications of the public-exponent
 * modexp (its "input >= n" check is skipped: random_z made z < n).
 * On the secret stack: the kernels' frames hold partial products of z.
 */
static int generate_op(void *arg)
{
    rsasve_call *a = arg;
    CTRSA_KEY *key = a->key;
    uint8_t *z = a->z, *c = a->c;
    ctbn_limb zl[CTBN_MAX_LIMBS], cl[CTBN_MAX_LIMBS];
    ctbn_limb scratch[CTBN_EXP_VARTIME_SCRATCH(CTBN_MAX_LIMBS)];

    size_t nl = key->nlimbs;
    if (!ctrsa_key_public_exponent_ok(key) || !random_z(key, z, zl))
        return 0;
    ctbn_modexp_public_vartime(key->mont_n, cl, zl, key->e, key->en, scratch);
    ctbn_to_bytes(c, key->k, cl, nl);
    ctrsa_cleanse(zl, nl * sizeof(ctbn_limb));
    ctrsa_cleanse(cl, nl * sizeof(ctbn_limb));
    ctrsa_cleanse(scratch, CTBN_EXP_VARTIME_SCRATCH(nl) * sizeof(ctbn_limb));
    return 1;
}

int ctrsa_rsasve_generate(CTRSA_KEY *key, uint8_t *z, uint8_t *c)
{
    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key != NULL ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART,
                    "RSASVE needs an RSA public key");
        return 0;
    }
    rsasve_call a = { key, z, c };
    return ctrsa_on_secret_stack(key->prov, generate_op, &a);
}

/* CT: c is public (its range check branches); z comes from the private operation. */
int ctrsa_rsasve_recover(CTRSA_KEY *key, uint8_t *z, const uint8_t *c)
{
    ctbn_limb cl[CTBN_MAX_LIMBS], bound[CTBN_MAX_LIMBS];

    if (key == NULL || !key->has_public) {
        CTRSA_RAISE(key != NULL ? key->prov : NULL, CTRSA_R_MISSING_KEY_PART,
                    "RSASVE needs an RSA key");
        return 0;
    }
    if (!ctrsa_key_computable(key))
        return 0;
    size_t nl = key->nlimbs;
    /* SP 800-56B's RSADP takes 1 < c < n-1 (OpenSSL 3.5's default provider checks too). */
    ctbn_from_bytes(cl, nl, c, key->k);
    ctbn_copy(bound, key->mont_n->m, nl);
    bound[0] &= ~(ctbn_limb)1;                        /* n - 1 */
    if (!ctbn_lt(cl, bound, nl)) {
        CTRSA_RAISE(key->prov, CTRSA_R_INPUT_TOO_LARGE,
                    "the RSASVE ciphertext is not below n-1 (1 < c < n-1 is required)");
        return 0;
    }
    ctbn_set_u64(bound, nl, 2);
    if (ctbn_lt(cl, bound, nl)) {
        CTRSA_RAISE(key->prov, CTRSA_R_INVALID_PARAMETER,
                    "the RSASVE ciphertext is 0 or 1 (1 < c < n-1 is required)");
        return 0;
    }
    return ctrsa_key_private_op(key, z, c);
}
