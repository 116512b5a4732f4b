#!/bin/sh
# Runs a test with ctrsa's backend forced (CTRSA_CPU), or skips it (77) when this CPU or
# build has no such backend: ctrsa then refuses to load, which `openssl list` shows.
# usage: on_backend_or_skip.sh BACKEND OPENSSL COMMAND [ARGS...]
backend=$1
openssl=$2
shift 2
if ! CTRSA_CPU=$backend "$openssl" list -providers -provider-path "$CTRSA_MODULE_DIR" \
    -provider ctrsa > /dev/null 2>&1; then
    echo "on_backend_or_skip: no $backend backend on this CPU, skipping"
    exit 77
fi
CTRSA_CPU=$backend exec "$@"
