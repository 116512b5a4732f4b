/*
 * Signature padding (RFC 8017): the digest table with DigestInfo prefixes and OIDs
 * (digestinfo.c), EMSA-PKCS1-v1_5 and raw type-1 padding (pkcs1_sig.c), EMSA-PSS
 * (pss.c), and ANSI X9.31's block (x931_encode.c, x931_decode.c) and its choice of
 * representative (x931_representative.c). No OpenSSL here: hashes come through
 * padding/hash.h.
 *
 * Every buffer named `em` is the full k-byte block that goes into (or comes out of) the RSA
 * operation, k = byte length of the modulus. Everything here handles public data (a
 * signature's encoded message is public once signed), so these functions may branch on it;
 * they still reject every malformed block.
 */
#ifndef CTRSA_SIG_PADDING_H
#define CTRSA_SIG_PADDING_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"

/* The outcome of a padding step, mapped to an error reason by the provider. */
typedef enum ctrsa_pad_status {
    CTRSA_PAD_OK = 0,
    CTRSA_PAD_BAD_INPUT_LENGTH,   /* digest or payload length wrong for the scheme */
    CTRSA_PAD_KEY_TOO_SMALL,      /* the modulus cannot hold the encoding */
    CTRSA_PAD_BAD_SALT_LENGTH,    /* salt length mode/value unusable */
    CTRSA_PAD_HASH_FAILED,
    CTRSA_PAD_RANDOM_FAILED,
    CTRSA_PAD_BAD_SIGNATURE,      /* verification: the block is not a valid encoding */
} ctrsa_pad_status;

/* ---- Digest table (digestinfo.c) ---- */

typedef struct ctrsa_digest_info {
    const char *name;            /* canonical (OpenSSL's first name): "SHA2-256" */
    const char *aliases;         /* colon-separated other names OpenSSL accepts */
    size_t size;                 /* digest length in bytes */
    const uint8_t *oid;          /* content octets of the digest's OID (no tag/length) */
    size_t oid_len;
    const uint8_t *sig_oid;      /* content octets of <digest>WithRSAEncryption, or NULL */
    size_t sig_oid_len;
    int pkcs1_only;              /* SM3: only ctrsa_digest_info_lookup_pkcs1 finds it */
    uint8_t x931_id;             /* ANSI X9.31 hash identifier (SHA-1 and SHA-2 with 256,
                                    384 or 512 bits), 0 for a digest X9.31 does not name */
} ctrsa_digest_info;

/*
 * The entry for a digest name or alias (case-insensitive), or NULL if unknown: the digests
 * of every use (PKCS#1 v1.5, PSS and MGF1, RSA-PSS key restrictions).
 */
const ctrsa_digest_info *ctrsa_digest_info_lookup(const char *name);

/*
 * The same, plus the digests that the provider allows for PKCS#1 v1.5 signatures only, and
 * only on some OpenSSL versions (SM3, in OpenSSL's DigestInfo encoding: OpenSSL 3.4's
 * default provider signs with it, 3.0's refuses it): the caller decides.
 */
const ctrsa_digest_info *ctrsa_digest_info_lookup_pkcs1(const char *name);

/*
 * The DER DigestInfo prefix of RFC 8017 9.2 note 1 for d:
 * SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING (size) } up to the digest bytes.
 * Writes at most CTRSA_DIGESTINFO_PREFIX_MAX bytes to out and returns the length.
 */
#define CTRSA_DIGESTINFO_PREFIX_MAX 19
size_t ctrsa_digestinfo_prefix(const ctrsa_digest_info *d, uint8_t out[CTRSA_DIGESTINFO_PREFIX_MAX]);

/* ---- EMSA-PKCS1-v1_5 and raw type-1 (pkcs1_sig.c) ---- */

/*
 * RFC 8017 9.2: em[0..k) := 0x00 || 0x01 || PS (0xff...) || 0x00 || T, where
 * T = DigestInfo(d, digest) when d != NULL (digest_len must be d->size), or T = the raw
 * input when d == NULL (digest_len <= k - 11; what bare RSA signing of arbitrary data does).
 * PS is at least 8 bytes. Fails BAD_INPUT_LENGTH or KEY_TOO_SMALL.
 * CT: public data only (lengths and the message digest).
 */
ctrsa_pad_status ctrsa_emsa_pkcs1_encode(uint8_t *em, size_t k, const ctrsa_digest_info *d,
                                         const uint8_t *digest, size_t digest_len);

/*
 * Verification by re-encoding: OK if em[0..k) equals what ctrsa_emsa_pkcs1_encode would
 * produce for (d, digest), else BAD_SIGNATURE (or BAD_INPUT_LENGTH for a wrong digest_len).
 * CT: public data; variable time.
 */
ctrsa_pad_status ctrsa_emsa_pkcs1_verify(const uint8_t *em, size_t k,
                                         const ctrsa_digest_info *d,
                                         const uint8_t *digest, size_t digest_len);

/*
 * Verify-recover: check em[0..k) is a type-1 block (0x00 0x01, at least 8 bytes 0xff,
 * 0x00) and set *off and *len to the part after it. When d != NULL the part must be exactly
 * DigestInfo(d, ...) and *off and *len delimit the digest. BAD_SIGNATURE otherwise.
 * CT: public data; variable time.
 */
ctrsa_pad_status ctrsa_pkcs1_type1_recover(const uint8_t *em, size_t k,
                                           const ctrsa_digest_info *d,
                                           size_t *off, size_t *len);

/* ---- EMSA-PSS (pss.c) ---- */

/* Salt-length modes, with OpenSSL's values (RSA_PSS_SALTLEN_*). A value >= 0 is a length. */
#define CTRSA_PSS_SALTLEN_DIGEST (-1)           /* the digest length */
#define CTRSA_PSS_SALTLEN_AUTO (-2)             /* verify: recover from the block; sign: max */
#define CTRSA_PSS_SALTLEN_MAX (-3)              /* the largest the modulus allows */
#define CTRSA_PSS_SALTLEN_AUTO_DIGESTMAX (-4)   /* verify: auto; sign: min(digest, max) */

/*
 * The salt length to sign with for a mode, given the modulus bit length and the digest
 * length: -1 -> hlen, -2/-3 -> max = emLen - hlen - 2, -4 -> min(hlen, max), n >= 0 -> n.
 * Fails BAD_SALT_LENGTH for modes below -4, KEY_TOO_SMALL when the result does not fit.
 */
ctrsa_pad_status ctrsa_pss_sign_saltlen(size_t mod_bits, size_t hlen, int saltlen_mode,
                                        size_t *saltlen);

/*
 * RFC 8017 9.1.1 with emBits = mod_bits - 1: em[0..k) := the encoded message, with a
 * leading 0x00 byte when emLen = k - 1. mhash[0..h->size) is the message digest, the salt
 * (length from ctrsa_pss_sign_saltlen) comes from rnd, MGF1 uses mgf1 (may equal h).
 * k must be ceil(mod_bits / 8). Fails BAD_INPUT_LENGTH, KEY_TOO_SMALL, BAD_SALT_LENGTH,
 * HASH_FAILED, RANDOM_FAILED.
 * CT: public data (the salt is public once the signature is).
 */
ctrsa_pad_status ctrsa_emsa_pss_encode(uint8_t *em, size_t k, size_t mod_bits,
                                       const ctrsa_hash *h, const ctrsa_hash *mgf1,
                                       const uint8_t *mhash, size_t mhash_len,
                                       int saltlen_mode, const ctrsa_rand *rnd);

/*
 * RFC 8017 9.1.2 with emBits = mod_bits - 1, on the k-byte result em of the public
 * operation (em[0] must be 0 when emLen = k - 1). saltlen_mode: n >= 0 exact length,
 * -1 digest length, -3 max, -2/-4 recovered from the block. When salt_found is not NULL it
 * receives the salt length of a valid block. OK or BAD_SIGNATURE (BAD_INPUT_LENGTH,
 * BAD_SALT_LENGTH, HASH_FAILED for unusable arguments).
 * CT: public data; variable time.
 */
ctrsa_pad_status ctrsa_emsa_pss_verify(const uint8_t *em, size_t k, size_t mod_bits,
                                       const ctrsa_hash *h, const ctrsa_hash *mgf1,
                                       const uint8_t *mhash, size_t mhash_len,
                                       int saltlen_mode, size_t *salt_found);

/* ---- ANSI X9.31 (x931_encode.c, x931_decode.c, x931_representative.c) ---- */

/*
 * The X9.31 block of k bytes around payload[0..len) (for a signature: the digest, then its
 * X9.31 hash id): em := 0x6b || 0xbb... || 0xba || payload || 0xcc, or, when the payload
 * fills all but two bytes, 0x6a || payload || 0xcc (header and padding nibbles in one byte).
 * As OpenSSL's RSA_padding_add_X931. Fails BAD_INPUT_LENGTH when len > k - 2. payload and
 * em MUST NOT overlap.
 * CT: public data only (the block is signed; what is signed is public).
 */
ctrsa_pad_status ctrsa_x931_encode(uint8_t *em, size_t k, const uint8_t *payload, size_t len);

/*
 * The payload of an X9.31 block em[0..k): *off and *len delimit what ctrsa_x931_encode
 * wrapped. The verdicts are OpenSSL's RSA_padding_check_X931's, quirks included: the header
 * is 0x6a or 0x6b; after 0x6b the padding is 0xbb bytes up to a 0xba, of which there must
 * be at least one 0xbb (so a 0x6b 0xba block, which the encoder makes when the payload
 * fills all but three bytes, is refused); the trailer 0xcc is the last byte, except when no
 * 0xba is found, where the payload is empty and the trailer is read at em[k - 2]. A payload
 * may be empty. BAD_SIGNATURE otherwise. k >= 3.
 * CT: public data; variable time.
 */
ctrsa_pad_status ctrsa_x931_decode(const uint8_t *em, size_t k, size_t *off, size_t *len);

/*
 * X9.31's signature is the smaller of s and n - s (both are s^e = +-m mod n for an odd e):
 * sig[0..k) := min(s, n - s), s = sig on entry, 0 < s < n, n[0..k) odd, k at most
 * CTBN_MAX_BITS / 8 (sig is left as it is above that). In place.
 * CT: variable time; s is the signature about to be released, public.
 */
void ctrsa_x931_sig_minimal(uint8_t *sig, const uint8_t *n, size_t k);

/*
 * The verifier's side, on m = sig^e mod n: the block is m when m's low nibble is 0xc (every
 * block ends in 0xcc) and n - m otherwise, as OpenSSL's public decryption takes it:
 * m[0..k) := that block, in place. m < n, n[0..k) odd.
 * CT: public data; variable time.
 */
void ctrsa_x931_block_from_public(uint8_t *m, const uint8_t *n, size_t k);

#endif
