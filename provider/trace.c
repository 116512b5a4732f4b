/*
 * Operation tracing (see prov.h). The target is decided once per process, at the first
 * provider load (ctrsa_trace_configure) or the first trace, whichever comes first: the
 * CTRSA_TRACE environment variable if set and not empty (read with secure_getenv, so a
 * setuid or otherwise AT_SECURE process ignores it), else the `trace` parameter of ctrsa's
 * provider section in the OpenSSL configuration, else tracing is off and ctrsa_trace costs
 * one flag test.
 *
 * ctrsa runs inside other people's processes, root daemons and setuid programs included,
 * and the trace folder may be writable by the unprivileged workers of such a daemon. So:
 *
 * - The target is "stderr" or an absolute path. Its folder is opened when the target is
 *   decided (at provider load), one component at a time with O_NOFOLLOW from "/": no
 *   component may be a symbolic link. The folder must be owned by root or by the effective
 *   user, and if it is group- or world-writable it must also be sticky (as /tmp, or the
 *   1733 folder that `ctrsa-config enable --trace` makes): otherwise tracing is off, with
 *   one notice on standard error saying why.
 * - The folder's descriptor is kept, and every trace file is opened relative to it
 *   (openat), so tracing goes on in the folder the administrator named after the process
 *   chroots itself (haproxy, postfix) or drops privileges.
 * - A trace file is opened with O_NOFOLLOW (a planted symlink is refused, never followed),
 *   O_NONBLOCK (a planted FIFO cannot make the process hang) and created 0600 (other users
 *   cannot read the trace). Once open it must be a regular file owned by the effective user
 *   with a single link (no planted file of another user, no hard link to someone else's
 *   file); anything else is closed unwritten and tracing is off in that process.
 *
 * A plain file name is opened at once and kept open: a server that loads its configuration
 * as root and then forks workers under another user (nginx) hands the open file to its
 * workers. A name whose last component contains "%p" is a file per process: "%p" becomes
 * the process id, and each process (a forked child too) opens its own file in the kept
 * folder at its first trace. Each line goes out in a single write(): with O_APPEND, lines
 * from concurrent threads (and processes) do not interleave.
 *
 * Nothing secret reaches the trace: a line names the operation, the key's size (public) and
 * the padding mode (a parameter). Callers trace a private operation whatever its outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "prov.h"

#define TRACE_NAME_MAX 1024

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int trace_decided;     /* 1 once the target is known; set under trace_lock */
static atomic_int trace_on;          /* 1 when a target is set (published before decided) */
/* Written once under trace_lock when the target is decided, read-only afterwards: */
static int trace_dir_fd = -1;        /* the folder of a per-process target */
static char trace_name[TRACE_NAME_MAX]; /* its file name, "%p" still in it */
static int trace_per_process;        /* the file name holds "%p" */
static int trace_fd = -1;            /* plain target: set once; per-process: under trace_lock */
static pid_t trace_fd_pid = -1;      /* per-process target: the process trace_fd belongs to */

/* One notice on standard error: an unusable trace target must never break RSA. */
static void trace_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace_notice(const char *fmt, ...)
{
    char msg[TRACE_NAME_MAX + 160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "ctrsa: %s; tracing is off\n", msg);
}

/*
 * The folder `dir` (absolute), opened one component at a time without following a symbolic
 * link, and checked: a directory owned by root or the effective user, and sticky if group-
 * or world-writable. Its O_PATH descriptor (kept for openat), or -1 after one notice.
 */
static int trace_open_dir(const char *dir)
{
    char walk[TRACE_NAME_MAX], *comp, *save = NULL;
    struct stat st;
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

    snprintf(walk, sizeof(walk), "%s", dir);
    for (comp = strtok_r(walk, "/", &save); fd >= 0 && comp != NULL;
         comp = strtok_r(NULL, "/", &save)) {
        int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;

        if (next < 0 && fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            trace_notice("the trace folder %s passes through the symbolic link %s: "
                         "name the real folder", dir, comp);
        } else if (next < 0) {
            trace_notice("cannot open the trace folder %s (at %s): %s", dir, comp, strerror(err));
        }
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        trace_notice("the trace folder %s is not a folder", dir);
    } else if (st.st_uid != 0 && st.st_uid != geteuid()) {
        trace_notice("the trace folder %s belongs to user %ld: it must be owned by root or "
                     "by this process's user (%ld)", dir, (long)st.st_uid, (long)geteuid());
    } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
        trace_notice("the trace folder %s is writable by other users and not sticky: "
                     "chmod go-w or chmod +t it", dir);
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

/*
 * The trace file `name` (one component, "%p" replaced by this process's id) in the folder
 * dir_fd: opened for appending without following a symlink and without blocking, created
 * 0600; kept only if it is a regular file owned by the effective user with one link.
 * Its descriptor, or -1 after one notice.
 */
static int trace_open_file(int dir_fd, const char *name)
{
    char path[TRACE_NAME_MAX + 32];
    const char *t = name;
    size_t n = 0;
    struct stat st;
    int fd;

    while (*t != '\0' && n + 24 < sizeof(path)) {
        if (t[0] == '%' && t[1] == 'p') {
            n += (size_t)snprintf(path + n, sizeof(path) - n, "%ld", (long)getpid());
            t += 2;
        } else {
            path[n++] = *t++;
        }
    }
    path[n] = '\0';
    fd = openat(dir_fd, path,
                O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                0600);
    if (fd < 0) {
        trace_notice("cannot open the trace file %s: %s", path,
                     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        trace_notice("the trace file %s is not a regular file", path);
    } else if (st.st_uid != geteuid()) {
        trace_notice("the trace file %s belongs to another user", path);
    } else if (st.st_nlink != 1) {
        trace_notice("the trace file %s has more than one link", path);
    } else {
        if ((st.st_mode & 077) != 0)  /* made readable by others before: no longer */
            (void)fchmod(fd, st.st_mode & 0700);
        return fd;
    }
    close(fd);
    return -1;
}

/* Decide the target `target` (not empty); called once, under trace_lock. */
static void trace_decide(const char *target)
{
    char dir[TRACE_NAME_MAX];
    const char *slash;
    size_t len = strlen(target);

    if (strcmp(target, "stderr") == 0) {
        trace_fd = STDERR_FILENO;
    } else if (len >= sizeof(dir)) {
        trace_notice("the trace file name is longer than %d bytes", TRACE_NAME_MAX - 1);
    } else if (target[0] != '/') {
        trace_notice("the trace file %s is not an absolute path", target);
    } else if ((slash = strrchr(target, '/'))[1] == '\0') {
        trace_notice("the trace file %s names a folder, not a file", target);
    } else if (memchr(target, '%', (size_t)(slash - target)) != NULL) {
        trace_notice("the trace file %s has a %% in its folder (%%p goes in the file name)",
                     target);
    } else {
        memcpy(dir, target, (size_t)(slash - target));
        dir[slash - target] = '\0';
        if (dir[0] == '\0')
            strcpy(dir, "/");
        memcpy(trace_name, slash + 1, strlen(slash + 1) + 1);
        trace_dir_fd = trace_open_dir(dir);
        trace_per_process = strstr(trace_name, "%p") != NULL;
        if (trace_dir_fd >= 0 && !trace_per_process) {
            trace_fd = trace_open_file(trace_dir_fd, trace_name);
            close(trace_dir_fd);
            trace_dir_fd = -1;
        }
    }
    atomic_store(&trace_on, trace_fd >= 0 || trace_dir_fd >= 0);
}

void ctrsa_trace_configure(const char *from_config)
{
    const char *target;

    if (atomic_load(&trace_decided))
        return;
    pthread_mutex_lock(&trace_lock);
    if (!atomic_load(&trace_decided)) {
        target = secure_getenv("CTRSA_TRACE");
        if (target == NULL || target[0] == '\0')
            target = from_config;
        if (target != NULL && target[0] != '\0')
            trace_decide(target);
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
        trace_fd = trace_open_file(trace_dir_fd, trace_name);
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
