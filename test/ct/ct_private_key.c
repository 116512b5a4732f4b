/*
 * Constant-time cases for the whole private-key path: the key object's private operation
 * (blinding from the cache and its refresh, CRT with both halves, recombination, unblinding,
 * the check with e), and the signature encodings that feed it (EMSA-PKCS1-v1_5 and EMSA-PSS).
 *
 * Secret (marked undefined): every private number of the key as the key object holds it
 * (p, q, dP, dQ, qInv, d and the Montgomery constants of p and q), the blinding randomness
 * (this file's ctrsa_random_priv_bytes marks what it returns undefined, so r, r^e and r^-1 are
 * too), and, for the encoders, the digest and the salt. Public: n, e, all lengths, the
 * input to the private operation. The verdict of the fault check and whether r was
 * invertible are declassified on purpose in the key object (CTBN_DECLASSIFY); everything
 * else must pass without a report.
 *
 * The key object is compiled into the harness with CTRSA_VALGRIND (see meson.build); this
 * file stands in for provider/util.c.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "ct_case.h"
#include "rsa_key_internal.h"
#include "rsa_op.h"
#include "sig_padding.h"
#include "rsasve.h"

int ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    (void)prov;
    if (RAND_bytes(buf, (int)len) != 1)
        return 0;
    ct_secret(buf, len);
    return 1;
}

int ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    return ctrsa_random_bytes(prov, buf, len);
}

void ctrsa_cleanse(void *p, size_t len)
{
    OPENSSL_cleanse(p, len);
}

static CTRSA_PROVCTX prov;

static void mark_mont_secret(const ctbn_mont *m)
{
    ct_secret(m->m, m->n * sizeof(ctbn_limb));
    ct_secret(m->rr, m->n * sizeof(ctbn_limb));
    ct_secret(&m->m0inv, sizeof(m->m0inv));
}

/* A key from OpenSSL's default provider, imported with factors and CRT values (crt 1), with
 * the factors only (crt 2: the key object derives dP, dQ, qInv) or with d only (crt 0). */
static CTRSA_KEY *make_key(int bits, int primes, int crt, EVP_PKEY **pkey_out)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", "provider=default");
    EVP_PKEY *pkey = NULL;
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits) != 1
        || EVP_PKEY_CTX_set_rsa_keygen_primes(ctx, primes) != 1
        || EVP_PKEY_generate(ctx, &pkey) != 1) {
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    EVP_PKEY_CTX_free(ctx);

    static const char *names[] = {"n", "e", "d", "rsa-factor1", "rsa-factor2",
                                  "rsa-factor3", "rsa-exponent1", "rsa-exponent2",
                                  "rsa-exponent3", "rsa-coefficient1", "rsa-coefficient2"};
    static uint8_t buf[11][1024];
    ctrsa_num v[11] = {{0}};
    for (size_t i = 0; i < 11; i++) {
        BIGNUM *bn = NULL;
        if (EVP_PKEY_get_bn_param(pkey, names[i], &bn) == 1) {
            v[i].len = (size_t)BN_bn2bin(bn, buf[i]);
            v[i].p = buf[i];
        }
        BN_clear_free(bn);
    }
    ctrsa_key_numbers nums = {0};
    nums.n = v[0];
    nums.e = v[1];
    nums.d = v[2];
    if (crt) {
        nums.nprimes = (size_t)primes;
        for (int i = 0; i < primes; i++) {
            nums.primes[i] = v[3 + i];
            if (crt == 2)       /* the factors only: dP, dQ, qInv derived at import */
                continue;
            nums.exps[i] = v[6 + i];
            if (i + 1 < primes)
                nums.coeffs[i] = v[9 + i];
        }
    }
    CTRSA_KEY *key = ctrsa_key_new(&prov);
    if (key == NULL || ctrsa_key_set(key, &nums) != 1) {
        ctrsa_key_free(key);
        EVP_PKEY_free(pkey);
        return NULL;
    }
    *pkey_out = pkey;
    return key;
}

static void mark_key_secret(CTRSA_KEY *key)
{
    if (key->d != NULL) /* d-only keys; CRT keys keep d only in the export numbers */
        ct_secret(key->d, key->nlimbs * sizeof(ctbn_limb));
    if (key->crt) {
        mark_mont_secret(key->mont_p);
        mark_mont_secret(key->mont_q);
        ct_secret(key->dp, key->plimbs * sizeof(ctbn_limb));
        ct_secret(key->dq, key->qlimbs * sizeof(ctbn_limb));
        ct_secret(key->qinv_mont, key->plimbs * sizeof(ctbn_limb));
    }
}

/* Run the private operation `rounds` times (past a blinding refresh) and check each result
 * against OpenSSL's own raw RSA with the same key. */
static int private_op_case(const char *name, int bits, int primes, int crt, int rounds)
{
    EVP_PKEY *pkey = NULL;
    CTRSA_KEY *key = make_key(bits, primes, crt, &pkey);
    if (key == NULL)
        return ct_fail(name, "key set-up");
    mark_key_secret(key);
    size_t k = ctrsa_key_size(key);
    uint8_t in[512], out[512], want[512];
    int rc = 0;
    for (int i = 0; i < rounds && rc == 0; i++) {
        ct_rand_bytes(in, k);
        in[0] = 0; /* below n */
        if (ctrsa_key_private_op(key, out, in) != 1) {
            rc = ct_fail(name, "private operation failed");
            break;
        }
        ct_public(out, k);
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, "provider=default");
        size_t wlen = sizeof(want);
        if (ctx == NULL || EVP_PKEY_decrypt_init(ctx) != 1
            || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) != 1
            || EVP_PKEY_decrypt(ctx, want, &wlen, in, k) != 1 || wlen != k
            || memcmp(want, out, k) != 0)
            rc = ct_fail(name, "result differs from OpenSSL's");
        EVP_PKEY_CTX_free(ctx);
    }
    ctrsa_key_free(key);
    EVP_PKEY_free(pkey);
    return rc;
}

static int ct_private_crt_2048(void) { return private_op_case("private-crt-2048", 2048, 2, 1, 40); }
static int ct_private_crt_1536(void) { return private_op_case("private-crt-1536", 1536, 2, 1, 3); }
/* RSA-3072: 1536-bit halves, the first size whose CRT halves run the avx512 kernels (and the
 * AVX2 backend's friendly 56-digit ones); its own meson tests (test/ct/meson.build). */
static int ct_private_crt_3072(void) { return private_op_case("private-crt-3072", 3072, 2, 1, 2); }
static int ct_private_no_crt(void) { return private_op_case("private-no-crt", 1024, 2, 0, 3); }
static int ct_private_crt_derived(void)
{
    return private_op_case("private-crt-derived", 1536, 2, 2, 3);
}
static int ct_private_3primes(void) { return private_op_case("private-3-primes", 1536, 3, 1, 3); }

/*
 * RSASVE (the KEM): the secret z is drawn by rejection sampling from bytes this file's
 * ctrsa_random_priv_bytes marks secret, so the range check and the encryption of z run on
 * secrets; then decapsulation (the private operation) must give z back. Odd-length moduli
 * exercise the masking of the top byte.
 */
static int rsasve_case(const char *name, int bits, int rounds)
{
    EVP_PKEY *pkey = NULL;
    CTRSA_KEY *key = make_key(bits, 2, 1, &pkey);
    if (key == NULL)
        return ct_fail(name, "key set-up");
    mark_key_secret(key);
    size_t k = ctrsa_key_size(key);
    uint8_t z[512], c[512], back[512];
    int rc = 0;
    for (int i = 0; i < rounds && rc == 0; i++) {
        if (ctrsa_rsasve_generate(key, z, c) != 1) {
            rc = ct_fail(name, "generate failed");
            break;
        }
        ct_public(c, k); /* the ciphertext is public: it goes on the wire */
        if (ctrsa_rsasve_recover(key, back, c) != 1) {
            rc = ct_fail(name, "recover failed");
            break;
        }
        ct_public(z, k);
        ct_public(back, k);
        if (memcmp(z, back, k) != 0)
            rc = ct_fail(name, "recovered secret differs");
    }
    ctrsa_key_free(key);
    EVP_PKEY_free(pkey);
    return rc;
}

static int ct_rsasve_1024(void) { return rsasve_case("rsasve-1024", 1024, 3); }
static int ct_rsasve_1025(void) { return rsasve_case("rsasve-1025", 1025, 3); }

/* A ctrsa_hash over OpenSSL's SHA-256 (constant time in its data). */
static int sha256_digest(const ctrsa_hash *h, const ctrsa_span *parts, size_t count,
                         uint8_t *out)
{
    (void)h;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < count; i++)
        ok = EVP_DigestUpdate(ctx, parts[i].p, parts[i].len) == 1;
    ok = ok && EVP_DigestFinal_ex(ctx, out, NULL) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int secret_salt(const ctrsa_rand *r, uint8_t *buf, size_t len)
{
    (void)r;
    ct_rand_bytes(buf, len);
    ct_secret(buf, len);
    return 1;
}

static int ct_encode_pkcs1(void)
{
    const ctrsa_digest_info *d = ctrsa_digest_info_lookup("SHA2-256");
    uint8_t digest[32], em[256];
    if (d == NULL)
        return ct_fail("encode-pkcs1", "no SHA2-256 DigestInfo");
    ct_rand_bytes(digest, sizeof(digest));
    ct_secret(digest, sizeof(digest));
    if (ctrsa_emsa_pkcs1_encode(em, sizeof(em), d, digest, sizeof(digest)) != CTRSA_PAD_OK)
        return ct_fail("encode-pkcs1", "encode failed");
    ct_public(em, sizeof(em));
    ct_public(digest, sizeof(digest));
    if (em[0] != 0 || em[1] != 1 || memcmp(em + sizeof(em) - 32, digest, 32) != 0)
        return ct_fail("encode-pkcs1", "wrong block");
    return 0;
}

static int ct_encode_pss(void)
{
    ctrsa_hash h = {32, 64, NULL, sha256_digest};
    ctrsa_rand rnd = {NULL, secret_salt};
    uint8_t mhash[32], em[256];
    ct_rand_bytes(mhash, sizeof(mhash));
    ct_secret(mhash, sizeof(mhash));
    if (ctrsa_emsa_pss_encode(em, sizeof(em), 2048, &h, &h, mhash, sizeof(mhash),
                              CTRSA_PSS_SALTLEN_DIGEST, &rnd) != CTRSA_PAD_OK)
        return ct_fail("encode-pss", "encode failed");
    ct_public(em, sizeof(em));
    ct_public(mhash, sizeof(mhash));
    size_t salt = 0;
    if (ctrsa_emsa_pss_verify(em, sizeof(em), 2048, &h, &h, mhash, sizeof(mhash),
                              CTRSA_PSS_SALTLEN_DIGEST, &salt) != CTRSA_PAD_OK || salt != 32)
        return ct_fail("encode-pss", "the block does not verify");
    return 0;
}

const struct ct_case ct_private_key_cases[] = {
    { "private-crt-2048", "RSA-2048 CRT private op x40 (blinding refresh + squaring)", ct_private_crt_2048 },
    { "private-crt-1536", "RSA-1536 CRT private op", ct_private_crt_1536 },
    { "private-no-crt", "RSA-1024 private op with d only", ct_private_no_crt },
    { "private-crt-derived", "RSA-1536 CRT private op, dP, dQ, qInv derived at import",
      ct_private_crt_derived },
    { "private-3-primes", "RSA-1536 three-prime key (d path)", ct_private_3primes },
    { "encode-pkcs1", "EMSA-PKCS1-v1_5 encoding of a secret digest", ct_encode_pkcs1 },
    { "encode-pss", "EMSA-PSS encoding with secret mHash and salt", ct_encode_pss },
    { "rsasve-1024", "RSASVE (KEM): secret z drawn, encrypted, recovered; RSA-1024", ct_rsasve_1024 },
    { "rsasve-1025", "RSASVE (KEM) on a 1025-bit modulus (top byte masked)", ct_rsasve_1025 },
    { NULL, NULL, NULL }
};

/* A group of its own: key generation at 3072 bits under valgrind is slow, so only the
 * backends whose kernels take 1536-bit halves run it (test/ct/meson.build). */
const struct ct_case ct_private_key_3072_cases[] = {
    { "private-crt-3072", "RSA-3072 CRT private op (1536-bit halves)", ct_private_crt_3072 },
    { NULL, NULL, NULL }
};
