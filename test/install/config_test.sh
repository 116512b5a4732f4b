#!/usr/bin/env bash
# ctrsa-config against copies of real openssl.cnf files, with the build tree's module:
#   - Debian 12's file (no providers section) and Debian 13's (providers = provider_sect,
#     default provider listed but not activated): enable, ctrsa and default active, an RSA
#     signature traced through the `trace` parameter ("%p": one file per process), enable
#     again changes nothing, disable restores the file byte for byte;
#   - a file without a final newline, and one without an openssl_conf line;
#   - refusals that leave the file alone: an algorithm section that already sets
#     default_properties, lines added after ctrsa's, a snippet naming a missing module;
#   - a module that disappears after enable: what openssl does, and what status says;
#   - a module built for a newer OpenSSL: refused at load, with a message saying what to do.
#
#   config_test.sh OPENSSL CTRSA_CONFIG CTRSA_CNF CTRSA_NEWER_SO
. "$(dirname "$0")/../cli/common.sh"
config=${2:?the ctrsa-config script}
snippet_in=${3:?the configured ctrsa.cnf}
newer=$(readlink -f "${4:?the module built for a newer OpenSSL}")
fixtures=$(dirname "$0")

# A snippet naming the build tree's module instead of the installed one.
snippet_for() {
    sed "s#^module = .*#module = $1#" "$snippet_in"
}
snippet_for "$CTRSA_MODULE_DIR/ctrsa.so" > "$tmp/ctrsa.cnf"
export CTRSA_SNIPPET=$tmp/ctrsa.cnf
unset CTRSA_TRACE OPENSSL_CONF

cfg() { bash "$config" --file "$cnf" "$@"; }

# expect_rc WANT NAME CMD...: CMD's exit status must be WANT; output left in $tmp/out.
expect_rc() {
    local want=$1 name=$2 rc=0
    shift 2
    steps=$((steps + 1))
    "$@" > "$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "ok: $name (exit $rc)"
    else
        fail "$name: exit $rc, expected $want"
        show "$tmp/out"
    fi
}

# expect_out NAME PATTERN: the last command's output matches the extended regex PATTERN.
expect_out() {
    steps=$((steps + 1))
    if grep -Eq -- "$2" "$tmp/out"; then
        echo "ok: $1"
    else
        fail "$1: output lacks /$2/"
        show "$tmp/out"
    fi
}

# same NAME: $cnf is byte for byte $cnf.orig.
same() {
    steps=$((steps + 1))
    if cmp -s "$cnf" "$cnf.orig"; then
        echo "ok: $1"
    else
        fail "$1: the file differs from the original"
        diff "$cnf.orig" "$cnf" | head -20 | sed 's/^/    /'
    fi
}

# active NAME: with $cnf, `openssl list -providers` shows ctrsa and default active.
active() {
    steps=$((steps + 1))
    OPENSSL_CONF=$cnf "$OPENSSL" list -providers > "$tmp/list" 2>&1
    if awk '/^  [^ ]/ { cur = $1 } /^    status: active/ { ok[cur] = 1 }
            END { exit !(ok["ctrsa"] && ok["default"]) }' "$tmp/list"; then
        echo "ok: $1"
    else
        fail "$1: ctrsa and default are not both active"
        show "$tmp/list"
    fi
}

openssl_genkey() {
    plain_ssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/key.pem" 2>/dev/null &&
        plain_ssl pkey -in "$tmp/key.pem" -pubout -out "$tmp/pub.pem"
}
openssl_genkey || { fail "cannot make a test key"; finish; exit 1; }
head -c 1000 /dev/urandom > "$tmp/data"

# A signature made with $cnf, verified by the default provider alone; the trace (one file
# per process) must hold exactly one ctrsa signing line.
signed_in_ctrsa() {
    rm -rf "$tmp/trace" && mkdir "$tmp/trace"
    run "$1: openssl dgst -sign with the enabled configuration" \
        env OPENSSL_CONF="$cnf" "$OPENSSL" dgst -sha256 -sign "$tmp/key.pem" -out "$tmp/sig" "$tmp/data"
    run "$1: the signature verifies with the default provider alone" \
        plain_ssl dgst -sha256 -verify "$tmp/pub.pem" -signature "$tmp/sig" "$tmp/data"
    steps=$((steps + 1))
    if [ "$(ls "$tmp/trace" | wc -l)" -eq 1 ] &&
        [ "$(cat "$tmp/trace"/trace.* | grep -cx 'ctrsa: sign bits=2048 pad=pkcs1')" -eq 1 ]; then
        echo "ok: $1: the trace file named in the configuration (trace.<pid>) shows the signature"
    else
        fail "$1: the trace folder does not hold one file with one ctrsa sign line:"
        ls -l "$tmp/trace" | sed 's/^/    /'
        cat "$tmp/trace"/* 2>/dev/null | sed 's/^/    /'
    fi
}

for debian in 12 13; do
    cnf=$tmp/openssl-debian$debian.cnf
    cp "$fixtures/openssl-debian$debian.cnf" "$cnf"
    cp "$cnf" "$cnf.orig"
    expect_rc 1 "Debian $debian: status before enable says not enabled" cfg status
    expect_rc 0 "Debian $debian: enable" cfg enable --trace "$tmp/trace/trace.%p"
    active "Debian $debian: ctrsa and default active after enable"
    expect_rc 0 "Debian $debian: status says enabled and active" cfg status
    expect_out "Debian $debian: status shows ctrsa's build info" '^ctrsa: active: ctrsa [0-9.]+, built with'
    signed_in_ctrsa "Debian $debian"
    steps=$((steps + 1))
    if head -c "$(stat -c %s "$cnf.orig")" "$cnf" | cmp -s - "$cnf.orig"; then
        echo "ok: Debian $debian: enable only appended lines"
    else
        fail "Debian $debian: enable changed the existing lines"
    fi
    cp "$cnf" "$tmp/enabled"
    expect_rc 0 "Debian $debian: enable again" cfg enable
    expect_out "Debian $debian: enable again says already enabled" 'already enabled'
    steps=$((steps + 1))
    if cmp -s "$cnf" "$tmp/enabled"; then echo "ok: Debian $debian: enable again changed nothing"
    else fail "Debian $debian: enable again changed the file"; fi
    expect_rc 0 "Debian $debian: disable" cfg disable
    expect_out "Debian $debian: disable reports byte for byte" 'byte for byte as before'
    same "Debian $debian: disable restored the file byte for byte"
    expect_rc 1 "Debian $debian: status after disable says not enabled" cfg status
done

# Debian 13's lines: ctrsa added to the file's own provider_sect, default_sect activated.
cnf=$tmp/openssl-debian13.cnf
cfg enable > /dev/null 2>&1
steps=$((steps + 1))
if tail -n 8 "$cnf" | grep -qx '\[provider_sect\]' && tail -n 8 "$cnf" | grep -qx '\[default_sect\]' &&
    ! tail -n 8 "$cnf" | grep -q '^providers = '; then
    echo "ok: Debian 13: ctrsa joins the file's own [provider_sect]; [default_sect] activated"
else
    fail "Debian 13: unexpected lines:"
    tail -n 10 "$cnf" | sed 's/^/    /'
fi
cfg disable > /dev/null 2>&1
same "Debian 13: disabled again"

# No final newline, and no openssl_conf line at all.
cnf=$tmp/bare.cnf
printf 'HOME = .\n[ req ]\ndistinguished_name = dn' > "$cnf"
cp "$cnf" "$cnf.orig"
expect_rc 0 "no openssl_conf, no final newline: enable" cfg enable --trace "$tmp/trace/trace.%p"
active "no openssl_conf: ctrsa and default active"
signed_in_ctrsa "no openssl_conf"
expect_rc 0 "no final newline: disable" cfg disable
same "no final newline: restored byte for byte"

# Refusals leave the file as it was.
cnf=$tmp/props.cnf
printf 'openssl_conf = init\n[init]\nalg_section = algs\n[algs]\ndefault_properties = fips=yes\n' > "$cnf"
cp "$cnf" "$cnf.orig"
expect_rc 1 "an algorithm section with default_properties: enable refused" cfg enable
expect_out "the refusal says what to do" 'add \?provider=ctrsa to it by hand'
same "refused enable left the file alone"

cnf=$tmp/openssl-debian12.cnf
cfg enable > /dev/null
echo "# added by hand after ctrsa's lines" >> "$cnf"
cp "$cnf" "$tmp/edited"
expect_rc 1 "lines after ctrsa's: disable refused" cfg disable
steps=$((steps + 1))
if cmp -s "$cnf" "$tmp/edited"; then echo "ok: refused disable left the file alone"
else fail "refused disable changed the file"; fi
cp "$cnf.orig" "$cnf"

snippet_for /nonexistent/ctrsa.so > "$tmp/missing.cnf"
expect_rc 1 "a snippet naming a missing module: enable refused" \
    env CTRSA_SNIPPET="$tmp/missing.cnf" bash "$config" --file "$cnf" enable
expect_out "the refusal says OpenSSL would not load ctrsa" 'would not load ctrsa'
same "refused enable (missing module) left the file alone"

# The module disappears after enable (package removed by hand, or a bad path): OpenSSL
# 3.0 says nothing, programs start and RSA runs in the default provider; status tells.
cp "$tmp/ctrsa.cnf" "$tmp/vanishing.cnf"
CTRSA_SNIPPET=$tmp/vanishing.cnf cfg enable --trace "$tmp/trace/trace.%p" > /dev/null
snippet_for /nonexistent/ctrsa.so > "$tmp/vanishing.cnf"
rm -rf "$tmp/trace" && mkdir "$tmp/trace"
expect_rc 0 "module gone: openssl still starts (openssl list -providers)" \
    env OPENSSL_CONF="$cnf" "$OPENSSL" list -providers
expect_rc 0 "module gone: openssl dgst -sign still works" \
    env OPENSSL_CONF="$cnf" "$OPENSSL" dgst -sha256 -sign "$tmp/key.pem" -out "$tmp/sig" "$tmp/data"
steps=$((steps + 1))
if [ -z "$(ls "$tmp/trace")" ]; then echo "ok: module gone: no trace, the default provider signed"
else fail "module gone: a trace appeared"; fi
expect_rc 2 "module gone: status says enabled but not active" \
    env CTRSA_SNIPPET="$tmp/vanishing.cnf" bash "$config" --file "$cnf" status
expect_out "module gone: status names the missing module" 'the module /nonexistent/ctrsa.so is missing'
expect_out "module gone: status says what to do" 'reinstall ctrsa, or run ctrsa-config disable'
CTRSA_SNIPPET=$tmp/vanishing.cnf cfg disable > /dev/null
same "module gone: disable still restores the file"

# A module built for a newer OpenSSL (3.99): refused at load, on the error queue and on
# standard error (OpenSSL does not print a configured provider's load failure).
core=$("$OPENSSL" version -v | awk '{ print $2 }')
expect_rc 1 "built for a newer OpenSSL: openssl refuses to load it (-provider)" \
    env OPENSSL_CONF=/dev/null "$OPENSSL" list -providers -provider-path "$(dirname "$newer")" \
    -provider "$(basename "$newer" .so)"
expect_out "the error queue says what to do" \
    "ctrsa [0-9.]+ was built for OpenSSL [0-9]+\.99 but runs in OpenSSL $core: rebuild ctrsa"
snippet_for "$newer" > "$tmp/newer.cnf"
cat "$fixtures/openssl-debian12.cnf" > "$cnf"
{ echo ".include $tmp/newer.cnf"; printf '[openssl_init]\nproviders = ctrsa_provider_sect\n'; } >> "$cnf"
expect_rc 0 "built for a newer OpenSSL, from the configuration: openssl still starts" \
    env OPENSSL_CONF="$cnf" "$OPENSSL" list -providers
expect_out "and ctrsa's refusal is printed" "^ctrsa: ctrsa [0-9.]+ was built for OpenSSL [0-9]+\.99 .*ctrsa-config disable"
steps=$((steps + 1))
if grep -q '^  ctrsa$' "$tmp/out"; then fail "the refused module is listed:"; show "$tmp/out"
else echo "ok: the refused module is not loaded"; fi

finish
