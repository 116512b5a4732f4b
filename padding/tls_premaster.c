/*
 * The TLS RSA key-exchange pre-master secret decode (RFC 5246 7.4.7.1), as OpenSSL's
 * ossl_rsa_padding_check_PKCS1_type_2_TLS: bad padding or a bad version silently yields the
 * caller's random pre-master secret. See enc_padding.h.
 */
#include "enc_padding.h"
#include "ct_util.h"

/*
 * CT: public are k, client_version and alt_version (and whether alt_version is set).
 * Secret are em and the choice between its secret and the random one.
 */
int ctrsa_tls_premaster_decode(const uint8_t *em, size_t k, unsigned int client_version,
                               unsigned int alt_version,
                               const uint8_t random_pms[CTRSA_TLS_PREMASTER_LEN],
                               uint8_t out[CTRSA_TLS_PREMASTER_LEN])
{
    const size_t L = CTRSA_TLS_PREMASTER_LEN;
    const uint8_t *pms;
    ctbn_mask good, version_good;
    size_t i;

    if (k < CTRSA_PKCS1_PADDING_SIZE + L || k > CTRSA_ENC_MAX_K)
        return CTRSA_PAD_BAD_ARGS;
    pms = em + k - L;

    /* 0x00 0x02, then nonzero padding up to a zero right before the 48 secret bytes. */
    good = ctrsa_ct_is_zero(em[0]) & ctbn_mask_eq(em[1], 2);
    for (i = 2; i < k - L - 1; i++)
        good &= ctbn_mask_nonzero(em[i]);
    good &= ctrsa_ct_is_zero(em[k - L - 1]);

    /*
     * The version in the secret must be the one the client asked for (a bad version is
     * just another decryption error: Klima-Pokorny-Rosa), or the negotiated one when the
     * caller tolerates the rollback bug.
     */
    version_good = ctbn_mask_eq(pms[0], (client_version >> 8) & 0xff)
                   & ctbn_mask_eq(pms[1], client_version & 0xff);
    if (alt_version != 0) /* public */
        version_good |= ctbn_mask_eq(pms[0], (alt_version >> 8) & 0xff)
                        & ctbn_mask_eq(pms[1], alt_version & 0xff);
    good &= version_good;

    for (i = 0; i < L; i++)
        out[i] = ctrsa_ct_byte(good, pms[i], random_pms[i]);
    return CTRSA_PAD_OK;
}
