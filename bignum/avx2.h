/*
 * The AVX2 backend's private contracts (issue 11): radix 2^28 numbers, the almost-Montgomery
 * multiplication (AMM) kernels on VPMULUDQ and the whole-modexp hooks, for CPUs without
 * AVX-512 IFMA.
 *
 * Everything declared here except ctbn_backend_avx2 (backend.h) is compiled with -mavx2
 * -mbmi2 and MUST only run once ctbn_cpu_features() reported CTBN_CPU_AVX2 (the backend
 * also needs BMI2 and ADX for its radix 2^64 kernels).
 *
 * Radix 2^28: a number of D digits (D = 40, 56, 76 for moduli of 16, 24, 32 limbs: 1024,
 * 1536, 2048 bits; 28 D >= 64 n + 2, so R' = 2^(28 D) > 4 m) is stored as a "span" of
 * CTBN_AVX2_SPAN(D) uint64_t, 32-byte aligned: CTBN_AVX2_PAD zero lanes, the D digits least
 * significant first, CTBN_AVX2_PAD zero lanes. The zero lanes let the kernel read the
 * digits shifted by 0 to 3 lanes with plain unaligned loads.
 *
 * Digits are "lazy": each < 2^28 + 2^9 (CTBN_AVX2_DIGIT_MAX), not necessarily < 2^28; a
 * number's value is the sum of digit_i 2^(28 i). The kernel's 64-bit lane accumulators take
 * D steps of two products each, < 76 * 2 * (2^28 + 2^9)^2 < 2^63.3, so no lane overflows
 * before the carries are propagated once at the end (two vector passes, which bring every
 * digit back under 2^28 + 2^9).
 *
 * AMM(a, b) = a b R'^-1 mod m up to one m: for a, b < 2m the result is < 2m (Gueron's
 * almost-Montgomery multiplication). Values stay in [0, 2m) through the exponentiation.
 */
#ifndef CTRSA_AVX2_H
#define CTRSA_AVX2_H

#include <stddef.h>
#include <stdint.h>

#include "bignum.h"

#define CTBN_AVX2_BITS 28
#define CTBN_AVX2_MASK ((uint64_t)0xFFFFFFF)
/* Every digit of a kernel operand or result is below this. */
#define CTBN_AVX2_DIGIT_MAX (((uint64_t)1 << 28) + ((uint64_t)1 << 9))

#define CTBN_AVX2_PAD 4
#define CTBN_AVX2_MAX_DIGITS 76
#define CTBN_AVX2_SPAN(d) ((d) + 2 * CTBN_AVX2_PAD)
#define CTBN_AVX2_MAX_SPAN CTBN_AVX2_SPAN(CTBN_AVX2_MAX_DIGITS)

/* Digits for n limbs: 40, 56, 76 for n = 16, 24, 32; 0 for any other n. CT: public. */
size_t ctbn_avx2_digits(size_t n);

/* A modulus in radix 2^28 (normalized digits < 2^28) with its Montgomery constants. */
typedef struct ctbn_avx2_mod {
    _Alignas(32) uint64_t m[CTBN_AVX2_MAX_SPAN];  /* span of the modulus */
    _Alignas(32) uint64_t rr[CTBN_AVX2_MAX_SPAN]; /* span of R'^2 mod m */
    uint64_t k0;                                  /* -m^-1 mod 2^28 */
    size_t digits;                                /* D (public) */
} ctbn_avx2_mod;

/* ---------------------------------------------------------------------------------------
 * Radix conversion and modulus set-up (avx2_convert.c)
 */

/*
 * Span d (CTBN_AVX2_SPAN(digits) lanes) := x (n limbs) in radix 2^28, normalized, pad lanes
 * and the digits past the value zero. Requires 28 digits >= 64 n. d MUST NOT alias x.
 * CT: only n and digits leak.
 */
void ctbn_avx2_from_radix64(uint64_t *d, size_t digits, const ctbn_limb *x, size_t n);

/*
 * x (n limbs) := the value of span d (digits lazy digits, each < 2^32), carries propagated;
 * bits above 64 n are dropped (the caller knows the value fits). x MUST NOT alias d.
 * CT: only n and digits leak.
 */
void ctbn_avx2_to_radix64(ctbn_limb *x, size_t n, const uint64_t *d, size_t digits);

/*
 * mod := ctx's modulus in radix 2^28, k0, and R'^2 mod m (R' = 2^(28 D)) from ctx->rr by
 * 56 D - 128 n modular doublings. Requires ctbn_avx2_digits(ctx->n) != 0. scratch: ctx->n
 * limbs. CT: only ctx->n leaks; the modulus may be secret (a prime factor).
 */
void ctbn_avx2_mod_init(ctbn_avx2_mod *mod, const ctbn_mont *ctx, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Almost-Montgomery multiplication (avx2_amm.c)
 *
 * Span r := AMM(a, b) modulo mod->m. a and b are spans of lazy digits (< CTBN_AVX2_DIGIT_MAX)
 * with values < 2m; r gets lazy digits, value < 2m, its pad lanes zero. The pad lanes of a
 * and b must be zero. r MAY alias a or b. Spans 32-byte aligned.
 * CT: only D leaks: fixed trip counts; no memory index or branch depends on a, b or m.
 */
typedef void ctbn_avx2_amm_x1_fn(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const ctbn_avx2_mod *mod);

ctbn_avx2_amm_x1_fn ctbn_avx2_amm40_x1, ctbn_avx2_amm56_x1, ctbn_avx2_amm76_x1;

/* The kernels for D digits (40, 56, 76); NULL for any other D. CT: public. */
ctbn_avx2_amm_x1_fn *ctbn_avx2_amm_x1_for(size_t digits);

/* ---------------------------------------------------------------------------------------
 * The whole-modexp hooks (avx2_modexp.c), with the contracts of backend.h's modexp_ct and
 * modexp2_ct: they handle the n of the measured size table in avx2_modexp.c (modexp2: both
 * halves of the same n) and return 1, else 0 without writing anything. Results fully reduced, radix 2^64,
 * identical to the portable path. The window table lives on the stack (up to 2 x 21.5 KiB):
 * it does not fit CTBN_MODEXP_SCRATCH in radix 2^28.
 * CT: only the limb counts and exponent bit lengths leak.
 */
int ctbn_avx2_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                        const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_avx2_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                         const ctbn_limb *e1, size_t e1_bits,
                         const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                         const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

#endif /* CTRSA_AVX2_H */
