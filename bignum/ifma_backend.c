/*
 * PLACEHOLDER for the AVX-512 IFMA backend (issue 7): this file only reserves the
 * registration point so that backend.c builds before the IFMA kernels exist. It returns
 * NULL, which means "ifma is not built": ctbn_backend_select("ifma") fails and "auto" never
 * picks it. The IFMA engineer replaces this body with the real descriptor (backend.h):
 *
 *   static const ctbn_backend ifma_backend = {
 *       .name = "ifma",
 *       .cpu_needs = CTBN_CPU_AVX512F | CTBN_CPU_AVX512IFMA | ... | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
 *       .mont_mul = ctbn_adx_mont_mul,   (any n: reuse the scalar kernels)
 *       .mont_sqr = ctbn_adx_mont_sqr,
 *       .modexp_ct = <returns 1 for n = 16, 24, 32, else 0>,
 *       .modexp2_ct = <both halves at once>,
 *   };
 *
 * This file is compiled without AVX-512 flags (it runs before the CPU is checked); the
 * kernels go in their own ifma_*.c files with per-file target flags (bignum/meson.build).
 */
#include "backend.h"

const ctbn_backend *ctbn_backend_ifma(void)
{
    return NULL;
}
