/*
 * Test support for the engine's differential tests: a reproducible PRNG, random operands of
 * random bit density, random odd moduli, conversion to and from OpenSSL BIGNUMs (the oracle),
 * and failure reports that name the seed and every operand.
 *
 * Test code only: it links libcrypto, the engine never does.
 */
#ifndef CTRSA_TEST_BN_ORACLE_H
#define CTRSA_TEST_BN_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/bn.h>

#include "bignum.h"

/* ---- PRNG (xoshiro256**), seeded from CTRSA_TEST_SEED or a fixed default ---- */

/* The run's base seed: CTRSA_TEST_SEED (decimal or 0x-hex) if set, else a fixed value. */
uint64_t oracle_base_seed(void);

/* Reseed from the base seed and a test name, so that each test reproduces on its own. */
void oracle_seed_for(const char *test_name);

/* count scaled by CTRSA_TEST_SCALE (a multiplier, default 1: the cross runs under qemu and
 * the ASan stage use 0.25), at least at_least: for loops whose count sets the cost. */
size_t oracle_scaled(size_t count, size_t at_least);

uint64_t rng_u64(void);

/* Uniform in [0, bound), bound > 0. */
uint64_t rng_below(uint64_t bound);

/* Uniform in [lo, hi]. */
size_t rng_range(size_t lo, size_t hi);

/* ---- operands ---- */

/* malloc exactly n limbs (at least one byte for n = 0) so that ASan sees any overrun. */
ctbn_limb *limbs_alloc(size_t n);

/* Fill x (n limbs) with a value below 2^bits (bits <= 64 n) whose bit pattern is drawn from a
 * random density: dense, sparse, runs of ones and zeros, all-ones/zero limbs, all ones,
 * a small value, or the top bit alone; the bit length itself is sometimes shortened. */
void rand_pattern(ctbn_limb *x, size_t n, size_t bits);

/* Fill x (n limbs) with a value below m (n limbs, m > 0): mostly random patterns, with
 * edge values (0, 1, 2, m-1, m-2) drawn often. */
void rand_below(ctbn_limb *x, const ctbn_limb *m, size_t n);

/* Kinds of odd modulus. */
enum mod_kind {
    MOD_RANDOM,        /* random pattern, top bit and bit 0 set */
    MOD_TOP_ALL_ONES,  /* bits = 64 n, top limb all ones */
    MOD_TOP_BIT_PLUS1, /* 2^(bits-1) + 1 */
    MOD_ALL_ONES,      /* 2^bits - 1 */
    MOD_KINDS
};

/* m (n limbs) := an odd modulus of exactly `bits` bits (2 <= bits <= 64 n) of the given kind
 * (MOD_TOP_ALL_ONES forces bits = 64 n). */
void rand_modulus(ctbn_limb *m, size_t n, size_t bits, enum mod_kind kind);

/* A random bit length for an n-limb modulus: in (64 (n-1), 64 n], at least 2. */
size_t rand_mod_bits(size_t n);

/* ---- BIGNUM conversion (independent of ctbn_from_bytes / ctbn_to_bytes) ---- */

BIGNUM *bn_from_limbs(const ctbn_limb *x, size_t n);

/* x (n limbs) := b; fails the test if b is negative or does not fit. */
void limbs_from_bn(ctbn_limb *x, size_t n, const BIGNUM *b);

/* The shared BN_CTX of the test run. */
BN_CTX *oracle_bn_ctx(void);

/* ---- failure reports ---- */

/* Forget the operands named so far, then name the operation under test. */
void report_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Name an operand (it is printed in hex if a later check fails); the pointer must stay
 * valid until the next report_begin. */
void report_operand(const char *name, const ctbn_limb *x, size_t n);

/* Name a small scalar. */
void report_scalar(const char *name, uint64_t v);

/* Check got (n limbs) == want; on mismatch print seed, operation, operands, expected and
 * actual, and fail the current test. */
void expect_limbs_bn(const char *what, const ctbn_limb *got, size_t n, const BIGNUM *want);

/* Check got (n limbs) == want (n limbs). */
void expect_limbs_eq(const char *what, const ctbn_limb *got, const ctbn_limb *want, size_t n);

/* Check got (len bytes) == want (len bytes). */
void expect_bytes_eq(const char *what, const uint8_t *got, const uint8_t *want, size_t len);

/* Check a word result (mask, carry, length). */
void expect_word(const char *what, uint64_t got, uint64_t want);

#endif /* CTRSA_TEST_BN_ORACLE_H */
