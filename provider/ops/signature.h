/*
 * The "RSA" signature operation's inside, shared by its four files in provider/ops/ and by
 * nothing else:
 *   signature.c          the context (life cycle, init), the checks every part applies to
 *                        digests, MGF1 and salt lengths, and the dispatch table;
 *   signature_params.c   the parameters: the one table, get and set;
 *   signature_sign.c     sign, verify and verify-recover on a digest (or raw input):
 *                        PKCS#1 v1.5, PSS and X9.31 encoding through padding/, the key's
 *                        operations;
 *   signature_digest.c   digest-sign and digest-verify (streaming and one-shot), and the
 *                        digest parameters passed through to the streaming digest.
 * The operation and its contracts are described in signature.c.
 */
#ifndef CTRSA_SIGNATURE_H
#define CTRSA_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include "bignum.h"
#include "md.h"
#include "prov.h"
#include "rsa_key.h"
#include "sig_padding.h"

/* OpenSSL 3.1+ names this salt-length mode; 3.0's headers lack it. */
#ifndef OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO_DIGEST_MAX
#define OSSL_PKEY_RSA_PSS_SALT_LEN_AUTO_DIGEST_MAX "auto-digestmax"
#endif

#define CTRSA_SHA1_SIZE 20 /* RSA-PSS keys default to SHA-1 */
#define SIG_MAX_BYTES (CTBN_MAX_BITS / 8)
/* The digest the RSA keymgmt names as its default, for digest-sign with no digest given. */
#define SIG_DEFAULT_DIGEST "SHA2-256"

enum sig_operation {
    SIG_OP_NONE = 0,
    SIG_OP_SIGN,
    SIG_OP_VERIFY,
    SIG_OP_VERIFY_RECOVER,
};

typedef struct sig_ctx {
    CTRSA_PROVCTX *prov;
    char *propq;            /* default property query for digests (from newctx) */
    CTRSA_KEY *key;         /* up-ref'd */
    enum sig_operation op;
    int pad_mode;           /* RSA_PKCS1_PADDING, RSA_PKCS1_PSS_PADDING, RSA_X931_PADDING
                               (then md is set and has an X9.31 id) or RSA_NO_PADDING */
    ctrsa_md md;            /* the signature digest; unset means raw input */
    ctrsa_md mgf1;          /* MGF1 digest; unset means "the signature digest" */
    char *mdprops;          /* properties for the next digest fetch ("properties") */
    char *mgf1props;        /* properties for the next MGF1 digest fetch */
    int saltlen;            /* >= 0 or CTRSA_PSS_SALTLEN_* */
    EVP_MD_CTX *mdctx;      /* streaming digest for digest-sign/verify */
    int streaming;          /* digest-sign/verify initialised: the digest is fixed */
} sig_ctx;

/* The handlers of the dispatch table (signature.c) defined in the other three files. */
OSSL_FUNC_signature_get_ctx_params_fn sig_get_ctx_params;
OSSL_FUNC_signature_gettable_ctx_params_fn sig_gettable_ctx_params;
OSSL_FUNC_signature_set_ctx_params_fn sig_set_ctx_params;
OSSL_FUNC_signature_settable_ctx_params_fn sig_settable_ctx_params;
OSSL_FUNC_signature_sign_fn sig_sign;
OSSL_FUNC_signature_verify_fn sig_verify;
OSSL_FUNC_signature_verify_recover_fn sig_verify_recover;
OSSL_FUNC_signature_digest_sign_init_fn sig_digest_sign_init;
OSSL_FUNC_signature_digest_sign_update_fn sig_digest_update;
OSSL_FUNC_signature_digest_sign_final_fn sig_digest_sign_final;
OSSL_FUNC_signature_digest_sign_fn sig_digest_sign;
OSSL_FUNC_signature_digest_verify_init_fn sig_digest_verify_init;
OSSL_FUNC_signature_digest_verify_final_fn sig_digest_verify_final;
OSSL_FUNC_signature_digest_verify_fn sig_digest_verify;
OSSL_FUNC_signature_get_ctx_md_params_fn sig_get_ctx_md_params;
OSSL_FUNC_signature_gettable_ctx_md_params_fn sig_gettable_ctx_md_params;
OSSL_FUNC_signature_set_ctx_md_params_fn sig_set_ctx_md_params;
OSSL_FUNC_signature_settable_ctx_md_params_fn sig_settable_ctx_md_params;

/*
 * Helpers of signature.c used by the other files; each definition says what it does.
 * Public data only: digests, names, lengths, modes and the key's restrictions.
 */
const char *sig_op_name(enum sig_operation op);
const ctrsa_md *sig_mgf1_in_force(const sig_ctx *c);
int sig_set_string(char **dst, const char *src);
const ctrsa_pss_restriction *sig_restriction(const sig_ctx *c);
int sig_pad_result(const sig_ctx *c, ctrsa_pad_status st);
int sig_rand_from_prov(const ctrsa_rand *r, uint8_t *buf, size_t len);
int sig_md_is_md5_sha1(const ctrsa_md *m);
const ctrsa_digest_info *sig_digest_info(const sig_ctx *c, const ctrsa_md *m, int pad_mode);
const ctrsa_digest_info *sig_x931_digest(const ctrsa_md *m);
int sig_check_digest(const sig_ctx *c, const ctrsa_md *m, int pad_mode);
int sig_check_mgf1(const sig_ctx *c, const ctrsa_md *m);
int sig_min_saltlen(const sig_ctx *c);
int sig_salt_meets_minimum(const sig_ctx *c, size_t slen);
int sig_check_saltlen(const sig_ctx *c, int saltlen);
int sig_init(sig_ctx *c, void *provkey, const OSSL_PARAM params[], enum sig_operation op);

/* signature_params.c: fetch the digest `name` into *dst if check accepts it (the digest
 * parameter's path, which digest-sign/verify's init also takes), and the check for the
 * signature digest. */
int sig_replace_md(sig_ctx *c, ctrsa_md *dst, const char *name, const char *props,
                   int (*check)(const sig_ctx *c, const ctrsa_md *m));
int sig_check_sig_digest(const sig_ctx *c, const ctrsa_md *m);

#endif
