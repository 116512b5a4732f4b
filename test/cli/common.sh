# Sourced by the cli test scripts (`. "$(dirname "$0")/common.sh"`): the environment
# checks, the scratch folder, the check counters and the helpers every script uses.
# Environment (set by meson): CTRSA_MODULE_DIR (holds ctrsa.so), CTRSA_SOURCE_ROOT. The
# scripts' first argument, when given, is the openssl to run.
set -u

: "${CTRSA_MODULE_DIR:?CTRSA_MODULE_DIR must name the folder holding ctrsa.so}"
: "${CTRSA_SOURCE_ROOT:?CTRSA_SOURCE_ROOT must name the source root}"
OPENSSL=${1:-${OPENSSL:-openssl}}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
steps=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# show FILE: FILE indented, under a failure message.
show() {
    sed 's/^/    /' "$1"
}

# openssl with no configuration: the default provider alone (the oracle).
plain_ssl() {
    env -u CTRSA_TRACE OPENSSL_CONF=/dev/null "$OPENSSL" "$@"
}

# run NAME CMD...: one step; it must succeed. Its output is left in $tmp/out.
run() {
    name=$1
    shift
    steps=$((steps + 1))
    if "$@" > "$tmp/out" 2>&1; then
        echo "ok: $name"
        return 0
    fi
    fail "$name"
    show "$tmp/out"
    return 1
}

# finish: the summary line; the script's exit status is 0 only if no check failed.
finish() {
    echo "$steps checks, $failures failed"
    [ "$failures" -eq 0 ]
}
