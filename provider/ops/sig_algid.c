/* DER AlgorithmIdentifiers of RSA signatures. See sig_algid.h. */
#include <string.h>
#include "sig_algid.h"

/* 1.2.840.113549.1.1.10 id-RSASSA-PSS and 1.2.840.113549.1.1.8 id-mgf1 */
static const uint8_t oid_rsassa_pss[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a };
static const uint8_t oid_mgf1[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08 };

/* A small DER writer: every length here is below 128 (short form). */
typedef struct der {
    uint8_t *p;
    size_t size, len;
    int ok;
} der;

static void put(der *w, const uint8_t *b, size_t n)
{
    if (!w->ok || n > w->size - w->len) {
        w->ok = 0;
        return;
    }
    memcpy(w->p + w->len, b, n);
    w->len += n;
}

static void put_byte(der *w, uint8_t b)
{
    put(w, &b, 1);
}

/* Open a constructed TLV; returns the offset of its length byte for close(). */
static size_t open_tlv(der *w, uint8_t tag)
{
    put_byte(w, tag);
    put_byte(w, 0);
    return w->len - 1;
}

static void close_tlv(der *w, size_t at)
{
    size_t n = w->len - at - 1;

    if (!w->ok)
        return;
    if (n > 127)
        w->ok = 0;
    else
        w->p[at] = (uint8_t)n;
}

static void put_oid(der *w, const uint8_t *oid, size_t len)
{
    put_byte(w, 0x06);
    put_byte(w, (uint8_t)len);
    put(w, oid, len);
}

/* AlgorithmIdentifier { oid, NULL } */
static void put_algid_null(der *w, const uint8_t *oid, size_t len)
{
    size_t seq = open_tlv(w, 0x30);

    put_oid(w, oid, len);
    put_byte(w, 0x05);
    put_byte(w, 0x00);
    close_tlv(w, seq);
}

/* INTEGER for a non-negative value, minimal encoding. */
static void put_uint(der *w, size_t v)
{
    uint8_t b[sizeof(size_t) + 1];
    size_t n = 0, i;

    do {
        b[n++] = (uint8_t)v;
        v >>= 8;
    } while (v != 0);
    if (b[n - 1] & 0x80)
        b[n++] = 0x00;
    put_byte(w, 0x02);
    put_byte(w, (uint8_t)n);
    for (i = n; i > 0; i--)
        put_byte(w, b[i - 1]);
}

static int is_sha1(const ctrsa_digest_info *d)
{
    return strcmp(d->name, "SHA1") == 0;
}

size_t ctrsa_sig_algid_pkcs1(const ctrsa_digest_info *d, uint8_t *out, size_t outsize)
{
    der w = { out, outsize, 0, 1 };

    if (d == NULL || d->sig_oid == NULL)
        return 0;
    put_algid_null(&w, d->sig_oid, d->sig_oid_len);
    return w.ok ? w.len : 0;
}

size_t ctrsa_sig_algid_pss(const ctrsa_digest_info *md, const ctrsa_digest_info *mgf1md,
                           size_t saltlen, uint8_t *out, size_t outsize)
{
    der w = { out, outsize, 0, 1 };
    size_t outer, params, tag, mgf;

    if (md == NULL || mgf1md == NULL)
        return 0;
    outer = open_tlv(&w, 0x30);
    put_oid(&w, oid_rsassa_pss, sizeof(oid_rsassa_pss));
    params = open_tlv(&w, 0x30);
    if (!is_sha1(md)) {                  /* hashAlgorithm [0] DEFAULT sha1 */
        tag = open_tlv(&w, 0xa0);
        put_algid_null(&w, md->oid, md->oid_len);
        close_tlv(&w, tag);
    }
    if (!is_sha1(mgf1md)) {              /* maskGenAlgorithm [1] DEFAULT mgf1SHA1 */
        tag = open_tlv(&w, 0xa1);
        mgf = open_tlv(&w, 0x30);
        put_oid(&w, oid_mgf1, sizeof(oid_mgf1));
        put_algid_null(&w, mgf1md->oid, mgf1md->oid_len);
        close_tlv(&w, mgf);
        close_tlv(&w, tag);
    }
    if (saltlen != 20) {                 /* saltLength [2] DEFAULT 20 */
        tag = open_tlv(&w, 0xa2);
        put_uint(&w, saltlen);
        close_tlv(&w, tag);
    }
    /* trailerField [3] DEFAULT trailerFieldBC: always the default. */
    close_tlv(&w, params);
    close_tlv(&w, outer);
    return w.ok ? w.len : 0;
}
