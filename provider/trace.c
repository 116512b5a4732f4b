/*
 * Operation tracing (see prov.h). The target is decided once per process, at the first
 * provider load (ctrsa_trace_configure) or the first trace, whichever comes first: the
 * CTRSA_TRACE environment variable if set and not empty, else the `trace` parameter of
 * ctrsa's provider section in the OpenSSL configuration, else tracing is off and
 * ctrsa_trace costs one flag test.
 *
 * A plain file name is opened at once, in append mode, and kept open: a server that loads
 * its configuration as root and then forks workers under another user (nginx) hands the
 * open file to its workers. A name containing "%p" is a file per process: "%p" becomes the
 * process id, and each process (a forked child too) opens its own file at its first trace,
 * so the trace says which process did what; the folder must then be writable by the
 * workers' user. Each line goes out in a single write(): with O_APPEND, lines from
 * concurrent threads (and processes) do not interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "prov.h"

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int trace_decided;   /* 1 once the target is known; set under trace_lock */
static atomic_int trace_on;        /* 1 when a target is set (published before decided) */
static char trace_target[1024];    /* written once under trace_lock, read-only afterwards */
static int trace_per_process;      /* the target holds "%p"; written once like the target */
static int trace_fd = -1;          /* plain target: set once; per-process: under trace_lock */
static pid_t trace_fd_pid = -1;    /* per-process target: the process trace_fd belongs to */

/* Open the target (with "%p" replaced by this process's id); -1 and one notice if it fails. */
static int trace_open(void)
{
    char path[sizeof(trace_target) + 32];
    const char *t = trace_target;
    size_t n = 0;
    int fd;

    if (strcmp(t, "stderr") == 0)
        return STDERR_FILENO;
    while (*t != '\0' && n + 24 < sizeof(path)) {
        if (t[0] == '%' && t[1] == 'p') {
            n += (size_t)snprintf(path + n, sizeof(path) - n, "%ld", (long)getpid());
            t += 2;
        } else {
            path[n++] = *t++;
        }
    }
    path[n] = '\0';
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        /* One notice, then tracing stays off: an unusable trace file must not break RSA. */
        fprintf(stderr, "ctrsa: cannot open the trace file %s: %s; tracing is off\n",
                path, strerror(errno));
    return fd;
}

void ctrsa_trace_configure(const char *from_config)
{
    const char *target;

    if (atomic_load(&trace_decided))
        return;
    pthread_mutex_lock(&trace_lock);
    if (!atomic_load(&trace_decided)) {
        target = getenv("CTRSA_TRACE");
        if (target == NULL || target[0] == '\0')
            target = from_config;
        if (target != NULL && target[0] != '\0') {
            if (strlen(target) >= sizeof(trace_target)) {
                fprintf(stderr, "ctrsa: the trace file name is longer than %zu bytes; "
                        "tracing is off\n", sizeof(trace_target) - 1);
            } else {
                memcpy(trace_target, target, strlen(target) + 1);
                trace_per_process = strstr(trace_target, "%p") != NULL;
                if (!trace_per_process)
                    trace_fd = trace_open();
                atomic_store(&trace_on, trace_per_process || trace_fd >= 0);
            }
        }
        atomic_store(&trace_decided, 1);
    }
    pthread_mutex_unlock(&trace_lock);
}

int ctrsa_trace_enabled(void)
{
    if (!atomic_load(&trace_decided))
        ctrsa_trace_configure(NULL);
    return atomic_load(&trace_on);
}

/* The descriptor to write to in this process, -1 if none. */
static int trace_fd_here(void)
{
    int fd;

    if (!trace_per_process)
        return trace_fd;
    pthread_mutex_lock(&trace_lock);
    if (trace_fd_pid != getpid()) {
        /* A new process (or the first trace): the inherited file is the parent's. */
        if (trace_fd > STDERR_FILENO)
            close(trace_fd);
        trace_fd = trace_open();
        trace_fd_pid = getpid();
    }
    fd = trace_fd;
    pthread_mutex_unlock(&trace_lock);
    return fd;
}

void ctrsa_trace(const char *op, size_t bits, const char *padding)
{
    char line[256];
    int len, fd;

    if (!ctrsa_trace_enabled() || (fd = trace_fd_here()) < 0)
        return;
    len = snprintf(line, sizeof(line), "ctrsa: %s bits=%zu pad=%s\n",
                   op != NULL ? op : "?", bits, padding != NULL ? padding : "none");
    if (len <= 0)
        return;
    if ((size_t)len >= sizeof(line)) {  /* truncated: keep the line whole and ended */
        len = (int)sizeof(line) - 1;
        line[len - 1] = '\n';
    }
    /* A failed or short trace write is ignored: tracing never changes an operation's result. */
    ssize_t written = write(fd, line, (size_t)len);
    (void)written;
}
