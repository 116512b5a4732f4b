/*
 * Clearing the vector registers after the engine's entry points (contract in backend.h):
 * the widest register file the CPU has, cleared by the helper of its instruction set
 * (clear_regs_avx512.c, clear_regs_avx.c, or SSE2 here).
 *
 * CT: the choice depends on the CPU only; the clearing itself is straight-line code that
 * reads nothing.
 */
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* xmm0-15: what SSE2 code, compiled or in the C library, can write on a CPU without AVX. */
__attribute__((noinline)) static void clear_regs_sse2(void)
{
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
                     "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
                     "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
                     "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\t"
                     "pxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"
                     "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
                     : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
}

void ctbn_clear_vector_regs(void)
{
    unsigned f = ctbn_cpu_features();
    if (f & CTBN_CPU_AVX512F)
        ctbn_clear_regs_avx512();
    else if (f & CTBN_CPU_AVX2)
        ctbn_clear_regs_avx();
    else
        clear_regs_sse2();
}
#else
/* Other CPUs: the engine has no vector kernels there. */
void ctbn_clear_vector_regs(void)
{
}
#endif
