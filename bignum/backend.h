/*
 * The backend seam: CPU-specific Montgomery kernels behind one struct of function pointers,
 * chosen once (backend.c) from what the CPU and OS support (cpu_x86.c).
 *
 * Private to bignum/: the public face is ctbn_backend_select / ctbn_backend_name /
 * ctbn_backend_supported in bignum.h. ctbn_mont_mul, ctbn_mont_sqr, ctbn_modexp_ct and
 * ctbn_modexp2_ct keep their contracts (bignum.h) and dispatch through the active backend:
 *
 *   ctbn_mont_mul / ctbn_mont_sqr   -> active->mont_mul / active->mont_sqr (mandatory hooks)
 *   ctbn_modexp_ct                  -> active->modexp_ct if non-NULL and it returns 1,
 *                                      else the generic fixed-window modexp (modexp_ct.c)
 *                                      on active->mont_mul / mont_sqr
 *   ctbn_modexp2_ct                 -> active->modexp2_ct if non-NULL and it returns 1,
 *                                      else ctbn_modexp_ct on each half
 *   ctbn_modexp_public_vartime      -> active->modexp_public_vartime if non-NULL and it
 *                                      returns 1, else the generic square-and-multiply
 *                                      (exp_public_vartime.c) on active->mont_mul / mont_sqr
 *
 * Everything built on ctbn_mont_mul (to/from Montgomery form, R^2 in ctbn_mont_init,
 * reduction, key checks) follows the active backend too.
 *
 * The portable backend (mont_mul.c, modexp_ct.c) is the reference: always built, never
 * removed, and the oracle every other backend is tested against (test/bignum/test_backends.c).
 */
#ifndef CTRSA_BACKEND_H
#define CTRSA_BACKEND_H

#include "bignum.h"

/* ---------------------------------------------------------------------------------------
 * CPU features (cpu_x86.c)
 *
 * A bit is set only if the CPU has the feature AND the OS saves the register state it needs
 * (checked with XGETBV on XCR0 when OSXSAVE is set): the AVX bits need XMM and YMM state
 * (XCR0 bits 1, 2), the AVX-512 bits also the opmask and ZMM state (XCR0 bits 5, 6, 7).
 * BMI2 and ADX use only general registers. Zero on CPUs other than x86-64.
 */
#define CTBN_CPU_BMI2        (1u << 0)
#define CTBN_CPU_ADX         (1u << 1)
#define CTBN_CPU_AVX2        (1u << 2)
#define CTBN_CPU_AVX512F     (1u << 3)
#define CTBN_CPU_AVX512DQ    (1u << 4)
#define CTBN_CPU_AVX512BW    (1u << 5)
#define CTBN_CPU_AVX512VL    (1u << 6)
#define CTBN_CPU_AVX512IFMA  (1u << 7)
#define CTBN_CPU_AVX512VBMI  (1u << 8)
/*
 * Not an instruction set but a core's trait, for "auto" only (cpu_needs never names it):
 * AVX-512 IFMA whose 512-bit vpmadd52 issues at the rate of the 256-bit one. Set on AMD
 * family 26 (Zen 5: issue 22 measured 0.146 ns per zmm and 0.15 per ymm vpmadd52luq, 12
 * independent chains). Zen 4 (family 25) and the Intel cores measured (Sapphire and
 * Emerald Rapids) issue zmm IFMA at half the ymm rate, or no faster per digit product.
 */
#define CTBN_CPU_ZMM_IFMA_FULL_RATE (1u << 9)

/* The feature bits above, detected once (thread-safe, idempotent). CT: public. */
unsigned ctbn_cpu_features(void);

/* The core traits (CTBN_CPU_ZMM_IFMA_FULL_RATE) of a CPU of that vendor (amd: 1 for AMD)
 * and display family (base family, plus the extended family when the base is 15), with
 * those feature bits: what ctbn_cpu_features adds to the instruction-set bits. A function
 * of its own so that tests can check the rule on CPUs they do not run on. CT: public. */
unsigned ctbn_cpu_core_traits(int amd, unsigned family, unsigned features);

/* Clearing the vector registers: ctbn_clear_vector_regs in bignum.h (clear_regs.c). */
/* Only call this when ctbn_cpu_features() has CTBN_CPU_AVX512F (clear_regs_avx512.c). */
void ctbn_clear_regs_avx512(void);
/* Only call this when ctbn_cpu_features() has CTBN_CPU_AVX2 (clear_regs_avx.c). */
void ctbn_clear_regs_avx(void);

/* ---------------------------------------------------------------------------------------
 * A backend
 */
typedef struct ctbn_backend {
    /* "portable", "adx", "avx512y", "avx2", "avx512", "ifma", "ifmaz": what
     * ctbn_backend_name and CTRSA_CPU use. */
    const char *name;

    /* CTBN_CPU_* bits that must all be present for this backend to be selectable. */
    unsigned cpu_needs;

    /* Bits that "auto" also wants before it picks this backend (a core's traits, such as
     * CTBN_CPU_ZMM_IFMA_FULL_RATE); 0 for most. Naming the backend (CTRSA_CPU,
     * ctbn_backend_select) needs cpu_needs only, so any CPU that can run it can test it. */
    unsigned auto_needs;

    /*
     * Mandatory. The contracts of ctbn_mont_mul / ctbn_mont_sqr (bignum.h) for EVERY limb
     * count 1..CTBN_MAX_LIMBS: r fully reduced, a < R unreduced accepted by mont_mul, r MAY
     * alias a or b. A backend without its own may point at ctbn_adx_mont_mul/sqr (and add
     * CTBN_CPU_BMI2 | CTBN_CPU_ADX to cpu_needs) or at ctbn_portable_mont_mul/sqr.
     * CT: only ctx->n leaks.
     */
    void (*mont_mul)(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a,
                     const ctbn_limb *b);
    void (*mont_sqr)(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);

    /*
     * Optional (NULL: never handled). Take over a whole ctbn_modexp_ct call, with exactly its
     * contract (bignum.h), including scratch: CTBN_MODEXP_SCRATCH(ctx->n) limbs, 8-byte
     * aligned only (align inside it, or use the stack, if the kernel wants more).
     * Returns 1 if it computed r, 0 if it does not handle this call, in which case it MUST
     * NOT have written r and the generic code runs instead.
     * The handled-or-not decision MUST depend only on public values: ctx->n, ctx->bits and
     * e_bits (for instance "n is 16, 24 or 32").
     * CT: only ctx->n and e_bits leak.
     */
    int (*modexp_ct)(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                     const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);

    /*
     * Optional (NULL: never handled). Take over a whole ctbn_modexp2_ct call (the two CRT
     * halves at once), with exactly its contract (bignum.h): scratch is
     * CTBN_MODEXP2_SCRATCH(ctx1->n, ctx2->n) limbs. Returns 1 if it computed r1 and r2, 0 if
     * not handled (nothing written; the halves then go through ctbn_modexp_ct one by one,
     * which still offers each half to modexp_ct). The decision depends only on the public
     * ctx1->n, ctx2->n, e1_bits, e2_bits.
     * CT: only the limb counts and e1_bits, e2_bits leak.
     */
    int (*modexp2_ct)(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                      const ctbn_limb *e1, size_t e1_bits,
                      const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                      const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

    /*
     * Optional (NULL: never handled). Take over a whole ctbn_modexp_public_vartime call (the
     * public-exponent path: verify, encrypt, the check after a private operation, blinding
     * set-up), with exactly its contract (bignum.h): b < m in normal form, r MAY alias b,
     * scratch is CTBN_EXP_VARTIME_SCRATCH(ctx->n) limbs, 8-byte aligned only. Returns 1 if
     * it computed r, 0 if it does not handle this call (nothing written; the generic
     * square-and-multiply, ctbn_modexp_public_vartime_generic, then runs on this backend's
     * mont_mul / mont_sqr). A hook that handles some sizes only may also call
     * ctbn_modexp_public_vartime_generic itself for the others.
     * The decision may depend on public values only: ctx->n, ctx->bits, e and en.
     * b may be secret (an encryption block, a blinding value): it must only enter
     * constant-time arithmetic.
     * CT: e and en leak (public), and ctx->n; b does not.
     */
    int (*modexp_public_vartime)(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                 const ctbn_limb *e, size_t en, ctbn_limb *scratch);
} ctbn_backend;

/*
 * Registration points, one per backend. Each returns its backend's constant descriptor, or
 * NULL when this build does not contain it (e.g. not x86-64). They do not check the CPU:
 * backend.c compares cpu_needs with ctbn_cpu_features(). These functions and the descriptors
 * must be compiled WITHOUT the backend's target flags (they run before the CPU is checked):
 * only the kernels themselves carry -mbmi2/-madx, -mavx512*, or target attributes.
 */
const ctbn_backend *ctbn_backend_portable(void); /* mont_mul.c: always built */
const ctbn_backend *ctbn_backend_adx(void);      /* adx_backend.c */
const ctbn_backend *ctbn_backend_avx2(void);     /* avx2_backend.c */
const ctbn_backend *ctbn_backend_ifma(void);     /* ifma_backend.c */
const ctbn_backend *ctbn_backend_ifmaz(void);    /* ifma_backend.c: 512-bit at every size */
const ctbn_backend *ctbn_backend_avx512(void);   /* avx512_backend.c */
const ctbn_backend *ctbn_backend_avx512y(void);  /* avx512_backend.c: its 256-bit instance */

/* The active backend (backend.c): never NULL. See ctbn_backend_select in bignum.h. */
const ctbn_backend *ctbn_backend_active(void);

/* The generic fixed-window modexp on backend be's mont_mul/mont_sqr (modexp_ct.c). */
void ctbn_modexp_ct_generic(const ctbn_backend *be, const ctbn_mont *ctx, ctbn_limb *r,
                            const ctbn_limb *b, const ctbn_limb *e, size_t e_bits,
                            ctbn_limb *scratch);

/*
 * The generic public-exponent path on backend be's mont_mul/mont_sqr (exp_public_vartime.c):
 * the contract of ctbn_modexp_public_vartime, one conversion into Montgomery form and none
 * out of it for odd e. CT: e, en and ctx->n leak; b does not.
 */
void ctbn_modexp_public_vartime_generic(const ctbn_backend *be, const ctbn_mont *ctx,
                                        ctbn_limb *r, const ctbn_limb *b, const ctbn_limb *e,
                                        size_t en, ctbn_limb *scratch);

/* The kernels, for backends that reuse them (contracts: ctbn_mont_mul / ctbn_mont_sqr). */
void ctbn_portable_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a,
                            const ctbn_limb *b);
void ctbn_portable_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);
/* Only call these when ctbn_cpu_features() has CTBN_CPU_BMI2 and CTBN_CPU_ADX. */
void ctbn_adx_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a,
                       const ctbn_limb *b);
void ctbn_adx_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);

/*
 * The w bits (w <= 8) of the exponent e (elimbs limbs) starting at the PUBLIC bit position
 * pos, bits past e reading as zero: the window of a fixed-window modexp, shared by every
 * backend's. CT: branches on pos and elimbs only; the value is secret.
 */
static inline uint64_t ctbn_exp_window(const ctbn_limb *e, size_t elimbs, size_t pos,
                                       unsigned w)
{
    size_t limb = pos / 64, sh = pos % 64;
    uint64_t v = limb < elimbs ? e[limb] >> sh : 0;
    if (sh + w > 64 && limb + 1 < elimbs)
        v |= e[limb + 1] << (64 - sh);
    return v & (((uint64_t)1 << w) - 1);
}

#endif /* CTRSA_BACKEND_H */
