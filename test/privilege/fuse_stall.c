/*
 * fuse_stall: a FUSE file that never answers (run by test/privilege/mount_test.sh).
 *
 *   fuse_stall FILE LOG
 *
 * Mounts a FUSE file system whose root is a regular file over FILE (an existing regular
 * file), speaking the kernel's protocol on /dev/fuse directly (no libfuse, no fusermount),
 * with allow_other so that every process may reach it. It answers INIT and nothing else:
 * a GETATTR, OPEN or any other request waits for an answer that never comes, as a hostile
 * user's FUSE server would make it. Each request's opcode is appended to LOG as a line
 * "opcode N" (INIT is 26, GETATTR 3, OPEN 14); "mounted" is written once the mount is in
 * place. Runs until killed: its end (closing /dev/fuse) aborts the connection, which wakes
 * every process waiting on it; the caller then unmounts FILE (umount -l).
 * Needs root. Exit status: 1 if the mount fails, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* The kernel refuses reads into a buffer smaller than a request with its largest write. */
#define REQ_BUF (256 * 1024)

/* A reply to FUSE_INIT: this protocol version, nothing optional switched on. */
static int answer_init(int fd, const struct fuse_in_header *in)
{
    struct {
        struct fuse_out_header h;
        struct fuse_init_out init;
    } out;

    memset(&out, 0, sizeof(out));
    out.h.len = sizeof(out);
    out.h.unique = in->unique;
    out.init.major = FUSE_KERNEL_VERSION;
    out.init.minor = FUSE_KERNEL_MINOR_VERSION;
    out.init.max_write = 4096;
    out.init.max_readahead = 4096;
    return write(fd, &out, sizeof(out)) == (ssize_t)sizeof(out);
}

int main(int argc, char **argv)
{
    static char buf[REQ_BUF];
    char opts[128];
    FILE *log;
    int fd;

    if (argc != 3) {
        fprintf(stderr, "usage: fuse_stall FILE LOG\n");
        return 2;
    }
    if ((log = fopen(argv[2], "a")) == NULL || (fd = open("/dev/fuse", O_RDWR)) < 0) {
        perror("fuse_stall: open");
        return 1;
    }
    setvbuf(log, NULL, _IOLBF, 0);
    /* rootmode 0100000: the root is a regular file, so it can cover one. */
    snprintf(opts, sizeof(opts), "fd=%d,rootmode=100000,user_id=0,group_id=0,allow_other", fd);
    if (mount("fuse_stall", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        perror("fuse_stall: mount");
        return 1;
    }
    fprintf(log, "mounted\n");
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        const struct fuse_in_header *in = (const struct fuse_in_header *)buf;

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < (ssize_t)sizeof(*in))
            return 0;  /* the connection is gone (unmounted or aborted) */
        fprintf(log, "opcode %u\n", in->opcode);
        if (in->opcode == FUSE_INIT && !answer_init(fd, in))
            return 1;
    }
}
