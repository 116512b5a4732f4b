#!/usr/bin/env bash
# The parts of test/openssl-recipes/run that decide what it builds and what it exits with,
# without building OpenSSL: the script is sourced with CTRSA_RECIPES_SOURCE_ONLY=1 and its
# functions run on fixtures.
#  - installed_openssl: Debian 12's libssl3, and Debian 13's libssl3t64 where dpkg-query
#    prints an empty version for libssl3 and exits 0 (a fake dpkg-query on PATH);
#  - report: a REGRESSION makes it return 1 and counts 1 in the summary; none returns 0;
#  - source_candidates: the installed version first, then the newer ones oldest first, then
#    the older ones newest first, in dpkg's order ("~" sorts before anything);
#  - plain_config_recipe: test_sslapi, test_quicapi and test_pkcs12 take the plain
#    configuration, test_rsa does not.
set -euo pipefail
run=$(cd "$(dirname "$0")" && pwd -P)/run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; fails=$((fails + 1)); fi
}

CTRSA_RECIPES_SOURCE_ONLY=1
# shellcheck source=run
source "$run"
set +e

# installed_openssl, with dpkg-query answering as Debian 12 and as Debian 13.
mkdir -p "$tmp/bin"
fake_dpkg() { # fake_dpkg LIBSSL3_VERSION LIBSSL3T64_VERSION ("-": not known, exit 1)
    cat > "$tmp/bin/dpkg-query" <<FAKE
#!/bin/sh
pkg=\$(eval echo \\\${\$#})
case \$pkg in
libssl3) v='$1' ;;
libssl3t64) v='$2' ;;
*) exit 1 ;;
esac
[ "\$v" = - ] && exit 1
printf '%s' "\$v"
FAKE
    chmod +x "$tmp/bin/dpkg-query"
}
fake_dpkg 3.0.19-1~deb12u2 -
check "Debian 12: libssl3" "libssl3 3.0.19-1~deb12u2" "$(PATH=$tmp/bin:$PATH installed_openssl)"
fake_dpkg "" 3.5.5-1~deb13u1
check "Debian 13: libssl3 known, empty version; libssl3t64" "libssl3t64 3.5.5-1~deb13u1" \
    "$(PATH=$tmp/bin:$PATH installed_openssl)"
fake_dpkg - 3.5.5-1~deb13u1
check "Debian 13: libssl3 unknown" "libssl3t64 3.5.5-1~deb13u1" \
    "$(PATH=$tmp/bin:$PATH installed_openssl)"
fake_dpkg "" ""
PATH=$tmp/bin:$PATH installed_openssl > /dev/null
check "neither installed: fails" 1 $?

# report: the exit status follows the REGRESSION count.
report_header="selftest"
res=$tmp/results
mkdir -p "$res/ctrsa" "$res/default"
echo "pass 1 3" > "$res/ctrsa/test_a.res"; echo "pass 1 0" > "$res/default/test_a.res"
echo "fail 2 5" > "$res/ctrsa/test_b.res"; echo "pass 2 0" > "$res/default/test_b.res"
report "$res" test_a test_b > "$tmp/out"
check "a regression: report returns 1" 1 $?
check "a regression: counted in the summary" \
    "1 recipe(s) pass with the default provider alone and fail with ctrsa" \
    "$(tail -n1 "$res/summary.txt")"
check "the summary is shown as written" "$(cat "$res/summary.txt")" "$(cat "$tmp/out")"
report "$res" test_a > /dev/null
check "no regression: report returns 0" 0 $?

# source_candidates (the 3.5.9 Debian 13 root's mirror lists 3.5.9 but serves only 3.5.7)
check "installed listed, then newer, then older" \
    "3.5.9-1~deb13u1 3.5.9-1 3.5.7-1~deb13u3 3.5.7-1~deb13u2" \
    "$(source_candidates 3.5.9-1~deb13u1 3.5.7-1~deb13u2 3.5.9-1 3.5.9-1~deb13u1 \
        3.5.7-1~deb13u3 3.5.7-1~deb13u2 | tr '\n' ' ' | sed 's/ $//')"
check "installed not listed: the oldest newer first" \
    "3.0.20-1~deb12u1 3.0.20-1~deb12u2 3.0.18-1~deb12u1" \
    "$(source_candidates 3.0.19-1~deb12u2 3.0.20-1~deb12u2 3.0.18-1~deb12u1 \
        3.0.20-1~deb12u1 | tr '\n' ' ' | sed 's/ $//')"

# plain_config_recipe
for r in test_sslapi test_quicapi test_pkcs12; do
    plain_config_recipe "$r"
    check "$r takes the plain configuration" 0 $?
done
plain_config_recipe test_rsa
check "test_rsa takes ctrsa's configuration" 1 $?

[ "$fails" -eq 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
