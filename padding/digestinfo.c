/* The digest table: names, OIDs and DigestInfo prefixes (RFC 8017 9.2 note 1). See sig_padding.h. */
#include <string.h>
#include <strings.h>
#include "sig_padding.h"

/* OID content octets. */
static const uint8_t oid_md5[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05 };
static const uint8_t oid_sha1[] = { 0x2b, 0x0e, 0x03, 0x02, 0x1a };
#define NIST_HASH(x) { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, (x) }
static const uint8_t oid_sha256[] = NIST_HASH(0x01);
static const uint8_t oid_sha384[] = NIST_HASH(0x02);
static const uint8_t oid_sha512[] = NIST_HASH(0x03);
static const uint8_t oid_sha224[] = NIST_HASH(0x04);
static const uint8_t oid_sha512_224[] = NIST_HASH(0x05);
static const uint8_t oid_sha512_256[] = NIST_HASH(0x06);
static const uint8_t oid_sha3_224[] = NIST_HASH(0x07);
static const uint8_t oid_sha3_256[] = NIST_HASH(0x08);
static const uint8_t oid_sha3_384[] = NIST_HASH(0x09);
static const uint8_t oid_sha3_512[] = NIST_HASH(0x0a);
/* PKCS#1 <digest>WithRSAEncryption, 1.2.840.113549.1.1.x */
#define PKCS1_SIG(x) { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, (x) }
static const uint8_t sig_md5[] = PKCS1_SIG(0x04);
static const uint8_t sig_sha1[] = PKCS1_SIG(0x05);
static const uint8_t sig_sha256[] = PKCS1_SIG(0x0b);
static const uint8_t sig_sha384[] = PKCS1_SIG(0x0c);
static const uint8_t sig_sha512[] = PKCS1_SIG(0x0d);
static const uint8_t sig_sha224[] = PKCS1_SIG(0x0e);
static const uint8_t sig_sha512_224[] = PKCS1_SIG(0x0f);
static const uint8_t sig_sha512_256[] = PKCS1_SIG(0x10);
/* id-rsassa-pkcs1-v1_5-with-sha3-*, 2.16.840.1.101.3.4.3.x */
#define NIST_SIG(x) { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, (x) }
static const uint8_t sig_sha3_224[] = NIST_SIG(0x0d);
static const uint8_t sig_sha3_256[] = NIST_SIG(0x0e);
static const uint8_t sig_sha3_384[] = NIST_SIG(0x0f);
static const uint8_t sig_sha3_512[] = NIST_SIG(0x10);
/* RIPEMD-160 (1.3.36.3.2.1) and ripemd160WithRSA (1.3.36.3.3.1.2). */
static const uint8_t oid_ripemd160[] = { 0x2b, 0x24, 0x03, 0x02, 0x01 };
static const uint8_t sig_ripemd160[] = { 0x2b, 0x24, 0x03, 0x03, 0x01, 0x02 };

/*
 * SM3 and sm3WithRSAEncryption (1.2.156.10197.1.504). The DigestInfo OID is 1.2.156.10197.1.504
 * too, not SM3's own 1.2.156.10197.1.401: that is what OpenSSL writes and checks
 * (crypto/rsa/rsa_sign.c, digestinfo_sm3_der, 3.x and 4.0) and what OpenSSL 4.0's RSA-SM3
 * test vector was made with, so a signature either makes, the other verifies.
 */
static const uint8_t oid_sm3[] = { 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x78 };
static const uint8_t sig_sm3[] = { 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x78 };

#define ENTRY(name, aliases, size, oid, sig) \
    { name, aliases, size, oid, sizeof(oid), sig, sizeof(sig), 0, 0 }
#define ENTRY_PKCS1_ONLY(name, aliases, size, oid, sig) \
    { name, aliases, size, oid, sizeof(oid), sig, sizeof(sig), 1, 0 }
/* A digest ANSI X9.31 names, with its hash identifier (X9.31 section 6, OpenSSL's
 * RSA_X931_hash_id). */
#define ENTRY_X931(name, aliases, size, oid, sig, x931) \
    { name, aliases, size, oid, sizeof(oid), sig, sizeof(sig), 0, x931 }

/* Names and aliases as OpenSSL's default provider registers them. */
static const ctrsa_digest_info digests[] = {
    ENTRY("MD5", "SSL3-MD5:1.2.840.113549.2.5", 16, oid_md5, sig_md5),
    ENTRY_X931("SHA1", "SHA-1:SSL3-SHA1:1.3.14.3.2.26", 20, oid_sha1, sig_sha1, 0x33),
    ENTRY("SHA2-224", "SHA-224:SHA224:2.16.840.1.101.3.4.2.4", 28, oid_sha224, sig_sha224),
    ENTRY_X931("SHA2-256", "SHA-256:SHA256:2.16.840.1.101.3.4.2.1", 32, oid_sha256, sig_sha256,
               0x34),
    ENTRY_X931("SHA2-384", "SHA-384:SHA384:2.16.840.1.101.3.4.2.2", 48, oid_sha384, sig_sha384,
               0x36),
    ENTRY_X931("SHA2-512", "SHA-512:SHA512:2.16.840.1.101.3.4.2.3", 64, oid_sha512, sig_sha512,
               0x35),
    ENTRY("SHA2-512/224", "SHA-512/224:SHA512-224:2.16.840.1.101.3.4.2.5", 28,
          oid_sha512_224, sig_sha512_224),
    ENTRY("SHA2-512/256", "SHA-512/256:SHA512-256:2.16.840.1.101.3.4.2.6", 32,
          oid_sha512_256, sig_sha512_256),
    ENTRY("SHA3-224", "2.16.840.1.101.3.4.2.7", 28, oid_sha3_224, sig_sha3_224),
    ENTRY("SHA3-256", "2.16.840.1.101.3.4.2.8", 32, oid_sha3_256, sig_sha3_256),
    ENTRY("SHA3-384", "2.16.840.1.101.3.4.2.9", 48, oid_sha3_384, sig_sha3_384),
    ENTRY("SHA3-512", "2.16.840.1.101.3.4.2.10", 64, oid_sha3_512, sig_sha3_512),
    ENTRY("RIPEMD-160", "RIPEMD160:RIPEMD:RMD160:1.3.36.3.2.1", 20, oid_ripemd160,
          sig_ripemd160),
    ENTRY_PKCS1_ONLY("SM3", "1.2.156.10197.1.401", 32, oid_sm3, sig_sm3),
};

/* 1 if name equals one of the colon-separated entries of list (case-insensitive). */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;

    while (*p != '\0') {
        const char *end = strchr(p, ':');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

        if (len == n && strncasecmp(p, name, n) == 0)
            return 1;
        p += len;
        if (*p == ':')
            p++;
    }
    return 0;
}

static const ctrsa_digest_info *lookup(const char *name, int pkcs1)
{
    size_t i;

    if (name == NULL || name[0] == '\0')
        return NULL;
    for (i = 0; i < sizeof(digests) / sizeof(digests[0]); i++)
        if ((pkcs1 || !digests[i].pkcs1_only)
                && (strcasecmp(digests[i].name, name) == 0 || in_list(digests[i].aliases, name)))
            return &digests[i];
    return NULL;
}

const ctrsa_digest_info *ctrsa_digest_info_lookup(const char *name)
{
    return lookup(name, 0);
}

const ctrsa_digest_info *ctrsa_digest_info_lookup_pkcs1(const char *name)
{
    return lookup(name, 1);
}

size_t ctrsa_digestinfo_prefix(const ctrsa_digest_info *d, uint8_t out[CTRSA_DIGESTINFO_PREFIX_MAX])
{
    size_t algid_len = 2 + d->oid_len + 2;   /* OID TLV + NULL TLV */
    size_t n = 0;

    /* DigestInfo ::= SEQUENCE { digestAlgorithm AlgorithmIdentifier, digest OCTET STRING } */
    out[n++] = 0x30;
    out[n++] = (uint8_t)(2 + algid_len + 2 + d->size);
    out[n++] = 0x30;
    out[n++] = (uint8_t)algid_len;
    out[n++] = 0x06;
    out[n++] = (uint8_t)d->oid_len;
    memcpy(out + n, d->oid, d->oid_len);
    n += d->oid_len;
    out[n++] = 0x05;  /* parameters: NULL */
    out[n++] = 0x00;
    out[n++] = 0x04;
    out[n++] = (uint8_t)d->size;
    return n;
}
