/*
 * The loading core's version (see core_version.h).
 *
 * Why the core's own answer and not OpenSSL_version_num(): the module links libcrypto, but
 * the library that loaded it and drives its dispatch tables is the core. They are the same
 * shared library in the usual case, but not when an application carries a libcrypto of its
 * own (linked statically, or a second copy under another path): then OpenSSL_version_num()
 * describes the module's copy, while what matters is which dispatch functions the caller
 * knows. OSSL_PROV_PARAM_CORE_VERSION ("openssl-version") has been a core parameter since
 * OpenSSL 3.0 and is exactly the core's OPENSSL_VERSION_STR.
 */
#include <ctype.h>
#include <stdlib.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "core_version.h"

/* *s's leading decimal number (at most 3 digits) into *out; advances *s. 0 if none. */
static int number(const char **s, unsigned long *out)
{
    unsigned long v = 0;
    int digits = 0;

    while (isdigit((unsigned char)**s) && digits < 4) {
        v = v * 10 + (unsigned long)(**s - '0');
        (*s)++;
        digits++;
    }
    *out = v;
    return digits > 0 && digits < 4;
}

int ctrsa_core_rsasve_refuses_e_below_2(unsigned long v)
{
    unsigned long minor_line = v & 0xfff00000UL, patch = (v >> 4) & 0xffUL;

    switch (minor_line) {
    case 0x30500000UL:
        return patch >= 9;
    case 0x30600000UL:
        return patch >= 5;
    case 0x40000000UL:
        return patch >= 3;
    default:
        return minor_line > 0x40000000UL;
    }
}

unsigned long ctrsa_parse_core_version(const char *s)
{
    unsigned long major, minor, patch = 0;

    if (s == NULL || !number(&s, &major) || *s++ != '.' || !number(&s, &minor))
        return 0;
    if (*s == '.') {
        s++;
        if (!number(&s, &patch))
            return 0;
    }
    if (major == 0 || major > 15 || minor > 255 || patch > 255)
        return 0;
    return major << 28 | minor << 20 | patch << 4;
}
