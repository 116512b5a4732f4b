/*
 * What the vector backends' tests share (test_avx2.c, test_ifma.c; backend_fixtures.c):
 * random moduli of every kind with their contexts and BIGNUMs, backend selection, the edge
 * bases and random exponents of the modexp tests, the AMM contract checked against BN in
 * any radix, and the whole-modexp hooks checked against BN, through the seam and against
 * the portable backend. Built on bn_oracle.h (seeded PRNG, operands, failure reports).
 *
 * Test code only: it links libcrypto and cmocka, the engine never does. Every check fails
 * the current cmocka test with the operands named (report_begin / report_operand).
 */
#ifndef CTRSA_TEST_BACKEND_FIXTURES_H
#define CTRSA_TEST_BACKEND_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/bn.h>

#include "bignum.h"
#include "bn_oracle.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SEED_TEST() oracle_seed_for(__func__)

/* Select the engine backend `name` for what follows; fails the test if it is not usable. */
void use_backend(const char *name);

/* ---- moduli ---- */

/* A modulus in n limbs with its context (set up once: it does not depend on the backend)
 * and its BIGNUM; bits is the context's bit length. */
struct modulus {
    size_t n, bits;
    ctbn_limb *m;
    ctbn_mont *ctx;
    BIGNUM *bm;
};

/* md := a modulus of `bits` bits in n limbs of the given kind (rand_modulus). */
void modulus_make(struct modulus *md, size_t n, size_t bits, enum mod_kind kind);

/* md := a modulus of a random kind in CTBN_LIMBS(full_bits) limbs: mostly exactly full_bits
 * bits, sometimes up to 40 bits shorter (same limb count, still handled by the hooks). */
void modulus_random(struct modulus *md, size_t full_bits);

void modulus_free(struct modulus *md);

/* ---- bases and exponents ---- */

/* The bases a test names: random below m, or the edges 0, 1, m - 1. */
enum base_kind { BASE_RANDOM, BASE_ZERO, BASE_ONE, BASE_M_MINUS_1, BASE_KINDS };

/* b (md->n limbs) := a base of that kind. */
void base_make(ctbn_limb *b, const struct modulus *md, enum base_kind kind);

/* b^e mod m (b n limbs, e en limbs) by BN_mod_exp: the oracle's answer; the caller frees. */
BIGNUM *bn_modexp_want(const struct modulus *md, const ctbn_limb *b, const ctbn_limb *e,
                       size_t en);

/* A hook that declines must leave r as it was: r (n limbs) := the fill, and the check that
 * it is still there. */
void fill_untouched(ctbn_limb *r, size_t n);
void expect_untouched(const char *what, const ctbn_limb *r, size_t n);

/* ---- AMM kernels in radix 2^w ---- */

/* The value of digits d[0..digits) of w bits each (digits may exceed 2^w: lazy ones). */
BIGNUM *bn_from_radix(const uint64_t *d, unsigned w, size_t digits);

/* A value below 2m for the AMM kernels' operands: the edges 0, 1, m - 1, m, 2m - 1 or a
 * random pattern reduced mod m, sometimes plus m. The caller frees. */
BIGNUM *bn_rand_below_2m(const struct modulus *md);

/* The value part of the AMM contract, digits in radix 2^w from the first one (the caller
 * checks the lanes' form): r < 2m and r R' = a b mod m, R' = 2^(w digits). */
void expect_amm_value(const char *what, const uint64_t *r, const uint64_t *a,
                      const uint64_t *b, const struct modulus *md, unsigned w, size_t digits);

/* ---- the whole-modexp hooks (backend.h's modexp_ct, modexp2_ct, modexp_public_vartime) ---- */

typedef int modexp_hook(const ctbn_mont *, ctbn_limb *, const ctbn_limb *, const ctbn_limb *,
                        size_t, ctbn_limb *);
typedef int modexp2_hook(const ctbn_mont *, ctbn_limb *, const ctbn_limb *, const ctbn_limb *,
                         size_t, const ctbn_mont *, ctbn_limb *, const ctbn_limb *,
                         const ctbn_limb *, size_t, ctbn_limb *);

/*
 * A set of hooks under test. backend names the engine backend whose seam (ctbn_modexp_ct,
 * ...) runs the same hooks; takes(n) is whether the private hooks take n-limb moduli;
 * public_any computes every e without the hook's size table, or is NULL.
 */
struct hooks {
    const char *backend;
    modexp_hook *modexp;
    modexp2_hook *modexp2;
    modexp_hook *public_hook;
    modexp_hook *public_any;
    int (*takes)(size_t n);
};

/* b^e mod m for a base of kind bk and a random exponent of public length e_bits whose true
 * length is random up to it (zero, the top bit alone, all ones, a pattern): H's hook
 * computes it exactly when H->takes(n) (and then BN's answer); through the seam on H's
 * backend BN's answer, with r = b too; on the portable backend the same. */
void check_modexp(const struct hooks *H, const struct modulus *md, size_t e_bits,
                  enum base_kind bk);

/* Two halves of the same limb count (which H takes), their own exponent lengths and bases:
 * H's hook, the seam with r = b, and the portable backend, against BN. */
void check_modexp2(const struct hooks *H, const struct modulus *m1, const struct modulus *m2,
                   size_t e1_bits, size_t e2_bits, enum base_kind bk1, enum base_kind bk2);

/* For moduli whose size H does not take: H's private hooks refuse (0) without writing r, and
 * the seam still computes (check_modexp, exponent length 17). */
void check_refused(const struct hooks *H, const struct modulus *md);

/* Two halves of different limb counts: H's two-half hook refuses them, in either order. */
void check_halves_refused(const struct hooks *H, const struct modulus *m1,
                          const struct modulus *m2);

/* For moduli whose size the public path has no kernel for: H's public hook (and its ungated
 * form) decline without writing r, and the seam still gives BN's answer (e = 65537). */
void check_public_refused(const struct hooks *H, const struct modulus *md);

/*
 * b^e mod m on the public path (e of en limbs): H's ungated form (if any) against BN, also
 * with r = b; H's hook either computes the same or declines without writing (also with
 * r = b); through the seam on H's backend BN's answer, also with r = b; on the portable
 * backend the same. Returns whether the hook computed.
 */
int check_public(const struct hooks *H, const struct modulus *md, const ctbn_limb *b,
                 const ctbn_limb *e, size_t en);

#endif /* CTRSA_TEST_BACKEND_FIXTURES_H */
