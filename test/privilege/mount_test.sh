#!/bin/bash
# A mount over a trace file's name, as root. The module must see it without reaching the
# mounted file system, refuse it (tracing off, with a notice), sign, and never block:
#  1. a bind mount of a root-only file over a root-owned trace name, both on the folder's
#     file system (same st_dev): nothing is written through it (always run);
#  2. a FUSE file over the trace name whose server answers nothing after INIT (what a user
#     with user_allow_other in /etc/fuse.conf can mount over a name of theirs in a sticky
#     trace folder): the signature is made within the time limit, and no request but INIT
#     reaches the server (run where /dev/fuse and the kernel's fuse file system exist).
# Each signer runs under timeout(1); whatever happens, the FUSE server is killed (which
# aborts its connection and wakes anything waiting on it) and every mount taken away.
# Arguments: FUSE_STALL (test/privilege/fuse_stall) OPENSSL. Environment: CTRSA_MODULE_DIR,
# CTRSA_SOURCE_ROOT.
fuse_stall=$1
shift
. "$(dirname "$0")/../cli/common.sh"
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (it mounts over files)"
    exit 77
fi
server=
mounts=()
cleanup() {
    [ -z "$server" ] || { kill -KILL "$server" 2> /dev/null; wait "$server" 2> /dev/null; }
    for m in "${mounts[@]}"; do umount -l "$m" 2> /dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
conf=$CTRSA_SOURCE_ROOT/provider.cnf
plain_ssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/key.pem" 2> /dev/null
printf '0123456789abcdef0123456789abcdef' > "$tmp/digest"
mkdir -m 1777 "$tmp/ww"
check() {  # check NAME CMD...: one step; CMD must succeed
    local name=$1
    shift
    steps=$((steps + 1))
    if "$@"; then echo "ok: $name"; else fail "$name"; show "$tmp/out"; fi
}
signed() { test -s "$tmp/sig"; }
said() { grep -q -- "$1" "$tmp/out"; }
# signer TRACE: start a signature with CTRSA_TRACE=TRACE in the background (pid in $signer).
signer() {
    rm -f "$tmp/sig"
    OPENSSL_CONF=$conf CTRSA_TRACE=$1 timeout -k 2 20 "$OPENSSL" pkeyutl -sign \
        -inkey "$tmp/key.pem" -in "$tmp/digest" -out "$tmp/sig" > "$tmp/out" 2>&1 &
    signer=$!
}
# finished SECONDS: the signer exited within SECONDS (status 1 if it is still running).
finished() {
    local i
    for ((i = 0; i < $1 * 10; i++)); do
        kill -0 "$signer" 2> /dev/null || { wait "$signer"; return 0; }
        sleep 0.1
    done
    return 1
}

# 1. A bind mount over a root-owned name: same file system, so st_dev tells nothing.
printf 'root-only\n' > "$tmp/victim" && chmod 600 "$tmp/victim"
: > "$tmp/ww/bound" && chmod 600 "$tmp/ww/bound"
if mount --bind "$tmp/victim" "$tmp/ww/bound"; then
    mounts+=("$tmp/ww/bound")
    signer "$tmp/ww/bound"
    finished 20 || fail "bind mount: the signer still runs after 20 s"
    check "bind mount over the trace name: signed, tracing off (\"mount over its name\")" \
        eval 'signed && said "mount over its name" && said "tracing is off"'
    check "bind mount over the trace name: nothing written into the mounted file" \
        test "$(cat "$tmp/victim")" = root-only
    umount "$tmp/ww/bound"
else
    fail "cannot bind-mount a file (mount --bind)"
fi

# 2. A FUSE file that never answers, mounted over a name its user made in the folder.
if [ ! -c /dev/fuse ] || ! grep -qw fuse /proc/filesystems; then
    echo "skipped: the FUSE case (no /dev/fuse or no fuse file system in this kernel)"
else
    : > "$tmp/ww/fuse" && chown nobody "$tmp/ww/fuse"
    "$fuse_stall" "$tmp/ww/fuse" "$tmp/fuse.log" 2> "$tmp/fuse.err" &
    server=$!
    mounts+=("$tmp/ww/fuse")
    for ((i = 0; i < 50; i++)); do
        grep -q '^mounted$' "$tmp/fuse.log" 2> /dev/null && break
        kill -0 "$server" 2> /dev/null || break
        sleep 0.1
    done
    if ! grep -q '^mounted$' "$tmp/fuse.log" 2> /dev/null; then
        fail "the FUSE server did not mount:"
        show "$tmp/fuse.err"
    else
        signer "$tmp/ww/fuse"
        if finished 10; then
            check "FUSE file over the trace name: signed, tracing off (\"mount over its name\")" \
                eval 'signed && said "mount over its name" && said "tracing is off"'
        else
            fail "FUSE file over the trace name: the signer is blocked after 10 s"
            kill -KILL "$server"  # aborts the connection: the signer wakes up
            wait "$server" 2> /dev/null
            server=
            finished 20 || echo "   (the signer still runs after the FUSE connection ended)"
        fi
        check "FUSE file over the trace name: no request but INIT reached the server" \
            test "$(grep -v '^mounted$\|^opcode 26$' "$tmp/fuse.log" | tr '\n' ' ')" = ""
        grep -v '^mounted$\|^opcode 26$' "$tmp/fuse.log" | sed 's/^/    the server received: /'
    fi
fi

finish
