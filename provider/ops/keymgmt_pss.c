/* RSA-PSS key restrictions as OSSL_PARAMs. See keymgmt_pss.h. */
#include <string.h>
#include <strings.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "keymgmt_pss.h"
#include "md.h"
#include "sig_padding.h"

/* dst := the digest named in p, after checking that it can be fetched. 1 on success. */
static int read_digest(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, const char *props,
                       char dst[64])
{
    char name[CTRSA_PARAM_NAME_SIZE];
    ctrsa_md md;

    if (!ctrsa_param_get_utf8(prov, p, name, sizeof(name)))
        return 0;
    memset(&md, 0, sizeof(md));
    if (!ctrsa_md_fetch(prov, &md, name, props))
        return 0;
    /*
     * The signature operation takes only digests it has an OID for (the algorithm
     * identifier names them): a restriction naming another could never be used, and
     * signing with it would find no table entry.
     */
    if (ctrsa_digest_info_lookup(ctrsa_md_name(&md)) == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_DIGEST_NOT_ALLOWED,
                    "parameter %s: digest %s is not allowed for RSA-PSS", p->key, name);
        ctrsa_md_reset(&md);
        return 0;
    }
    ctrsa_md_reset(&md);
    strcpy(dst, name);
    return 1;
}

static void set_defaults(ctrsa_pss_restriction *r)
{
    memset(r, 0, sizeof(*r));
    r->restricted = 1;
    strcpy(r->mdname, CTRSA_PSS_DEFAULT_MD);
    strcpy(r->mgf1mdname, CTRSA_PSS_DEFAULT_MD);
    r->min_saltlen = CTRSA_PSS_DEFAULT_SALTLEN;
}

int ctrsa_pss_read(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[],
                   const ctrsa_pss_restriction *current, ctrsa_pss_restriction *out,
                   int *found)
{
    const OSSL_PARAM *p_md = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_DIGEST);
    const OSSL_PARAM *p_mgf1 = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST);
    const OSSL_PARAM *p_mgf = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_MASKGENFUNC);
    const OSSL_PARAM *p_salt = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN);
    const OSSL_PARAM *p_props = OSSL_PARAM_locate_const(params,
                                                        OSSL_PKEY_PARAM_RSA_DIGEST_PROPS);
    char props_buf[CTRSA_PARAM_PROPS_SIZE], mgf[CTRSA_PARAM_NAME_SIZE];
    const char *props = NULL;
    ctrsa_pss_restriction r = *current;

    *found = p_md != NULL || p_mgf1 != NULL || p_mgf != NULL || p_salt != NULL;
    if (!*found) {
        *out = r;
        return 1;
    }
    if (!r.restricted)
        set_defaults(&r);
    if (p_props != NULL) {
        if (!ctrsa_param_get_utf8(prov, p_props, props_buf, sizeof(props_buf)))
            return 0;
        props = props_buf;
    }
    if (p_mgf != NULL) {
        if (!ctrsa_param_get_utf8(prov, p_mgf, mgf, sizeof(mgf)))
            return 0;
        if (strcasecmp(mgf, "MGF1") != 0) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER,
                        "mask generation function \"%s\": only MGF1 is supported", mgf);
            return 0;
        }
    }
    if (p_md != NULL && !read_digest(prov, p_md, props, r.mdname))
        return 0;
    if (p_mgf1 != NULL && !read_digest(prov, p_mgf1, props, r.mgf1mdname))
        return 0;
    if (p_salt != NULL) {
        int saltlen;

        /*
         * OpenSSL 3.0's getter reads p->data without checking it (fuzz_params). Any int is
         * kept, a negative one too, as the default provider does: such a key imports (and
         * matches its other half) but no signature operation starts with it (sig_init).
         */
        if (p_salt->data == NULL || !OSSL_PARAM_get_int(p_salt, &saltlen)) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_SALT_LENGTH,
                        "RSA-PSS key restriction: the salt length must be an integer");
            return 0;
        }
        r.min_saltlen = saltlen;
    }
    *out = r;
    return 1;
}

size_t ctrsa_pss_export_fill(const ctrsa_pss_restriction *r, OSSL_PARAM out[])
{
    if (!r->restricted)
        return 0;
    /* the OSSL_PARAM constructors take non-const pointers; the receiver only reads */
    out[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST,
                                              (char *)r->mdname, 0);
    out[1] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST,
                                              (char *)r->mgf1mdname, 0);
    out[2] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, (int *)&r->min_saltlen);
    return CTRSA_PSS_PARAM_COUNT;
}

int ctrsa_pss_get_params(const ctrsa_pss_restriction *r, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    if (!r->restricted)
        return 1;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_DIGEST)) != NULL
        && !OSSL_PARAM_set_utf8_string(p, r->mdname))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != NULL
        && !OSSL_PARAM_set_utf8_string(p, r->mdname))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST)) != NULL
        && !OSSL_PARAM_set_utf8_string(p, r->mgf1mdname))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN)) != NULL
        && !OSSL_PARAM_set_int(p, r->min_saltlen))
        return 0;
    return 1;
}
