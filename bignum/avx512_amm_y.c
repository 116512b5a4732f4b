/*
 * The avx512 backend's AMM kernels on 256-bit registers (4 lanes), AVX2 instructions only
 * (compiled with -mavx2 and no AVX-512 flag, so that no EVEX encoding can appear): the
 * "avx512y" backend, the instance valgrind runs.
 * Contracts in avx512.h; the body (avx512_body.h) is shared with the other width.
 *
 * CT: only D and W (public) steer anything; see avx512_body.h.
 */
#include <immintrin.h>

#include "avx512.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define AVX512_V_BITS 256
#include "avx512_body.h"

#define KERNEL_G(W, D)                                                                       \
    static void amm##D##_y(uint64_t *r, const uint64_t *a, const uint64_t *b,               \
                           const ctbn_avx2_mod *mod)                                        \
    {                                                                                        \
        amm_body_y(W, D, 0, 0, r, a, b, mod);                                                  \
    }
#define KERNEL(W, D)                                                                         \
    KERNEL_G(W, D)                                                                           \
    static void amm##D##f_y(uint64_t *r, const uint64_t *a, const uint64_t *b,              \
                            const ctbn_avx2_mod *mod)                                       \
    {                                                                                        \
        amm_body_y(W, D, 1, 0, r, a, b, mod);                                                  \
    }

#define SQR(W, D)                                                                            \
    static void sqr##D##_y(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)         \
    {                                                                                        \
        amm_body_y(W, D, 0, 1, r, a, a, mod);                                               \
    }                                                                                        \
    static void sqr##D##f_y(uint64_t *r, const uint64_t *a, const ctbn_avx2_mod *mod)        \
    {                                                                                        \
        amm_body_y(W, D, 1, 1, r, a, a, mod);                                               \
    }

/* W and D per size: the table in avx512.h */
KERNEL(28, 40)
KERNEL(28, 56)
KERNEL(29, 72)
SQR(28, 40)
SQR(28, 56)
SQR(29, 72)

ctbn_avx2_amm_x1_fn *ctbn_avx512_amm_for_y(size_t digits, int friendly)
{
    switch (digits) {
    case 40:
        return friendly ? amm40f_y : amm40_y;
    case 56:
        return friendly ? amm56f_y : amm56_y;
    case 72:
        return friendly ? amm72f_y : amm72_y;
    default:
        return NULL;
    }
}

ctbn_avx2_sqr_fn *ctbn_avx512_sqr_for_y(size_t digits, int friendly)
{
    switch (digits) {
    case 40:
        return friendly ? sqr40f_y : sqr40_y;
    case 56:
        return friendly ? sqr56f_y : sqr56_y;
    case 72:
        return friendly ? sqr72f_y : sqr72_y;
    default:
        return NULL;
    }
}
