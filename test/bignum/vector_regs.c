/*
 * Register dumps for the register tests (contract in vector_regs.h). Each dump function is
 * only its stores, compiled for its instruction set by a target attribute, and called only
 * on a CPU that has it (__builtin_cpu_supports, which also checks that the OS saves the
 * state).
 */
#include <stdio.h>
#include <string.h>

#include "vector_regs.h"

#define STORE(i, r, insn) #insn " %%" #r #i ", " #i "*64(%0)\n\t"
#define KSTORE(i) "kmovw %%k" #i ", %%eax\n\tmovq %%rax, " #i "*8(%1)\n\t"

__attribute__((noipa, target("avx512f"))) static void dump_avx512(uint64_t (*v)[8],
                                                                   uint64_t *k)
{
    __asm__ volatile(
        STORE(0, zmm, vmovdqu64) STORE(1, zmm, vmovdqu64) STORE(2, zmm, vmovdqu64)
        STORE(3, zmm, vmovdqu64) STORE(4, zmm, vmovdqu64) STORE(5, zmm, vmovdqu64)
        STORE(6, zmm, vmovdqu64) STORE(7, zmm, vmovdqu64) STORE(8, zmm, vmovdqu64)
        STORE(9, zmm, vmovdqu64) STORE(10, zmm, vmovdqu64) STORE(11, zmm, vmovdqu64)
        STORE(12, zmm, vmovdqu64) STORE(13, zmm, vmovdqu64) STORE(14, zmm, vmovdqu64)
        STORE(15, zmm, vmovdqu64) STORE(16, zmm, vmovdqu64) STORE(17, zmm, vmovdqu64)
        STORE(18, zmm, vmovdqu64) STORE(19, zmm, vmovdqu64) STORE(20, zmm, vmovdqu64)
        STORE(21, zmm, vmovdqu64) STORE(22, zmm, vmovdqu64) STORE(23, zmm, vmovdqu64)
        STORE(24, zmm, vmovdqu64) STORE(25, zmm, vmovdqu64) STORE(26, zmm, vmovdqu64)
        STORE(27, zmm, vmovdqu64) STORE(28, zmm, vmovdqu64) STORE(29, zmm, vmovdqu64)
        STORE(30, zmm, vmovdqu64) STORE(31, zmm, vmovdqu64)
        KSTORE(0) KSTORE(1) KSTORE(2) KSTORE(3) KSTORE(4) KSTORE(5) KSTORE(6) KSTORE(7)
        : : "r"(v), "r"(k) : "rax", "memory");
}

__attribute__((noipa, target("avx"))) static void dump_avx(uint64_t (*v)[8])
{
    __asm__ volatile(
        STORE(0, ymm, vmovdqu) STORE(1, ymm, vmovdqu) STORE(2, ymm, vmovdqu)
        STORE(3, ymm, vmovdqu) STORE(4, ymm, vmovdqu) STORE(5, ymm, vmovdqu)
        STORE(6, ymm, vmovdqu) STORE(7, ymm, vmovdqu) STORE(8, ymm, vmovdqu)
        STORE(9, ymm, vmovdqu) STORE(10, ymm, vmovdqu) STORE(11, ymm, vmovdqu)
        STORE(12, ymm, vmovdqu) STORE(13, ymm, vmovdqu) STORE(14, ymm, vmovdqu)
        STORE(15, ymm, vmovdqu)
        : : "r"(v) : "memory");
}

__attribute__((noipa)) static void dump_sse2(uint64_t (*v)[8])
{
    __asm__ volatile(
        STORE(0, xmm, movdqu) STORE(1, xmm, movdqu) STORE(2, xmm, movdqu)
        STORE(3, xmm, movdqu) STORE(4, xmm, movdqu) STORE(5, xmm, movdqu)
        STORE(6, xmm, movdqu) STORE(7, xmm, movdqu) STORE(8, xmm, movdqu)
        STORE(9, xmm, movdqu) STORE(10, xmm, movdqu) STORE(11, xmm, movdqu)
        STORE(12, xmm, movdqu) STORE(13, xmm, movdqu) STORE(14, xmm, movdqu)
        STORE(15, xmm, movdqu)
        : : "r"(v) : "memory");
}

/* noipa: the stores see the registers as the caller left them, not after an inlined copy
 * of the feature test. */
__attribute__((noipa)) void vregs_dump(vregs *r)
{
    /* __builtin_cpu_supports reads libgcc's table: general registers only */
    if (__builtin_cpu_supports("avx512f")) {
        dump_avx512(r->v, r->k);
        r->nv = 32, r->lanes = 8, r->nk = 8, r->kind = "zmm";
    } else if (__builtin_cpu_supports("avx")) {
        dump_avx(r->v);
        r->nv = 16, r->lanes = 4, r->nk = 0, r->kind = "ymm";
    } else {
        dump_sse2(r->v);
        r->nv = 16, r->lanes = 2, r->nk = 0, r->kind = "xmm";
    }
}

int vregs_all_zero(const vregs *r)
{
    uint64_t any = 0;

    for (int i = 0; i < r->nv; i++)
        for (int l = 0; l < r->lanes; l++)
            any |= r->v[i][l];
    for (int i = 0; i < r->nk; i++)
        any |= r->k[i];
    return any == 0;
}

void vregs_print_nonzero(const vregs *r, const char *prefix)
{
    char list[512] = "";

    for (int i = 0; i < r->nv; i++) {
        uint64_t any = 0;
        for (int l = 0; l < r->lanes; l++)
            any |= r->v[i][l];
        if (any != 0) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof(list) - len, " %s%d", r->kind, i);
        }
    }
    for (int i = 0; i < r->nk; i++) {
        if (r->k[i] != 0) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof(list) - len, " k%d", i);
        }
    }
    printf("#   %s: registers not zero:%s\n", prefix, list[0] != '\0' ? list : " none");
}
