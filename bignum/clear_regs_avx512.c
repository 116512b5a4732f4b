/*
 * zmm0-31 and k0-k7 cleared (contract in bignum.h, ctbn_clear_vector_regs). A VEX
 * (xmm0-15) or EVEX (xmm16-31) xor of a register's xmm form zeroes it up to bit 511; VZEROALL would clear zmm0-15 only,
 * never zmm16-31. KXORW zeroes a mask register's 64 bits. VZEROUPPER last leaves the upper
 * state clean for SSE code. Compiled with -mavx512f (the avx512 kernels' library); only
 * called once ctbn_cpu_features() reported CTBN_CPU_AVX512F, which also means the OS saves
 * the ZMM and opmask state.
 */
#include "backend.h"

#define X(i) "vpxor %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
#define XE(i) "vpxord %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
#define K(i) "kxorw %%k" #i ", %%k" #i ", %%k" #i "\n\t"

__attribute__((noinline)) void ctbn_clear_regs_avx512(void)
{
    __asm__ volatile(X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
                     X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
                     XE(16) XE(17) XE(18) XE(19) XE(20) XE(21) XE(22) XE(23)
                     XE(24) XE(25) XE(26) XE(27) XE(28) XE(29) XE(30) XE(31)
                     K(0) K(1) K(2) K(3) K(4) K(5) K(6) K(7)
                     "vzeroupper"
                     : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21",
                       "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",
                       "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", "k3", "k4", "k5", "k6",
                       "k7");
}
