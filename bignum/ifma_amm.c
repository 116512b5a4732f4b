/*
 * Almost-Montgomery multiplication (AMM) and squaring (AMS) in radix 2^52 with AVX-512
 * IFMA (vpmadd52luq/huq), for 10, 20, 30 and 40 digits, one or two (interleaved) at a time.
 * Contracts in ifma.h; the algorithms, their lane bounds and the register-width choice are
 * in ifma_body.h, instantiated here for 512-bit (_z) and 256-bit (_y) registers.
 *
 * CT: only D (and so the trip counts) leaks. No branch or memory index depends on a, b or
 * m: the carries of the final normalization are computed with compare masks and integer
 * arithmetic on those masks, and applied with masked additions.
 */
#include <immintrin.h>

#include "ifma.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define IFMA_V_BITS 512
#include "ifma_body.h"
#undef IFMA_V_BITS
#define IFMA_V_BITS 256
#include "ifma_body.h"
#undef IFMA_V_BITS

/*
 * The kernels for nd digits with registers of width w (z: 512 bits, 8 digits; y: 256
 * bits, 4 digits) and nv registers. 20 digits use ymm (5 registers, no padding lanes),
 * 30 and 40 digits zmm (the same lanes as ymm, half the instructions): see ifma_body.h.
 * 10 digits (512-bit moduli, RSA-1024's CRT halves) use ymm too: 3 registers, 12 lanes,
 * against 16 lanes in 2 zmm; measured 91 vs 108 TSC ticks per AMM (x2, each) on Zen 4.
 * The zmm instances of 10 and 20 digits (the ifmaz backend's) follow below.
 *
 * Two bodies (ifma_body.h): amm_short_body, whose register and quotient chains are about
 * half as long, and amm_body, the textbook order with the fewest instructions. Single
 * products (x1) wait on latency and take the short body at every size. Two interleaved
 * products (x2) take the body each size measured faster with on Zen 4: the short one at
 * 10 digits, the textbook one at 20 / 30 / 40 (bound by issue there); the zmm kernels of
 * 10 and 20 digits, the ifmaz backend's for cores whose 512-bit IFMA is full rate and
 * latency-bound (Zen 5), the short one. Figures in docs/kernels.md; IFMA_X2_* below are
 * overridable for measurements, as IFMA_W*: -DIFMA_X2_20=amm_short_body.
 */
#define DEFINE_KERNELS(name, nd, w, nv, x2body)                                            \
    void ctbn_ifma_amm##name##_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,         \
                                const ctbn_ifma_mod *mod)                                  \
    {                                                                                      \
        uint64_t *const rs[2] = {r, r};                                                    \
        const uint64_t *const as[2] = {a, a}, *const bs[2] = {b, b};                       \
        const ctbn_ifma_mod *const ms[2] = {mod, mod};                                     \
        amm_short_body_##w(1, nd, nv, rs, as, bs, ms);                                     \
    }                                                                                      \
    void ctbn_ifma_amm##name##_x2(uint64_t *r1, const uint64_t *a1, const uint64_t *b1,      \
                                const ctbn_ifma_mod *mod1, uint64_t *r2,                   \
                                const uint64_t *a2, const uint64_t *b2,                    \
                                const ctbn_ifma_mod *mod2)                                 \
    {                                                                                      \
        uint64_t *const rs[2] = {r1, r2};                                                  \
        const uint64_t *const as[2] = {a1, a2}, *const bs[2] = {b1, b2};                   \
        const ctbn_ifma_mod *const ms[2] = {mod1, mod2};                                   \
        x2body##_##w(2, nd, nv, rs, as, bs, ms);                                           \
    }                                                                                      \
    void ctbn_ifma_ams##name##_x1(uint64_t *r, const uint64_t *a, const ctbn_ifma_mod *mod)  \
    {                                                                                      \
        uint64_t *const rs[2] = {r, r};                                                    \
        const uint64_t *const as[2] = {a, a};                                              \
        const ctbn_ifma_mod *const ms[2] = {mod, mod};                                     \
        ams_body_##w(1, nd, nv, rs, as, ms);                                               \
    }                                                                                      \
    void ctbn_ifma_ams##name##_x2(uint64_t *r1, const uint64_t *a1, const ctbn_ifma_mod *mod1, \
                                uint64_t *r2, const uint64_t *a2, const ctbn_ifma_mod *mod2) \
    {                                                                                      \
        uint64_t *const rs[2] = {r1, r2};                                                  \
        const uint64_t *const as[2] = {a1, a2};                                            \
        const ctbn_ifma_mod *const ms[2] = {mod1, mod2};                                   \
        ams_body_##w(2, nd, nv, rs, as, ms);                                               \
    }

#ifndef IFMA_W10 /* overridable for measurements: -DIFMA_W10=z */
#define IFMA_W10 y
#endif
#ifndef IFMA_W20
#define IFMA_W20 y
#endif
#ifndef IFMA_W30
#define IFMA_W30 z
#endif
#ifndef IFMA_W40
#define IFMA_W40 z
#endif
#define NV_y(nd) (((nd) + 3) / 4)
#define NV_z(nd) (((nd) + 7) / 8)
#define NV_OF(w, nd) NV_##w(nd)
#ifndef IFMA_X2_10
#define IFMA_X2_10 amm_short_body
#endif
#ifndef IFMA_X2_20
#define IFMA_X2_20 amm_body
#endif
#ifndef IFMA_X2_30
#define IFMA_X2_30 amm_body
#endif
#ifndef IFMA_X2_40
#define IFMA_X2_40 amm_body
#endif
#ifndef IFMA_X2_Z
#define IFMA_X2_Z amm_short_body
#endif
#define DEFINE_FOR(nd, w, x2) DEFINE_KERNELS(nd, nd, w, NV_OF(w, nd), x2)
#define DEFINE_FOR_(nd, w, x2) DEFINE_FOR(nd, w, x2)

DEFINE_FOR_(10, IFMA_W10, IFMA_X2_10)
DEFINE_FOR_(20, IFMA_W20, IFMA_X2_20)
DEFINE_FOR_(30, IFMA_W30, IFMA_X2_30)
DEFINE_FOR_(40, IFMA_W40, IFMA_X2_40)

/*
 * 10 and 20 digits on 512-bit registers too (2 and 3 zmm, 16 and 24 lanes), for the
 * "ifmaz" backend: on a core whose 512-bit vpmadd52 issues at the 256-bit rate (AMD Zen 5,
 * family 26) the zmm form issues fewer instructions for the same digit products, where on
 * Zen 4 and the Intel cores measured it issues at half rate and the padding lanes cost.
 * Issue 22 measured the 20-digit AMM x2 on Zen 5 at 310-329 TSC ticks on zmm against
 * 322-346 on ymm. 30 and 40 digits are zmm in both backends.
 */
#define DEFINE_KERNELS_(name, nd, w, nv, x2) DEFINE_KERNELS(name, nd, w, nv, x2)
DEFINE_KERNELS_(10z, 10, z, NV_z(10), IFMA_X2_Z)
DEFINE_KERNELS_(20z, 20, z, NV_z(20), IFMA_X2_Z)

/*
 * 60 and 80 digits (3072 and 4096-bit moduli): the single AMM only, for the public-exponent
 * path (ifma_exp_public.c); the private path's halves are at most 2048 bits. zmm: 8 and 10
 * registers (64 and 80 lanes; ymm would need 15 and 20, past NV_MAX). With x, h, B and M
 * that is more than the 32 vector registers: the compiler takes B and M from memory as
 * vpmadd52 operands, which the load ports absorb.
 */
#define DEFINE_X1(nd, nv)                                                                  \
    void ctbn_ifma_amm##nd##_x1(uint64_t *r, const uint64_t *a, const uint64_t *b,         \
                                const ctbn_ifma_mod *mod)                                  \
    {                                                                                      \
        uint64_t *const rs[2] = {r, r};                                                    \
        const uint64_t *const as[2] = {a, a}, *const bs[2] = {b, b};                       \
        const ctbn_ifma_mod *const ms[2] = {mod, mod};                                     \
        amm_short_body_z(1, nd, nv, rs, as, bs, ms);                                       \
    }

DEFINE_X1(60, 8)
DEFINE_X1(80, 10)

ctbn_ifma_amm_x1_fn *ctbn_ifma_amm_x1_for(size_t digits)
{
    switch (digits) {
    case 10:
        return ctbn_ifma_amm10_x1;
    case 20:
        return ctbn_ifma_amm20_x1;
    case 30:
        return ctbn_ifma_amm30_x1;
    case 40:
        return ctbn_ifma_amm40_x1;
    case 60:
        return ctbn_ifma_amm60_x1;
    case 80:
        return ctbn_ifma_amm80_x1;
    default:
        return NULL;
    }
}

ctbn_ifma_amm_x2_fn *ctbn_ifma_amm_x2_for(size_t digits)
{
    switch (digits) {
    case 10:
        return ctbn_ifma_amm10_x2;
    case 20:
        return ctbn_ifma_amm20_x2;
    case 30:
        return ctbn_ifma_amm30_x2;
    case 40:
        return ctbn_ifma_amm40_x2;
    default:
        return NULL;
    }
}

ctbn_ifma_ams_x1_fn *ctbn_ifma_ams_x1_for(size_t digits)
{
    switch (digits) {
    case 10:
        return ctbn_ifma_ams10_x1;
    case 20:
        return ctbn_ifma_ams20_x1;
    case 30:
        return ctbn_ifma_ams30_x1;
    case 40:
        return ctbn_ifma_ams40_x1;
    default:
        return NULL;
    }
}

ctbn_ifma_ams_x2_fn *ctbn_ifma_ams_x2_for(size_t digits)
{
    switch (digits) {
    case 10:
        return ctbn_ifma_ams10_x2;
    case 20:
        return ctbn_ifma_ams20_x2;
    case 30:
        return ctbn_ifma_ams30_x2;
    case 40:
        return ctbn_ifma_ams40_x2;
    default:
        return NULL;
    }
}

/* The 512-bit kernels at every D: the "ifmaz" backend's (ifma.h). */
#define DEFINE_ZMM_FOR(op, x)                                                              \
    ctbn_ifma_##op##_##x##_fn *ctbn_ifma_##op##_##x##_zmm_for(size_t digits)               \
    {                                                                                      \
        return digits == 10   ? ctbn_ifma_##op##10z_##x                                    \
               : digits == 20 ? ctbn_ifma_##op##20z_##x                                    \
                              : ctbn_ifma_##op##_##x##_for(digits);                        \
    }

DEFINE_ZMM_FOR(amm, x1)
DEFINE_ZMM_FOR(amm, x2)
DEFINE_ZMM_FOR(ams, x1)
DEFINE_ZMM_FOR(ams, x2)
