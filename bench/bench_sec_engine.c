/*
 * Section 4, the engine alone: Montgomery multiplication and constant-time modexp at 1024,
 * 1536 and 2048 bits against OpenSSL's BN. That is bench_engine's job (bench_engine.c, its
 * own program, which links the engine directly); the suite runs it from the same build
 * folder, passes its Markdown table through unchanged, and turns the table's rows into CSV
 * rows (one per cell, the column heading as the provider/metric) without knowing its layout
 * beyond "first column: operation, second: modulus bits".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_suite.h"
#include "bench_util.h"

#define MAX_CELLS 16

/* Split a Markdown table row "| a | b |" into trimmed cells (in place); the cell count. */
static size_t split_row(char *line, char **cells)
{
    size_t n = 0;
    char *p = strchr(line, '|');

    while (p != NULL && n < MAX_CELLS) {
        char *start = p + 1, *end = strchr(start, '|');
        if (end == NULL)
            break;
        *end = '\0';
        while (*start == ' ')
            start++;
        for (char *q = end - 1; q >= start && *q == ' '; q--)
            *q = '\0';
        cells[n++] = start;
        p = end;
    }
    return n;
}

/* CSV rows for one body row under the given header. */
static void csv_from_row(char **head, size_t nhead, char **cells, size_t n, const char *backend)
{
    char metric[64];

    if (n < 3 || n != nhead)
        return;
    snprintf(metric, sizeof(metric), "bench_engine, backend %s", backend);
    for (size_t i = 2; i < n; i++) {
        char *end;
        double v = strtod(cells[i], &end);
        if (end == cells[i])
            continue;
        bu_stats s = { v, v, v, 1 };
        bu_csv_row("engine", cells[0], (size_t)strtoul(cells[1], NULL, 10), 1, head[i], metric,
                   "", &s);
    }
}

/* Start bench_engine [--quick] with CTRSA_CPU=backend; its stdout, to read (stderr: ours). */
static FILE *run_engine(const char *path, int quick, const char *backend, pid_t *pid)
{
    int fd[2];
    FILE *out;

    if (pipe(fd) != 0)
        bu_die("pipe");
    fflush(NULL);
    *pid = fork();
    if (*pid < 0)
        bu_die("fork");
    if (*pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        setenv("CTRSA_CPU", backend, 1);
        execl(path, path, quick ? "--quick" : (char *)NULL, (char *)NULL);
        perror(path);
        _exit(127);
    }
    close(fd[1]);
    out = fdopen(fd[0], "r");
    if (out == NULL)
        bu_die("fdopen");
    return out;
}

/* One run of bench_engine on `backend`: its table to stdout, its rows to the CSV. */
static void engine_run(bs_suite *suite, const char *path, const char *backend)
{
    char line[1024], headbuf[1024], *head[MAX_CELLS];
    size_t nhead = 0, rows = 0;
    FILE *out;
    pid_t pid;
    int status;

    bu_heading(3, "Engine backend `%s` (`CTRSA_CPU=%s bench_engine%s`)", backend, backend,
           suite->opts.quick ? " --quick" : "");
    fflush(stdout);
    bu_progress("bench_engine, backend %s", backend);
    bu_progress_clear();
    out = run_engine(path, suite->opts.quick, backend, &pid);
    while (fgets(line, sizeof(line), out) != NULL) {
        fputs(line, stdout);
        if (line[0] != '|')
            continue;
        if (strstr(line, "---") != NULL)
            continue; /* the header's separator */
        if (nhead == 0) {
            snprintf(headbuf, sizeof(headbuf), "%s", line);
            nhead = split_row(headbuf, head);
            continue;
        }
        char *cells[MAX_CELLS];
        size_t n = split_row(line, cells);
        csv_from_row(head, nhead, cells, n, backend);
        rows++;
    }
    fclose(out);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        bu_die("%s failed (status %d)", path, status);
    if (rows == 0)
        bu_die("%s printed no table", path);
    printf("\n");
    fflush(stdout);
}

/*
 * The backend the loaded module runs on, from its build info ("...backend: NAME ..."), into
 * buf; 0 if the build info does not say.
 */
static int module_backend(bs_suite *suite, char *buf, size_t size)
{
    const char *info = be_buildinfo(suite->env.ctrsa), *p = strstr(info, "backend: ");
    size_t n;

    if (p == NULL)
        return 0;
    p += strlen("backend: ");
    n = strcspn(p, " ;,()");
    if (n == 0 || n >= size)
        return 0;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 1;
}

void bs_section_engine(bs_suite *suite)
{
    char path[4096], backend[32];

    snprintf(path, sizeof(path), "%s/bench_engine", suite->opts.bindir);
    if (!module_backend(suite, backend, sizeof(backend)))
        snprintf(backend, sizeof(backend), "%s",
                 getenv("CTRSA_CPU") != NULL ? getenv("CTRSA_CPU") : "portable");
    bu_heading(2, "The engine alone");
    printf("ctrsa's bignum engine called directly (no provider, no padding) against OpenSSL's "
           "BN with a BN_MONT_CTX built once: the output of `bench_engine`, run by the suite "
           "with `CTRSA_CPU` naming the backend the provider ran on above%s. It reports "
           "medians only (no spread).\n\n",
           strcmp(backend, "portable") != 0 ? ", then the portable C reference" : "");
    fflush(stdout);
    engine_run(suite, path, backend);
    if (strcmp(backend, "portable") != 0)
        engine_run(suite, path, "portable");
}
