/*
 * The provider entry: OSSL_provider_init, the provider context (a child library context
 * for digests and randomness), the provider parameters and the algorithm tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include "prov.h"
#include "rsa_key.h"
#include "rsa_op.h"
#include "core_errors.h"
#include "dispatch.h"
#include "core_version.h"
#include "libcrypto_copy.h"
#include "bignum.h"

#ifndef CTRSA_VERSION
#error "CTRSA_VERSION must be defined by the build (top-level meson.build)"
#endif

#define CTRSA_PROVIDER_NAME "ctrsa"
#define CTRSA_PROPS CTRSA_ALG_PROPS

#if defined(__clang__)
#define CTRSA_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define CTRSA_COMPILER "gcc " __VERSION__
#else
#define CTRSA_COMPILER "an unknown C compiler"
#endif

#define CTRSA_BUILDINFO_PREFIX "ctrsa " CTRSA_VERSION ", built with " CTRSA_COMPILER \
                               "; bignum backend: "

/* Provider parameter: the engine backend in use ("portable", "adx", "avx512y", "avx2",
 * "avx512", "ifma" or "ifmaz"). */
#define CTRSA_PROV_PARAM_BACKEND "ctrsa-backend"

/*
 * The build information: the bignum backend chosen at load, the path it takes per modulus
 * size (the backend descriptors in bignum/; the measurements behind them are in README.md, "Path per size
 * and CPU class"), and the backends this CPU supports. Every combination is a constant
 * string (the supported sets are the prefixes of "portable adx avx512y avx2 avx512 ifma ifmaz"
 * that end where bignum/backend.c's order adds a feature: avx512y and avx2 need the same
 * ones), so the pointer handed out stays valid.
 */
#define CTRSA_BI(active, supported) \
    CTRSA_BUILDINFO_PREFIX active "; backends supported here: " supported
#define CTRSA_BI_PORTABLE "portable (C, every size)"
#define CTRSA_BI_ADX "adx (MULX/ADCX/ADOX, every size)"
#define CTRSA_BI_AVX512Y \
    "avx512y (the avx512 backend's kernels on 256-bit registers, for tests: AVX2 " \
    "radix 2^28/2^29 private-key modexp for 1024/1536/2048-bit CRT halves; as avx2 " \
    "otherwise)"
#define CTRSA_BI_AVX2 \
    "avx2 (AVX2 radix 2^29/2^28 private-key modexp with a dedicated squaring for " \
    "1024/1536/2048-bit moduli and CRT halves, the 1536/2048-bit ones modulo a " \
    "Montgomery-friendly multiple; public exponent for 1024-4096 bits; MULX/ADX for every " \
    "other size)"
#define CTRSA_BI_AVX512 \
    "avx512 (AVX-512F radix 2^28/2^29 private-key modexp with a dedicated squaring for " \
    "1536/2048-bit moduli and CRT halves, modulo a Montgomery-friendly multiple, the " \
    "1024-bit ones on the avx2 kernels; public exponent for 1024-4096 bits; MULX/ADX for " \
    "every other size)"
#define CTRSA_BI_IFMA \
    "ifma (AVX-512 IFMA private-key modexp for 512-2048-bit moduli and CRT halves, " \
    "public exponent for 512-4096 bits; MULX/ADX for every other size)"
#define CTRSA_BI_IFMAZ \
    "ifmaz (the ifma backend's private-key kernels on 512-bit registers at every size, " \
    "for cores that issue 512-bit IFMA at the 256-bit rate: AMD Zen 5)"
#define CTRSA_BI_S1 "portable"
#define CTRSA_BI_S2 CTRSA_BI_S1 " adx"
#define CTRSA_BI_S4 CTRSA_BI_S2 " avx512y avx2"
#define CTRSA_BI_S5 CTRSA_BI_S4 " avx512"
#define CTRSA_BI_S6 CTRSA_BI_S5 " ifma"
#define CTRSA_BI_S7 CTRSA_BI_S6 " ifmaz"
#define CTRSA_BI_ROW(active)                                                          \
    { CTRSA_BI(active, CTRSA_BI_S1), CTRSA_BI(active, CTRSA_BI_S2), NULL,             \
      CTRSA_BI(active, CTRSA_BI_S4), CTRSA_BI(active, CTRSA_BI_S5),                   \
      CTRSA_BI(active, CTRSA_BI_S6), CTRSA_BI(active, CTRSA_BI_S7) }
static const char *ctrsa_buildinfo(void)
{
    static const char *const table[7][7] = {
        CTRSA_BI_ROW(CTRSA_BI_PORTABLE), CTRSA_BI_ROW(CTRSA_BI_ADX),
        CTRSA_BI_ROW(CTRSA_BI_AVX512Y),  CTRSA_BI_ROW(CTRSA_BI_AVX2),
        CTRSA_BI_ROW(CTRSA_BI_AVX512),   CTRSA_BI_ROW(CTRSA_BI_IFMA),
        CTRSA_BI_ROW(CTRSA_BI_IFMAZ),
    };
    static const char *const names[7] = { "portable", "adx", "avx512y", "avx2",
                                          "avx512", "ifma", "ifmaz" };
    const char *be = ctbn_backend_name();
    size_t supported = ctbn_backend_supported(NULL, 0), active = 7;
    for (size_t i = 0; i < 7; i++)
        if (strcmp(be, names[i]) == 0)
            active = i;
    /* the active backend is always among the supported ones */
    if (supported < 1 || supported > 7 || active >= supported ||
        table[active][supported - 1] == NULL)
        return CTRSA_BUILDINFO_PREFIX "unknown";
    return table[active][supported - 1];
}

static OSSL_FUNC_provider_teardown_fn ctrsa_teardown;
static OSSL_FUNC_provider_gettable_params_fn ctrsa_gettable_params;
static OSSL_FUNC_provider_get_params_fn ctrsa_get_params;
static OSSL_FUNC_provider_query_operation_fn ctrsa_query_operation;
static OSSL_FUNC_provider_get_reason_strings_fn ctrsa_get_reason_strings;

static const OSSL_ALGORITHM keymgmt_algs[] = {
    { CTRSA_RSA_NAMES, CTRSA_PROPS, ctrsa_rsa_keymgmt_functions,
      "ctrsa RSA key management" },
    { CTRSA_RSA_PSS_NAMES, CTRSA_PROPS, ctrsa_rsapss_keymgmt_functions,
      "ctrsa RSA-PSS key management" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM signature_algs[] = {
    CTRSA_RSA_SIGNATURE_ALGORITHM,
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM asym_cipher_algs[] = {
    { CTRSA_RSA_NAMES, CTRSA_PROPS, ctrsa_rsa_asym_cipher_functions,
      "ctrsa RSA encryption (OAEP, PKCS#1 v1.5, raw)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM kem_algs[] = {
    { CTRSA_RSA_NAMES, CTRSA_PROPS, ctrsa_rsa_kem_functions, "ctrsa RSA KEM (RSASVE)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM *ctrsa_query_operation(void *provctx, int operation_id,
                                                   int *no_cache)
{
    const OSSL_ALGORITHM *with_messages;

    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_KEYMGMT:
        return keymgmt_algs;
    case OSSL_OP_SIGNATURE:
        with_messages = ctrsa_message_signature_algorithms(provctx);
        return with_messages != NULL ? with_messages : signature_algs;
    case OSSL_OP_ASYM_CIPHER:
        return asym_cipher_algs;
    case OSSL_OP_KEM:
        return kem_algs;
    default:
        return NULL;
    }
}

static const OSSL_PARAM provider_param_types[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
    OSSL_PARAM_DEFN(CTRSA_PROV_PARAM_BACKEND, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *ctrsa_gettable_params(void *provctx)
{
    (void)provctx;
    return provider_param_types;
}

static int ctrsa_get_params(void *provctx, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    (void)provctx;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, CTRSA_PROVIDER_NAME))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, CTRSA_VERSION))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, ctrsa_buildinfo()))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL
        && !OSSL_PARAM_set_int(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, CTRSA_PROV_PARAM_BACKEND)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, ctbn_backend_name()))
        return 0;
    return 1;
}

static const OSSL_ITEM *ctrsa_get_reason_strings(void *provctx)
{
    (void)provctx;
    return ctrsa_reason_strings();
}

static void ctrsa_teardown(void *provctx)
{
    CTRSA_PROVCTX *prov = provctx;

    if (prov == NULL)
        return;
    ctrsa_thread_scratch_release();
    /* The core's own library context is the application's to free (prov.h); a child is
     * ctrsa's, and in a core of its own ctrsa's libcrypto may already be cleaned up
     * (libcrypto_copy.c). */
    if (prov->libctx_is_child) {
        if (!prov->core_is_other_copy || ctrsa_own_libcrypto_alive())
            OSSL_LIB_CTX_free(prov->libctx);
        else
            ctrsa_own_libcrypto_abandon(prov->libctx);
    }
    free(prov);
}

static const OSSL_DISPATCH provider_functions[] = {
    { OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))ctrsa_teardown },
    { OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))ctrsa_gettable_params },
    { OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))ctrsa_get_params },
    { OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))ctrsa_query_operation },
    { OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))ctrsa_get_reason_strings },
    OSSL_DISPATCH_END
};

/*
 * The OpenSSL this module was built for: the headers' version, unless the build names
 * another (the install tests build a copy that claims a newer OpenSSL, to see it refused).
 */
#ifndef CTRSA_BUILT_FOR_MAJOR
#define CTRSA_BUILT_FOR_MAJOR OPENSSL_VERSION_MAJOR
#endif
#ifndef CTRSA_BUILT_FOR_MINOR
#define CTRSA_BUILT_FOR_MINOR OPENSSL_VERSION_MINOR
#endif
#define CTRSA_STR2(x) #x
#define CTRSA_STR(x) CTRSA_STR2(x)
#define CTRSA_BUILT_FOR CTRSA_STR(CTRSA_BUILT_FOR_MAJOR) "." CTRSA_STR(CTRSA_BUILT_FOR_MINOR)

/*
 * Can this build run in a core of version `core` ("3.0.19", OSSL_PROV_PARAM_CORE_VERSION)?
 * OpenSSL 3 keeps its provider interface compatible within a major version going forward:
 * a module built against 3.0 runs in any 3.x core, but one built against 3.x may use
 * functions and parameters that an older 3.y core (y < x) lacks, and a new major version
 * may change anything. So: same major, and a minor at least the one built for.
 * 1 if compatible; 0 with an error on the queue that says what to do.
 */
static int ctrsa_core_version_ok(const CTRSA_PROVCTX *prov, const char *core)
{
    long major, minor;
    char *end;

    if (core == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_UNSUPPORTED_OPENSSL,
                    "ctrsa %s: the OpenSSL core did not say its version; ctrsa needs "
                    "OpenSSL %s or a later 3.x", CTRSA_VERSION, CTRSA_BUILT_FOR);
        return 0;
    }
    major = strtol(core, &end, 10);
    minor = *end == '.' ? strtol(end + 1, &end, 10) : -1;
    if (major == CTRSA_BUILT_FOR_MAJOR && minor >= CTRSA_BUILT_FOR_MINOR)
        return 1;
#define CTRSA_VERSION_REFUSAL \
    "ctrsa %s was built for OpenSSL %s but runs in OpenSSL %s: rebuild ctrsa against this " \
    "OpenSSL (its libssl-dev), or install the ctrsa package made for this system; until " \
    "then, remove ctrsa from the OpenSSL configuration (ctrsa-config disable)"
    CTRSA_RAISE(prov, CTRSA_R_UNSUPPORTED_OPENSSL, CTRSA_VERSION_REFUSAL, CTRSA_VERSION,
                CTRSA_BUILT_FOR, core);
    /*
     * Also on standard error: OpenSSL (3.0 to 3.5 at least) ignores a provider that fails to
     * load from the configuration without printing the error queue, so the refusal would
     * otherwise go unseen while RSA silently runs in the default provider.
     */
    fprintf(stderr, "ctrsa: " CTRSA_VERSION_REFUSAL "\n", CTRSA_VERSION, CTRSA_BUILT_FOR, core);
    return 0;
}

OSSL_provider_init_fn OSSL_provider_init;

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **provctx)
{
    CTRSA_PROVCTX *prov;
    OSSL_FUNC_core_get_params_fn *core_get_params = NULL;
    OSSL_FUNC_core_get_libctx_fn *core_get_libctx = NULL;
    const OSSL_DISPATCH *d;
    /* From the core: its version, and the `trace` key of ctrsa's configuration section. */
    const char *core_version = NULL, *trace = NULL;
    OSSL_PARAM core_params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_VERSION, (char **)&core_version, 0),
        OSSL_PARAM_utf8_ptr("trace", (char **)&trace, 0),
        OSSL_PARAM_END
    };

    prov = calloc(1, sizeof(*prov));
    if (prov == NULL)
        return 0;
    if (!ctrsa_errors_bind(prov, in)) {
        free(prov);
        return 0;
    }
    prov->handle = handle;
    /*
     * A core that is another copy of libcrypto: start ctrsa's own copy before anything is
     * called in it, without its exit handler (libcrypto_copy.c says why).
     */
    prov->core_is_other_copy = ctrsa_core_is_other_copy(in);
    if (prov->core_is_other_copy && !ctrsa_own_libcrypto_start()) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "the libcrypto ctrsa is linked with has been "
                    "cleaned up (OPENSSL_cleanup) in this process: ctrsa cannot load");
        free(prov);
        return 0;
    }
    for (d = in; d->function_id != 0; d++)
        if (d->function_id == OSSL_FUNC_CORE_GET_PARAMS)
            core_get_params = OSSL_FUNC_core_get_params(d);
        else if (d->function_id == OSSL_FUNC_CORE_GET_LIBCTX)
            core_get_libctx = OSSL_FUNC_core_get_libctx(d);
    if (core_get_params == NULL || !core_get_params(handle, core_params))
        core_version = NULL;
    if (!ctrsa_core_version_ok(prov, core_version)) {
        free(prov);
        return 0;
    }
    ctrsa_trace_configure(trace);
    ctrsa_blinding_setup();
    prov->core_version = ctrsa_parse_core_version(core_version);
    /*
     * Digests and randomness come from the application's providers: through the core's
     * library context itself when ctrsa links the core's libcrypto (the object behind
     * core_get_libctx is then an OSSL_LIB_CTX of this very library, as it is for the
     * default provider), else through a child. A child's teardown deregisters it from the
     * parent, which crashes when the application freed the parent before ctrsa's last key
     * (OpenSSL's threadstest does; OpenSSL's legacy provider crashes there too).
     */
    if (!prov->core_is_other_copy && core_get_libctx != NULL) {
        /* NULL is a valid answer: the default library context */
        prov->libctx = (OSSL_LIB_CTX *)core_get_libctx(handle);
    } else if ((prov->libctx = OSSL_LIB_CTX_new_child(handle, in)) != NULL) {
        prov->libctx_is_child = 1;
    } else {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "cannot create the child library context");
        free(prov);
        return 0;
    }
    /*
     * The engine backend, once per load: CTRSA_CPU forces one, else the best available.
     * secure_getenv: in a setuid (AT_SECURE) process the caller's environment picks nothing,
     * and a bogus value there cannot stop ctrsa from loading.
     */
    const char *cpu = secure_getenv("CTRSA_CPU");
    if (cpu == NULL || *cpu == '\0')
        cpu = "auto";
    if (ctbn_backend_select(cpu) != 0) {
        /* the names this CPU and build take, from the engine's list (public) */
        const char *names[8];
        char list[96] = "";
        size_t count = ctbn_backend_supported(names, 8);
        for (size_t i = 0; i < count && i < 8; i++) {
            strncat(list, names[i], sizeof(list) - strlen(list) - 1);
            strncat(list, ", ", sizeof(list) - strlen(list) - 1);
        }
        CTRSA_RAISE(prov, CTRSA_R_INVALID_PARAMETER,
                    "CTRSA_CPU=%s: unknown backend, or not supported by this CPU or build "
                    "(supported here: %sauto)", cpu, list);
        if (prov->libctx_is_child)
            OSSL_LIB_CTX_free(prov->libctx);
        free(prov);
        return 0;
    }
    *out = provider_functions;
    *provctx = prov;
    return 1;
}
