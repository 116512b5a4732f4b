/*
 * The version of the OpenSSL core that loaded the module, for features that the core must
 * know how to drive (the message signature algorithms of OpenSSL 3.4+). Implemented in
 * provider/core_version.c.
 */
#ifndef CTRSA_CORE_VERSION_H
#define CTRSA_CORE_VERSION_H

#include <openssl/core.h>

/* Versions in OPENSSL_VERSION_NUMBER's layout (0xMNN00000 for M.NN.0), as compared here. */
#define CTRSA_CORE_3_1 0x30100000UL /* PSS salt length "auto-digestmax" (-4), the default for signing */
#define CTRSA_CORE_3_2 0x30200000UL /* EVP_PKEY_decrypt raises its own error after a silent provider failure */
#define CTRSA_CORE_3_3 0x30300000UL /* import refuses unused CRT values (f3be536), reorders primes 3+ */
#define CTRSA_CORE_3_4 0x30400000UL
#define CTRSA_CORE_4_0 0x40000000UL /* key generation's "rsa-a" and "rsa-b" */

/*
 * "M.N.P..." (OPENSSL_VERSION_STR, as the core reports it) as 0xMNNPP000-style number:
 * major << 28 | minor << 20 | patch << 4. 0 if s is NULL or does not start with
 * "<major>.<minor>" (the patch is optional; anything after it is ignored), or a part is out
 * of range (major 0 or > 15, minor or patch > 255).
 */
unsigned long ctrsa_parse_core_version(const char *s);

/*
 * 1 if the default provider of core version v (as parsed above) refuses RSASVE's
 * encapsulate and decapsulate init for a key with e <= 1 ("invalid key"): OpenSSL's
 * "Reject clearly degenerate RSASVE parameters" (openssl/openssl#32124, merged 2026-08-10),
 * measured in 3.5.9, 3.6.5 and 4.0.3 (released 2026-09-29) and absent from 3.0.20. So:
 * 3.5.9+, 3.6.5+, 4.0.3+ and any later minor version; 3.0 to 3.4, and the earlier patch
 * releases of 3.5, 3.6 and 4.0, not (3.4's later releases were not measured).
 */
int ctrsa_core_rsasve_refuses_e_below_2(unsigned long v);
/* (OSSL_provider_init reads the core's version string once, for its own check of the core
 * and for prov->core_version.) */

#endif
