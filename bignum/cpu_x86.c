/*
 * CPU feature detection for the backends: CPUID leaves 1 and 7, and XCR0 (XGETBV) for the
 * register state the OS saves. Contract in backend.h.
 *
 * CT: everything here is public (the machine, not the data).
 */
#include <stdatomic.h>

#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* XCR0 bits: x87, SSE (XMM), AVX (YMM upper halves), opmask, ZMM_Hi256, Hi16_ZMM. */
#define XCR0_SSE     (1u << 1)
#define XCR0_AVX     (1u << 2)
#define XCR0_OPMASK  (1u << 5)
#define XCR0_ZMM_HI  (1u << 6)
#define XCR0_HI16    (1u << 7)

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    /* xgetbv with ecx = 0; only executed when CPUID says OSXSAVE is set */
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static unsigned detect(void)
{
    unsigned eax, ebx, ecx, edx, max_leaf, f = 0;
    uint64_t xcr0 = 0;

    if (!__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx) || max_leaf < 7)
        return 0;
    /* "AuthenticAMD" in ebx, edx, ecx */
    int amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    unsigned family = (eax >> 8) & 0xF;
    if (family == 0xF)
        family += (eax >> 20) & 0xFF;
    int osxsave = (ecx >> 27) & 1;
    int avx = (ecx >> 28) & 1;
    if (osxsave)
        xcr0 = read_xcr0();
    int ymm_ok = osxsave && avx && (xcr0 & (XCR0_SSE | XCR0_AVX)) == (XCR0_SSE | XCR0_AVX);
    uint64_t zmm_state = XCR0_SSE | XCR0_AVX | XCR0_OPMASK | XCR0_ZMM_HI | XCR0_HI16;
    int zmm_ok = ymm_ok && (xcr0 & zmm_state) == zmm_state;

    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return 0;
    if ((ebx >> 8) & 1)
        f |= CTBN_CPU_BMI2;
    if ((ebx >> 19) & 1)
        f |= CTBN_CPU_ADX;
    if (ymm_ok && ((ebx >> 5) & 1))
        f |= CTBN_CPU_AVX2;
    if (zmm_ok && ((ebx >> 16) & 1)) {
        f |= CTBN_CPU_AVX512F;
        if ((ebx >> 17) & 1)
            f |= CTBN_CPU_AVX512DQ;
        if ((ebx >> 30) & 1)
            f |= CTBN_CPU_AVX512BW;
        if ((ebx >> 31) & 1)
            f |= CTBN_CPU_AVX512VL;
        if ((ebx >> 21) & 1)
            f |= CTBN_CPU_AVX512IFMA;
        if ((ecx >> 1) & 1)
            f |= CTBN_CPU_AVX512VBMI;
    }
    return f | ctbn_cpu_core_traits(amd, family, f);
}
#else
static unsigned detect(void)
{
    return 0;
}
#endif

unsigned ctbn_cpu_core_traits(int amd, unsigned family, unsigned features)
{
    unsigned t = 0;
    /* Zen 5 (family 26 = 0x1A): zmm IFMA at the ymm rate (backend.h) */
    if (amd && family == 26 && (features & CTBN_CPU_AVX512IFMA))
        t |= CTBN_CPU_ZMM_IFMA_FULL_RATE;
    return t;
}

/* Bit 31 marks "detected", so that a CPU with no features is not probed again and again. */
#define DETECTED (1u << 31)

unsigned ctbn_cpu_features(void)
{
    static atomic_uint cached;
    unsigned f = atomic_load_explicit(&cached, memory_order_relaxed);
    if (!(f & DETECTED)) {
        f = detect() | DETECTED;
        atomic_store_explicit(&cached, f, memory_order_relaxed);
    }
    return f & ~DETECTED;
}
