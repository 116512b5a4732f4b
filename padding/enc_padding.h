/*
 * Encryption paddings: RSAES-OAEP (RFC 8017 7.1), RSAES-PKCS1-v1_5 (RFC 8017 7.2) with the
 * implicit rejection of draft-irtf-cfrg-rsa-guidance (byte-for-byte as OpenSSL 3.2+), and
 * the TLS pre-master secret decode (RFC 5246 7.4.7.1). No OpenSSL headers: hashes and
 * randomness come in through padding/hash.h.
 *
 * Secrets: in every decoder the whole decrypted block EM is secret, and so are the
 * message, its length and whether the padding is valid, up to the single final result.
 * Public: k (the modulus length in bytes), hash lengths, the label, the ciphertext and the
 * output capacity. Encoders treat the message and the random bytes as secret.
 *
 * Return codes (all functions):
 *   CTRSA_PAD_OK        success
 *   CTRSA_PAD_FAIL      decoders only: the one opaque decoding failure
 *   CTRSA_PAD_BAD_ARGS  a public length is impossible (message too long for k, k too small
 *                       for the hash, k above CTRSA_ENC_MAX_K, output capacity too small)
 *   CTRSA_PAD_HASH_ERR  the hash failed (or has an unusable size)
 *   CTRSA_PAD_RAND_ERR  the random generator failed
 * The decoders compute CTRSA_PAD_OK / CTRSA_PAD_FAIL as the validity bit itself, without a
 * branch: the caller's test of the result is the one point where validity becomes public.
 */
#ifndef CTRSA_ENC_PADDING_H
#define CTRSA_ENC_PADDING_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"

#define CTRSA_PAD_OK 1
#define CTRSA_PAD_FAIL 0
#define CTRSA_PAD_BAD_ARGS (-1)
#define CTRSA_PAD_HASH_ERR (-2)
#define CTRSA_PAD_RAND_ERR (-3)

/* The largest k the padding code accepts: a 16384-bit modulus (CTBN_MAX_BITS / 8). */
#define CTRSA_ENC_MAX_K 2048

/* PKCS#1 v1.5: 0x00 0x02, at least 8 padding bytes, 0x00 separator. */
#define CTRSA_PKCS1_PADDING_SIZE 11
/* The TLS pre-master secret length (SSL_MAX_MASTER_KEY_LENGTH). */
#define CTRSA_TLS_PREMASTER_LEN 48

/* ---------------------------------------------------------------------------------------
 * OAEP (oaep_encode.c, oaep_decode.c)
 */

/*
 * *max := the longest message OAEP can carry for modulus length k and lHash length hlen,
 * k - 2 hlen - 2. Returns 0 (and leaves *max alone) if k < 2 hlen + 2. Public values only.
 */
int ctrsa_oaep_max_message(size_t k, size_t hlen, size_t *max);

/*
 * EME-OAEP encoding, RFC 8017 7.1.1 step 2: em[0..k) := 0x00 || maskedSeed || maskedDB for
 * message msg[0..mlen), label[0..llen) (may be NULL when llen is 0), lHash and seed length
 * from `hash`, the mask from MGF1 over `mgf1_hash` (may be the same struct), and a seed of
 * hash->size bytes from `rnd`. em MUST NOT overlap msg or label.
 * Returns CTRSA_PAD_OK, CTRSA_PAD_BAD_ARGS (mlen > k - 2 hLen - 2, k > CTRSA_ENC_MAX_K),
 * CTRSA_PAD_HASH_ERR or CTRSA_PAD_RAND_ERR; on failure em is wiped.
 * CT: only k, mlen, llen and the hash sizes leak; msg and the seed are secret.
 */
int ctrsa_oaep_encode(const ctrsa_hash *hash, const ctrsa_hash *mgf1_hash,
                      const ctrsa_rand *rnd, uint8_t *em, size_t k,
                      const uint8_t *msg, size_t mlen, const uint8_t *label, size_t llen);

/*
 * EME-OAEP decoding, RFC 8017 7.1.2 step 3, of the decrypted block em[0..k). em is unmasked
 * and shifted IN PLACE (the caller wipes it). On success out[0..*outlen) is the message;
 * the bytes of out[0..min(outcap, k - 2 hLen - 2)) past it are zeroed. On failure that
 * window of out is zeroed and *outlen is left alone.
 * Returns CTRSA_PAD_OK, CTRSA_PAD_FAIL (the one opaque error: bad leading byte, bad lHash,
 * no 0x01 separator, or message longer than outcap), CTRSA_PAD_BAD_ARGS (k < 2 hLen + 2 or
 * k > CTRSA_ENC_MAX_K) or CTRSA_PAD_HASH_ERR.
 * CT: only k, llen, outcap and the hash sizes leak until the final result; em, the message,
 * its length and the validity are secret.
 */
int ctrsa_oaep_decode(const ctrsa_hash *hash, const ctrsa_hash *mgf1_hash,
                      uint8_t *em, size_t k, const uint8_t *label, size_t llen,
                      uint8_t *out, size_t outcap, size_t *outlen);

/* ---------------------------------------------------------------------------------------
 * PKCS#1 v1.5 type 2 (pkcs1_enc.c, pkcs1_dec_ct.c, pkcs1_synthetic.c)
 */

/*
 * EME-PKCS1-v1_5 encoding, RFC 8017 7.2.1 step 2: em[0..k) := 0x00 0x02 PS 0x00 M with PS
 * k - mlen - 3 >= 8 nonzero random bytes. Zero bytes from `rnd` are replaced by fresh
 * random bytes with constant-time selects (no branch on which byte was zero; only the
 * number of refill rounds, at most 64, depends on the random data).
 * Returns CTRSA_PAD_OK, CTRSA_PAD_BAD_ARGS (mlen > k - 11, k > CTRSA_ENC_MAX_K) or
 * CTRSA_PAD_RAND_ERR; on failure em is wiped. em MUST NOT overlap msg.
 * CT: only k and mlen leak; msg and PS are secret.
 */
int ctrsa_pkcs1_type2_encode(const ctrsa_rand *rnd, uint8_t *em, size_t k,
                             const uint8_t *msg, size_t mlen);

/*
 * EME-PKCS1-v1_5 decoding, RFC 8017 7.2.2 step 3, WITHOUT implicit rejection: em[0..k) is
 * checked and shifted IN PLACE (the caller wipes it). On success out[0..*outlen) is the
 * message, and out[0..min(outcap, k - 11)) is written; on failure that window is zeroed and
 * *outlen is left alone.
 * Returns CTRSA_PAD_OK, CTRSA_PAD_FAIL (the one opaque error: bad 0x00 0x02 header, fewer
 * than 8 padding bytes, no separator, or message longer than outcap) or CTRSA_PAD_BAD_ARGS
 * (k < 11 or k > CTRSA_ENC_MAX_K).
 * CT: only k and outcap leak until the final result.
 */
int ctrsa_pkcs1_type2_decode(uint8_t *em, size_t k, uint8_t *out, size_t outcap,
                             size_t *outlen);

/*
 * The same decoding WITH implicit rejection (draft-irtf-cfrg-rsa-guidance, as OpenSSL 3.2's
 * ossl_rsa_padding_check_PKCS1_type_2): when the padding is bad, the result is a synthetic
 * message derived from the key and the ciphertext, so that success tells nothing.
 *   sha256   a ctrsa_hash that MUST be SHA-256 (size 32, block 64; checked)
 *   d_hash   SHA-256 of the private exponent d as a k-byte big-endian string (secret)
 *   ct       the ciphertext, exactly k bytes (left-padded with zeros by the caller; public)
 *   em       the decrypted block, k bytes (secret; read only)
 * out[0..*outlen) := the real message when the padding is valid, else the synthetic one;
 * outcap MUST be at least k - 11 (so that neither can be too long).
 * Returns CTRSA_PAD_OK in both cases, CTRSA_PAD_BAD_ARGS (k < 11, k > CTRSA_ENC_MAX_K,
 * outcap < k - 11) or CTRSA_PAD_HASH_ERR (sha256 is not SHA-256 sized, or failed).
 * CT: only k and outcap leak; d_hash, em, the validity and both messages are secret, and no
 * branch or memory index depends on them. The returned *outlen is the output's length.
 */
int ctrsa_pkcs1_type2_decode_ir(const ctrsa_hash *sha256, const uint8_t d_hash[32],
                                const uint8_t *ct, const uint8_t *em, size_t k,
                                uint8_t *out, size_t outcap, size_t *outlen);

/*
 * Implicit-rejection pieces, exposed for the known-answer tests (pkcs1_synthetic.c).
 *
 * ctrsa_ir_kdk: kdk := HMAC-SHA256(key = d_hash, message = ct[0..k)).
 * ctrsa_ir_prf: out[0..outlen) := the first outlen bytes of
 *   HMAC-SHA256(kdk, I || label || L) for I = 0, 1, 2, ..., concatenated, where I is a
 *   16-bit big-endian counter, label the ASCII label without its NUL and L = 8 * outlen as
 *   a 16-bit big-endian number (outlen <= 8191).
 * ctrsa_ir_synthetic: syn[0..k) := PRF(kdk, "message", k), and *synlen := the last of the
 *   128 16-bit big-endian candidates of PRF(kdk, "length", 256), each masked to the bit
 *   length of k - 10, that is below k - 10 (0 if none is). The synthetic message is the
 *   LAST *synlen bytes of syn.
 * Each returns CTRSA_PAD_OK, CTRSA_PAD_BAD_ARGS or CTRSA_PAD_HASH_ERR.
 * CT: only k, outlen and the label length leak; keys, candidates and outputs are secret.
 */
int ctrsa_ir_kdk(const ctrsa_hash *sha256, const uint8_t d_hash[32], const uint8_t *ct,
                 size_t k, uint8_t kdk[32]);
int ctrsa_ir_prf(const ctrsa_hash *sha256, const uint8_t kdk[32], const char *label,
                 uint8_t *out, size_t outlen);
int ctrsa_ir_synthetic(const ctrsa_hash *sha256, const uint8_t kdk[32], size_t k,
                       uint8_t *syn, size_t *synlen);

/* ---------------------------------------------------------------------------------------
 * TLS pre-master secret (tls_premaster.c)
 */

/*
 * RSA_PKCS1_WITH_TLS_PADDING, as OpenSSL's ossl_rsa_padding_check_PKCS1_type_2_TLS:
 * em[0..k) must be 0x00 0x02, k - 51 nonzero bytes, 0x00, then 48 bytes whose first two are
 * client_version (big-endian 16 bits) or, when alt_version is nonzero, alt_version (the
 * negotiated version, a workaround for clients with the rollback bug).
 * out[0..48) := those 48 bytes if all checks hold, else random_pms[0..48) (fresh random
 * bytes from the caller). It never reports bad padding.
 * Returns CTRSA_PAD_OK, or CTRSA_PAD_BAD_ARGS if k < 11 + 48 or k > CTRSA_ENC_MAX_K.
 * CT: only k and the public versions leak; em and which result was chosen are secret.
 */
int ctrsa_tls_premaster_decode(const uint8_t *em, size_t k, unsigned int client_version,
                               unsigned int alt_version,
                               const uint8_t random_pms[CTRSA_TLS_PREMASTER_LEN],
                               uint8_t out[CTRSA_TLS_PREMASTER_LEN]);

#endif
