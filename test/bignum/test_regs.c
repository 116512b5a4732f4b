/*
 * The engine's entry points leave every vector register zero: for every backend the CPU
 * supports, on moduli of 8 to 64 limbs (every size a kernel takes, and sizes none does),
 * each of ctbn_modexp_ct, ctbn_modexp2_ct, ctbn_modexp_public_vartime, ctbn_mont_mul and
 * ctbn_mont_sqr is called and, right after it returns, the whole vector register file
 * (vector_regs.h: zmm0-31 and k0-k7 on a CPU with AVX-512F) must be zero. Nothing but the
 * engine runs between the call and the dump, so the criterion is exact: whatever a kernel,
 * the C around it or the C library's memcpy/memset under it left there is seen.
 *
 * Natively only (valgrind cannot run AVX-512); x86-64 only (test/bignum/meson.build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_fixtures.h"
#include "vector_regs.h"

static const size_t sizes[] = { 8, 16, 24, 32, 40, 48, 64 };

/* Fails the test unless every register in r is zero; prints the rest first. */
static void expect_clear(const vregs *r, const char *backend, const char *call, size_t n)
{
    char what[96];

    if (vregs_all_zero(r))
        return;
    snprintf(what, sizeof(what), "%s, %s, %zu limbs", backend, call, n);
    vregs_print_nonzero(r, what);
    fail_msg("%s left vector registers not zero", what);
}

static void check_size(const char *backend, size_t n, ctbn_limb *scratch)
{
    struct modulus m1, m2;
    ctbn_limb b1[CTBN_MAX_LIMBS], b2[CTBN_MAX_LIMBS], e1[CTBN_MAX_LIMBS],
        e2[CTBN_MAX_LIMBS], r1[CTBN_MAX_LIMBS], r2[CTBN_MAX_LIMBS];
    ctbn_limb e65537[1] = { 65537 };
    vregs r;

    modulus_make(&m1, n, 64 * n, MOD_RANDOM);
    modulus_make(&m2, n, 64 * n, MOD_RANDOM);
    base_make(b1, &m1, BASE_RANDOM);
    base_make(b2, &m2, BASE_RANDOM);
    rand_pattern(e1, n, 64 * n);
    rand_pattern(e2, n, 64 * n);

    ctbn_modexp_ct(m1.ctx, r1, b1, e1, 64 * n, scratch);
    vregs_dump(&r);
    expect_clear(&r, backend, "ctbn_modexp_ct", n);

    ctbn_modexp2_ct(m1.ctx, r1, b1, e1, 64 * n, m2.ctx, r2, b2, e2, 64 * n, scratch);
    vregs_dump(&r);
    expect_clear(&r, backend, "ctbn_modexp2_ct", n);

    ctbn_modexp_public_vartime(m1.ctx, r1, b1, e65537, 1, scratch);
    vregs_dump(&r);
    expect_clear(&r, backend, "ctbn_modexp_public_vartime", n);

    ctbn_mont_mul(m1.ctx, r1, b1, b2);
    vregs_dump(&r);
    expect_clear(&r, backend, "ctbn_mont_mul", n);

    ctbn_mont_sqr(m1.ctx, r1, b1);
    vregs_dump(&r);
    expect_clear(&r, backend, "ctbn_mont_sqr", n);

    modulus_free(&m1);
    modulus_free(&m2);
}

static void test_backend(void **state)
{
    const char *name = *state;
    const char *names[16];
    size_t count = ctbn_backend_supported(names, 16), i;
    ctbn_limb *scratch = malloc(CTBN_MODEXP2_SCRATCH(64, 64) * sizeof(ctbn_limb));

    for (i = 0; i < count && i < 16 && strcmp(names[i], name) != 0; i++)
        ;
    if (i == count || i == 16) {
        free(scratch);
        printf("# %s: not supported by this CPU or build\n", name);
        skip();
    }
    assert_non_null(scratch);
    oracle_seed_for(name);
    use_backend(name);
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++)
        check_size(name, sizes[s], scratch);
    free(scratch);
}

int main(void)
{
    /* one test per backend, named after it (bignum/backend.c's names and order) */
#define BACKEND(name) { name, test_backend, NULL, NULL, (void *)name }
    const struct CMUnitTest tests[] = {
        BACKEND("portable"), BACKEND("adx"), BACKEND("avx512y"), BACKEND("avx2"),
        BACKEND("avx512"), BACKEND("ifma"), BACKEND("ifmaz"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
