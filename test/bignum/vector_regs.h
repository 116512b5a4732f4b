/*
 * The vector registers as they are, for the tests that check that no secret is left in
 * them (test/bignum/test_regs.c, test/provider/test_vector_regs.c): a dump of the widest
 * register file the CPU has (zmm0-31 and k0-k7 with AVX-512F, else ymm0-15 with AVX, else
 * xmm0-15), stored by one asm block that runs no vector instruction of the compiler's
 * before its stores. x86-64 only (the tests are built only there).
 */
#ifndef CTRSA_TEST_VECTOR_REGS_H
#define CTRSA_TEST_VECTOR_REGS_H

#include <stdint.h>

typedef struct vregs {
    uint64_t v[32][8]; /* v[i][lane]: zmm i (32 x 8), ymm i (16 x 4) or xmm i (16 x 2) */
    uint64_t k[8];     /* k0-k7 (AVX-512 only) */
    int nv, lanes, nk; /* registers, 64-bit lanes per register, mask registers */
    const char *kind;  /* "zmm", "ymm" or "xmm" */
} vregs;

/* r := the registers. Call it first thing after the call whose registers are to be seen
 * (its argument in a general register is all that runs in between). */
void vregs_dump(vregs *r);

/* 1 if every register of r (and every mask register) is zero. */
int vregs_all_zero(const vregs *r);

/* Print "#   <prefix>: <the registers not zero, or none>" on stdout. */
void vregs_print_nonzero(const vregs *r, const char *prefix);

#endif /* CTRSA_TEST_VECTOR_REGS_H */
