/*
 * The "adx" backend's descriptor (backend.h): MULX/ADCX/ADOX Montgomery kernels for every
 * limb count (adx_mont.c, built with -mbmi2 -madx), under the generic fixed-window modexp.
 * This file is compiled with the default flags: it runs before the CPU is checked.
 * Not built (NULL) on CPUs other than x86-64.
 */
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static const ctbn_backend adx_backend = {
    .name = "adx",
    .cpu_needs = CTBN_CPU_BMI2 | CTBN_CPU_ADX,
    .mont_mul = ctbn_adx_mont_mul,
    .mont_sqr = ctbn_adx_mont_sqr,
    .modexp_ct = NULL,  /* the generic fixed-window modexp on the kernels above */
    .modexp2_ct = NULL,
};

const ctbn_backend *ctbn_backend_adx(void)
{
    return &adx_backend;
}
#else
const ctbn_backend *ctbn_backend_adx(void)
{
    return NULL;
}
#endif
