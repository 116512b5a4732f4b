/*
 * The avx512 backend's private contracts (issue 22): radix 2^28 / 2^29 almost-Montgomery
 * multiplication (AMM) on 32x32->64 VPMULUDQ, for CPUs with AVX-512F but without IFMA
 * (Skylake-SP, Cascade Lake, Cooper Lake). One kernel body (avx512_body.h) written once for
 * two register widths:
 *
 *   _z  512-bit registers, 8 lanes (avx512_amm_z.c, -mavx512f): the "avx512" backend;
 *   _y  256-bit registers, 4 lanes, AVX2 instructions only (avx512_amm_y.c, -mavx2): the
 *       same algorithm, digit for digit the same results, which valgrind can run. It is
 *       the "avx512y" backend: selectable by name (tests, the constant-time suite), never
 *       chosen by "auto" (backend.c: it sits below avx2, which needs the same features).
 *
 * Numbers are the AVX2 backend's spans (avx2.h): D lazy digits of W bits, CTBN_AVX2_PAD
 * zero lanes on each side, 32-byte aligned; the moduli are ctbn_avx2_mod, set up by
 * ctbn_avx2_mod_init_dw / ctbn_avx2_mod_init_friendly_with; the modexp and public-path
 * drivers are the AVX2 backend's, run on this backend's plans (avx512_modexp.c).
 * Everything declared here but the plans is compiled with target flags: the _z kernels
 * MUST only run once ctbn_cpu_features() reported CTBN_CPU_AVX512F, the _y ones
 * CTBN_CPU_AVX2.
 *
 * Digits per size (D a multiple of 8, so that whole 512-bit registers hold them; W D >= 64 n
 * + W + 2, so that R' = 2^(W D) > 4 m~ for the Montgomery-friendly m~ = k0 m of avx2.h,
 * which every private half uses):
 *
 *   bits   n   W   D    W D   (AVX2 backend: W, D)
 *   1024  16  28   40  1120   29, 36 (36 is not a multiple of 8; 28-bit digits need no
 *                                     carry pass in the middle)
 *   1536  24  28   56  1568   28, 56
 *   2048  32  29   72  2088   29, 72
 *
 * The public path's 3072 and 4096-bit moduli (n = 48, 64) run the AVX2 backend's kernels
 * and squaring (ctbn_avx2_plan_public): a 512-bit instance at D = 112 or 144 needs a 17 to
 * 23 KB stack frame (GCC 12 keeps every shifted operand register of a block, 2 VL (D/VL +
 * 1) of them, on the stack across blocks), past the build's 20 KB tripwire (meson.build).

 * The algorithm (avx2_amm.c's, with blocks of VL digits of b instead of 4): operand
 * scanning by blocks of VL digits b_j of b (VL = 8 for _z, 4 for _y; D / VL blocks); T holds
 * one 64-bit lane per digit position, carried only at the end (and, with W = 29, by a
 * carry pass every 2 blocks). Block k, lanes L = VL k .. L + VL - 1 ("low", in a register):
 *
 *  1. low += sum_j a shifted by j lanes * b_j (one vector per j: the block's own products
 *     a_i b_j with i + j < VL), then its VL lanes go to scalar code, which makes the
 *     quotient digits y_j (two at a time, y_j + y_(j+1) 2^W = -(t_j + t_(j+1) 2^W) m^-1 mod
 *     2^(2W) with k2, or one at a time for a friendly modulus, y_j = t_j mod 2^W) with the
 *     products m_i y_j of the block that land in these lanes, and the carry c into lane
 *     L + VL. These lanes are then done: their sum plus the carry in is c 2^(W VL).
 *  2. lanes L + VL .. L + D + VL - 1 += a b_j + m y_j (j < VL), one register of VL lanes
 *     at a time, a and m read shifted by j lanes (unaligned loads over the span's zero pads;
 *     where a shifted read would leave the span, a constant-masked load makes those lanes
 *     zero: zmm only, a ymm read never leaves the 4-lane pads). The next block's low
 *     register is computed first, so that its quotients (scalar) overlap this block's
 *     vector work.
 *
 * After D / VL blocks, lanes D .. 2D - 1 plus c are (a b + y m) / R', < 2m; two carry passes
 * (keep W bits, add the bits above to the next lane) bring every digit under 2^W + 2^9.
 *
 * Lane bounds (no 64-bit lane overflows): operand digits are lazy, < 2^W + 2^9, the modulus'
 * digits and the y_j are < 2^W, so a product is < (2^W + 2^9)^2 = 2^(2W + 0.0055)
 * (W = 28) or 2^(2W + 0.0028) (W = 29). A lane receives two products per digit of b.
 *  - W = 28: at most 2 D products in all: D = 40 and 56 give 2^62.33 and 2^62.81, below
 *    2^64 with the carries (< 2^36) added in; no carry pass is needed.
 *  - W = 29: 2 D products could reach 2^65.2 (D = 72). A carry pass over the live lanes
 *    after every second block (blocks 1, 3, 5, ...; lanes from L + 2 VL up, the top carry
 *    added to the fresh lane L + VL + D) leaves each lane below 2^29 + 2^35. The only lanes
 *    a pass skips are the next block's low lanes, which the scalar step consumes in the very
 *    next block: so a lane collects at most 3 blocks (3 VL digits, 6 VL products) between
 *    passes: VL = 8, 48 products below 2^63.59 + 2^35 < 2^64; with VL = 4 (the _y
 *    instance, the same schedule counted in its own 4-digit blocks, so passes every 8
 *    digits) fewer. A schedule of 3 blocks would allow 64 products, 2^64.003: not safe.
 *
 * The squaring (same body, sq = 1): first the squares a_i^2 at lanes 2i (T's initial
 * value) and S, VL copies of a shifted by 0 .. VL - 1 lanes in aligned rows; then the AMM's
 * blocks with only the m y_j products, and beside each block's scalar quotient step one
 * "row block" of the square: a_j doubled (j in the next block) times S[j], into the
 * registers 2k + 2 .. of T (pairs i <= j cut off by constant masks in the first two),
 * which no quotient step reads before block 2k + 2; row block 0 comes before the first
 * quotient step. D^2 / 2 products of a instead of D^2.
 * Its lane bounds: a row block adds at most VL doubled products (2 VL units of one
 * product's bound) to a lane, a block VL products m y. W = 28: at most D / 2 doubled
 * products, one square and D products m y per lane, 2 D + 1 units: 2^62.83 at D = 56.
 * W = 29: a carry pass after the even blocks (0, 2, 4, ...) over registers k + 2 ..
 * k + D / VL. Row block k + 1 runs in block k, before that pass, and reaches register
 * k + 1 + D / VL, one above the pass; so a register just above one pass's range collects,
 * until the next pass two blocks later, three row blocks and two blocks m y besides its
 * square and the pass's top carry. The worst lane, VL = 8, is lane 80 (register 10, above
 * the pass after block 0): row blocks 1 to 3 (23 doubled products), its square and blocks
 * 1 and 2 (15 products m y), 47 (2^W + 2^9)^2 + 15 (2^W - 1)^2 < 2^63.96: below 2^64 by
 * 3%. With VL = 4 the worst lane is below 2^62.91. bench/avx512_bounds.py mirrors the
 * body step by step and prints every instance's worst lane and scalar sum (and that the
 * AMM's schedule, passes after the odd blocks, would take the squaring to 2^64.02).
 *
 * CT: only D, W and the plan (public, from n) steer trip counts, addresses, masks and
 * branches; the digits of a, b, m and the quotients only enter multiplications,
 * additions, shifts and bitwise masks, in vector registers or straight-line scalar code.
 */
#ifndef CTRSA_AVX512_H
#define CTRSA_AVX512_H

#include <stddef.h>
#include <stdint.h>

#include "avx2.h"

/*
 * The AMM kernels: span r := AMM(a, b) modulo mod, with exactly the contract of avx2.h's
 * ctbn_avx2_amm_x1_fn (lazy digits in and out, values < 2m, r MAY alias a or b, pads zero).
 * friendly: the kernel for a Montgomery-friendly mod (ctbn_avx2_mod_init_friendly_with:
 * m = -1 mod 2^W; k2 not read). D = 40, 56, 72 (W = 28, 28, 29; NULL for any other D).
 * Both widths return the same value (with W = 28 the same digits; with W = 29 the carry
 * passes fall at other places and the lazy digits may differ). CT: public.
 */
ctbn_avx2_amm_x1_fn *ctbn_avx512_amm_for_z(size_t digits, int friendly);
ctbn_avx2_amm_x1_fn *ctbn_avx512_amm_for_y(size_t digits, int friendly);

/*
 * The squaring kernels: span r := AMM(a, a) modulo mod, the contract of avx2.h's
 * ctbn_avx2_sqr_fn (the AMM's with b = a; the same value as the AMM kernel, the digits
 * may differ), friendly or not, D = 40, 56, 72; NULL for any other D. The products a_i a_j
 * are made once and doubled, in a first pass into T, before the reduction blocks (which
 * then add only m y): about three quarters of the AMM's VPMULUDQ. CT: public.
 */
#define CTBN_AVX512_SQR_MAX_DIGITS 72
ctbn_avx2_sqr_fn *ctbn_avx512_sqr_for_z(size_t digits, int friendly);
ctbn_avx2_sqr_fn *ctbn_avx512_sqr_for_y(size_t digits, int friendly);

/* The kernels' D for n limbs (the table above: 40, 56, 72 for n = 16, 24, 32), *w := W;
 * 0 (and *w = 0) for any other n. CT: public. */
size_t ctbn_avx512_kernel_digits(size_t n, unsigned *w);

/* The plans (avx512_modexp.c) for n-limb moduli and width wide (1: the _z kernels, 0: the
 * _y ones): this backend's kernels for n = 24, 32 (the table above), the AVX2 backend's
 * plans for n = 16 (measured faster: avx512_modexp.c) and, public path only, n = 48, 64;
 * digits 0 for any other n. CT: public. */
ctbn_avx2_plan ctbn_avx512_plan_private(int wide, size_t n);
ctbn_avx2_plan ctbn_avx512_plan_public(int wide, size_t n);

/* The hooks of backend.h for both backends (avx512_modexp.c): the private ones handle
 * n = 16, 24, 32 (modexp2: both halves of one n), the public one the n (16 to 64) and
 * exponent lengths of ctbn_avx2_public_takes (avx2.h); else 0 without writing anything. CT: as backend.h's
 * contracts. */
int ctbn_avx512_modexp_ct_z(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                            const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_avx512_modexp2_ct_z(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                             const ctbn_limb *e1, size_t e1_bits,
                             const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                             const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);
int ctbn_avx512_exp_public_z(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                             const ctbn_limb *e, size_t en, ctbn_limb *scratch);
int ctbn_avx512_modexp_ct_y(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                            const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);
int ctbn_avx512_modexp2_ct_y(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                             const ctbn_limb *e1, size_t e1_bits,
                             const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                             const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);
int ctbn_avx512_exp_public_y(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                             const ctbn_limb *e, size_t en, ctbn_limb *scratch);

#endif /* CTRSA_AVX512_H */
