/*
 * The signature padding verifiers of padding/sig_padding.h against OpenSSL on the same
 * block: EMSA-PSS (RSA_verify_PKCS1_PSS_mgf1 on an RSA object with a modulus of the same bit
 * length), EMSA-PKCS1-v1_5 with and without DigestInfo (RSA_padding_check_PKCS1_type_1,
 * then the DigestInfo encoded by OpenSSL's X509_SIG), and the type-1 recovery.
 *
 * Input: selector, digest index, MGF1 digest index, a byte (modulus bits below 8k, salt
 * length mode), a 16-bit salt length, a length-prefixed digest, then the block em (length k).
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "fuzz_padding_md.h"
#include "sig_padding.h"

#define MAX_K 2056

static uint8_t out0[MAX_K];

static void pss(unsigned hi, unsigned mi, unsigned x, unsigned slen16, const uint8_t *dig,
                size_t dlen, const uint8_t *em, size_t k)
{
    const EVP_MD *md, *mgf1md;
    ctrsa_hash h, mh;
    uint8_t mhash[64] = { 0 };
    size_t mod_bits = 8 * k - (x & 7);
    int modes[4] = { CTRSA_PSS_SALTLEN_DIGEST, CTRSA_PSS_SALTLEN_AUTO, CTRSA_PSS_SALTLEN_MAX,
                     CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX };
    int mode = (x >> 3) % 5 < 4 ? modes[(x >> 3) % 5] : (int)(slen16 % 1024);
    int omode, r0;
    ctrsa_pad_status r1;
    BIGNUM *n = BN_new(), *e = BN_new();
    RSA *rsa = RSA_new();

    if (k == 0 || mod_bits < 16 || n == NULL || e == NULL || rsa == NULL)
        goto done;
    fz_md_get(hi, &md, &h);
    fz_md_get(mi, &mgf1md, &mh);
    memcpy(mhash, dig, dlen < h.size ? dlen : h.size);
    r1 = ctrsa_emsa_pss_verify(em, k, mod_bits, &h, &mh, mhash, h.size, mode, NULL);

    /* OpenSSL's modes: -1 digest, -2 auto; max is the explicit emLen - hLen - 2. */
    omode = mode;
    if (mode == CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX)
        omode = RSA_PSS_SALTLEN_AUTO;
    if (mode == CTRSA_PSS_SALTLEN_MAX) {
        size_t emlen = (mod_bits - 1 + 7) / 8;
        if (emlen < h.size + 2) {
            if (r1 == CTRSA_PAD_OK)
                fz_fail("PSS: no room for the salt, yet valid");
            goto done;
        }
        omode = (int)(emlen - h.size - 2);
    }
    if (!BN_set_bit(n, (int)mod_bits - 1) || !BN_add_word(n, 1) || !BN_set_word(e, 3)
        || !RSA_set0_key(rsa, n, e, NULL))
        fz_fail("cannot build the RSA object");
    n = e = NULL;
    r0 = RSA_verify_PKCS1_PSS_mgf1(rsa, mhash, md, mgf1md, em, omode);
    if ((r1 == CTRSA_PAD_OK) != (r0 == 1))
        fz_fail("PSS (%s, %s, bits %zu, mode %d): ctrsa %d, OpenSSL %d", fz_md_names[hi],
                fz_md_names[mi], mod_bits, mode, (int)r1, r0);
done:
    RSA_free(rsa);
    BN_free(n);
    BN_free(e);
}

/* OpenSSL's DER DigestInfo for md and digest; its length, 0 on failure. */
static int digestinfo(const EVP_MD *md, const uint8_t *dig, size_t dlen, uint8_t **der)
{
    X509_SIG *sig = X509_SIG_new();
    X509_ALGOR *alg;
    ASN1_OCTET_STRING *os;
    int len = 0;

    if (sig == NULL)
        return 0;
    X509_SIG_getm(sig, &alg, &os);
    if (X509_ALGOR_set0(alg, OBJ_nid2obj(EVP_MD_get_type(md)), V_ASN1_NULL, NULL)
        && ASN1_OCTET_STRING_set(os, dig, (int)dlen))
        len = i2d_X509_SIG(sig, der);
    X509_SIG_free(sig);
    return len > 0 ? len : 0;
}

static void pkcs1(unsigned hi, int raw, const uint8_t *dig, size_t dlen, const uint8_t *em,
                  size_t k)
{
    const EVP_MD *md;
    ctrsa_hash h;
    const ctrsa_digest_info *d = NULL;
    uint8_t *der = NULL;
    int derlen, r0, want, want_rec;
    size_t off = 0, len = 0;
    ctrsa_pad_status r1, rr;

    fz_md_get(hi, &md, &h);
    if (!raw && (d = ctrsa_digest_info_lookup(fz_md_names[hi])) == NULL)
        fz_fail("%s is not in the DigestInfo table", fz_md_names[hi]);
    r1 = ctrsa_emsa_pkcs1_verify(em, k, d, dig, dlen);
    rr = ctrsa_pkcs1_type1_recover(em, k, d, &off, &len);

    r0 = k >= 11 ? RSA_padding_check_PKCS1_type_1(out0, (int)k, em, (int)k, (int)k) : -1;
    if (raw) {
        derlen = (int)dlen;
        if ((der = OPENSSL_malloc(dlen + 1)) != NULL)
            memcpy(der, dig, dlen);
    } else {
        derlen = digestinfo(md, dig, dlen, &der);
    }
    if (der == NULL)
        fz_fail("cannot encode the DigestInfo");
    want = r0 >= 0 && (raw || dlen == h.size) && r0 == derlen
           && memcmp(out0, der, (size_t)derlen) == 0;
    if ((r1 == CTRSA_PAD_OK) != want)
        fz_fail("EMSA-PKCS1-v1_5 (%s, k %zu, %zu-byte digest): ctrsa %d, OpenSSL %d",
                raw ? "raw" : fz_md_names[hi], k, dlen, (int)r1, want);

    /* Recovery: the payload (raw), or a DigestInfo for d whose digest it delimits. */
    if (raw) {
        want_rec = r0 >= 0;
    } else {
        uint8_t *zder = NULL;
        uint8_t zero[64] = { 0 };
        int zlen = digestinfo(md, zero, h.size, &zder);
        size_t plen = (size_t)zlen - h.size;
        want_rec = r0 == zlen && memcmp(out0, zder, plen) == 0;
        OPENSSL_free(zder);
        if (want_rec && rr == CTRSA_PAD_OK
            && (len != h.size || off != k - h.size))
            fz_fail("type-1 recovery: digest at %zu+%zu, expected %zu+%zu", off, len,
                    k - h.size, h.size);
    }
    if ((rr == CTRSA_PAD_OK) != want_rec)
        fz_fail("type-1 recovery (%s, k %zu): ctrsa %d, OpenSSL %d",
                raw ? "raw" : fz_md_names[hi], k, (int)rr, want_rec);
    if (raw && rr == CTRSA_PAD_OK
        && (len != (size_t)r0 || off + len != k || memcmp(em + off, out0, len) != 0))
        fz_fail("type-1 recovery: payload differs");
    OPENSSL_free(der);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    unsigned sel = fz_u8(&in) % 3, hi = fz_u8(&in) % FZ_N_MD, mi = fz_u8(&in) % FZ_N_MD;
    unsigned x = fz_u8(&in), slen = fz_u16(&in);
    size_t dlen, k;
    const uint8_t *dig = fz_bytes(&in, 128, &dlen);

    k = in.n < MAX_K ? in.n : MAX_K;
    switch (sel) {
    case 0: pss(hi, mi, x, slen, dig, dlen, in.p, k); break;
    case 1: pkcs1(hi, 0, dig, dlen, in.p, k); break;
    default: pkcs1(hi, 1, dig, dlen, in.p, k); break;
    }
    return 0;
}
