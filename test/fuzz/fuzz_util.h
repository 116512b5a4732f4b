/*
 * Shared by the libFuzzer harnesses (test/fuzz/): a reader that turns the fuzzer's bytes
 * into values without ever failing (a short input reads as zeros), a library context that
 * holds ctrsa (linked in, instrumented, added with OSSL_PROVIDER_add_builtin) and OpenSSL's
 * default provider (the oracle), and the key operations that the two key harnesses share.
 *
 * A harness reports a bug by calling fz_fail: it prints the message and OpenSSL's error
 * queue, then aborts, which libFuzzer records as a crash with its reproducer.
 */
#ifndef CTRSA_FUZZ_UTIL_H
#define CTRSA_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/* ---- input reader ---- */

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint32_t fz_u32(fz_in *in);

/* A length-prefixed byte string: length = u16 % (max + 1), clipped to what is left.
 * *len receives it; returns a pointer into the input (valid for the call). */
const uint8_t *fz_bytes(fz_in *in, size_t max, size_t *len);

/* ---- failures ---- */

void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- providers ---- */

/* The harness library context: ctrsa (built in) and default, made once. */
OSSL_LIB_CTX *fz_libctx(void);

#define FZ_PROPQ_CTRSA "provider=ctrsa"
#define FZ_PROPQ_DEFAULT "provider=default"

/* 1 if the last failing call left at least one error on the queue; clears the queue. */
int fz_error_queued(void);

/*
 * 1 if a failed decryption on ctx of an inlen-byte ciphertext may have left the error
 * queue empty: ctrsa raises nothing for a padding failure (OAEP, PKCS#1 v1.5; its
 * asym_cipher.c says why), which needs a ciphertext of 1 to k bytes to reach the padding.
 * Every other failure must leave an error.
 */
int fz_silent_padding_failure(EVP_PKEY_CTX *ctx, size_t inlen);

/* ---- key operations (fuzz_keyops.c) ---- */

/*
 * The same key twice, owned by ctrsa (ck) and by the default provider (dk); has_private
 * says whether both hold the private half. Runs sign, verify, encrypt, decrypt (every
 * padding), raw public and private operations and the checks on ck, cross-checked with dk:
 * deterministic results must be identical, randomized ones must be accepted by the other
 * provider, and a failure of ctrsa where the default succeeds is a bug unless the README
 * lists it as a difference. `data` is arbitrary input (message, signature, ciphertext).
 * The raw public operation runs every time; sel picks one group of the others (checks and
 * raw private operation, PKCS#1 v1.5 encryption, OAEP, PKCS#1 v1.5 signatures, PSS), as
 * private-key operations dominate the cost of an execution.
 */
void fz_key_ops(EVP_PKEY *ck, EVP_PKEY *dk, int has_private, unsigned sel,
                const uint8_t *data, size_t len);

#endif
