/* Randomness and wiping for the whole provider. See prov.h. */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/core.h>
#include <openssl/rand.h>
#include "prov.h"

int ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    if (len == 0)
        return 1;
    /* prov->libctx NULL is the default library context */
    if (prov == NULL || RAND_bytes_ex(prov->libctx, buf, len, 0) != 1) {
        CTRSA_RAISE(prov, CTRSA_R_RANDOM_FAILURE, "no random bytes from the library context");
        return 0;
    }
    return 1;
}

int ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    if (len == 0)
        return 1;
    if (prov == NULL || RAND_priv_bytes_ex(prov->libctx, buf, len, 0) != 1) {
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

int ctrsa_param_get_utf8(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, char *buf,
                         size_t size)
{
    const char *nul;
    size_t len;

    if (p == NULL || p->data_type != OSSL_PARAM_UTF8_STRING || p->data == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER, "parameter \"%s\" must be a UTF-8 string",
                    p != NULL && p->key != NULL ? p->key : "?");
        return 0;
    }
    nul = memchr(p->data, '\0', p->data_size);
    len = nul != NULL ? (size_t)(nul - (const char *)p->data) : p->data_size;
    if (len >= size) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER,
                    "parameter \"%s\" is too long (%zu bytes, at most %zu)", p->key, len,
                    size - 1);
        return 0;
    }
    memcpy(buf, p->data, len);
    buf[len] = '\0';
    return 1;
}
