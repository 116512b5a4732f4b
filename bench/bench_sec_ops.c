/*
 * Section 1: EncryptPKCS1v15, DecryptPKCS1v15, EncryptOAEP, DecryptOAEP, SignPKCS1v15,
 * VerifyPKCS1v15, SignPSS, VerifyPSS (SHA-256, MGF1-SHA-256, PSS salt = digest length) at
 * 2048, 3072 and 4096 bits; ctrsa and the reference interleaved, batch by batch.
 */
#include <stdio.h>

#include "bench_suite.h"
#include "bench_util.h"

void bs_section_ops(bs_suite *suite)
{
    static const size_t sizes[] = { 2048, 3072, 4096 };
    size_t rounds = suite->opts.quick ? 5 : 11;
    double target = suite->opts.quick ? 15e6 : 150e6; /* CPU ns per batch per side */
    const char *ref = bs_ref(suite);
    char label[96], cs[48], cr[24], rs[48], rr[24], ratio[48];

    bu_heading(2, "RSA operations through EVP");
    printf("SHA-256 throughout (OAEP and PSS with MGF1-SHA-256, PSS salt of 32 bytes); the "
           "message or digest is 32 bytes. Time per operation: median of %zu interleaved "
           "rounds of about %.0f ms of CPU time per side, ± half the p10–p90 range.\n\n",
           rounds, target / 1e6);
    printf("| bits | operation | ctrsa | ctrsa ops/s | %s | %s ops/s | %s/ctrsa |\n", ref,
           ref, ref);
    printf("|---:|---|---:|---:|---:|---:|---:|\n");
    fflush(stdout);

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const be_key *key = bs_key(suite, sizes[s]);
        for (be_opkind k = 0; k < BE_NOPS; k++) {
            be_op *a = be_op_new(&suite->env, key, BE_SIDE_CTRSA, k);
            be_op *b = be_op_new(&suite->env, key, BE_SIDE_REF, k);
            bu_pair p;

            snprintf(label, sizeof(label), "%zu %s", sizes[s], be_op_name(k));
            bu_time_pair(be_op_run, a, be_op_run, b, rounds, target, &p, label);
            be_op_free(a);
            be_op_free(b);
            bu_progress_clear();
            printf("| %zu | %s | %s | %s | %s | %s | %s |\n", sizes[s], be_op_name(k),
                   bu_fmt_time_spread(cs, sizeof(cs), &p.a),
                   bu_fmt_rate(cr, sizeof(cr), 1e9 / p.a.median),
                   bu_fmt_time_spread(rs, sizeof(rs), &p.b),
                   bu_fmt_rate(rr, sizeof(rr), 1e9 / p.b.median),
                   bu_fmt_ratio(ratio, sizeof(ratio), &p.ratio));
            fflush(stdout);
            bu_csv_row("ops", be_op_name(k), sizes[s], 1, BE_CTRSA, "time_per_op", "ns", &p.a);
            bu_csv_row("ops", be_op_name(k), sizes[s], 1, ref, "time_per_op", "ns", &p.b);
            bu_csv_row("ops", be_op_name(k), sizes[s], 1, "ratio", "ref_time/ctrsa_time", "x",
                       &p.ratio);
        }
    }
    printf("\n");
}
