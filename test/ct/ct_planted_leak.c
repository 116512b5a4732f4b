/*
 * The planted leak: a textbook square-and-multiply that branches on each secret exponent
 * bit, written here (never in bignum/) to prove that the harness and valgrind catch
 * secret-dependent control flow. Its test expects memcheck to report
 * "Conditional jump or move depends on uninitialised value(s)".
 */
#include <stdlib.h>
#include <string.h>

#include "bignum.h"
#include "ct_case.h"

#define LB sizeof(ctbn_limb)

/* r := b^e mod m, left to right. CT: NOT constant-time on purpose: branches on e's bits. */
static void leaky_modexp(const ctbn_mont *ctx, ctbn_limb *r, const ctbn_limb *b,
                         const ctbn_limb *e, size_t e_bits, ctbn_limb *tmp)
{
    ctbn_to_mont(ctx, tmp, b);
    ctbn_mont_one(ctx, r);
    for (size_t i = e_bits; i-- > 0;) {
        ctbn_mont_sqr(ctx, r, r);
        if ((e[i / 64] >> (i % 64)) & 1) /* the leak */
            ctbn_mont_mul(ctx, r, r, tmp);
    }
    ctbn_from_mont(ctx, r, r);
}

static int case_leaky_modexp(void)
{
    size_t bits = 512, n = CTBN_LIMBS(bits);
    ctbn_mont *ctx = malloc(sizeof(ctbn_mont_max));
    ctbn_limb *m = calloc(n, LB), *b = calloc(n, LB), *e = calloc(n, LB);
    ctbn_limb *r = calloc(n, LB), *want = calloc(n, LB), *tmp = calloc(n, LB);
    ctbn_limb *scratch = calloc(CTBN_MODEXP_SCRATCH(n), LB);
    int rc = 0;
    if (ctx == NULL || m == NULL || b == NULL || e == NULL || r == NULL || want == NULL ||
        tmp == NULL || scratch == NULL)
        abort();
    ct_rand_bytes(m, n * LB);
    m[0] |= 1;
    m[n - 1] |= (ctbn_limb)1 << 63;
    ct_rand_bytes(b, n * LB);
    b[n - 1] >>= 1; /* below m */
    ct_rand_bytes(e, n * LB);
    if (ctbn_mont_init(ctx, m, n) != 0)
        abort();
    ctbn_modexp_ct(ctx, want, b, e, bits, scratch);

    ct_secret(e, n * LB);
    leaky_modexp(ctx, r, b, e, bits, tmp);
    ct_public(r, n * LB);
    if (memcmp(r, want, n * LB) != 0)
        rc = ct_fail("planted-leak", "leaky modexp differs from modexp_ct");
    free(ctx);
    free(m);
    free(b);
    free(e);
    free(r);
    free(want);
    free(tmp);
    free(scratch);
    return rc;
}

const struct ct_case ct_planted_cases[] = {
    { "planted-leak", "square-and-multiply branching on a secret exponent (MUST be reported)",
      case_leaky_modexp },
    { NULL, NULL, NULL },
};
