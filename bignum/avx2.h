/*
 * The AVX2 backend's private contracts (issue 11): radix 2^29 and 2^28 numbers, the
 * almost-Montgomery multiplication (AMM) kernels on VPMULUDQ and the whole-modexp hooks, for
 * CPUs without AVX-512 IFMA.
 *
 * Everything declared here except ctbn_backend_avx2 (backend.h) is compiled with -mavx2
 * -mbmi2 and MUST only run once ctbn_cpu_features() reported CTBN_CPU_AVX2 (the backend
 * also needs BMI2 and ADX for its radix 2^64 kernels).
 *
 * Radix 2^W: W bits per digit, D digits (W = 29, D = 36 for 16-limb moduli, 1024 bits;
 * W = 28, D = 56 for 24 limbs, 1536 bits; W = 29, D = 72 for 32 limbs, 2048 bits; and, on
 * the public-exponent path only, W = 29, D = 108 for 48 limbs, 3072 bits and D = 144 for
 * 64 limbs, 4096 bits; D a multiple of 4 with W D >= 64 n + 2, so R' = 2^(W D) > 4 m) is
 * stored as a "span" of
 * CTBN_AVX2_SPAN(D) uint64_t, 32-byte aligned: CTBN_AVX2_PAD zero lanes, the D digits least
 * significant first, CTBN_AVX2_PAD zero lanes. The zero lanes let the kernel read the
 * digits shifted by 0 to 3 lanes with plain unaligned loads.
 *
 * Digits are "lazy": each < 2^W + 2^9 (CTBN_AVX2_DIGIT_MAX(W)), not necessarily < 2^W; a
 * number's value is the sum of digit_i 2^(W i). The kernel's 64-bit lane accumulators take
 * one step of two products per digit of b: with W = 28, D = 56 steps < 56 * 2 * (2^28 +
 * 2^9)^2 < 2^63, so no lane overflows before the carries are propagated once at the end
 * (two vector passes, which bring every digit back under 2^W + 2^9); with W = 29 a step
 * adds up to 2^59.0001, so the kernel carries the live lanes once every 24 steps; a lane
 * the scalar quotient step consumes outside those passes takes at most 28 steps (56
 * products, about 2^63.81), still below 2^64. 29-bit digits take 36 instead of 40 digits at 1024 bits and 72
 * instead of 76 at 2048 (a fifth and a tenth fewer products); at 1536 bits both need 56.
 * None of these bounds depends on D: a lane's load between two passes is fixed by the pass
 * period (6 blocks), not by the operand length. With D = 108 (27 blocks) and D = 144 (36
 * blocks) the passes come after blocks 6, 12, 18, 24 (and 30), so the top lanes collect at
 * most 3 (D = 108) or 6 (D = 144) blocks, 24 steps at most, after the last pass before the
 * two final ones; a lane starts a period below 2^29 + 2^35 (a pass leaves W bits plus the
 * carry of the lane below, < 2^(64 - W)), and 24 steps (48 products, each below
 * (2^29 + 2^9)^2) bring it below 2^63.59, the 28 steps of a consumed lane below 2^63.81.
 * The top carry a pass hands to the fresh lane above is < 2^35 and is counted the same way.
 *
 * AMM(a, b) = a b R'^-1 mod m up to one m: for a, b < 2m the result is < 2m (Gueron's
 * almost-Montgomery multiplication). Values stay in [0, 2m) through the exponentiation.
 */
#ifndef CTRSA_AVX2_H
#define CTRSA_AVX2_H

#include <stddef.h>
#include <stdint.h>

#include "bignum.h"

/* Every digit of a kernel operand or result (W bits per digit) is below this. */
#define CTBN_AVX2_DIGIT_MAX(w) (((uint64_t)1 << (w)) + ((uint64_t)1 << 9))

#define CTBN_AVX2_PAD 4
/* The largest D of any kernel: 144 (4096 bits, public path only). The private modexp
 * hooks take at most 72 digits (ctbn_avx2_digits), and their table in the caller's scratch
 * (CTBN_MODEXP_SCRATCH) is sized for those only. */
#define CTBN_AVX2_MAX_DIGITS 144
#define CTBN_AVX2_SPAN(d) ((d) + 2 * CTBN_AVX2_PAD)
#define CTBN_AVX2_MAX_SPAN CTBN_AVX2_SPAN(CTBN_AVX2_MAX_DIGITS)

/* Digits for n limbs on the private modexp hooks (avx2_modexp.c): 36, 56, 72 for n = 16,
 * 24, 32; 0 for any other n. CT: public. */
size_t ctbn_avx2_digits(size_t n);

/* Bits per digit for n limbs on the private modexp hooks: 29, 28, 29 for n = 16, 24, 32;
 * 0 for any other n. CT: public. */
unsigned ctbn_avx2_digit_bits(size_t n);

/* Digits for n limbs for which an AMM kernel exists (the public-exponent path,
 * avx2_exp_public.c, and ctbn_avx2_mod_init): those of ctbn_avx2_digits and 108, 144 for
 * n = 48, 64; 0 for any other n. CT: public. */
size_t ctbn_avx2_public_digits(size_t n);

/* Bits per digit for the n of ctbn_avx2_public_digits: 29 for n = 48, 64, else as
 * ctbn_avx2_digit_bits. CT: public. */
unsigned ctbn_avx2_public_digit_bits(size_t n);

/* A modulus in radix 2^W (W = 28 or 29, normalized digits < 2^W) with its Montgomery
 * constants. */
typedef struct ctbn_avx2_mod {
    _Alignas(32) uint64_t m[CTBN_AVX2_MAX_SPAN];  /* span of the modulus */
    _Alignas(32) uint64_t rr[CTBN_AVX2_MAX_SPAN]; /* span of R'^2 mod m */
    uint64_t k2; /* -m^-1 mod 2^(2W): the kernels' quotient pairs (not read when friendly) */
    size_t digits;                                /* D (public) */
    unsigned bits;                                /* W (public) */
} ctbn_avx2_mod;

/*
 * Montgomery-friendly moduli. For a secret odd modulus m of n limbs the private modexp may
 * work modulo m~ = k0 m instead, k0 = -m^-1 mod 2^W: then m~ = -1 mod 2^W, its lowest digit
 * is 2^W - 1, -m~^-1 = 1 mod 2^W, and the AMM's quotient digit is the accumulator's low W
 * bits, its carry (t >> W) + y: the multiplications by k0 and by m~'s lowest digit leave
 * the scalar chain that bounds the kernel (about 1.2x faster at D = 56 and 72 on Zen 3).
 * Since m divides m~, x mod m = (x mod m~) mod m: the exponentiation runs modulo m~ and one
 * reduction modulo m ends it. It needs R' > 4 m~, i.e. W D >= 64 n + W + 2: true for
 * D = 56 (W = 28: 1568 >= 1566) and D = 72 (W = 29: 2088 >= 2079), not for D = 36
 * (1044 < 1055), so 1024-bit moduli keep the general kernel. m~ has the same digit count D
 * and the same digit bound as m, so every lane bound below holds unchanged.
 */

/* Whether n-limb moduli take the friendly form (n = 24, 32). CT: public. */
int ctbn_avx2_friendly(size_t n);

/* The kernel types (contracts below, "Almost-Montgomery multiplication"). */
typedef void ctbn_avx2_amm_x1_fn(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const ctbn_avx2_mod *mod);
typedef void ctbn_avx2_sqr_fn(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod);

/* ---------------------------------------------------------------------------------------
 * Radix conversion and modulus set-up (avx2_convert.c)
 */

/*
 * Span d (CTBN_AVX2_SPAN(digits) lanes) := x (n limbs) in radix 2^w (w = 28 or 29),
 * normalized, pad lanes and the digits past the value zero. Requires w digits >= 64 n.
 * d MUST NOT alias x. CT: only n, w and digits leak.
 */
void ctbn_avx2_from_radix64(uint64_t *d, unsigned w, size_t digits, const ctbn_limb *x,
                            size_t n);

/*
 * x (n limbs) := the value of span d (digits lazy digits of w bits, each < 2^32), carries
 * propagated; bits above 64 n are dropped (the caller knows the value fits). x MUST NOT
 * alias d. CT: only n, w and digits leak.
 */
void ctbn_avx2_to_radix64(ctbn_limb *x, size_t n, const uint64_t *d, unsigned w,
                          size_t digits);

/*
 * mod := ctx's modulus in radix 2^W, k2, and R'^2 mod m (R' = 2^(W D)) from ctx->rr by
 * 2 W D - 128 n modular doublings. Requires ctbn_avx2_public_digits(ctx->n) != 0 (D and W
 * from ctbn_avx2_public_digits / _digit_bits: for the private sizes the same as
 * ctbn_avx2_digits / _digit_bits). scratch: ctx->n limbs.
 * CT: only ctx->n leaks; the modulus may be secret (a prime factor).
 */
void ctbn_avx2_mod_init(ctbn_avx2_mod *mod, const ctbn_mont *ctx, ctbn_limb *scratch);

/* The same for an explicit D and W (the avx512 backend's plans, avx512.h): requires
 * W D >= 64 ctx->n + 2, W in {28, 29}, D <= CTBN_AVX2_MAX_DIGITS. CT: as above. */
void ctbn_avx2_mod_init_dw(ctbn_avx2_mod *mod, const ctbn_mont *ctx, size_t digits,
                           unsigned w, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Montgomery-friendly moduli (avx2_friendly.c)
 */

/*
 * mod := m~ = k0 m (see above) in radix 2^W, k2 := -m~^-1 mod 2^(2W), and R'^2 mod m~ (almost reduced,
 * < 2 m~), for ctx's modulus m. Requires ctbn_avx2_friendly(ctx->n). scratch:
 * CTBN_AVX2_FRIENDLY_SCRATCH(ctx->n) limbs. CT: only ctx->n and ctx->bits leak; m (a
 * secret prime) and m~ do not.
 */
#define CTBN_AVX2_FRIENDLY_SCRATCH(n) (2 * ((size_t)(n) + 1))
void ctbn_avx2_mod_init_friendly(ctbn_avx2_mod *mod, const ctbn_mont *ctx,
                                 ctbn_limb *scratch);

/* The same for an explicit D and W (W D >= 64 ctx->n + W + 2) whose friendly AMM kernel is
 * amm (it makes R'^2 by AMM squarings). CT: as above. */
void ctbn_avx2_mod_init_friendly_with(ctbn_avx2_mod *mod, const ctbn_mont *ctx,
                                      size_t digits, unsigned w,
                                      ctbn_avx2_amm_x1_fn *amm, ctbn_limb *scratch);

/*
 * r (ctx->n limbs) := the value of span d (digits lazy, value < 2^(64 (n + 1))) mod m,
 * fully reduced: how a result modulo m~ comes back modulo m. scratch:
 * CTBN_AVX2_FRIENDLY_SCRATCH(ctx->n) + CTBN_REDUCE_SCRATCH(ctx->n) limbs.
 * CT: only ctx->n, W and D leak.
 */
void ctbn_avx2_friendly_reduce(ctbn_limb *r, const ctbn_mont *ctx, const uint64_t *d,
                               unsigned w, size_t digits, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Almost-Montgomery multiplication (avx2_amm.c)
 *
 * Span r := AMM(a, b) modulo mod->m, for the D and W of the kernel's name and mod. a and b
 * are spans of lazy digits (< CTBN_AVX2_DIGIT_MAX(W))
 * with values < 2m; r gets lazy digits, value < 2m, its pad lanes zero. The pad lanes of a
 * and b must be zero. r MAY alias a or b. Spans 32-byte aligned.
 * CT: only D leaks: fixed trip counts; no memory index or branch depends on a, b or m.
 */
ctbn_avx2_amm_x1_fn ctbn_avx2_amm36_x1, ctbn_avx2_amm56_x1, ctbn_avx2_amm72_x1;
/* 108 and 144 digits (3072, 4096-bit moduli, W = 29): for the public path only. */
ctbn_avx2_amm_x1_fn ctbn_avx2_amm108_x1, ctbn_avx2_amm144_x1;

/* The kernels for D digits (36, 56, 72, 108, 144); NULL for any other D. CT: public. */
ctbn_avx2_amm_x1_fn *ctbn_avx2_amm_x1_for(size_t digits);

/* The same for Montgomery-friendly moduli only (D = 56, 72; NULL for any other D; mod from
 * ctbn_avx2_mod_init_friendly:
 * m = -1 mod 2^W; k2 is not read). Same contract otherwise. CT: as above. */
ctbn_avx2_amm_x1_fn ctbn_avx2_amm36f_x1, ctbn_avx2_amm56f_x1, ctbn_avx2_amm72f_x1;
ctbn_avx2_amm_x1_fn *ctbn_avx2_ammf_x1_for(size_t digits);

/* ---------------------------------------------------------------------------------------
 * Almost-Montgomery squaring (avx2_sqr.c)
 *
 * Span r := AMM(a, a) modulo mod, for the D and W of the kernel's name and mod: the
 * contract of the AMM kernels above with b = a (a: lazy digits < CTBN_AVX2_DIGIT_MAX(W),
 * value < 2m, pads zero; r: lazy digits, value < 2m, pads zero; r MAY alias a; spans
 * 32-byte aligned). r's value equals the AMM kernel's (the Montgomery quotient is unique);
 * its digits may differ (both lazy). About 3/4 of the AMM's VPMULUDQ.
 * CT: only D leaks: fixed trip counts; no memory index or branch depends on a or m.
 */
ctbn_avx2_sqr_fn ctbn_avx2_sqr36, ctbn_avx2_sqr56, ctbn_avx2_sqr72, ctbn_avx2_sqr108,
    ctbn_avx2_sqr144;

/* The squaring kernels for D digits (36, 56, 72 for the private halves; 108, 144 for the
 * public path's 3072/4096-bit moduli); NULL for any other D. CT: public. */
ctbn_avx2_sqr_fn *ctbn_avx2_sqr_for(size_t digits);

/* The same squaring for Montgomery-friendly moduli (ctbn_avx2_mod_init_friendly: m = -1 mod
 * 2^W; k2 is not read), D = 56 and 72; NULL for any other D. Same contract and the same r
 * (digit for digit) as the generic kernel on such a modulus, with a shorter chain of
 * dependent multiplications for the quotients (avx2_sqr.c). CT: as above. */
ctbn_avx2_sqr_fn ctbn_avx2_sqr56f, ctbn_avx2_sqr72f;
ctbn_avx2_sqr_fn *ctbn_avx2_sqrf_for(size_t digits);

/* ---------------------------------------------------------------------------------------
 * The whole-modexp hooks (avx2_modexp.c), with the contracts of backend.h's modexp_ct and
 * modexp2_ct: they handle the n of the measured size table in avx2_modexp.c (modexp2: both
 * halves of the same n) and return 1, else 0 without writing anything. Results fully reduced, radix 2^64,
 * identical to the portable path. Each half's window table lives in the caller's scratch
 * (its CTBN_MODEXP_SCRATCH(n) limbs, from a 32-byte boundary), the rest on the stack.
 * CT: only the limb counts and exponent bit lengths leak.
 */
int ctbn_avx2_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                        const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_avx2_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                         const ctbn_limb *e1, size_t e1_bits,
                         const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                         const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Kernel plans. The drivers of the modexp hooks (avx2_modexp.c) and of the public path
 * (avx2_exp_public.c) run whatever radix 2^W kernels a plan names, on the span layout
 * above: the AVX2 backend's own plans (ctbn_avx2_plan_private / _public) and the avx512
 * backend's (avx512.h, its kernels at 512 and 256 bits on the same spans).
 */
typedef struct ctbn_avx2_plan {
    size_t digits;            /* D (with W D >= 64 n + 2); 0: this n is not handled */
    unsigned bits;            /* W: 28 or 29 */
    int friendly;             /* private path: work modulo m~ = k0 m (needs W D >= 64 n + W + 2) */
    ctbn_avx2_amm_x1_fn *amm; /* the AMM for the modulus form friendly names */
    ctbn_avx2_sqr_fn *sqr;    /* a squaring with that kernel's contract, or NULL: AMM(a, a) */
} ctbn_avx2_plan;

/* The AVX2 backend's plans for n-limb moduli: the private modexp hooks' (digits 0 but for
 * n = 16, 24, 32) and the public path's (also n = 48, 64). CT: public. */
ctbn_avx2_plan ctbn_avx2_plan_private(size_t n);
ctbn_avx2_plan ctbn_avx2_plan_public(size_t n);

/* Whether plan p can run n-limb moduli: a kernel (amm), W 28 or 29, D a multiple of 4 up to
 * CTBN_AVX2_MAX_DIGITS with W D >= 64 n + 2, and + W more for a friendly plan (R' > 4 m~).
 * The drivers below refuse any other plan, so that a plan's mistake cannot send a size to
 * spans or a radix that do not hold it. CT: public. */
int ctbn_avx2_plan_fits(const ctbn_avx2_plan *p, size_t n);

/* ctbn_avx2_modexp_ct / ctbn_avx2_modexp2_ct on plan p (for ctx->n; modexp2: both halves
 * have that n): 0 without writing when p->digits is 0, p does not fit n
 * (ctbn_avx2_plan_fits), the halves' n differ, or the table does not fit the scratch.
 * CT: as those hooks. */
int ctbn_avx2_modexp_ct_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx, ctbn_limb *r,
                             const ctbn_limb *b, const ctbn_limb *e, size_t e_bits,
                             ctbn_limb *scratch);
int ctbn_avx2_modexp2_ct_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx1, ctbn_limb *r1,
                              const ctbn_limb *b1, const ctbn_limb *e1, size_t e1_bits,
                              const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                              const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

/* ctbn_avx2_exp_public_any on plan p (not friendly; for ctx->n): 0 without writing when
 * p->digits is 0, p is friendly or p does not fit n (ctbn_avx2_plan_fits).
 * CT: as ctbn_avx2_exp_public_any. */
int ctbn_avx2_exp_public_with(const ctbn_avx2_plan *p, const ctbn_mont *ctx, ctbn_limb *r,
                              const ctbn_limb *b, const ctbn_limb *e, size_t en,
                              ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * The public-exponent hook (avx2_exp_public.c), with the contract of backend.h's
 * modexp_public_vartime: it handles the n and exponent lengths of the measured table in
 * avx2_exp_public.c and returns 1 (r fully reduced, identical to the generic path), else 0
 * without writing anything. scratch is not used (the spans need 32-byte alignment: stack).
 * CT: e, en and n leak (public); b and m only enter constant-time arithmetic.
 */
int ctbn_avx2_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                    const ctbn_limb *e, size_t en, ctbn_limb *scratch);

/* Whether the public-exponent hooks take n-limb moduli with an exponent of ebits bits (both
 * public): 1 from the shortest exponent the AVX2 kernels were measured faster with than the
 * generic square-and-multiply on the ADX kernels (the table in avx2_exp_public.c: 9 bits at
 * n = 16, 5 at 24, 3 at 32, 2 at 48 and 64), else 0 (any other n). The avx512 backend's
 * public hooks (avx512_modexp.c) use the same thresholds, not measured again for its
 * kernels. CT: public. */
int ctbn_avx2_public_takes(size_t n, size_t ebits);

/*
 * x := a value congruent to x 2^s modulo M and below 3M, for a normalized M (n >= 2 limbs,
 * top bit set), x < 3M in n + 1 limbs, 1 <= s <= 60: one step of the public path's R'^2
 * set-up (x 2^s < 2^(64 n + 62) fits n + 1 limbs). CT: only n and s leak.
 */
void ctbn_avx2_mul_pow2_mod(ctbn_limb *x, const ctbn_limb *M, size_t n, unsigned s);

/* The same computation without the measured table: every n with a kernel
 * (ctbn_avx2_public_digits(n) != 0) and any e, else 0 without writing. For the benchmark
 * that makes the table (bench_avx2_ct public) and the tests. CT: as above. */
int ctbn_avx2_exp_public_any(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                             const ctbn_limb *e, size_t en, ctbn_limb *scratch);

#endif /* CTRSA_AVX2_H */
