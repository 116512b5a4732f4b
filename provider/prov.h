/*
 * Shared by every file of the provider glue: the provider context, error reporting, tracing
 * and randomness. Implemented in provider/provider.c, provider/errors.c and provider/trace.c.
 */
#ifndef CTRSA_PROV_H
#define CTRSA_PROV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/core.h>
#include <openssl/types.h>

/* OpenSSL 3.0 lacks OSSL_DISPATCH_END. */
#ifndef OSSL_DISPATCH_END
#define OSSL_DISPATCH_END { 0, NULL }
#endif

/* The core's error functions (provider/errors.c binds them): each instance keeps those of
 * the core that loaded it, since a process can hold two cores (a program with a libcrypto
 * of its own, and the shared one ctrsa links, each loading ctrsa.so). */
typedef struct ctrsa_core_errors {
    void (*new_error)(const OSSL_CORE_HANDLE *);
    void (*set_debug)(const OSSL_CORE_HANDLE *, const char *, int, const char *);
    void (*vset_error)(const OSSL_CORE_HANDLE *, uint32_t, const char *, va_list);
    int (*set_mark)(const OSSL_CORE_HANDLE *);
    int (*clear_last_mark)(const OSSL_CORE_HANDLE *);
    int (*pop_to_mark)(const OSSL_CORE_HANDLE *);
} ctrsa_core_errors;

typedef struct ctrsa_provctx {
    const OSSL_CORE_HANDLE *handle;
    ctrsa_core_errors err;
    /* Digests and randomness come from here: the core's own library context when ctrsa
     * runs in the libcrypto that loaded it (libctx_is_child 0), else a child library
     * context, made at init and freed at teardown. The core's own is never freed by
     * ctrsa, so a teardown that comes after the application freed that context (keys
     * freed after their OSSL_LIB_CTX, an order OpenSSL leaves undefined) touches nothing
     * of it. */
    OSSL_LIB_CTX *libctx;
    int libctx_is_child;
    unsigned long core_version; /* the loading core's version (core_version.h), 0 if unknown */
    int core_is_other_copy; /* the core is not the libcrypto ctrsa links (libcrypto_copy.h) */
} CTRSA_PROVCTX;

/*
 * Reasons for ctrsa_raise. provider/errors.c's one table gives each the code it is raised
 * with: the default provider's (library, reason) where it refuses the same condition, else
 * ctrsa's own, and ctrsa's text for it. One reason per condition the default provider
 * codes apart (a too-short buffer is four: output, signature, plaintext, KEM).
 */
enum ctrsa_reason {
    CTRSA_R_INTERNAL = 1,
    CTRSA_R_MALLOC_FAILURE,
    CTRSA_R_INVALID_KEY,          /* malformed key material on import or validation */
    CTRSA_R_MISSING_KEY_PART,     /* a required number is absent */
    CTRSA_R_KEY_TOO_SMALL,
    CTRSA_R_KEY_TOO_LARGE,
    CTRSA_R_NOT_PRIVATE_KEY,      /* private operation on a public key */
    CTRSA_R_INPUT_TOO_LARGE,      /* input >= modulus */
    CTRSA_R_WRONG_INPUT_LENGTH,
    CTRSA_R_OUTPUT_BUFFER_TOO_SMALL,
    CTRSA_R_UNKNOWN_DIGEST,
    CTRSA_R_DIGEST_NOT_ALLOWED,
    CTRSA_R_INVALID_PADDING_MODE,
    CTRSA_R_INVALID_SALT_LENGTH,
    CTRSA_R_INVALID_PARAMETER,
    CTRSA_R_BAD_SIGNATURE,
    CTRSA_R_DECRYPT_FAILED,       /* the one opaque decryption error (OpenSSL 3.2+ cores) */
    CTRSA_R_FAULT_DETECTED,       /* private result failed the public-exponent check */
    CTRSA_R_RANDOM_FAILURE,
    CTRSA_R_OPERATION_NOT_INITIALIZED,
    CTRSA_R_KEYGEN_FAILED,
    CTRSA_R_BAD_KEYGEN_PARAMETER,
    CTRSA_R_UNSUPPORTED_OPENSSL,  /* the core is an OpenSSL this build cannot run on */
    CTRSA_R_MODULUS_TOO_LARGE,    /* n above the engine's maximum: the default's reason */
    /* Three of the default provider's reasons, with its texts, where OpenSSL's evp_test
     * vectors name them (evppkey_rsa.txt). */
    CTRSA_R_INVALID_MGF1_MD,      /* an MGF1 digest where there is no MGF1 (not PSS) */
    CTRSA_R_NOT_SUPPORTED_FOR_KEYTYPE, /* an RSA-PSS key asked to encrypt or decrypt */
    CTRSA_R_KEY_SIZE_TOO_SMALL,   /* key generation asked for fewer than 512 bits; a key
                                     too small for an X9.31 block */
    CTRSA_R_INVALID_X931_DIGEST,  /* pad-mode x931 with a digest X9.31 has no id for */
    CTRSA_R_SIGNATURE_BUFFER_TOO_SMALL, /* sign: the buffer is shorter than the key */
    CTRSA_R_PLAINTEXT_BUFFER_TOO_SMALL, /* decrypt: the buffer is shorter than it needs */
    CTRSA_R_KEM_BUFFER_TOO_SMALL, /* encapsulate, decapsulate: a buffer shorter than the key */
    CTRSA_R_ILLEGAL_PADDING_MODE, /* a pad-mode the operation or the key does not take, as
                                     it is set (INVALID_PADDING_MODE: found at the operation) */
    CTRSA_R_INVALID_DIGEST_LENGTH, /* a signature's input is not the digest's length */
    CTRSA_R_DATA_TOO_LARGE_FOR_KEY_SIZE, /* the message and its padding do not fit the key */
    CTRSA_R_DIGEST_TOO_BIG_FOR_KEY, /* PKCS#1 v1.5: the DigestInfo does not fit the key */
    CTRSA_R_PSS_SALTLEN_TOO_SMALL, /* a salt shorter than the RSA-PSS key's minimum */
    CTRSA_R_COUNT /* one past the last reason: keep last */
};

/*
 * Put an error on OpenSSL's error queue with the reason code and a printf-style detail.
 * Never pass secret values in the detail.
 */
void ctrsa_raise(const CTRSA_PROVCTX *prov, int reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define CTRSA_RAISE(prov, reason, ...) ctrsa_raise((prov), (reason), __VA_ARGS__)

/*
 * The error of an operation whose failure must cost what its success costs (a decryption's
 * padding verdict), for cores whose EVP layer raises its own error when a provider fails
 * silently (OpenSSL 3.2+; asym_cipher.c says why): the error is raised in both cases, then
 * dropped when ok is 1 (the queue is left as it was) and kept when ok is 0. Returns ok
 * (only its low bit is read).
 * CT: ok is secret in time, not in code: both outcomes make the same calls up to the last,
 * one indirect call whose target, the core's pop-to-mark (ok) or clear-mark (not ok), is
 * picked with a mask; the two cost the same within a few stores (errors.c gives the
 * figures), but they are two functions, which a cache probe on libcrypto's code can tell
 * apart, as it can tell the EVP layer's own failure-only call on those cores. reason and
 * the detail are public and must be the same for every way the operation can fail.
 */
int ctrsa_raise_unless(const CTRSA_PROVCTX *prov, int ok, int reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The reason-string table for OSSL_FUNC_provider_get_reason_strings. */
const OSSL_ITEM *ctrsa_reason_strings(void);

/*
 * The code ctrsa_raise hands the core for `reason`: ERR_PACK(lib, 0, code) of the default
 * provider's code for the same condition (ERR_GET_LIB != 0), or `reason` itself, which the
 * core raises under ctrsa's library. A value outside the enum is returned as is.
 */
uint32_t ctrsa_reason_code(int reason);

/*
 * Tracing: when CTRSA_TRACE names a file by its absolute path (or "stderr"), append one line
 * per operation: "ctrsa: <op> bits=<bits> pad=<padding>". No cost when off (one cached flag).
 * ctrsa_trace_configure, called at each provider load with the `trace` parameter of the
 * provider's configuration section (or NULL), decides the target once per process: the
 * environment first (ignored in setuid processes), then the configuration. A "%p" in the
 * file name makes one file per process. trace.c says what a trace file and its folder must
 * be (no symlinks, owned by this user, 0600) and why; a refused target turns tracing off.
 */
void ctrsa_trace_configure(const char *from_config);
int ctrsa_trace_enabled(void);
void ctrsa_trace(const char *op, size_t bits, const char *padding);

/*
 * buf[0..len) := random bytes from the child library context's public DRBG (bytes that
 * may be seen, such as padding). 1 on success; on failure an error is raised.
 */
int ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);

/*
 * buf[0..len) := random bytes from the child library context's private DRBG, for values
 * that stay secret (the TLS fallback pre-master), as OpenSSL draws them with
 * RAND_priv_bytes_ex. 1 on success; on failure an error is raised.
 */
int ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);

/* Buffer sizes for ctrsa_param_get_utf8: names (digests, modes) and property queries. */
#define CTRSA_PARAM_NAME_SIZE 64
#define CTRSA_PARAM_PROPS_SIZE 256   /* OpenSSL's OSSL_MAX_PROPQUERY_SIZE */

/*
 * buf[0..size) := the value of the UTF-8 string parameter p, NUL-terminated. At most
 * p->data_size bytes of p->data are read: the value ends at its first NUL or at data_size,
 * whichever comes first (a UTF-8 parameter's data need not be NUL-terminated: OpenSSL's
 * constructors give the string's length without its NUL). Only OSSL_PARAM_UTF8_STRING is
 * accepted, as the default provider accepts (OSSL_PARAM_get_utf8_string). 0 with
 * CTRSA_R_INVALID_PARAMETER raised if p is of another type, has no data, or its value does
 * not fit in size - 1 bytes. Public data only.
 */
int ctrsa_param_get_utf8(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, char *buf,
                         size_t size);

/* Wipe a buffer that held secrets (not optimised away). */
void ctrsa_cleanse(void *p, size_t len);

#endif
