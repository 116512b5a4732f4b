/*
 * The avx512 backend's AMM kernels on 512-bit registers (8 lanes), compiled with -mavx512f: the "avx512" backend's kernels.
 * Contracts in avx512.h; the body and the kernels around it (avx512_body.h) are shared with
 * the other width.
 *
 * CT: only D and W (public) steer anything; see avx512_body.h.
 */
#include <immintrin.h>

#include "avx512.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define AVX512_V_BITS 512
#include "avx512_body.h"

/* W and D per size: the table in avx512.h */
AVX512_KERNELS(_z)
