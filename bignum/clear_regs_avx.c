/*
 * ymm0-15 cleared (contract in bignum.h, ctbn_clear_vector_regs): a VEX xor of each one's
 * xmm form zeroes the register up to its top bit (511 on an AVX-512 CPU), and VZEROUPPER
 * leaves the upper state clean for SSE code. (VZEROALL does the same in one instruction,
 * measured slower: docs/kernels.md.) Compiled with -mavx2 (the AVX2 kernels' library);
 * only called once ctbn_cpu_features() reported CTBN_CPU_AVX2, which also means the OS
 * saves the YMM state.
 */
#include "backend.h"

#define X(i) "vpxor %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"

__attribute__((noinline)) void ctbn_clear_regs_avx(void)
{
    __asm__ volatile(X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
                     X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
                     "vzeroupper"
                     : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
}
