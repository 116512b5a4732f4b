/*
 * The dispatch tables each operation file (provider/ops/) exports to provider/provider.c,
 * which lists them in its algorithm tables (property "provider=ctrsa").
 */
#ifndef CTRSA_DISPATCH_H
#define CTRSA_DISPATCH_H

#include <openssl/core.h>

#define CTRSA_RSA_NAMES "RSA:rsaEncryption:1.2.840.113549.1.1.1"
#define CTRSA_RSA_PSS_NAMES "RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10"

extern const OSSL_DISPATCH ctrsa_rsa_keymgmt_functions[];     /* provider/ops/keymgmt.c */
extern const OSSL_DISPATCH ctrsa_rsapss_keymgmt_functions[];  /* provider/ops/keymgmt.c */
extern const OSSL_DISPATCH ctrsa_rsa_signature_functions[];   /* provider/ops/signature.c */
extern const OSSL_DISPATCH ctrsa_rsa_asym_cipher_functions[]; /* provider/ops/asym_cipher.c */
extern const OSSL_DISPATCH ctrsa_rsa_kem_functions[];         /* provider/ops/kem.c */

/* The property every algorithm of the module carries. */
#define CTRSA_ALG_PROPS "provider=ctrsa"

/* The "RSA" signature algorithm, in both signature tables (provider.c, signature_message.c). */
#define CTRSA_RSA_SIGNATURE_ALGORITHM                                                        \
    { CTRSA_RSA_NAMES, CTRSA_ALG_PROPS, ctrsa_rsa_signature_functions,                       \
      "ctrsa RSA signatures (PKCS#1 v1.5, PSS, raw)" }

/*
 * The signature algorithms with the message signature algorithms (RSA-SHA2-256...) of
 * OpenSSL 3.4+, when the module was built with headers that have the API and the core that
 * loaded it is 3.4 or later; NULL otherwise (then only "RSA" is offered).
 * provider/ops/signature_message.c.
 */
struct ctrsa_provctx;
const OSSL_ALGORITHM *ctrsa_message_signature_algorithms(const struct ctrsa_provctx *prov);

#endif
