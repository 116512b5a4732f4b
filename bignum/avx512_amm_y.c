/*
 * The avx512 backend's AMM kernels on 256-bit registers (4 lanes), AVX2 instructions only
 * (compiled with -mavx2 and no AVX-512 flag, so that no EVEX encoding can appear): the
 * "avx512y" backend, the instance valgrind runs.
 * Contracts in avx512.h; the body and the kernels around it (avx512_body.h) are shared with
 * the other width.
 *
 * CT: only D and W (public) steer anything; see avx512_body.h.
 */
#include <immintrin.h>

#include "avx512.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define AVX512_V_BITS 256
#include "avx512_body.h"

/* W and D per size: the table in avx512.h */
AVX512_KERNELS(_y)
