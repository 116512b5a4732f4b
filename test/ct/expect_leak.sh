#!/bin/sh
# Runs the harness's planted-leak case under valgrind and succeeds only if memcheck reports
# the secret-dependent branch: proof that the constant-time test can fail.
# usage: expect_leak.sh <valgrind> <ct_harness> <case>
valgrind=$1
harness=$2
case_name=$3
log=$(mktemp) || exit 1
"$valgrind" --error-exitcode=1 --track-origins=yes "$harness" "$case_name" >"$log" 2>&1
rc=$?
cat "$log"
if [ "$rc" -ne 1 ]; then
    echo "expect_leak: valgrind exit status $rc, expected 1 (errors reported)"
    rm -f "$log"
    exit 1
fi
if ! grep -q "Conditional jump or move depends on uninitialised" "$log"; then
    echo "expect_leak: valgrind did not report the secret-dependent branch"
    rm -f "$log"
    exit 1
fi
rm -f "$log"
echo "expect_leak: the planted leak was reported, as it must be"
exit 0
