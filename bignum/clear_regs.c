/*
 * Clearing the vector registers after the engine's entry points (contract in bignum.h,
 * ctbn_clear_vector_regs): the widest register file the CPU has, cleared by the helper of its instruction set
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
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * v0-v31: the compiled C (auto-vectorised) and the C library's memcpy and memset use them.
 * v8-v15's low 64 bits (d8-d15) are callee-saved (AAPCS64): only their high halves are
 * cleared. An Advanced SIMD write also zeroes an SVE register's bits above 128.
 */
void ctbn_clear_vector_regs(void)
{
    __asm__ volatile("movi v0.16b, #0\n\tmovi v1.16b, #0\n\t"
                     "movi v2.16b, #0\n\tmovi v3.16b, #0\n\t"
                     "movi v4.16b, #0\n\tmovi v5.16b, #0\n\t"
                     "movi v6.16b, #0\n\tmovi v7.16b, #0\n\t"
                     "movi v16.16b, #0\n\tmovi v17.16b, #0\n\t"
                     "movi v18.16b, #0\n\tmovi v19.16b, #0\n\t"
                     "movi v20.16b, #0\n\tmovi v21.16b, #0\n\t"
                     "movi v22.16b, #0\n\tmovi v23.16b, #0\n\t"
                     "movi v24.16b, #0\n\tmovi v25.16b, #0\n\t"
                     "movi v26.16b, #0\n\tmovi v27.16b, #0\n\t"
                     "movi v28.16b, #0\n\tmovi v29.16b, #0\n\t"
                     "movi v30.16b, #0\n\tmovi v31.16b, #0\n\t"
                     "mov v8.d[1], xzr\n\tmov v9.d[1], xzr\n\t"
                     "mov v10.d[1], xzr\n\tmov v11.d[1], xzr\n\t"
                     "mov v12.d[1], xzr\n\tmov v13.d[1], xzr\n\t"
                     "mov v14.d[1], xzr\n\tmov v15.d[1], xzr"
                     : : : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
                       "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20",
                       "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
                       "v31", "memory");
}
#else
/* Other CPUs: nothing (no vector kernels; compiled code's use of vector registers there is
 * not cleared). */
void ctbn_clear_vector_regs(void)
{
}
#endif
