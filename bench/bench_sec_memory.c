/*
 * Section 5, memory per key: what a server that holds many keys pays in each provider.
 * For 2048 and 4096 bits and N keys (1,000 and 10,000; 1,000 with --quick), a child process
 * per (size, N, provider) imports N copies of one key through EVP_PKEY_fromdata into that
 * provider, then signs once with each (PKCS#1 v1.5, SHA-256 digest), and reports its
 * resident set size (/proc/self/statm) before, after the imports and after the signatures.
 * The per-key figures are the growth divided by N. Children run ctrsa then the reference,
 * size by size, so that both see the same machine; each child warms up first (one import,
 * one signature, freed) so that one-time costs (fetches, the thread's scratch area) are not
 * charged to the keys. Every signature is checked to have run in the provider measured.
 *
 * The child's report on a pipe: "<rss before> <rss imported> <rss signed>" in bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rsa.h>

#include "bench_suite.h"
#include "bench_util.h"

static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f == NULL || fscanf(f, "%lu %lu", &size, &resident) != 2)
        bu_die("memory: cannot read /proc/self/statm");
    fclose(f);
    return resident * (size_t)sysconf(_SC_PAGESIZE);
}

static EVP_PKEY *import(be_env *env, const char *prov, OSSL_PARAM *params)
{
    char propq[64];
    snprintf(propq, sizeof(propq), "provider=%s", prov);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(env->libctx, "RSA", propq);
    EVP_PKEY *pkey = NULL;
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_KEYPAIR, params) != 1)
        be_die_ssl("memory: import into %s", prov);
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

static void sign_once(be_env *env, EVP_PKEY *pkey, const char *prov)
{
    static const unsigned char digest[32] = { 1, 2, 3 };
    unsigned char sig[1024];
    size_t siglen = sizeof(sig);
    char propq[64];
    snprintf(propq, sizeof(propq), "provider=%s", prov);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env->libctx, pkey, propq);
    if (ctx == NULL || EVP_PKEY_sign_init(ctx) != 1
            || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) != 1
            || EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) != 1
            || EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)) != 1)
        be_die_ssl("memory: sign in %s", prov);
    const OSSL_PROVIDER *ran = EVP_PKEY_CTX_get0_provider(ctx);
    if (ran == NULL || strcmp(OSSL_PROVIDER_get0_name(ran), prov) != 0)
        bu_die("memory: a signature meant for %s ran in %s", prov,
               ran ? OSSL_PROVIDER_get0_name(ran) : "(none)");
    EVP_PKEY_CTX_free(ctx);
}

/* The child: import n keys into prov, sign with each, report; exits. */
static void child(be_env *env, const char *prov, OSSL_PARAM *params, size_t n, int fd)
{
    EVP_PKEY **keys = calloc(n, sizeof(*keys));
    if (keys == NULL)
        bu_die("memory: out of memory");
    EVP_PKEY *warm = import(env, prov, params);
    sign_once(env, warm, prov);
    EVP_PKEY_free(warm);
    size_t before = rss_bytes();
    for (size_t i = 0; i < n; i++)
        keys[i] = import(env, prov, params);
    size_t imported = rss_bytes();
    for (size_t i = 0; i < n; i++)
        sign_once(env, keys[i], prov);
    size_t signed_ = rss_bytes();
    char line[128];
    int len = snprintf(line, sizeof(line), "%zu %zu %zu\n", before, imported, signed_);
    if (write(fd, line, (size_t)len) != len)
        _exit(1);
    _exit(0);
}

/* Run one child; per-key bytes after import and after signing into out[0], out[1]. */
static void measure(be_env *env, const char *prov, OSSL_PARAM *params, size_t n,
                    double out[2])
{
    int fds[2];
    if (pipe(fds) != 0)
        bu_die("memory: pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        bu_die("memory: fork");
    if (pid == 0) {
        close(fds[0]);
        child(env, prov, params, n, fds[1]);
    }
    close(fds[1]);
    char line[128] = { 0 };
    ssize_t got = read(fds[0], line, sizeof(line) - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    size_t before, imported, signed_;
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0
            || sscanf(line, "%zu %zu %zu", &before, &imported, &signed_) != 3)
        bu_die("memory: the child measuring %s failed", prov);
    out[0] = ((double)imported - (double)before) / (double)n;
    out[1] = ((double)signed_ - (double)before) / (double)n;
}

static void csv(const char *what, size_t bits, size_t n, const char *prov, double bytes)
{
    bu_stats s = { .median = bytes, .p10 = bytes, .p90 = bytes, .n = 1 };
    char op[64];
    snprintf(op, sizeof(op), "%s-%zu-keys", what, n);
    bu_csv_row("memory", op, bits, 1, prov, "rss_per_key", "bytes", &s);
}

void bs_section_memory(bs_suite *suite)
{
    static const size_t sizes[] = { 2048, 4096 };
    const size_t counts[] = { 1000, 10000 };
    size_t ncounts = suite->opts.quick ? 1 : 2;
    be_env *env = &suite->env;
    const char *ref = bs_ref(suite);

    bu_heading(2, "Memory per key");
    printf("Resident memory per key: N copies of one key imported through EVP_PKEY_fromdata "
           "into each provider in a child process of its own, then one PKCS#1 v1.5 "
           "signature with each; the growth of the resident set size over N. "
           "**ctrsa/%s below 1: ctrsa uses less** (issue 14's target: at most 1.5).\n\n", ref);
    printf("| bits | keys | ctrsa imported | %s imported | ctrsa/%s | ctrsa after a signature "
           "| %s after a signature | ctrsa/%s |\n", ref, ref, ref, ref);
    printf("|---|---|---|---|---|---|---|---|\n");
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const be_key *key = bs_key(suite, sizes[s]);
        OSSL_PARAM *params = NULL;
        if (EVP_PKEY_todata(key->pkey[BE_SIDE_REF], EVP_PKEY_KEYPAIR, &params) != 1)
            be_die_ssl("memory: export the %zu-bit key", sizes[s]);
        for (size_t c = 0; c < ncounts; c++) {
            double mine[2], theirs[2];
            bu_progress("%zu bits, %zu keys", sizes[s], counts[c]);
            measure(env, BE_CTRSA, params, counts[c], mine);
            measure(env, env->name[BE_SIDE_REF], params, counts[c], theirs);
            bu_progress_clear();
            printf("| %zu | %zu | %.1f KB | %.1f KB | %.2f | %.1f KB | %.1f KB | %.2f |\n",
                   sizes[s], counts[c], mine[0] / 1024, theirs[0] / 1024, mine[0] / theirs[0],
                   mine[1] / 1024, theirs[1] / 1024, mine[1] / theirs[1]);
            csv("imported", sizes[s], counts[c], BE_CTRSA, mine[0]);
            csv("imported", sizes[s], counts[c], env->name[BE_SIDE_REF], theirs[0]);
            csv("signed", sizes[s], counts[c], BE_CTRSA, mine[1]);
            csv("signed", sizes[s], counts[c], env->name[BE_SIDE_REF], theirs[1]);
        }
        OSSL_PARAM_free(params);
    }
    printf("\n");
}
