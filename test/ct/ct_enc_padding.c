/*
 * Constant-time cases for the encryption-padding decoders (padding/enc_padding.h): the
 * decrypted block EM (and, for implicit rejection, SHA-256(d) and the TLS random secret) is
 * marked undefined; k, the label, the ciphertext and the output capacity stay defined.
 * Memcheck then reports any branch or memory index that depends on the padding's contents
 * or validity, up to the single result, which the case marks defined before checking it.
 *
 * The hash here is a branch-free toy of SHA-256's sizes (32-byte output, 64-byte block), so
 * that the harness needs no OpenSSL: what is under test is the padding code, whose results
 * are checked against runs on defined copies. The real hashes are checked in
 * test/padding (against OpenSSL and OpenSSL 3.2's known answers).
 */
#include <string.h>

#include "ct_case.h"
#include "enc_padding.h"
#include "mgf1.h"

#define TOY_SIZE 32
#define MAX_K 256

/* A deterministic, branch-free mixing function (not a real hash). */
static int toy_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                      uint8_t *out)
{
    uint8_t s[TOY_SIZE];
    size_t i, j, n = 0, r;

    (void)h;
    for (j = 0; j < TOY_SIZE; j++)
        s[j] = (uint8_t)(j * 37 + 11);
    for (i = 0; i < count; i++) {
        for (j = 0; j < parts[i].len; j++, n++) {
            uint8_t *t = &s[n % TOY_SIZE];

            *t = (uint8_t)(*t * 31 + parts[i].p[j] + 7);
        }
    }
    s[0] ^= (uint8_t)n;
    s[1] ^= (uint8_t)(n >> 8);
    for (r = 0; r < 4; r++)
        for (j = 0; j < TOY_SIZE; j++) {
            uint8_t a = s[(j + 1) % TOY_SIZE], b = s[(j + 7) % TOY_SIZE];

            s[j] ^= (uint8_t)(((a << 3) | (a >> 5)) + b);
        }
    memcpy(out, s, TOY_SIZE);
    return 1;
}

static const ctrsa_hash toy = { TOY_SIZE, 64, NULL, toy_digest };

/* The malformations tried on each block. */
enum mangle { M_NONE, M_FIRST_BYTE, M_SECOND_BYTE, M_NO_SEPARATOR, M_SHORT_PS, M_LHASH, M_N };

/*
 * The validity each malformation must give: 1 valid, 0 invalid, -1 either (a removed
 * separator can be replaced by a byte of the random message).
 */
static const int oaep_expect[M_N] = { 1, 0, -1, -1, 0, 0 };
/* For PKCS#1, "M_LHASH" zeroes the last byte: the block stays valid. */
static const int pkcs1_expect[M_N] = { 1, 0, 0, -1, 0, 1 };

static int validity_as_expected(int expect, int r)
{
    return expect < 0 || (expect == 1) == (r == CTRSA_PAD_OK);
}

/* ---- OAEP ---------------------------------------------------------------------------- */

/* em := an OAEP block with DB given in full (em[0] = y). */
static void oaep_block(uint8_t *em, size_t k, uint8_t y, const uint8_t *db)
{
    size_t dblen = k - TOY_SIZE - 1;

    em[0] = y;
    ct_rand_bytes(em + 1, TOY_SIZE);
    memcpy(em + 1 + TOY_SIZE, db, dblen);
    ctrsa_mgf1_xor(&toy, em + 1 + TOY_SIZE, dblen, em + 1, TOY_SIZE);
    ctrsa_mgf1_xor(&toy, em + 1, TOY_SIZE, em + 1 + TOY_SIZE, dblen);
}

static int run_oaep(void)
{
    static const size_t ks[] = { 128, 256 };
    static const uint8_t label[] = "label";
    uint8_t em[MAX_K], work[MAX_K], db[MAX_K], out[MAX_K], want[MAX_K], lhash[TOY_SIZE];
    ctrsa_span lp = { label, sizeof(label) - 1 };
    size_t ki, mlen, outlen, want_len, dblen, max;
    int m, r, want_r;

    toy_digest(&toy, &lp, 1, lhash);
    for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        size_t k = ks[ki];

        ctrsa_oaep_max_message(k, TOY_SIZE, &max);
        dblen = k - TOY_SIZE - 1;
        for (mlen = 0; mlen <= max; mlen += max / 3) {
            for (m = M_NONE; m < M_N; m++) {
                /* DB = lHash || zeros || 0x01 || M, then the malformation. */
                memcpy(db, lhash, TOY_SIZE);
                memset(db + TOY_SIZE, 0, dblen - TOY_SIZE);
                db[dblen - mlen - 1] = 0x01;
                ct_rand_bytes(db + dblen - mlen, mlen);
                if (m == M_NO_SEPARATOR)
                    db[dblen - mlen - 1] = 0x00;
                if (m == M_SHORT_PS) /* a stray nonzero byte before the separator */
                    db[TOY_SIZE] = 0x02;
                if (m == M_LHASH)
                    db[mlen % TOY_SIZE] ^= 0x10;
                oaep_block(em, k, m == M_FIRST_BYTE ? 0x01 : 0x00, db);
                if (m == M_SECOND_BYTE)
                    continue; /* no second header byte in OAEP */

                /* Expected result, on defined data. */
                memcpy(work, em, k);
                want_len = 0;
                want_r = ctrsa_oaep_decode(&toy, &toy, work, k, label, sizeof(label) - 1,
                                           want, k, &want_len);
                if (!validity_as_expected(oaep_expect[m], want_r))
                    return ct_fail("oaep-decode", "unexpected validity on defined data");

                /* The same with EM secret. */
                memcpy(work, em, k);
                outlen = 0;
                ct_secret(work, k);
                r = ctrsa_oaep_decode(&toy, &toy, work, k, label, sizeof(label) - 1, out, k,
                                      &outlen);
                ct_public(&r, sizeof(r));
                ct_public(&outlen, sizeof(outlen));
                ct_public(out, max);
                if (r != want_r || (r == CTRSA_PAD_OK && (outlen != want_len
                                                          || memcmp(out, want, outlen) != 0)))
                    return ct_fail("oaep-decode", "secret run differs");
            }
        }
    }
    return 0;
}

/* ---- PKCS#1 v1.5 --------------------------------------------------------------------- */

/* em := 00 02 PS 00 M with |M| = mlen, then the malformation. */
static void pkcs1_block(uint8_t *em, size_t k, size_t mlen, int m)
{
    size_t i, pslen = k - mlen - 3;

    em[0] = 0x00;
    em[1] = 0x02;
    ct_rand_bytes(em + 2, pslen);
    for (i = 2; i < 2 + pslen; i++)
        em[i] |= (uint8_t)(em[i] == 0); /* public test input: make PS nonzero */
    em[2 + pslen] = 0x00;
    ct_rand_bytes(em + 3 + pslen, mlen);
    if (m == M_FIRST_BYTE)
        em[0] = 0x01;
    if (m == M_SECOND_BYTE)
        em[1] = 0x01;
    if (m == M_NO_SEPARATOR)
        em[2 + pslen] = 0x42;
    if (m == M_SHORT_PS)
        em[6] = 0x00;
    if (m == M_LHASH) /* for PKCS#1: a zero-length message (separator last) */
        em[k - 1] = 0x00;
}

static int run_pkcs1(void)
{
    static const size_t ks[] = { 64, 256 };
    uint8_t em[MAX_K], work[MAX_K], out[MAX_K], want[MAX_K];
    size_t ki, mlen, outlen, want_len;
    int m, r, want_r;

    for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        size_t k = ks[ki], max = k - CTRSA_PKCS1_PADDING_SIZE;

        for (mlen = 0; mlen <= max; mlen += max / 4) {
            for (m = M_NONE; m < M_N; m++) {
                pkcs1_block(em, k, mlen, m);
                memcpy(work, em, k);
                want_len = 0;
                want_r = ctrsa_pkcs1_type2_decode(work, k, want, k, &want_len);

                memcpy(work, em, k);
                outlen = 0;
                ct_secret(work, k);
                r = ctrsa_pkcs1_type2_decode(work, k, out, k, &outlen);
                ct_public(&r, sizeof(r));
                ct_public(&outlen, sizeof(outlen));
                ct_public(out, max);
                if (r != want_r || (r == CTRSA_PAD_OK && (outlen != want_len
                                                          || memcmp(out, want, outlen) != 0)))
                    return ct_fail("pkcs1-decode", "secret run differs");
                if (!validity_as_expected(pkcs1_expect[m], r))
                    return ct_fail("pkcs1-decode", "unexpected validity");
            }
        }
    }
    return 0;
}

static int run_pkcs1_ir(void)
{
    static const size_t ks[] = { 64, 256 };
    uint8_t em[MAX_K], ct[MAX_K], out[MAX_K], want[MAX_K], d_hash[32], d_secret[32];
    uint8_t em_secret[MAX_K];
    size_t ki, mlen, outlen, want_len;
    int m, r, want_r;

    ct_rand_bytes(d_hash, sizeof(d_hash));
    for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        size_t k = ks[ki], max = k - CTRSA_PKCS1_PADDING_SIZE;

        for (mlen = 0; mlen <= max; mlen += max / 2) {
            for (m = M_NONE; m < M_N; m++) {
                pkcs1_block(em, k, mlen, m);
                ct_rand_bytes(ct, k); /* public ciphertext */
                want_len = 0;
                want_r = ctrsa_pkcs1_type2_decode_ir(&toy, d_hash, ct, em, k, want, k,
                                                     &want_len);
                if (want_r != CTRSA_PAD_OK)
                    return ct_fail("pkcs1-decode-ir", "implicit rejection reported an error");

                memcpy(em_secret, em, k);
                memcpy(d_secret, d_hash, sizeof(d_hash));
                ct_secret(em_secret, k);
                ct_secret(d_secret, sizeof(d_secret));
                outlen = 0;
                r = ctrsa_pkcs1_type2_decode_ir(&toy, d_secret, ct, em_secret, k, out, k,
                                                &outlen);
                ct_public(&r, sizeof(r));
                ct_public(&outlen, sizeof(outlen));
                ct_public(out, max);
                if (r != want_r || outlen != want_len || memcmp(out, want, outlen) != 0)
                    return ct_fail("pkcs1-decode-ir", "secret run differs");
            }
        }
    }
    return 0;
}

static int run_tls(void)
{
    const size_t k = 128;
    uint8_t em[128], rnd_pms[48], rnd_secret[48], em_secret[128], out[48], want[48];
    int m;

    for (m = M_NONE; m < M_N; m++) {
        pkcs1_block(em, k, 48, m == M_LHASH ? M_NONE : m);
        em[k - 48] = 0x03;
        em[k - 47] = (uint8_t)(m == M_LHASH ? 0x01 : 0x03); /* M_LHASH: a bad version */
        ct_rand_bytes(rnd_pms, sizeof(rnd_pms));
        if (ctrsa_tls_premaster_decode(em, k, 0x0303, 0x0302, rnd_pms, want) != CTRSA_PAD_OK)
            return ct_fail("tls-premaster", "unexpected error");
        if (memcmp(want, m == M_NONE ? em + k - 48 : rnd_pms, 48) != 0)
            return ct_fail("tls-premaster", "wrong choice on defined data");

        memcpy(em_secret, em, k);
        memcpy(rnd_secret, rnd_pms, 48);
        ct_secret(em_secret, k);
        ct_secret(rnd_secret, sizeof(rnd_secret));
        ctrsa_tls_premaster_decode(em_secret, k, 0x0303, 0x0302, rnd_secret, out);
        ct_public(out, sizeof(out));
        if (memcmp(out, want, 48) != 0)
            return ct_fail("tls-premaster", "secret run differs");
    }
    return 0;
}

const struct ct_case ct_enc_padding_cases[] = {
    { "oaep-decode", "EM secret: OAEP decode of valid and malformed blocks", run_oaep },
    { "pkcs1-decode", "EM secret: PKCS#1 v1.5 decode, explicit rejection", run_pkcs1 },
    { "pkcs1-decode-ir", "EM and SHA-256(d) secret: decode with implicit rejection",
      run_pkcs1_ir },
    { "tls-premaster", "EM and the random secret secret: TLS pre-master decode", run_tls },
    { NULL, NULL, NULL },
};
