/*
 * Section 2, the classic table: key generation (median and spread of many keys), 100 signs
 * and 100 verifies (PKCS#1 v1.5, SHA-256) at 1024, 2048, 3072 and 4096 bits.
 *
 * Key generation is measured only where the provider offers it (be_has_keygen), so ctrsa's
 * column fills in by itself once its keymgmt can generate. Every key ctrsa generates is
 * checked by the default provider (EVP_PKEY_check), outside the timing: a fast generator of
 * bad keys must not score.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_suite.h"
#include "bench_util.h"

/*
 * Keys per size and side. A slow generator stops earlier, once the size has used its time
 * budget (wall_budget_s) and made min_keys: at least 20 at 2048 in a full run.
 */
static size_t min_keys(size_t bits, int quick)
{
    return quick ? 2 : bits == 2048 ? 20 : 4;
}

static double wall_budget_s(int quick)
{
    return quick ? 5 : 60;
}

static size_t keys_for(size_t bits, int quick)
{
    switch (bits) {
    case 1024:
        return quick ? 8 : 40;
    case 2048:
        return quick ? 6 : 24;
    case 3072:
        return quick ? 3 : 12;
    default:
        return quick ? 2 : 8;
    }
}

/* "median (p10–p90)" of key generation times. */
static const char *fmt_keygen(char *buf, size_t size, const bu_stats *s)
{
    char m[24], lo[24], hi[24];

    snprintf(buf, size, "%s (%s – %s)", bu_fmt_time(m, sizeof(m), s->median),
             bu_fmt_time(lo, sizeof(lo), s->p10), bu_fmt_time(hi, sizeof(hi), s->p90));
    return buf;
}

static void keygen_row(bs_suite *suite, size_t bits, const int has[BE_SIDES])
{
    size_t nkeys = keys_for(bits, suite->opts.quick);
    double *t[BE_SIDES], start = bu_wall_ns();
    bu_stats st[BE_SIDES];
    char cell[BE_SIDES][80], label[64], ratio[32] = "—";

    for (int s = 0; s < BE_SIDES; s++)
        t[s] = bu_xmalloc(nkeys * sizeof(double));
    /* interleaved: ctrsa's key i, then the reference's key i */
    for (size_t i = 0; i < nkeys; i++) {
        for (int s = 0; s < BE_SIDES; s++) {
            if (!has[s])
                continue;
            snprintf(label, sizeof(label), "%zu-bit key generation, %s", bits,
                     suite->env.name[s]);
            bu_progress("%s, key %zu/%zu", label, i + 1, nkeys);
            EVP_PKEY *pkey = be_keygen_timed(&suite->env, s, bits, &t[s][i]);
            if (s == BE_SIDE_CTRSA)
                be_key_check_default(&suite->env, pkey);
            EVP_PKEY_free(pkey);
        }
        if (i + 1 >= min_keys(bits, suite->opts.quick)
                && bu_wall_ns() - start > wall_budget_s(suite->opts.quick) * 1e9)
            nkeys = i + 1; /* out of time: the keys made so far */
    }
    for (int s = 0; s < BE_SIDES; s++) {
        if (has[s]) {
            st[s] = bu_stats_of(t[s], nkeys);
            fmt_keygen(cell[s], sizeof(cell[s]), &st[s]);
            bu_csv_row("classic", "keygen", bits, 1, suite->env.name[s], "time_per_key", "ns",
                       &st[s]);
        } else {
            snprintf(cell[s], sizeof(cell[s]), "%s: no key generation yet",
                     suite->env.name[s]);
        }
        free(t[s]);
    }
    if (has[BE_SIDE_CTRSA] && has[BE_SIDE_REF]) {
        /* keys are independent draws: a ratio of medians, not of neighbours */
        snprintf(ratio, sizeof(ratio), "**%.2f**",
                 st[BE_SIDE_REF].median / st[BE_SIDE_CTRSA].median);
        bu_stats r = { st[BE_SIDE_REF].median / st[BE_SIDE_CTRSA].median, 0, 0, nkeys };
        r.p10 = r.p90 = r.median;
        bu_csv_row("classic", "keygen", bits, 1, "ratio", "ref_median/ctrsa_median", "x", &r);
    }
    bu_progress_clear();
    printf("| %zu | key generation, %zu keys: median (p10 – p90) | %s | %s | %s |\n", bits, nkeys,
           cell[BE_SIDE_CTRSA], cell[BE_SIDE_REF], ratio);
    fflush(stdout);
}

/* 100 operations per batch, `rounds` interleaved batches per side. */
static void hundred_row(bs_suite *suite, size_t bits, be_opkind kind, const char *what)
{
    const be_key *key = bs_key(suite, bits);
    size_t rounds = suite->opts.quick ? 3 : 7;
    be_op *op[BE_SIDES];
    bu_run_fn run[BE_SIDES] = { be_op_run, be_op_run };
    size_t reps[BE_SIDES] = { 100, 100 };
    double *t[BE_SIDES];
    bu_stats st[BE_SIDES], ratio;
    char label[64], cell[BE_SIDES][48], rc[48];

    for (int s = 0; s < BE_SIDES; s++) {
        op[s] = be_op_new(&suite->env, key, s, kind);
        t[s] = bu_xmalloc(rounds * sizeof(double));
    }
    snprintf(label, sizeof(label), "%zu-bit %s", bits, what);
    bu_time_interleaved(BE_SIDES, run, (void *const *)op, reps, rounds, t, label);
    for (size_t r = 0; r < rounds; r++)
        for (int s = 0; s < BE_SIDES; s++)
            t[s][r] *= 100; /* time of the 100 operations */
    ratio = bu_ratio_stats(t[BE_SIDE_REF], t[BE_SIDE_CTRSA], rounds);
    for (int s = 0; s < BE_SIDES; s++) {
        st[s] = bu_stats_of(t[s], rounds);
        bu_fmt_time_spread(cell[s], sizeof(cell[s]), &st[s]);
        bu_csv_row("classic", what, bits, 1, suite->env.name[s], "time_per_100", "ns", &st[s]);
        be_op_free(op[s]);
        free(t[s]);
    }
    bu_csv_row("classic", what, bits, 1, "ratio", "ref_time/ctrsa_time", "x", &ratio);
    bu_progress_clear();
    printf("| %zu | %s | %s | %s | %s |\n", bits, what, cell[BE_SIDE_CTRSA], cell[BE_SIDE_REF],
           bu_fmt_ratio(rc, sizeof(rc), &ratio));
    fflush(stdout);
}

void bs_section_classic(bs_suite *suite)
{
    static const size_t sizes[] = { 1024, 2048, 3072, 4096 };
    const char *ref = bs_ref(suite);
    int has[BE_SIDES];

    for (int s = 0; s < BE_SIDES; s++)
        has[s] = be_has_keygen(&suite->env, s);
    bu_heading(2, "Key generation, 100 signs, 100 verifies");
    printf("Signatures: PKCS#1 v1.5 with SHA-256, time for 100 operations, median of %s "
           "interleaved rounds. Key generation (e = 65537): each key timed alone, ctrsa and "
           "%s alternating; median and p10 – p90 over the keys; the ratio is of the medians.%s"
           "\n\n",
           suite->opts.quick ? "3" : "7", ref,
           has[BE_SIDE_CTRSA] ? " Every key ctrsa makes passes the default provider's "
                                "EVP_PKEY_check (not timed)."
                              : "");
    printf("| bits | figure | ctrsa | %s | %s/ctrsa |\n", ref, ref);
    printf("|---:|---|---:|---:|---:|\n");
    fflush(stdout);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        keygen_row(suite, sizes[i], has);
        hundred_row(suite, sizes[i], BE_SIGN_PKCS1, "100 signs");
        hundred_row(suite, sizes[i], BE_VERIFY_PKCS1, "100 verifies");
    }
    printf("\n");
}
