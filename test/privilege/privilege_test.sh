#!/bin/bash
# ctrsa inside processes with other privileges than their caller's (issue 20), as root:
#  1. a setuid-root copy of privilege_probe, run by `nobody` with CTRSA_TRACE, CTRSA_CPU and
#     CTRSA_BLINDING_CACHE set: the module ignores them (secure_getenv), so the caller picks
#     no backend, cannot stop ctrsa from loading with a bogus one, and cannot make root write
#     a trace into a root-only folder; the same probe run without setuid honours them (so
#     the test can tell);
#  2. daemons that load ctrsa, then drop to `nobody` and chroot themselves (haproxy,
#     postfix): per-process files are made 0600 by the user that writes them; a plain trace
#     file, opened at the load, keeps receiving the lines after the chroot; and ctrsa keeps
#     no folder open (a way out of the jail), so inside the jail per-process files cannot be
#     made and tracing is off there, with a notice.
# Arguments: PROBE (privilege_probe) OPENSSL. Environment: CTRSA_MODULE_DIR.
set -u
probe=$1
OPENSSL=$2
: "${CTRSA_MODULE_DIR:?CTRSA_MODULE_DIR must name the folder holding ctrsa.so}"
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (it makes a setuid-root program and chroots)"
    exit 77
fi
nobody=$(id -u nobody) || { echo "FAIL: no user nobody"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 755 "$tmp"
failures=0
steps=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check NAME CONDITION...: one step
    local name=$1
    shift
    steps=$((steps + 1))
    if "$@"; then echo "ok: $name"; else fail "$name"; sed 's/^/    /' "$tmp/out"; fi
}
has() { grep -qx -- "$1" "$tmp/out"; }

# The probe and the module where `nobody` can run and read them; a root-only folder.
mkdir -m 755 "$tmp/bin" && cp "$probe" "$tmp/bin/probe" && cp "$CTRSA_MODULE_DIR/ctrsa.so" "$tmp/bin/"
env OPENSSL_CONF=/dev/null "$OPENSSL" genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
    -out "$tmp/bin/key.pem" 2> /dev/null && chmod 644 "$tmp/bin/key.pem"
mkdir -m 700 "$tmp/secret"
as_nobody=(setpriv --reuid="$nobody" --regid="$nobody" --clear-groups --)
hostile=(env CTRSA_TRACE="$tmp/secret/planted" CTRSA_BLINDING_CACHE=0)

# Control: without setuid the same variables take effect.
"${hostile[@]}" CTRSA_CPU=portable "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" > "$tmp/out" 2>&1
check "no setuid: CTRSA_CPU=portable picks the portable backend" has "backend: portable"
check "no setuid: CTRSA_TRACE writes its file" test -s "$tmp/secret/planted"
"${hostile[@]}" CTRSA_CPU=bogus "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" > "$tmp/out" 2>&1
check "no setuid: CTRSA_CPU=bogus stops ctrsa from loading" has "ctrsa: not loaded"
env -u CTRSA_CPU "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" > "$tmp/out" 2>&1
native=$(sed -n 's/^backend: //p' "$tmp/out")
rm -f "$tmp/secret/planted"
echo "   (the backend chosen for this CPU: $native)"
[ "$native" != portable ] ||
    echo "   (this CPU's choice is portable: only CTRSA_CPU=bogus below tells the cases apart)"

# Setuid root, run by nobody: the variables are ignored.
chown root:root "$tmp/bin/probe" && chmod 4755 "$tmp/bin/probe"
"${as_nobody[@]}" "${hostile[@]}" CTRSA_CPU=portable "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" \
    > "$tmp/out" 2>&1
check "setuid: the probe runs as root for nobody (the setuid bit took)" has "euid: 0"
check "setuid: CTRSA_CPU is ignored (backend $native, as without the variable)" has "backend: $native"
check "setuid: both signatures made in ctrsa" has "signed: 2"
check "setuid: CTRSA_TRACE is ignored: nothing written in the root-only folder" \
    test -z "$(ls -A "$tmp/secret")"
"${as_nobody[@]}" "${hostile[@]}" CTRSA_CPU=bogus "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" \
    > "$tmp/out" 2>&1
check "setuid: CTRSA_CPU=bogus cannot stop ctrsa from loading" has "signed: 2"
chmod 755 "$tmp/bin/probe"

# Daemons that drop privileges, and chroot themselves, after loading ctrsa, tracing into a
# sticky folder (what `ctrsa-config enable --trace` makes).
mkdir -m 1733 "$tmp/trace" && mkdir -m 755 "$tmp/jail"
daemon() {  # daemon TARGET CHROOT: the probe as such a daemon, dropping to nobody
    rm -f "$tmp/trace"/*
    CTRSA_TRACE=$1 "$tmp/bin/probe" "$tmp/bin" "$tmp/bin/key.pem" "$2" "$nobody" > "$tmp/out" 2>&1
}
lines() { cat "$tmp/trace"/* 2> /dev/null | grep -c '^ctrsa: sign bits=2048 pad=pkcs1$'; }

daemon "$tmp/trace/t.%p" /
check "setuid(nobody), per-process files: both signatures made in ctrsa" has "signed: 2"
check "setuid(nobody), per-process files: two files, one sign line each" \
    test "$(lines)" -eq 2 -a "$(ls "$tmp/trace" | wc -l)" -eq 2
check "setuid(nobody), per-process files: 0600 and owned by nobody" \
    test "$(stat -c '%a %u' "$tmp/trace"/* | sort -u)" = "600 $nobody"

daemon "$tmp/trace/all.log" "$tmp/jail"
check "chroot + setuid(nobody), one file opened at load: both signatures made in ctrsa" \
    has "signed: 2"
check "chroot + setuid(nobody), one file opened at load: both traced there" test "$(lines)" -eq 2
check "chroot + setuid(nobody), one file opened at load: 0600, root's (it opened it)" \
    test "$(stat -c '%a %u' "$tmp/trace/all.log")" = "600 0"

daemon "$tmp/trace/t.%p" "$tmp/jail"
check "chroot + per-process files: both signatures made in ctrsa" has "signed: 2"
check "chroot + per-process files: no folder kept open (none to walk out of the jail by)" \
    has "folders open: 0"
check "chroot + per-process files: tracing off inside the jail, with a notice" \
    eval 'test "$(lines)" -eq 0 && grep -q "tracing is off" "$tmp/out"'
check "chroot: nothing written inside the jail" test -z "$(ls -A "$tmp/jail")"

echo "$((steps - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
