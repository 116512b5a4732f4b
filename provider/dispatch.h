/*
 * The dispatch tables each operation file exports to provider/provider.c, which lists them
 * in its algorithm tables (property "provider=ctrsa").
 */
#ifndef CTRSA_DISPATCH_H
#define CTRSA_DISPATCH_H

#include <openssl/core.h>

#define CTRSA_RSA_NAMES "RSA:rsaEncryption:1.2.840.113549.1.1.1"
#define CTRSA_RSA_PSS_NAMES "RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10"

extern const OSSL_DISPATCH ctrsa_rsa_keymgmt_functions[];     /* provider/keymgmt.c */
extern const OSSL_DISPATCH ctrsa_rsapss_keymgmt_functions[];  /* provider/keymgmt.c */
extern const OSSL_DISPATCH ctrsa_rsa_signature_functions[];   /* provider/signature.c */
extern const OSSL_DISPATCH ctrsa_rsa_asym_cipher_functions[]; /* provider/asym_cipher.c */
extern const OSSL_DISPATCH ctrsa_rsa_kem_functions[];         /* provider/kem.c */

#endif
