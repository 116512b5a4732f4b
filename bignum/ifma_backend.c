/*
 * The "ifma" backend's descriptor (backend.h): AVX-512 IFMA whole-modexp kernels for 512,
 * 1024, 1536 and 2048-bit moduli (8, 16, 24, 32 limbs; ifma.h), both CRT halves in one
 * interleaved pass; every other size, and single Montgomery multiplications, go to the
 * MULX/ADX kernels. Compiled with the default flags: it runs before the CPU is checked; the kernels
 * (ifma_convert.c, ifma_amm.c, ifma_modexp.c) carry -mavx512* and only run when
 * ctbn_cpu_features() has every bit of cpu_needs. Not built (NULL) off x86-64.
 */
#include "backend.h"
#include "ifma.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static const ctbn_backend ifma_backend = {
    .name = "ifma",
    .cpu_needs = CTBN_CPU_AVX512F | CTBN_CPU_AVX512IFMA | CTBN_CPU_AVX512VL |
                 CTBN_CPU_AVX512BW | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = ctbn_ifma_modexp_ct,
    .modexp2_ct = ctbn_ifma_modexp2_ct,
    .modexp_public_vartime = ctbn_ifma_modexp_public_vartime,
};

/* The same kernels on 512-bit registers at every size: 10 and 20 digits (RSA-1024 and
 * RSA-2048's CRT halves) on 2 and 3 zmm instead of 3 and 5 ymm. "auto" picks it on cores
 * that issue zmm IFMA at the ymm rate (backend.h); the public path is ifma's. */
static const ctbn_backend ifmaz_backend = {
    .name = "ifmaz",
    .cpu_needs = CTBN_CPU_AVX512F | CTBN_CPU_AVX512IFMA | CTBN_CPU_AVX512VL |
                 CTBN_CPU_AVX512BW | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .auto_needs = CTBN_CPU_ZMM_IFMA_FULL_RATE,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = ctbn_ifmaz_modexp_ct,
    .modexp2_ct = ctbn_ifmaz_modexp2_ct,
    .modexp_public_vartime = ctbn_ifma_modexp_public_vartime,
};

const ctbn_backend *ctbn_backend_ifma(void)
{
    return &ifma_backend;
}

const ctbn_backend *ctbn_backend_ifmaz(void)
{
    return &ifmaz_backend;
}
#else
const ctbn_backend *ctbn_backend_ifma(void)
{
    return NULL;
}

const ctbn_backend *ctbn_backend_ifmaz(void)
{
    return NULL;
}
#endif
