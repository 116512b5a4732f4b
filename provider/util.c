/* Randomness and wiping for the whole provider. See prov.h. */
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include "prov.h"

int ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    if (len == 0)
        return 1;
    if (prov == NULL || prov->libctx == NULL
        || RAND_bytes_ex(prov->libctx, buf, len, 0) != 1) {
        CTRSA_RAISE(prov, CTRSA_R_RANDOM_FAILURE, "no random bytes from the library context");
        return 0;
    }
    return 1;
}

int ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    if (len == 0)
        return 1;
    if (prov == NULL || prov->libctx == NULL
        || RAND_priv_bytes_ex(prov->libctx, buf, len, 0) != 1) {
        CTRSA_RAISE(prov, CTRSA_R_RANDOM_FAILURE,
                    "no private random bytes from the library context");
        return 0;
    }
    return 1;
}

void ctrsa_cleanse(void *p, size_t len)
{
    if (p != NULL && len > 0)
        OPENSSL_cleanse(p, len);
}
