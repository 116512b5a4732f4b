/*
 * The encryption padding decoders of padding/enc_padding.h against OpenSSL on the same
 * decrypted block: OAEP (RSA_padding_check_PKCS1_OAEP_mgf1), PKCS#1 v1.5 type 2 without
 * implicit rejection (RSA_padding_check_PKCS1_type_2), with implicit rejection (the real
 * message when OpenSSL finds the padding valid, else the synthetic one), and the TLS
 * pre-master secret decode (against the rule of OpenSSL's
 * ossl_rsa_padding_check_PKCS1_type_2_TLS, written out plainly here: it is not exported).
 *
 * Input: selector, digest index, MGF1 digest index, two 16-bit versions, a length-prefixed
 * label (or d_hash), then the block em (its length is k).
 */
#include <string.h>

#include <openssl/rsa.h>

#include "enc_padding.h"
#include "fuzz_padding_md.h"

#define MAX_K (CTRSA_ENC_MAX_K + 8)

static uint8_t em[MAX_K], out1[MAX_K], out0[MAX_K], syn[MAX_K];

static void oaep(unsigned hi, unsigned mi, const uint8_t *label, size_t llen,
                 const uint8_t *blk, size_t k)
{
    const EVP_MD *md, *mgf1md;
    ctrsa_hash h, mh;
    size_t l1 = (size_t)-1;
    int r0, r1;

    fz_md_get(hi, &md, &h);
    fz_md_get(mi, &mgf1md, &mh);
    memcpy(em, blk, k);
    r1 = ctrsa_oaep_decode(&h, &mh, em, k, label, llen, out1, k, &l1);
    if (k > CTRSA_ENC_MAX_K || k < 2 * h.size + 2) {
        if (r1 != CTRSA_PAD_BAD_ARGS)
            fz_fail("OAEP: k = %zu accepted (%d)", k, r1);
        return;
    }
    r0 = RSA_padding_check_PKCS1_OAEP_mgf1(out0, (int)k, blk, (int)k, (int)k, label,
                                           (int)llen, md, mgf1md);
    if ((r1 == CTRSA_PAD_OK) != (r0 >= 0))
        fz_fail("OAEP (%s, %s, k %zu): ctrsa %d, OpenSSL %d", fz_md_names[hi],
                fz_md_names[mi], k, r1, r0);
    if (r1 != CTRSA_PAD_OK && r1 != CTRSA_PAD_FAIL)
        fz_fail("OAEP: unexpected result %d", r1);
    if (r0 >= 0 && (l1 != (size_t)r0 || memcmp(out1, out0, l1) != 0))
        fz_fail("OAEP: messages differ (%zu, %d bytes)", l1, r0);
}

static void pkcs1(const uint8_t *blk, size_t k)
{
    size_t l1 = (size_t)-1;
    int r0, r1;

    memcpy(em, blk, k);
    r1 = ctrsa_pkcs1_type2_decode(em, k, out1, k, &l1);
    if (k > CTRSA_ENC_MAX_K || k < CTRSA_PKCS1_PADDING_SIZE) {
        if (r1 != CTRSA_PAD_BAD_ARGS)
            fz_fail("PKCS#1 type 2: k = %zu accepted (%d)", k, r1);
        return;
    }
    r0 = RSA_padding_check_PKCS1_type_2(out0, (int)k, blk, (int)k, (int)k);
    if ((r1 == CTRSA_PAD_OK) != (r0 >= 0) || (r1 != CTRSA_PAD_OK && r1 != CTRSA_PAD_FAIL))
        fz_fail("PKCS#1 type 2 (k %zu): ctrsa %d, OpenSSL %d", k, r1, r0);
    if (r0 >= 0 && (l1 != (size_t)r0 || memcmp(out1, out0, l1) != 0))
        fz_fail("PKCS#1 type 2: messages differ (%zu, %d bytes)", l1, r0);
}

static void pkcs1_ir(const uint8_t *dsrc, size_t dlen, const uint8_t *blk, size_t k)
{
    const EVP_MD *md;
    ctrsa_hash sha256;
    uint8_t d_hash[32] = { 0 }, kdk[32];
    size_t l1 = (size_t)-1, synlen = (size_t)-1;
    int r0, r1;

    fz_md_get(2, &md, &sha256);
    memcpy(d_hash, dsrc, dlen < 32 ? dlen : 32);
    /* The ciphertext: the block reversed (any public k bytes will do). */
    for (size_t i = 0; i < k; i++)
        syn[i] = blk[k - 1 - i];
    r1 = ctrsa_pkcs1_type2_decode_ir(&sha256, d_hash, syn, blk, k, out1, k, &l1);
    if (k > CTRSA_ENC_MAX_K || k < CTRSA_PKCS1_PADDING_SIZE) {
        if (r1 != CTRSA_PAD_BAD_ARGS)
            fz_fail("implicit rejection: k = %zu accepted (%d)", k, r1);
        return;
    }
    if (r1 != CTRSA_PAD_OK)
        fz_fail("implicit rejection: result %d", r1);
    r0 = RSA_padding_check_PKCS1_type_2(out0, (int)k, blk, (int)k, (int)k);
    if (r0 >= 0) {
        if (l1 != (size_t)r0 || memcmp(out1, out0, l1) != 0)
            fz_fail("implicit rejection: valid padding, messages differ");
        return;
    }
    /* Bad padding: the synthetic message, from the KDF pieces (their KATs are in CMocka). */
    if (ctrsa_ir_kdk(&sha256, d_hash, syn, k, kdk) != CTRSA_PAD_OK
        || ctrsa_ir_synthetic(&sha256, kdk, k, em, &synlen) != CTRSA_PAD_OK)
        fz_fail("implicit rejection: KDF failed");
    if (synlen > k - CTRSA_PKCS1_PADDING_SIZE || l1 != synlen
        || memcmp(out1, em + k - synlen, synlen) != 0)
        fz_fail("implicit rejection: bad padding gave %zu bytes, not the synthetic %zu", l1,
                synlen);
}

static void tls(unsigned cv, unsigned av, const uint8_t *blk, size_t k)
{
    uint8_t rnd[CTRSA_TLS_PREMASTER_LEN], o[CTRSA_TLS_PREMASTER_LEN];
    int r1, good;

    memset(rnd, 0xA5, sizeof(rnd));
    r1 = ctrsa_tls_premaster_decode(blk, k, cv, av, rnd, o);
    if (k > CTRSA_ENC_MAX_K || k < CTRSA_PKCS1_PADDING_SIZE + CTRSA_TLS_PREMASTER_LEN) {
        if (r1 != CTRSA_PAD_BAD_ARGS)
            fz_fail("TLS: k = %zu accepted (%d)", k, r1);
        return;
    }
    if (r1 != CTRSA_PAD_OK)
        fz_fail("TLS: result %d", r1);
    /* The rule, plainly (variable time is fine in a test). */
    good = blk[0] == 0 && blk[1] == 2;
    for (size_t i = 2; i < k - CTRSA_TLS_PREMASTER_LEN - 1; i++)
        good &= blk[i] != 0;
    good &= blk[k - CTRSA_TLS_PREMASTER_LEN - 1] == 0;
    {
        unsigned v = (unsigned)blk[k - 48] << 8 | blk[k - 47];
        good &= v == cv || (av > 0 && v == av);
    }
    if (memcmp(o, good ? blk + k - CTRSA_TLS_PREMASTER_LEN : rnd, sizeof(o)) != 0)
        fz_fail("TLS pre-master: wrong choice (padding %s)", good ? "good" : "bad");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    unsigned sel = fz_u8(&in) % 4, hi = fz_u8(&in) % FZ_N_MD, mi = fz_u8(&in) % FZ_N_MD;
    unsigned cv = fz_u16(&in), av = fz_u16(&in);
    size_t llen, k;
    const uint8_t *label = fz_bytes(&in, 256, &llen);

    k = in.n < MAX_K ? in.n : MAX_K;
    switch (sel) {
    case 0: oaep(hi, mi, label, llen, in.p, k); break;
    case 1: pkcs1(in.p, k); break;
    case 2: pkcs1_ir(label, llen, in.p, k); break;
    default: tls(cv, av, in.p, k); break;
    }
    return 0;
}
