/*
 * The "avx512" backend's descriptor (backend.h) and its 256-bit instance "avx512y": the
 * radix 2^28/2^29 AMM kernels on VPMULUDQ (avx512.h) for 1024, 1536 and 2048-bit moduli
 * (both CRT halves of RSA-2048, 3072 and 4096) and for the public-exponent path at 1024 to
 * 4096 bits; every other size, and single Montgomery multiplications, go to the MULX/ADX
 * kernels, as on the AVX2 backend.
 *
 * "avx512" needs AVX-512F (zmm VPMULUDQ, masked loads, VALIGNQ) and is what "auto" picks on
 * a CPU with AVX-512F but without IFMA (backend.c's order: ifma above it).
 * "avx512y" runs the same body on 256-bit registers with AVX2 instructions only: for the
 * tests and for valgrind, which cannot run AVX-512. It needs what "avx2" needs and sits
 * below it in backend.c's order, so "auto" never picks it.
 *
 * Compiled with the default flags: it runs before the CPU is checked; the kernels carry
 * their target flags and only run when ctbn_cpu_features() has every bit of cpu_needs.
 * Not built (NULL) off x86-64.
 */
#include "avx512.h"
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static const ctbn_backend avx512_backend = {
    .name = "avx512",
    .cpu_needs = CTBN_CPU_AVX512F | CTBN_CPU_AVX2 | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = ctbn_avx512_modexp_ct_z,
    .modexp2_ct = ctbn_avx512_modexp2_ct_z,
    .modexp_public_vartime = ctbn_avx512_exp_public_z,
};

static const ctbn_backend avx512y_backend = {
    .name = "avx512y",
    .cpu_needs = CTBN_CPU_AVX2 | CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = ctbn_avx512_modexp_ct_y,
    .modexp2_ct = ctbn_avx512_modexp2_ct_y,
    .modexp_public_vartime = ctbn_avx512_exp_public_y,
};

const ctbn_backend *ctbn_backend_avx512(void)
{
    return &avx512_backend;
}

const ctbn_backend *ctbn_backend_avx512y(void)
{
    return &avx512y_backend;
}
#else
const ctbn_backend *ctbn_backend_avx512(void)
{
    return NULL;
}

const ctbn_backend *ctbn_backend_avx512y(void)
{
    return NULL;
}
#endif
