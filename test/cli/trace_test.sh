#!/bin/sh
# The trace file, attacked as issue 20 did (a folder that the workers of a root daemon can
# write), through the openssl command line with ctrsa loaded by provider.cnf. For each
# planted thing the signature must still be made (tracing never breaks RSA), nothing may be
# written through it, and the process must not hang; the notice on standard error says why
# tracing is off. Also: files are created 0600, a file made readable by others before is
# made 0600, and the folder rules (no symlink on the way, owned by root or this user,
# sticky if others can write it). Needs root (files and folders of another user).
#
# Usage: trace_test.sh [path to openssl]. Environment (set by meson): CTRSA_MODULE_DIR,
# CTRSA_SOURCE_ROOT.
. "$(dirname "$0")/common.sh"

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (files and folders owned by another user)"
    exit 77
fi
conf=$CTRSA_SOURCE_ROOT/provider.cnf
umask 000  # 0600 must come from ctrsa, not from the umask
plain_ssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/key.pem" 2> /dev/null
printf '0123456789abcdef0123456789abcdef' > "$tmp/digest"

# sign TRACE: a signature with CTRSA_TRACE=TRACE (at most 30 s: a hang fails); output in $tmp/out.
sign() {
    rm -f "$tmp/sig"
    OPENSSL_CONF=$conf CTRSA_MODULE_DIR=$CTRSA_MODULE_DIR CTRSA_TRACE=$1 timeout 30 \
        "$OPENSSL" pkeyutl -sign -inkey "$tmp/key.pem" -in "$tmp/digest" -out "$tmp/sig" \
        > "$tmp/out" 2>&1
}
# check NAME CMD...: one step; CMD must succeed.
check() {
    name=$1
    shift
    steps=$((steps + 1))
    if "$@"; then echo "ok: $name"; else fail "$name"; show "$tmp/out"; fi
}
signed() { test -s "$tmp/sig"; }
said() { grep -q -- "$1" "$tmp/out"; }
# refused NAME TRACE NOTICE: signed, tracing off with NOTICE on standard error.
refused() {
    notice=$3
    sign "$2"
    check "$1: signed, tracing off (\"$notice\")" eval 'signed && said "$notice" && said "tracing is off"'
}
sign_line='^ctrsa: sign bits=2048 pad=pkcs1$'

d=$tmp/d
mkdir -m 755 "$d"
sign "$d/trace.log"
check "a new trace file: signed, one sign line" eval 'signed && [ "$(grep -c "$sign_line" "$d/trace.log")" -eq 1 ]'
check "a new trace file is created 0600" test "$(stat -c %a "$d/trace.log")" = 600
chmod 644 "$d/trace.log"
sign "$d/trace.log"
check "an existing trace file of this user readable by others: appended, made 0600" \
    eval '[ "$(grep -c "$sign_line" "$d/trace.log")" -eq 2 ] && [ "$(stat -c %a "$d/trace.log")" = 600 ]'
# The signer's pid: a shell that prints its own and becomes openssl.
OPENSSL_CONF=$conf CTRSA_MODULE_DIR=$CTRSA_MODULE_DIR CTRSA_TRACE="$d/pp.%p" sh -c \
    'echo $$; exec "$@"' sh "$OPENSSL" pkeyutl -sign -inkey "$tmp/key.pem" -in "$tmp/digest" \
    -out "$tmp/sig" > "$tmp/pid" 2> "$tmp/out"
check "a per-process file: named by the signer's pid, 0600, one sign line" \
    eval '[ "$(grep -c "$sign_line" "$d/pp.$(cat "$tmp/pid")")" -eq 1 ] &&
          [ "$(stat -c %a "$d/pp.$(cat "$tmp/pid")")" = 600 ]'

refused "a relative path" trace.log "is not an absolute path"
refused "a missing folder" "$tmp/nowhere/trace.log" "No such file or directory"
mkdir -m 755 "$tmp/real" && ln -s "$tmp/real" "$tmp/link"
refused "a folder reached through a symlink" "$tmp/link/trace.log" "passes through the symbolic link $tmp/link:"
check "... nothing written in the symlink's target" test -z "$(ls -A "$tmp/real")"
refused "a %p in the folder" "$tmp/%p/trace.log" "has a % in its folder"

mkdir -m 775 "$tmp/gw"
refused "a group-writable folder, not sticky" "$tmp/gw/trace.log" "writable by other users and not sticky"
mkdir -m 777 "$tmp/ww"
refused "a world-writable folder, not sticky" "$tmp/ww/trace.log" "writable by other users and not sticky"
chmod 1777 "$tmp/ww"
sign "$tmp/ww/trace.log"
check "a world-writable sticky folder owned by root: traced" grep -q "$sign_line" "$tmp/ww/trace.log"
mkdir -m 777 "$tmp/anc" && mkdir -m 755 "$tmp/anc/sub"
refused "a folder inside a world-writable, not sticky one (renamable by others)" \
    "$tmp/anc/sub/trace.log" "anc is writable by other users and not sticky"
mkdir -m 755 "$tmp/theirs" && chown nobody "$tmp/theirs"
refused "a folder owned by another user" "$tmp/theirs/trace.log" "belongs to user"

# Planted in the (sticky, world-writable) folder by another user, at the name a root
# process will use: never followed, never written, no hang.
p=$tmp/ww
printf 'root-only\n' > "$tmp/victim" && chmod 600 "$tmp/victim"
ln -s "$tmp/victim" "$p/sym"
refused "a planted symlink" "$p/sym" "is a symbolic link"
check "... its target is untouched" test "$(cat "$tmp/victim")" = root-only
mkfifo "$p/fifo"
refused "a planted FIFO without a reader (no hang)" "$p/fifo" "is not a regular file"
# A reader waiting on the FIFO lets open() succeed: only the type check stops the write.
( exec 3< "$p/fifo"; sleep 40 ) &
reader=$!
sleep 0.2
refused "a planted FIFO with a reader (no hang)" "$p/fifo" "is not a regular file"
kill "$reader" 2> /dev/null
printf 'theirs\n' > "$p/other" && chown nobody "$p/other" && chmod 666 "$p/other"
refused "a planted file of another user" "$p/other" "belongs to another user"
check "... left as it was" test "$(cat "$p/other")" = theirs
ln "$tmp/victim" "$p/hard"
refused "a planted hard link to a root-only file" "$p/hard" "has more than one link"
check "... its target is untouched" test "$(cat "$tmp/victim")" = root-only

finish
