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
 * - The target is "stderr" or an absolute path. Its folder is reached one component at a
 *   time from "/" with O_NOFOLLOW (no component may be a symbolic link), and every folder
 *   on the way must be owned by root or by the effective user and, if group- or
 *   world-writable, sticky (as /tmp, or the 1733 folder that `ctrsa-config enable --trace`
 *   makes). Otherwise tracing is off, with one notice on standard error saying why.
 * - A trace file is created with O_EXCL, 0600. A name that exists already is examined
 *   first, by statx from the kernel's caches alone (AT_STATX_DONT_SYNC: no request to a
 *   FUSE or network server), and opened only if nothing is mounted over it (not the root
 *   of a mount, the folder's mount id and st_dev: a FUSE file whose server never answers
 *   would hold every process that opens or stats it) and it is a regular file of the
 *   effective user with one link (never a symlink, FIFO, device, another user's file or a
 *   hard link to someone else's); then with O_NOFOLLOW and O_NONBLOCK, and checked again
 *   once open. Nothing blocks.
 * - No folder is kept open: a descriptor of a folder outside a chroot would let a
 *   compromised process walk out of its jail through it.
 * - The descriptor is moved above 2, and each write first checks (fstat) that it is still
 *   the file ctrsa opened: a daemon that closes every descriptor after loading and reuses
 *   the numbers never gets trace lines in its own files. The "stderr" target is what
 *   descriptor 2 is when the target is decided (file, pipe, terminal or socket: st_dev,
 *   st_ino, st_rdev and type), checked the same way: a daemon that reopens descriptor 2 on
 *   a file or socket of its own gets no trace lines there. A write that would pass the
 *   process's file size limit (RLIMIT_FSIZE) is skipped rather than raising SIGXFSZ.
 *
 * A plain file name is opened at the load and kept: a server that loads its configuration
 * as root and then forks workers under another user (nginx), or chroots itself (haproxy,
 * postfix), keeps appending to it through the inherited descriptor. A name whose last
 * component contains "%p" is a file per process: "%p" becomes the process id, and each
 * process opens its own file, by path and with the checks above, at its first trace; a
 * forked child closes the parent's at once (pthread_atfork), so it never holds a file of a
 * more privileged parent, and never waits on a lock held by a thread of its parent. Each
 * line goes out in a single write(): with O_APPEND, lines from concurrent threads (and
 * processes) do not interleave. The "stderr" target is a debugging aid: writing to it can
 * block if the program's standard error is a full pipe, so a setuid (AT_SECURE) process,
 * whose standard error its caller chose, ignores it.
 *
 * Nothing secret reaches the trace: a line names the operation, the key's size (public) and
 * the padding mode (a parameter). Callers trace a private operation whatever its outcome,
 * so the trace (its size, its time) never tells whether a ciphertext's padding was valid.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>
#include "prov.h"

#define TRACE_NAME_MAX 1024

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t trace_atfork_once = PTHREAD_ONCE_INIT;
static atomic_int trace_decided;     /* 1 once the target is known; set under trace_lock */
static atomic_int trace_on;          /* 1 when a target is set (published before decided) */
/* Written once under trace_lock when the target is decided, read-only afterwards: */
static char trace_target[TRACE_NAME_MAX]; /* a per-process target, "%p" still in it */
static int trace_per_process;        /* the file name holds "%p" */
/* The open trace file: plain target, set once; per-process, per process under trace_lock. */
static int trace_fd = -1;
static dev_t trace_dev;              /* what trace_fd was when ctrsa opened (or took) it */
static ino_t trace_ino;
static dev_t trace_rdev;
static mode_t trace_type;            /* S_IFMT bits */
static atomic_int trace_fd_pid = -1; /* per-process target: the process trace_fd belongs to */

/* One notice on standard error: an unusable trace target must never break RSA. */
static void trace_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace_notice(const char *fmt, ...)
{
    char msg[2 * TRACE_NAME_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "ctrsa: %s; tracing is off\n", msg);
}

/* 1 if the folder st (reached as `dir`) may hold a trace file; 0 after one notice. */
static int trace_folder_ok(const struct stat *st, const char *dir)
{
    if (st->st_uid != 0 && st->st_uid != geteuid()) {
        trace_notice("the trace folder %s belongs to user %ld: it must be owned by root or "
                     "by this process's user (%ld)", dir, (long)st->st_uid, (long)geteuid());
        return 0;
    }
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0) {
        trace_notice("the trace folder %s is writable by other users and not sticky: "
                     "chmod go-w or chmod +t it", dir);
        return 0;
    }
    return 1;
}

/* One step of trace_open_folder: the folder `prefix` of `path`, opened and checked. */
static int trace_open_folder_step(const char *path, const char *prefix)
{
    struct stat st;
    int fd = open(prefix, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err = errno;

    if (fd < 0) {
        if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode))
            trace_notice("the trace file %s's folder passes through the symbolic link %s: "
                         "name the real folder", path, prefix);
        else
            trace_notice("cannot open the trace file %s's folder %s: %s", path, prefix,
                         strerror(err));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !trace_folder_ok(&st, prefix)) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * The folder of the absolute path `path` (everything before its last '/'), reached one
 * component at a time from "/" without following a symbolic link, every folder on the way
 * checked by trace_folder_ok. Its O_PATH descriptor, or -1 after one notice. *name is set
 * to the last component.
 *
 * Each step opens the absolute prefix (O_NOFOLLOW: its last component must not be a link)
 * rather than the next name relative to the previous descriptor: the same folders, and the
 * form that qemu-user's sysroot redirection (-L) of absolute names also understands. No
 * one else can swap a folder between two steps: each was checked to be owned by root or
 * by this user, and others may only add their own entries to it, never replace ours.
 */
static int trace_open_folder(const char *path, const char **name)
{
    char prefix[TRACE_NAME_MAX];
    const char *slash = strrchr(path, '/');
    size_t dirlen = (size_t)(slash - path), end = 0;
    int fd = -1;

    *name = slash + 1;
    while (1) {
        /* prefix := path[0..end), "/" the first time. */
        size_t n = end > 0 ? end : 1;
        memcpy(prefix, path, n);
        prefix[n] = '\0';
        if (fd >= 0)
            close(fd);
        if ((fd = trace_open_folder_step(path, prefix)) < 0)
            return -1;
        /* The next prefix ends after the next component; none left: this is the folder. */
        while (end < dirlen && path[end] == '/')
            end++;
        if (end >= dirlen)
            return fd;
        while (end < dirlen && path[end] != '/')
            end++;
    }
}

/* 1 if st may be written as a trace file; 0 after one notice naming `path`. */
static int trace_file_ok(const struct stat *st, const char *path)
{
    if (S_ISLNK(st->st_mode))
        trace_notice("the trace file %s is a symbolic link", path);
    else if (!S_ISREG(st->st_mode))
        trace_notice("the trace file %s is not a regular file", path);
    else if (st->st_uid != geteuid())
        trace_notice("the trace file %s belongs to another user", path);
    else if (st->st_nlink != 1)
        trace_notice("the trace file %s has more than one link", path);
    else
        return 1;
    return 0;
}

/* Record st as what the trace descriptor is: trace_may_write compares each write's target. */
static void trace_remember(const struct stat *st)
{
    trace_dev = st->st_dev;
    trace_ino = st->st_ino;
    trace_rdev = st->st_rdev;
    trace_type = st->st_mode & S_IFMT;
}

/* What statx says of a file: its stat fields, and the mount facts that stat lacks. */
struct trace_id {
    struct stat st;       /* st_mode, st_uid, st_nlink, st_dev and st_ino only */
    uint64_t mnt_id;      /* valid if has_mnt_id */
    int has_mnt_id;
    int mount_root;       /* the root of a mount: something is mounted over its name */
};

/*
 * statx of `name` in `dir` (AT_EMPTY_PATH with "": dir itself) into *id; 0 with errno set
 * on failure. Reaches nothing but the kernel's caches: AT_STATX_DONT_SYNC keeps FUSE (and
 * network file systems) from asking their server, so a FUSE file whose server never
 * answers cannot block it; AT_NO_AUTOMOUNT triggers no automount. The mount id and the
 * mount-root attribute come from the VFS, not from the file system.
 */
static int trace_statx(int dir, const char *name, int flags, struct trace_id *id)
{
    struct statx sx;

    if (statx(dir, name, flags | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
              STATX_TYPE | STATX_MODE | STATX_UID | STATX_NLINK | STATX_INO | STATX_MNT_ID,
              &sx) != 0)
        return 0;
    memset(id, 0, sizeof(*id));
    id->st.st_mode = sx.stx_mode;
    id->st.st_uid = sx.stx_uid;
    id->st.st_nlink = sx.stx_nlink;
    id->st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    id->st.st_ino = sx.stx_ino;
    id->mnt_id = sx.stx_mnt_id;
    id->has_mnt_id = (sx.stx_mask & STATX_MNT_ID) != 0;
    id->mount_root = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
                     (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
    return 1;
}

/*
 * 1 if the file `file` lies in the same mount as its folder `folder`, nothing mounted over
 * its name; 0 after one notice naming `path`. A bind mount of another file of the same file
 * system has the folder's st_dev: the mount-root attribute and the mount id tell it apart.
 */
static int trace_same_mount(const struct trace_id *folder, const struct trace_id *file,
                            const char *path)
{
    if (!file->mount_root && file->st.st_dev == folder->st.st_dev &&
        (!file->has_mnt_id || !folder->has_mnt_id || file->mnt_id == folder->mnt_id))
        return 1;
    trace_notice("the trace file %s is not on its folder's file system (a mount over its name)",
                 path);
    return 0;
}

/*
 * The existing trace file `name` in the folder `dir`, opened with `flags`; -1 after one
 * notice naming `path`. It is examined before it is opened, through the kernel's caches
 * alone (trace_statx): a mount over the name is refused before anything reaches the mounted
 * file system, and no FIFO or device planted there is ever opened. Between the examination
 * and the open only root or the file's owner, the effective user, could mount over it (a
 * user's fusermount3 mounts only over a file that user may open for writing), and no other
 * user can replace it in the sticky folder.
 */
static int trace_open_existing(int dir, const char *name, const char *path, int flags)
{
    struct trace_id folder, before;
    struct stat st;
    int fd;

    if (!trace_statx(dir, "", AT_EMPTY_PATH, &folder) ||
        !trace_statx(dir, name, 0, &before)) {
        trace_notice("cannot examine the trace file %s: %s", path, strerror(errno));
        return -1;
    }
    if (!trace_same_mount(&folder, &before, path) || !trace_file_ok(&before.st, path))
        return -1;
    fd = openat(dir, name, flags);
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != before.st.st_dev ||
                    st.st_ino != before.st.st_ino)) {
        trace_notice("the trace file %s changed while it was opened", path);
        close(fd);
        fd = -1;
    }
    return fd;
}

/*
 * The trace file `path` (absolute, "%p" already replaced), opened for appending as the
 * comment on top says; its descriptor (above 2), remembered by trace_remember, or -1 after
 * one notice. A name that exists already is left to trace_open_existing: creating it with
 * O_EXCL fails (EEXIST) at the name without a call into a file system mounted over it.
 */
static int trace_open_file(const char *path)
{
    const int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    const char *name;
    struct stat st;
    int dir = trace_open_folder(path, &name), fd, ok;

    if (dir < 0)
        return -1;
    fd = openat(dir, name, flags | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST)
        fd = trace_open_existing(dir, name, path, flags);
    else if (fd < 0)
        trace_notice("cannot create the trace file %s: %s", path, strerror(errno));
    close(dir);
    if (fd < 0)
        return -1;
    ok = fstat(fd, &st) == 0 && trace_file_ok(&st, path);
    if (ok && (st.st_mode & 077) != 0)  /* our own file, made readable by others before */
        ok = fchmod(fd, st.st_mode & 0700) == 0;
    if (ok && fd <= STDERR_FILENO) {    /* stdio was closed: keep off 0, 1 and 2 */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        close(fd);
        fd = high;
        ok = fd >= 0;
    }
    if (!ok) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    trace_remember(&st);
    return fd;
}

/* target with every "%p" replaced by this process's id, into path[size]; 0 if too long. */
static int trace_expand(const char *target, char *path, size_t size)
{
    size_t n = 0;

    for (const char *t = target; *t != '\0'; t++) {
        if (n + 24 >= size)
            return 0;
        if (t[0] == '%' && t[1] == 'p') {
            n += (size_t)snprintf(path + n, size - n, "%ld", (long)getpid());
            t++;
        } else {
            path[n++] = *t;
        }
    }
    path[n] = '\0';
    return 1;
}

/*
 * fork() waits until no thread is deciding the target or opening a file (prepare takes the
 * lock), so a child never inherits a half-made state: a descriptor ctrsa has not recorded,
 * or a lock held by a thread it does not have. In the child the parent's per-process file
 * is closed at once (it may belong to a more privileged user).
 */
static void trace_atfork_prepare(void)
{
    pthread_mutex_lock(&trace_lock);
}

static void trace_atfork_parent(void)
{
    pthread_mutex_unlock(&trace_lock);
}

static void trace_atfork_child(void)
{
    if (trace_per_process && trace_fd >= 0) {
        close(trace_fd);
        trace_fd = -1;
    }
    atomic_store(&trace_fd_pid, -1);
    pthread_mutex_unlock(&trace_lock);
}

static void trace_register_atfork(void)
{
    pthread_atfork(trace_atfork_prepare, trace_atfork_parent, trace_atfork_child);
}

/* Decide the target `target` (not empty); called once, under trace_lock. */
static void trace_decide(const char *target)
{
    char path[TRACE_NAME_MAX + 64];
    const char *slash = strrchr(target, '/');

    if (strcmp(target, "stderr") == 0) {
        struct stat st;
        /* In a setuid program the caller owns fd 2: a full pipe there would stall it. What
         * fd 2 is now is the target; a closed fd 2 is none. */
        if (!getauxval(AT_SECURE) && fstat(STDERR_FILENO, &st) == 0) {
            trace_remember(&st);
            trace_fd = STDERR_FILENO;
        }
    } else if (strlen(target) >= sizeof(trace_target)) {
        trace_notice("the trace file name is longer than %d bytes", TRACE_NAME_MAX - 1);
    } else if (target[0] != '/') {
        trace_notice("the trace file %s is not an absolute path", target);
    } else if (slash[1] == '\0') {
        trace_notice("the trace file %s names a folder, not a file", target);
    } else if (memchr(target, '%', (size_t)(slash - target)) != NULL) {
        trace_notice("the trace file %s has a %% in its folder (%%p goes in the file name)",
                     target);
    } else if (strstr(slash, "%p") != NULL) {
        /* Per process: check the folder now, so that a refusal is seen at load. */
        int dir = trace_open_folder(target, &slash);
        if (dir >= 0) {
            close(dir);
            memcpy(trace_target, target, strlen(target) + 1);
            trace_per_process = 1;
        }
    } else if (trace_expand(target, path, sizeof(path))) {
        trace_fd = trace_open_file(path);
    }
    atomic_store(&trace_on, trace_fd >= 0 || trace_per_process);
}

void ctrsa_trace_configure(const char *from_config)
{
    const char *target;

    if (atomic_load(&trace_decided))
        return;
    pthread_once(&trace_atfork_once, trace_register_atfork);
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
    char path[TRACE_NAME_MAX + 64];
    pid_t pid;
    int fd;

    if (!trace_per_process)
        return trace_fd;
    pid = getpid();
    if (atomic_load(&trace_fd_pid) == pid)  /* opened (or refused) in this process */
        return trace_fd;
    pthread_mutex_lock(&trace_lock);
    if (atomic_load(&trace_fd_pid) != pid) {
        if (trace_fd >= 0)  /* a child made without the atfork handlers (_Fork, clone) */
            close(trace_fd);
        trace_fd = trace_expand(trace_target, path, sizeof(path)) ? trace_open_file(path) : -1;
        atomic_store(&trace_fd_pid, pid);
    }
    fd = trace_fd;
    pthread_mutex_unlock(&trace_lock);
    return fd;
}

/*
 * 1 if len more bytes may go to fd: still the file (or, for "stderr", the pipe, terminal or
 * socket) it was when the target was decided, and within the file size limit.
 */
static int trace_may_write(int fd, size_t len)
{
    struct stat st;
    struct rlimit lim;

    if (fstat(fd, &st) != 0 || st.st_dev != trace_dev || st.st_ino != trace_ino ||
        st.st_rdev != trace_rdev || (st.st_mode & S_IFMT) != trace_type)
        return 0;
    return getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
           (rlim_t)st.st_size + len <= lim.rlim_cur;
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
    if (!trace_may_write(fd, (size_t)len))
        return;
    /* A failed or short trace write is ignored: tracing never changes an operation's result. */
    ssize_t written = write(fd, line, (size_t)len);
    (void)written;
}
