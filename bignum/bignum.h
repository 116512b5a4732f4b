/*
 * ctrsa bignum engine: the contract of every operation.
 *
 * Plain C11, no OpenSSL, no allocation. A number is an array of 64-bit limbs, least
 * significant first, whose limb count is public and fixed (its modulus' limb count). Values
 * are secret unless a contract says otherwise.
 *
 * Each contract ends with a CT: line saying what may leak through timing and memory access.
 * "Only lengths leak" means: branch conditions, loop bounds and memory addresses depend on
 * limb counts and announced bit lengths only, never on the limb values.
 *
 * Aliasing: "MAY alias" means the output pointer may equal an input pointer; "MUST NOT
 * alias" means it must not overlap it at all.
 */
#ifndef CTRSA_BIGNUM_H
#define CTRSA_BIGNUM_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t ctbn_limb;

/* A constant-time boolean: all ones (true) or zero (false), never used in a branch. */
typedef uint64_t ctbn_mask;

/* The largest modulus the engine accepts, in bits and limbs (RSA-16384). */
#define CTBN_MAX_BITS 16384
#define CTBN_MAX_LIMBS (CTBN_MAX_BITS / 64)

/* Limbs needed for a value of `bits` bits (public). */
#define CTBN_LIMBS(bits) (((size_t)(bits) + 63) / 64)

/*
 * Declassify: the few places where a value computed from secrets becomes public on purpose
 * (a candidate prime's rejection by the sieve, the verdict of the private operation's fault
 * check, whether a blinding value was invertible). A no-op in the module; the valgrind
 * constant-time test compiles the code concerned with CTRSA_VALGRIND so that memcheck stops
 * tracking the value there and reports every other use of a secret.
 */
#ifdef CTRSA_VALGRIND
#include <valgrind/memcheck.h>
#define CTBN_DECLASSIFY(p, len) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (len)))
#else
#define CTBN_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

/* ---------------------------------------------------------------------------------------
 * Masks (ct_mask.c is header-only: these are static inline).
 */

/* All ones if x != 0, else 0. CT: nothing leaks. */
static inline ctbn_mask ctbn_mask_nonzero(uint64_t x)
{
    return (ctbn_mask)0 - ((x | ((uint64_t)0 - x)) >> 63);
}

/* All ones if x == y. CT: nothing leaks. */
static inline ctbn_mask ctbn_mask_eq(uint64_t x, uint64_t y)
{
    return ~ctbn_mask_nonzero(x ^ y);
}

/* All ones if x < y (unsigned). CT: nothing leaks. */
static inline ctbn_mask ctbn_mask_lt(uint64_t x, uint64_t y)
{
    /* borrow of x - y, computed without a compare the compiler could turn into a branch */
    uint64_t borrow = ((~x & y) | (~(x ^ y) & (x - y))) >> 63;
    return (ctbn_mask)0 - borrow;
}

/* mask ? a : b. CT: nothing leaks. */
static inline uint64_t ctbn_select(ctbn_mask mask, uint64_t a, uint64_t b)
{
    return b ^ (mask & (a ^ b));
}

/* ---------------------------------------------------------------------------------------
 * Byte strings and plain arithmetic on n-limb values (ct_basic.c)
 */

/*
 * x (n limbs) := the big-endian byte string in[0..len).
 * Returns all ones if the value fits in n limbs, 0 if it does not (x is then the low n limbs).
 * CT: only n and len leak.
 */
ctbn_mask ctbn_from_bytes(ctbn_limb *x, size_t n, const uint8_t *in, size_t len);

/*
 * out[0..len) := x (n limbs) as big-endian bytes, left-padded with zeros.
 * Returns all ones if x fits in len bytes, 0 if high bytes were dropped.
 * CT: only n and len leak.
 */
ctbn_mask ctbn_to_bytes(uint8_t *out, size_t len, const ctbn_limb *x, size_t n);

/* x := 0 (n limbs). CT: only n leaks. */
void ctbn_zero(ctbn_limb *x, size_t n);

/* x := y (n limbs). MAY alias exactly. CT: only n leaks. */
void ctbn_copy(ctbn_limb *x, const ctbn_limb *y, size_t n);

/* x := the small public value v, padded to n limbs. CT: only n leaks. */
void ctbn_set_u64(ctbn_limb *x, size_t n, uint64_t v);

/* All ones if x == y. CT: only n leaks. */
ctbn_mask ctbn_eq(const ctbn_limb *x, const ctbn_limb *y, size_t n);

/* All ones if x == 0. CT: only n leaks. */
ctbn_mask ctbn_is_zero(const ctbn_limb *x, size_t n);

/* All ones if x < y. CT: only n leaks. */
ctbn_mask ctbn_lt(const ctbn_limb *x, const ctbn_limb *y, size_t n);

/* r := x + y mod 2^(64n); returns the carry (0 or 1). r MAY alias x or y. CT: only n leaks. */
ctbn_limb ctbn_add(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, size_t n);

/* r := x - y mod 2^(64n); returns the borrow (0 or 1). r MAY alias x or y. CT: only n leaks. */
ctbn_limb ctbn_sub(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, size_t n);

/* r := x - w mod 2^(64n) for one word w, the borrow carried through every limb (p - 2 for a
 * prime p = 1 mod 2^64 borrows from the second limb); returns the final borrow. r MAY alias
 * x. CT: only n leaks. */
ctbn_limb ctbn_sub_word(ctbn_limb *r, const ctbn_limb *x, ctbn_limb w, size_t n);

/* If mask is all ones, x := y; if zero, x unchanged. MAY alias. CT: only n leaks. */
void ctbn_cmov(ctbn_mask mask, ctbn_limb *x, const ctbn_limb *y, size_t n);

/* If mask is all ones, swap x and y. CT: only n leaks. */
void ctbn_cswap(ctbn_mask mask, ctbn_limb *x, ctbn_limb *y, size_t n);

/*
 * If (extra:x) >= m, x := (extra:x) - m, where extra is 0 or 1, the carry bit above x's n limbs.
 * Requires (extra:x) < 2m. Returns the mask of whether the subtraction took place.
 * CT: only n leaks.
 */
ctbn_mask ctbn_csub_mod(ctbn_limb *x, ctbn_limb extra, const ctbn_limb *m, size_t n);

/* r := x + y mod m, with x, y < m. r MAY alias x or y. CT: only n leaks. */
void ctbn_mod_add(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, const ctbn_limb *m,
                  size_t n);

/* x := x + (y if mask is all ones, else 0) mod 2^(64n); returns the carry. CT: only n leaks. */
ctbn_limb ctbn_cadd(ctbn_mask mask, ctbn_limb *x, const ctbn_limb *y, size_t n);

/* r := x - y mod m, with x, y < m. r MAY alias x or y. CT: only n leaks. */
void ctbn_mod_sub(ctbn_limb *r, const ctbn_limb *x, const ctbn_limb *y, const ctbn_limb *m,
                  size_t n);

/*
 * r (an + bn limbs) := a (an limbs) * b (bn limbs), schoolbook.
 * r MUST NOT alias a or b. CT: only an and bn leak.
 */
void ctbn_mul(ctbn_limb *r, const ctbn_limb *a, size_t an, const ctbn_limb *b, size_t bn);

/*
 * Bit length of x, for a PUBLIC x (a public modulus or exponent). Returns 0 for x = 0.
 * CT: NOT constant-time; x must be public.
 */
size_t ctbn_bitlen_vartime(const ctbn_limb *x, size_t n);

/* ---------------------------------------------------------------------------------------
 * Montgomery arithmetic (mont_ctx.c, mont_mul.c)
 *
 * R = 2^(64n). "Montgomery form" of x is x*R mod m.
 */
typedef struct ctbn_mont {
    size_t n;                     /* limb count (public) */
    size_t bits;                  /* bit length of m (public, the announced length) */
    ctbn_limb m0inv;              /* -m^-1 mod 2^64 */
    ctbn_limb *m;                 /* the odd modulus (n limbs, right after the struct) */
    ctbn_limb *rr;                /* R^2 mod m (n limbs, after m) */
} ctbn_mont;

/*
 * Bytes of a context for an n-limb modulus: the struct and its 2n limbs, so that a key holds
 * contexts sized to its own moduli (a 1024-bit prime's context is 304 bytes, not 6 KB).
 * m and rr point into the context itself: a context MUST NOT be copied with memcpy (build
 * another with ctbn_mont_init).
 */
#define CTBN_MONT_BYTES(n) (sizeof(ctbn_mont) + 2 * (size_t)(n) * sizeof(ctbn_limb))

/* A context with room for any modulus, for workspaces and tests (ctx is the context; its
 * limbs go in room, which follows it directly). */
typedef struct ctbn_mont_max {
    ctbn_mont ctx;
    ctbn_limb room[2 * CTBN_MAX_LIMBS];
} ctbn_mont_max;
_Static_assert(offsetof(ctbn_mont_max, room) == sizeof(ctbn_mont),
               "a context's limbs follow it directly");

/*
 * Set up ctx, which MUST have room for CTBN_MONT_BYTES(n) bytes (see above), for the odd
 * modulus m (n limbs, 1 <= n <= CTBN_MAX_LIMBS, m > 1). R^2 mod m is
 * computed by modular doublings up to R*2^n mod m followed by six Montgomery squarings
 * (2^6 * n = 64 n), without a long division.
 * Returns 0 on success, -1 if m is even, zero or one, or n is out of range.
 * The modulus may be secret (a prime factor); its bit length is treated as public.
 * CT: only n and the bit length of m leak (the checks on m are public failure reasons).
 */
int ctbn_mont_init(ctbn_mont *ctx, const ctbn_limb *m, size_t n);

/* r (ctx->n limbs) := R mod m, 1 in Montgomery form (one Montgomery multiplication, so a
 * context need not keep it). CT: only n leaks. */
void ctbn_mont_one(const ctbn_mont *ctx, ctbn_limb *r);

/*
 * r := a * b * R^-1 mod m, fully reduced (r < m).
 * Requires b < m and a < R (a need not be reduced). r MAY alias a or b.
 * CT: only n leaks.
 */
void ctbn_mont_mul(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a, const ctbn_limb *b);

/* r := a^2 * R^-1 mod m with a < m. r MAY alias a. CT: only n leaks. */
void ctbn_mont_sqr(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);

/* r := a * R mod m (into Montgomery form), a < R. r MAY alias a. CT: only n leaks. */
void ctbn_to_mont(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);

/* r := a * R^-1 mod m (out of Montgomery form), a < R. r MAY alias a. CT: only n leaks. */
void ctbn_from_mont(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *a);

/* ---------------------------------------------------------------------------------------
 * Reduction (mod_reduce.c)
 */

/*
 * r (ctx->n limbs) := x mod m, where x has xn limbs (any count, e.g. a 2n-limb CRT input).
 * r MUST NOT alias x. scratch: CTBN_REDUCE_SCRATCH(ctx->n) limbs. One Montgomery
 * multiplication per n-limb chunk below the top one when m's top bit is set (a 2n-limb x
 * mod a 1024-bit prime: 1 instead of 6); otherwise two for the top chunk and three for each
 * one below.
 * CT: only ctx->n, xn and the bit length of m (public, as in ctbn_mont_init) leak.
 */
#define CTBN_REDUCE_SCRATCH(n) (2 * (size_t)(n))
void ctbn_mod_reduce(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *x, size_t xn,
                     ctbn_limb *scratch);

/*
 * r (mn limbs) := x (xn limbs) mod m, for ANY modulus m > 0 of mn limbs (even ones too, such
 * as p - 1). Bit-serial shift-and-subtract: 64*xn steps of one doubling and one masked
 * subtraction. Slow (use it for key checks, not per operation). r MUST NOT alias x or m.
 * CT: only xn and mn leak.
 */
void ctbn_mod_any_ct(ctbn_limb *r, const ctbn_limb *x, size_t xn, const ctbn_limb *m,
                     size_t mn);

/* ---------------------------------------------------------------------------------------
 * Modular exponentiation: the seam for CPU-specific backends (modexp_ct.c, exp_public_vartime.c)
 */

/* Window width used by the constant-time modexp for a public exponent length. */
unsigned ctbn_modexp_window(size_t exp_bits);

/* Scratch limbs needed by ctbn_modexp_ct for modulus limb count n (any exponent length):
 * the portable path's 64-entry table and three values, and room for the AVX2 and avx512
 * backends' 32-entry table in radix 2^28/2^29 (up to 2.5 n + 8 lanes an entry: 48 at
 * n = 16, the avx512 backend's 40 digits) at a 32-byte boundary. */
#define CTBN_MODEXP_SCRATCH(n) ((72 + 3) * (size_t)(n) + 352)

/*
 * r := b^e mod m, constant time.
 * b: ctx->n limbs, in normal (not Montgomery) form, b < m.
 * e: CTBN_LIMBS(e_bits) limbs; e_bits is the exponent's PUBLIC announced length (e.g. the bit
 *    length of p for dP); e must be < 2^e_bits. e may be zero.
 * r: ctx->n limbs, normal form, r < m. r MAY alias b.
 * scratch: CTBN_MODEXP_SCRATCH(ctx->n) limbs.
 * The sequence of squarings and multiplications depends only on e_bits and ctx->n: leading
 * zero windows are multiplied by a table entry too. Every table lookup reads every entry.
 * CT: only ctx->n and e_bits leak; b, e and m are secret.
 */
void ctbn_modexp_ct(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                    const ctbn_limb *e, size_t e_bits, ctbn_limb *scratch);

/*
 * Two independent constant-time exponentiations at once (the two CRT halves):
 * r1 := b1^e1 mod ctx1->m and r2 := b2^e2 mod ctx2->m, each with the contract of
 * ctbn_modexp_ct. A backend may interleave them; the portable code runs one after the other.
 * scratch: CTBN_MODEXP2_SCRATCH(ctx1->n, ctx2->n) limbs.
 * CT: only the limb counts and e1_bits, e2_bits leak.
 */
#define CTBN_MODEXP2_SCRATCH(n1, n2) (CTBN_MODEXP_SCRATCH(n1) + CTBN_MODEXP_SCRATCH(n2))
void ctbn_modexp2_ct(const ctbn_mont *ctx1, ctbn_limb *r1, const ctbn_limb *b1,
                     const ctbn_limb *e1, size_t e1_bits,
                     const ctbn_mont *ctx2, ctbn_limb *r2, const ctbn_limb *b2,
                     const ctbn_limb *e2, size_t e2_bits, ctbn_limb *scratch);

/*
 * r := b^e mod m for a PUBLIC exponent e (en limbs), square-and-multiply over the bits of e
 * with leading zeros skipped. b: ctx->n limbs, b < m, normal form; b may be secret (the base
 * only enters multiplications). r MAY alias b. scratch: CTBN_EXP_VARTIME_SCRATCH(ctx->n).
 * e = 0 gives 1 mod m.
 * CT: e and its length leak (they are public); b does not.
 */
#define CTBN_EXP_VARTIME_SCRATCH(n) (2 * (size_t)(n))
void ctbn_modexp_public_vartime(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                                const ctbn_limb *e, size_t en, ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Backend selection (backend.c; the seam itself is in backend.h)
 *
 * ctbn_mont_mul, ctbn_mont_sqr, ctbn_modexp_ct and ctbn_modexp2_ct (and everything built on
 * them) run on one active backend: "portable" (the C reference, always available), "adx"
 * (MULX/ADCX/ADOX, x86-64 with BMI2 and ADX), "avx2" (AVX2 modexp kernels for 1024/1536/2048-bit
 * moduli, ADX for the rest) or "ifma" (AVX-512 IFMA, with the ZMM state
 * enabled by the OS). Results are identical whatever the backend.
 *
 * Until ctbn_backend_select is first called, the active backend is the one named by the
 * environment variable CTRSA_CPU if it is set and supported, else "portable" (with
 * CTRSA_CPU_TRUST=1 the CPU check is skipped for it: for valgrind, whose virtual CPU hides
 * ADX; a test facility). The provider selects once at load (CTRSA_CPU, default "auto",
 * always checked); tests may switch between runs.
 */

/*
 * Make `name` the active backend: "portable", "adx", "avx512y", "avx2", "avx512", "ifma",
 * "ifmaz", or "auto" (NULL means "auto"): the best supported, ifma > avx512 > avx2 > adx >
 * portable, and ifmaz (ifma's kernels on 512-bit registers at every size) above ifma on
 * cores that issue 512-bit IFMA at the 256-bit rate (AMD Zen 5) only; avx512y, the avx512
 * kernels at 256 bits for tests, is never chosen by "auto".
 * Returns 0 on success, -1 if the name is unknown
 * or that backend is not built or not supported by this CPU and OS (the active backend is
 * then unchanged). Thread-safe, but must not be called while another thread computes if the
 * caller needs that computation on a particular backend.
 * CT: public (the CPU's features and a public name).
 */
int ctbn_backend_select(const char *name);

/* The active backend's name ("portable", "adx", "avx512y", "avx2", "avx512", "ifma" or
 * "ifmaz").
 * CT: public. */
const char *ctbn_backend_name(void);

/*
 * The backends usable here, in the order portable, adx, avx512y, avx2, avx512, ifma, ifmaz
 * (backend.c): stores up to max names in names[] (names may be NULL when max is 0) and
 * returns how many there are in all.
 * CT: public.
 */
size_t ctbn_backend_supported(const char **names, size_t max);

/* ---------------------------------------------------------------------------------------
 * Modular inverse (mod_inverse_ct.c)
 */

/*
 * r := a^-1 mod m, for an odd modulus m > 1 (n limbs) and a < m.
 * Constant-time binary extended GCD: exactly 2*64*n iterations, each doing the same
 * conditional subtractions, swaps and halvings selected by masks.
 * Returns all ones if gcd(a, m) = 1 (r is the inverse), 0 otherwise (r is then zero).
 * r MUST NOT alias a or m. scratch: CTBN_INVERSE_SCRATCH(n) limbs.
 * CT: only n leaks; a and m are secret.
 */
#define CTBN_INVERSE_SCRATCH(n) (4 * (size_t)(n))
ctbn_mask ctbn_mod_inverse_ct(ctbn_limb *r, const ctbn_limb *a, const ctbn_limb *m, size_t n,
                              ctbn_limb *scratch);

/* ---------------------------------------------------------------------------------------
 * Clearing the vector registers (clear_regs.c)
 *
 * Every dispatching entry point (ctbn_mont_mul, ctbn_mont_sqr, ctbn_modexp_ct,
 * ctbn_modexp2_ct, ctbn_modexp_public_vartime) calls ctbn_clear_vector_regs last, after the
 * backend's hook or the generic code, so that no digit of a secret (a prime, a residue, a
 * table entry) stays in a vector register once the engine returns: a signal frame, a core
 * dump or ptrace would see it. What is cleared is the CPU's whole register file, not only
 * what the backend's kernels use: the compiled C around every backend uses SSE2, and the C
 * library's memcpy and memset pick their variant by CPU (on an AVX-512 CPU glibc's use
 * ymm16-31 and k registers, whatever the backend).
 *
 *   AVX-512F: zmm0-31 and k0-k7 (ctbn_clear_regs_avx512);
 *   AVX2:     ymm0-15 (ctbn_clear_regs_avx: a VEX xor of each, then VZEROUPPER);
 *   else:     xmm0-15 (SSE2);
 *   aarch64:  v0-v7 and v16-v31, the high halves of v8-v15 (their low halves are
 *             callee-saved); other CPUs: nothing.
 *
 * Cost: measured in docs/kernels.md ("Vector registers after a call").
 * CT: unconditional; the instruction set chosen depends on the CPU only.
 */
void ctbn_clear_vector_regs(void);

#endif /* CTRSA_BIGNUM_H */
