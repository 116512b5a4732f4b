/*
 * The "avx2" backend's descriptor (backend.h): AVX2 whole-modexp kernels in radix 2^29 / 2^28 for
 * 1024, 1536 and 2048-bit moduli (16, 24, 32 limbs; avx2.h), both CRT halves in one
 * interleaved pass; the public-exponent path on the same kernels and on 3072 and 4096-bit
 * ones, for the sizes and exponent lengths of its measured table (avx2_exp_public.c);
 * every other size, single Montgomery multiplications and the public exponents the table
 * declines go to the MULX/ADX kernels. Compiled with the default flags: it runs
 * before the CPU is checked; the kernels (avx2_convert.c, avx2_amm.c, avx2_modexp.c) carry
 * -mavx2 and only run when ctbn_cpu_features() has every bit of cpu_needs.
 * Not built (NULL) off x86-64.
 */
#include "avx2.h"
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static const ctbn_backend avx2_backend = {
    .name = "avx2",
    .cpu_needs = CTBN_CPU_AVX2 | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = ctbn_avx2_modexp_ct,
    .modexp2_ct = ctbn_avx2_modexp2_ct,
    .modexp_public_vartime = ctbn_avx2_modexp_public_vartime,
};

const ctbn_backend *ctbn_backend_avx2(void)
{
    return &avx2_backend;
}
#else
const ctbn_backend *ctbn_backend_avx2(void)
{
    return NULL;
}
#endif
