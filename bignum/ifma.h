/*
 * The AVX-512 IFMA backend's private contracts (issue 7): radix 2^52 numbers, the
 * almost-Montgomery multiplication (AMM) kernels and the whole-modexp hooks.
 *
 * Everything declared here except ctbn_backend_ifma (backend.h) is compiled with
 * -mavx512f -mavx512ifma -mavx512vl -mavx512bw and MUST only run once ctbn_cpu_features()
 * reported CTBN_CPU_AVX512F | CTBN_CPU_AVX512IFMA | CTBN_CPU_AVX512VL | CTBN_CPU_AVX512BW.
 *
 * Radix 2^52: a number of D digits is D uint64_t, least significant first, each digit
 * < 2^52 ("normalized"), padded with zero digits to a multiple of 8 (one 512-bit register
 * holds 8 digits), in a 64-byte aligned array. D is 10, 20, 30 or 40 for moduli of 8, 16, 24
 * or 32 limbs of 64 bits (512, 1024, 1536, 2048 bits), and on the public path also 60 or 80
 * for 48 or 64 limbs (3072, 4096 bits): 52 D = 65 n >= 64 n + 8, so R' = 2^(52 D) > 4 m.
 *
 * AMM(a, b) = a * b * R'^-1 mod m up to one m: for a, b < 2m the result is < 2m and
 * congruent to a b R'^-1 (Gueron's almost-Montgomery multiplication). Values stay in
 * [0, 2m) through the whole exponentiation; only the final result is reduced.
 */
#ifndef CTRSA_IFMA_H
#define CTRSA_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "bignum.h"

#define CTBN_IFMA_MASK52 ((uint64_t)0xFFFFFFFFFFFFF)

/* The largest digit count (4096-bit moduli, public path only) and its padded lane count. */
#define CTBN_IFMA_MAX_DIGITS 80
#define CTBN_IFMA_MAX_LANES 80

/* Digits for n limbs: 10, 20, 30 or 40 for n = 8, 16, 24, 32; 0 for any other n. */
size_t ctbn_ifma_digits(size_t n);

/* Digits for n limbs on the public-exponent path (ifma_exp_public.c), which has single
 * kernels for more sizes than the modexp hooks; 0 for any n it does not handle. CT: public. */
size_t ctbn_ifma_public_digits(size_t n);

/* Lanes (a multiple of 8) holding D digits. */
#define CTBN_IFMA_LANES(d) (((d) + 7) / 8 * 8)

/* A modulus in radix 2^52 with its Montgomery constants. 64-byte aligned. */
typedef struct ctbn_ifma_mod {
    _Alignas(64) uint64_t m[CTBN_IFMA_MAX_LANES];  /* the modulus, normalized, zero-padded */
    _Alignas(64) uint64_t rr[CTBN_IFMA_MAX_LANES]; /* R'^2 mod m, normalized */
    uint64_t k0;                                   /* -m^-1 mod 2^52 */
    size_t digits;                                 /* D (public) */
} ctbn_ifma_mod;

/* ---------------------------------------------------------------------------------------
 * Radix conversion (ifma_convert.c)
 */

/*
 * d (lanes = CTBN_IFMA_LANES(digits)) := x (n limbs) in radix 2^52, normalized, the lanes
 * past the value zero. Requires 52 * digits >= 64 * n. d MUST NOT alias x.
 * CT: only n and digits leak (fixed trip counts, public bit positions).
 */
void ctbn_ifma_from_radix64(uint64_t *d, size_t digits, const ctbn_limb *x, size_t n);

/*
 * x (n limbs) := d (digits normalized digits of 52 bits) in radix 2^64; bits of d above
 * 64 n are dropped (the caller knows the value fits). x MUST NOT alias d.
 * CT: only n and digits leak.
 */
void ctbn_ifma_to_radix64(ctbn_limb *x, size_t n, const uint64_t *d, size_t digits);

/*
 * mod := the radix 2^52 form of ctx's modulus, k0 and R'^2 mod m (R' = 2^(52 D)), from
 * ctx->rr = 2^(128 n) mod m by 2 n modular doublings (52 D = 65 n). Requires
 * ctbn_ifma_digits(ctx->n) != 0. scratch: ctx->n limbs.
 * CT: only ctx->n leaks; the modulus may be secret (a prime factor).
 */
void ctbn_ifma_mod_init(ctbn_ifma_mod *mod, const ctbn_mont *ctx, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Almost-Montgomery multiplication (ifma_amm.c)
 *
 * r := AMM(a, b) modulo mod->m, normalized. a and b normalized, a, b < 2m (each < 2^(52D)).
 * (What r < 2m needs is a b < m R': (a b + Q m) / R' with Q < R'. The public path passes
 * b = 2^(4n), which can exceed 2m for a modulus with leading zero limbs, with a < m.)
 * r MAY alias a or b. All arrays 64-byte aligned, CTBN_IFMA_LANES(D) lanes; pad lanes of a
 * and b must be zero, those of r are written zero.
 * The _x2 forms do two independent AMMs (the CRT halves, same D) in one interleaved pass:
 * two dependency chains in flight. Every kernel reads all its inputs before it writes any
 * result, so any pointers may alias (the public path passes one pair's b as the other's a
 * and r).
 * CT: only D leaks: fixed trip counts, no memory index or branch depends on a, b or m.
 */
typedef void ctbn_ifma_amm_x1_fn(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const ctbn_ifma_mod *mod);
typedef void ctbn_ifma_amm_x2_fn(uint64_t *r1, const uint64_t *a1, const uint64_t *b1,
                                 const ctbn_ifma_mod *mod1,
                                 uint64_t *r2, const uint64_t *a2, const uint64_t *b2,
                                 const ctbn_ifma_mod *mod2);

ctbn_ifma_amm_x1_fn ctbn_ifma_amm10_x1, ctbn_ifma_amm20_x1,
    ctbn_ifma_amm30_x1, ctbn_ifma_amm40_x1;
/* 60 and 80 digits (3072, 4096-bit moduli): single AMMs only, for the public path. */
ctbn_ifma_amm_x1_fn ctbn_ifma_amm60_x1, ctbn_ifma_amm80_x1;
ctbn_ifma_amm_x2_fn ctbn_ifma_amm10_x2, ctbn_ifma_amm20_x2,
    ctbn_ifma_amm30_x2, ctbn_ifma_amm40_x2;
/* 10 and 20 digits on 512-bit registers (the others above are 256-bit at 10 and 20). */
ctbn_ifma_amm_x1_fn ctbn_ifma_amm10z_x1, ctbn_ifma_amm20z_x1;
ctbn_ifma_amm_x2_fn ctbn_ifma_amm10z_x2, ctbn_ifma_amm20z_x2;

/*
 * Almost-Montgomery squaring: r := AMM(a, a), the same contract as the AMM with b = a
 * (a < 2m normalized, r < 2m normalized, r MAY alias a) and bit-identical results, with
 * about a fifth fewer IFMA instructions (each off-diagonal product computed once and
 * doubled). Not used by the modexp: on Zen 4 it measured no faster than the AMM (its
 * separate reduction pass has half the vpmadd52 per lane shift and add, and the lane
 * shifts compete with vpmadd52 for the same pipes); kept, tested, for CPUs or a reduction
 * where it pays.
 * CT: only D leaks.
 */
typedef void ctbn_ifma_ams_x1_fn(uint64_t *r, const uint64_t *a, const ctbn_ifma_mod *mod);
typedef void ctbn_ifma_ams_x2_fn(uint64_t *r1, const uint64_t *a1, const ctbn_ifma_mod *mod1,
                                 uint64_t *r2, const uint64_t *a2, const ctbn_ifma_mod *mod2);

ctbn_ifma_ams_x1_fn ctbn_ifma_ams10_x1, ctbn_ifma_ams20_x1,
    ctbn_ifma_ams30_x1, ctbn_ifma_ams40_x1;
ctbn_ifma_ams_x2_fn ctbn_ifma_ams10_x2, ctbn_ifma_ams20_x2,
    ctbn_ifma_ams30_x2, ctbn_ifma_ams40_x2;
ctbn_ifma_ams_x1_fn ctbn_ifma_ams10z_x1, ctbn_ifma_ams20z_x1;
ctbn_ifma_ams_x2_fn ctbn_ifma_ams10z_x2, ctbn_ifma_ams20z_x2;

/* The kernels for D digits (10, 20, 30, 40, and 60, 80 for amm_x1); NULL for any other D.
 * CT: public. */
ctbn_ifma_amm_x1_fn *ctbn_ifma_amm_x1_for(size_t digits);
ctbn_ifma_amm_x2_fn *ctbn_ifma_amm_x2_for(size_t digits);
ctbn_ifma_ams_x1_fn *ctbn_ifma_ams_x1_for(size_t digits);
ctbn_ifma_ams_x2_fn *ctbn_ifma_ams_x2_for(size_t digits);

/* The same kernels with 512-bit registers at every D: 10 and 20 digits on zmm where the
 * functions above give 256-bit ones; every other D as above. The "ifmaz" backend's.
 * CT: public. */
ctbn_ifma_amm_x1_fn *ctbn_ifma_amm_x1_zmm_for(size_t digits);
ctbn_ifma_amm_x2_fn *ctbn_ifma_amm_x2_zmm_for(size_t digits);
ctbn_ifma_ams_x1_fn *ctbn_ifma_ams_x1_zmm_for(size_t digits);
ctbn_ifma_ams_x2_fn *ctbn_ifma_ams_x2_zmm_for(size_t digits);

/* ---------------------------------------------------------------------------------------
 * The whole-modexp hooks (ifma_modexp.c), with the contracts of backend.h's modexp_ct and
 * modexp2_ct: they handle n = 8, 16, 24, 32 (modexp2: both halves of the same n) and return 1,
 * else 0 without writing anything. Results are fully reduced, in radix 2^64, identical to
 * the portable path.
 * CT: only the limb counts and exponent bit lengths leak.
 */
int ctbn_ifma_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                        const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_ifma_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                         const ctbn_limb *e1, size_t e1_bits,
                         const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                         const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);
/* The same on the 512-bit kernels at every size (ctbn_ifma_amm_x*_zmm_for): "ifmaz". */
int ctbn_ifmaz_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                         const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_ifmaz_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                          const ctbn_limb *e1, size_t e1_bits,
                          const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                          const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * The public-exponent hook (ifma_exp_public.c), with the contract of backend.h's
 * modexp_public_vartime: it handles the n of ctbn_ifma_public_digits and returns 1 (r fully
 * reduced, identical to the generic path; r MAY alias b; scratch unused), else 0 without
 * writing anything.
 * CT: e, en and n leak (public); b and m only enter constant-time arithmetic.
 */
int ctbn_ifma_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                    const ctbn_limb *e, size_t en, ctbn_limb *scratch);

#endif /* CTRSA_IFMA_H */
