/*
 * The benchmark suite: ctrsa against the default provider (or any provider named with
 * --against), through the public EVP API, in one run. See docs/performance.md.
 *
 * usage: bench_suite [--quick] [--csv FILE] [--against PROVIDER] [--module-dir DIR]
 *                    [--only SECTION[,SECTION...]] [--label TEXT] [--md-level N]
 *   sections: ops, classic, threads, blinding, engine, memory (all by default, in that order)
 *   --label: a line for the report's header, e.g. the source commit (bench/run passes it)
 *   --md-level: the level of the report's top heading (1: "#"; 3 to paste under a README's
 *               "## Performance")
 *
 * Markdown tables on stdout, a progress line on stderr. ctrsa is loaded from the build
 * folder this program was built in (its parent folder), unless --module-dir says otherwise.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "bench_suite.h"
#include "bench_util.h"

static const size_t key_sizes[] = { 1024, 2048, 3072, 4096 };

const be_key *bs_key(bs_suite *suite, size_t bits)
{
    for (size_t i = 0; i < sizeof(key_sizes) / sizeof(key_sizes[0]); i++) {
        if (key_sizes[i] != bits)
            continue;
        if (suite->keys[i].pkey[0] == NULL) {
            bu_progress("making a %zu-bit key (default provider)", bits);
            be_key_generate(&suite->env, &suite->keys[i], bits);
        }
        return &suite->keys[i];
    }
    bu_die("no key of %zu bits in the suite", bits);
}

const char *bs_ref(const bs_suite *suite)
{
    return suite->env.name[BE_SIDE_REF];
}

/* The CPU's name from /proc/cpuinfo ("model name"), or "unknown CPU". */
static const char *cpu_name(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(buf, size, "unknown CPU");
    if (f == NULL)
        return buf;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, size, "%s", colon);
        break;
    }
    fclose(f);
    return buf;
}

/* The 1-minute load average, or -1: the machine may be shared, and the report says so. */
static double load_average(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double load = -1;

    if (f != NULL) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    return load;
}

static void header(bs_suite *suite, const char *label, int argc, char **argv)
{
    const char *cpu_env = getenv("CTRSA_CPU");
    char cpu[256], date[64];
    time_t now = time(NULL);

    strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bu_heading(1, "ctrsa benchmark");
    printf("- CPU: **%s**, %ld cores online\n", cpu_name(cpu, sizeof(cpu)),
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("- ctrsa build info: `%s`\n", be_buildinfo(suite->env.ctrsa));
    printf("- CTRSA_CPU: %s%s%s\n", cpu_env != NULL ? "`" : "",
           cpu_env != NULL ? cpu_env : "not set (the module picks its backend)",
           cpu_env != NULL ? "`" : "");
    printf("- reference: provider `%s` (build info: `%s`)\n", bs_ref(suite),
           be_buildinfo(suite->env.ref));
    printf("- OpenSSL: %s\n", OpenSSL_version(OPENSSL_VERSION));
    if (label != NULL)
        printf("- source: %s\n", label);
    printf("- load average (1 min) at the start: %.2f\n", load_average());
    printf("- run: %s, `", date);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            i++; /* shown as "source" above */
            continue;
        }
        printf("%s%s", i ? " " : "", i ? argv[i] : "bench_suite");
    }
    printf("`\n\n");
    printf("Method: every figure is measured for ctrsa and %s in the same process, "
           "interleaved (ctrsa, %s, ctrsa, %s, ...) so that the machine's drift hits both; "
           "single-thread figures use the process's CPU time, the concurrency table wall time. "
           "**%s/ctrsa is %s's time over ctrsa's: above 1, ctrsa is faster**; it is the median "
           "of the per-round ratios, with their p10–p90 range in brackets. Every operation "
           "is checked to run in the provider it is credited to (`EVP_PKEY_CTX_get0_provider`), "
           "and its result is checked (decryptions give the plaintext back, verifications "
           "succeed; each side's ciphertexts and signatures are accepted by the other).\n\n",
           bs_ref(suite), bs_ref(suite), bs_ref(suite), bs_ref(suite), bs_ref(suite));
    fflush(stdout);
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--quick] [--csv FILE] [--against PROVIDER] [--module-dir DIR]\n"
            "          [--only SECTION[,SECTION...]] [--label TEXT] [--md-level N]\n"
            "sections: ops, classic, threads, blinding, engine, memory\n",
            prog);
    exit(2);
}

/* dir := the folder part of path ("/a/b/c" -> "/a/b"). */
static void parent_dir(char *dir, size_t size, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 0 : (size_t)(slash - path);

    if (slash == NULL || n + 1 > size)
        bu_die("cannot take the folder of %s", path);
    memcpy(dir, path, n);
    dir[n] = '\0';
}

/* This program's path and folder, from /proc/self/exe. */
static void self_paths(char *self, size_t size, char *dir, size_t dsize)
{
    ssize_t n = readlink("/proc/self/exe", self, size - 1);

    if (n <= 0)
        bu_die("cannot find this program's path (/proc/self/exe)");
    self[n] = '\0';
    parent_dir(dir, dsize, self);
}

int main(int argc, char **argv)
{
    static char self[PATH_MAX], bindir[PATH_MAX], modbuf[PATH_MAX];
    static const char *names[] = { "ops", "classic", "threads", "blinding", "engine",
                                   "memory" };
    static void (*const run[])(bs_suite *) = { bs_section_ops, bs_section_classic,
                                               bs_section_threads, bs_section_blinding,
                                               bs_section_engine, bs_section_memory };
    enum { NSECTIONS = sizeof(names) / sizeof(names[0]) };
    int want[NSECTIONS] = { 1, 1, 1, 1, 1, 1 };
    const char *csv_path = NULL, *label = NULL;
    double t_start = bu_wall_ns();
    bs_suite suite;

    memset(&suite, 0, sizeof(suite));
    suite.opts.ref_name = "default";
    self_paths(self, sizeof(self), bindir, sizeof(bindir));
    suite.opts.self = self;
    suite.opts.bindir = bindir;
    /* the build folder: bench_suite lives in <build>/bench/ */
    parent_dir(modbuf, sizeof(modbuf), bindir);
    suite.opts.module_dir = modbuf;

    if (argc == 3 && strcmp(argv[1], "--blinding-child") == 0)
        return bs_blinding_child(argv[2]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            suite.opts.quick = 1;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--against") == 0 && i + 1 < argc) {
            suite.opts.ref_name = argv[++i];
        } else if (strcmp(argv[i], "--module-dir") == 0 && i + 1 < argc) {
            suite.opts.module_dir = argv[++i];
        } else if (strcmp(argv[i], "--md-level") == 0 && i + 1 < argc) {
            int level = atoi(argv[++i]);
            if (level < 1 || level > 4)
                usage(argv[0]);
            bu_heading_shift(level - 1);
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            label = argv[++i];
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            char *list = argv[++i];
            memset(want, 0, sizeof(want));
            for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
                size_t k = 0;
                while (k < NSECTIONS && strcmp(tok, names[k]) != 0)
                    k++;
                if (k == NSECTIONS)
                    usage(argv[0]);
                want[k] = 1;
            }
        } else {
            usage(argv[0]);
        }
    }
    if (strcmp(suite.opts.ref_name, BE_CTRSA) == 0)
        bu_die("--against ctrsa: ctrsa is always one side; name another provider");
    /* "cache on" must mean on: the off measurement runs in its own child process */
    if (getenv("CTRSA_BLINDING_CACHE") != NULL) {
        fprintf(stderr, "bench: ignoring CTRSA_BLINDING_CACHE in the environment (the "
                        "blinding section measures both settings)\n");
        unsetenv("CTRSA_BLINDING_CACHE");
    }
    if (csv_path != NULL)
        bu_csv_open(csv_path);

    be_env_init(&suite.env, suite.opts.module_dir, suite.opts.ref_name);
    header(&suite, label, argc, argv);
    for (size_t k = 0, n = 0; k < NSECTIONS; k++) {
        char prefix[64];
        size_t total = 0;
        if (!want[k])
            continue;
        for (size_t j = 0; j < NSECTIONS; j++)
            total += (size_t)want[j];
        snprintf(prefix, sizeof(prefix), "[%zu/%zu] %s", ++n, total, names[k]);
        bu_progress_section(prefix);
        run[k](&suite);
    }
    bu_progress_clear();
    printf("Load average (1 min) at the end: %.2f; the run took %.0f s of wall time.\n",
           load_average(), (bu_wall_ns() - t_start) / 1e9);
    for (size_t i = 0; i < sizeof(key_sizes) / sizeof(key_sizes[0]); i++)
        if (suite.keys[i].pkey[0] != NULL)
            be_key_free(&suite.keys[i]);
    be_env_free(&suite.env);
    bu_csv_close();
    fprintf(stderr, "bench: done\n");
    return 0;
}
