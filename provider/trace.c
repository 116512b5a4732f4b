/*
 * Operation tracing (see prov.h). The CTRSA_TRACE environment variable is read once per
 * process (pthread_once); when it is unset or empty tracing is off and ctrsa_trace costs
 * one flag test. When on, the file is opened once in append mode and kept open, and each
 * line goes out in a single write(): with O_APPEND, lines from concurrent threads (and
 * processes) do not interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "prov.h"

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static int trace_fd = -1;      /* written once under trace_once, read-only afterwards */

static void trace_setup(void)
{
    const char *target = getenv("CTRSA_TRACE");
    int fd;

    if (target == NULL || target[0] == '\0')
        return;
    if (strcmp(target, "stderr") == 0) {
        trace_fd = STDERR_FILENO;
        return;
    }
    fd = open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        /* One notice, then tracing stays off: an unusable trace file must not break RSA. */
        fprintf(stderr, "ctrsa: cannot open CTRSA_TRACE file %s: %s; tracing is off\n",
                target, strerror(errno));
        return;
    }
    trace_fd = fd;
}

int ctrsa_trace_enabled(void)
{
    pthread_once(&trace_once, trace_setup);
    return trace_fd >= 0;
}

void ctrsa_trace(const char *op, size_t bits, const char *padding)
{
    char line[256];
    int len;

    if (!ctrsa_trace_enabled())
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
    ssize_t written = write(trace_fd, line, (size_t)len);
    (void)written;
}
