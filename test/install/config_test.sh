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
#   - a module built for a newer OpenSSL: refused at load, with a message saying what to do;
#   - issue 20: CR LF files (lines added with CR LF, no CR in a header, byte for byte back);
#     the providers list in an included file (.include FILE, .include=FILE, a relative name
#     through OPENSSL_CONF_INCLUDE, a folder) with legacy activated: ctrsa joins the list,
#     legacy stays active (MD4) after enable and disable, the included file untouched;
#     refusals when more would change (providers, sections, keys) or OpenSSL cannot read
#     the file; --trace values the syntax gives a meaning to, refused one by one; stderr
#     refused; a plain name refused in a folder others may write, taken in one they may
#     not; a file directly under /; an unusual
#     allowed name read back by OpenSSL and traced to exactly that file, in a folder that
#     enable makes (root:root 1733) and disable leaves; trace folders the module refuses
#     (group-writable not sticky, a symbolic link on the way, owned by nobody, no parent);
#     status's note on node.js when a node binary is on PATH.
#
#   config_test.sh OPENSSL CTRSA_CONFIG CTRSA_CNF CTRSA_NEWER_SO CTRSA_CNF_DUMP
. "$(dirname "$0")/../cli/common.sh"
config=${2:?the ctrsa-config script}
snippet_in=${3:?the configured ctrsa.cnf}
newer=$(readlink -f "${4:?the module built for a newer OpenSSL}")
CTRSA_CNF_DUMP=$(readlink -f "${5:?ctrsa-cnf-dump}")
fixtures=$(dirname "$0")

# A snippet naming the build tree's module instead of the installed one.
snippet_for() {
    sed "s#^module = .*#module = $1#" "$snippet_in"
}
snippet_for "$CTRSA_MODULE_DIR/ctrsa.so" > "$tmp/ctrsa.cnf"
export CTRSA_SNIPPET=$tmp/ctrsa.cnf CTRSA_CNF_DUMP
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


# refused NAME PATTERN CMD...: CMD exits with 1, says PATTERN, and $cnf is as $cnf.orig.
refused() {
    local name=$1 pattern=$2
    shift 2
    expect_rc 1 "$name: refused" "$@"
    expect_out "$name: the refusal says /$pattern/" "$pattern"
    same "$name: the file left alone"
}

# providers_active NAME PROVIDER...: with $cnf, each PROVIDER is listed as active.
providers_active() {
    local name=$1 p missing=
    shift
    steps=$((steps + 1))
    OPENSSL_CONF=$cnf "$OPENSSL" list -providers > "$tmp/list" 2>&1 || true
    for p in "$@"; do
        awk -v want="$p" '/^  [^ ]/ { cur = $1 } /^    status: active/ && cur == want { f = 1 }
            END { exit !f }' "$tmp/list" || missing="$missing $p"
    done
    if [ -z "$missing" ]; then echo "ok: $name: $* active"
    else fail "$name: not active:$missing"; show "$tmp/list"; fi
}

# md4 NAME: with $cnf, MD4 (legacy provider) gives its known digest of "abc".
md4() {
    steps=$((steps + 1))
    if printf abc | OPENSSL_CONF=$cnf "$OPENSSL" dgst -md4 2>&1 | grep -q 'a448017aaf21d8525fc10ae87aa6729d$'
    then echo "ok: $1: openssl dgst -md4 works (legacy provider)"
    else fail "$1: openssl dgst -md4 fails"; printf abc | OPENSSL_CONF=$cnf "$OPENSSL" dgst -md4 2>&1 | show -; fi
}

# appended_only NAME: $cnf is $cnf.orig with lines appended.
appended_only() {
    steps=$((steps + 1))
    if head -c "$(stat -c %s "$cnf.orig")" "$cnf" | cmp -s - "$cnf.orig"; then echo "ok: $1: only lines appended"
    else fail "$1: enable changed the existing lines"; fi
}

# CR LF files (issue 20): the section names come out without "\r", the lines added end with
# CR LF as the file's do, and disable restores the file byte for byte.
for debian in 12 13; do
    cnf=$tmp/crlf-debian$debian.cnf
    sed 's/$/\r/' "$fixtures/openssl-debian$debian.cnf" > "$cnf"
    cp "$cnf" "$cnf.orig"
    expect_rc 0 "CR LF Debian $debian: enable" cfg enable --trace "$tmp/trace/trace.%p"
    active "CR LF Debian $debian: ctrsa and default active"
    signed_in_ctrsa "CR LF Debian $debian"
    appended_only "CR LF Debian $debian"
    tail -c +$(($(stat -c %s "$cnf.orig") + 1)) "$cnf" > "$tmp/added"
    steps=$((steps + 1))
    lines=$(wc -l < "$tmp/added")
    if [ "$lines" -gt 4 ] && [ "$(grep -c $'\r$' "$tmp/added")" -eq "$lines" ] &&
        [ "$(tr -cd '\r' < "$tmp/added" | wc -c)" -eq "$lines" ] &&
        [ "$(tail -c 2 "$tmp/added" | od -An -tx1 | tr -d ' ')" = 0d0a ]; then
        echo "ok: CR LF Debian $debian: each of the $lines added lines ends with CR LF, no other CR"
    else
        fail "CR LF Debian $debian: the added lines' ends:"
        od -c "$tmp/added" | tail -n 20 | show -
    fi
    steps=$((steps + 1))
    if grep -q $'^[ \t]*\\[[^]]*\r' "$cnf"; then fail "CR LF Debian $debian: a section header holds a CR"
    else echo "ok: CR LF Debian $debian: no section header holds a CR"; fi
    if [ $debian = 13 ]; then
        steps=$((steps + 1))
        if grep -qx $'\\[provider_sect\\]\r' "$tmp/added" && ! grep -q '^providers = ' "$tmp/added"; then
            echo "ok: CR LF Debian 13: ctrsa joins the file's own [provider_sect]"
        else fail "CR LF Debian 13: unexpected lines:"; show "$tmp/added"; fi
    fi
    expect_rc 0 "CR LF Debian $debian: disable" cfg disable
    same "CR LF Debian $debian: disable restored the file byte for byte"
done
cnf=$tmp/crlf-bare.cnf
printf 'HOME = .\r\n[ req ]\r\ndistinguished_name = dn' > "$cnf"
cp "$cnf" "$cnf.orig"
expect_rc 0 "CR LF, no final line end: enable" cfg enable
active "CR LF, no final line end: ctrsa and default active"
steps=$((steps + 1))
if head -c "$(($(stat -c %s "$cnf.orig") + 2))" "$cnf" | cmp -s - <(cat "$cnf.orig"; printf '\r\n'); then
    echo "ok: CR LF, no final line end: a CR LF added before ctrsa's lines"
else fail "CR LF, no final line end: the file's end:"; head -c 80 "$cnf" | od -c | show -; fi
expect_rc 0 "CR LF, no final line end: disable" cfg disable
same "CR LF, no final line end: restored byte for byte"

# The providers list in an included file (issue 20): the administrator's own list, loading
# the legacy provider. enable adds ctrsa to it by reopening its section at the end of the
# main file, without editing the included file, and legacy stays active (MD4 still works).
legacy=0
OPENSSL_CONF=/dev/null "$OPENSSL" list -providers -provider legacy > /dev/null 2>&1 && legacy=1
mkdir -p "$tmp/inc/conf.d"
printf '%s\n' '# The administrator'"'"'s providers: default, and legacy for MD4.' \
    '[openssl_init]' 'providers = provider_sect' '' \
    '[provider_sect]' 'default = default_sect' 'legacy = legacy_sect' '' \
    '[default_sect]' 'activate = 1' '' '[legacy_sect]' 'activate = 1' > "$tmp/inc/providers.cnf"
cp "$tmp/inc/providers.cnf" "$tmp/inc/conf.d/providers.cnf"
cp "$tmp/inc/providers.cnf" "$tmp/inc/providers.orig"
for form in "file:.include $tmp/inc/providers.cnf" "equals:.include=$tmp/inc/providers.cnf" \
    "relative:.include = providers.cnf" "folder:.include $tmp/inc/conf.d"; do
    what=${form%%:*} line=${form#*:}
    label="providers in an included file ($what: ${line/"$tmp"/\$tmp})"
    # A relative name is read from OPENSSL_CONF_INCLUDE's folder, as every program reads it.
    if [ "$what" = relative ]; then export OPENSSL_CONF_INCLUDE=$tmp/inc; else unset OPENSSL_CONF_INCLUDE; fi
    cnf=$tmp/include-$what.cnf
    sed "/^openssl_conf = /a $line" "$fixtures/openssl-debian12.cnf" > "$cnf"
    cp "$cnf" "$cnf.orig"
    if [ $legacy -eq 1 ]; then
        providers_active "$label: before enable" default legacy
        md4 "$label: before enable"
    fi
    expect_rc 0 "$label: enable" cfg enable --trace "$tmp/trace/trace.%p"
    appended_only "$label"
    steps=$((steps + 1))
    if cmp -s "$tmp/inc/providers.cnf" "$tmp/inc/providers.orig" &&
        cmp -s "$tmp/inc/conf.d/providers.cnf" "$tmp/inc/providers.orig"; then
        echo "ok: $label: the included file untouched"
    else fail "$label: the included file changed"; fi
    steps=$((steps + 1))
    if tail -n 8 "$cnf" | grep -qx '\[provider_sect\]' && tail -n 8 "$cnf" | grep -qx 'ctrsa = ctrsa_sect' &&
        ! tail -n 8 "$cnf" | grep -q '^providers = '; then
        echo "ok: $label: ctrsa joins [provider_sect] (reopened), no providers line of its own"
    else fail "$label: unexpected lines:"; tail -n 10 "$cnf" | show -; fi
    active "$label: ctrsa and default active"
    if [ $legacy -eq 1 ]; then
        providers_active "$label: after enable" ctrsa default legacy
        md4 "$label: after enable"
    fi
    signed_in_ctrsa "$label"
    expect_rc 0 "$label: disable" cfg disable
    same "$label: disable restored the file byte for byte"
    if [ $legacy -eq 1 ]; then
        providers_active "$label: after disable" default legacy
        md4 "$label: after disable"
    fi
done
unset OPENSSL_CONF_INCLUDE
[ $legacy -eq 1 ] || echo "skipped: the MD4 and legacy checks (no legacy provider in this OpenSSL)"

# enable refuses, says why, and leaves the file alone, when more than ctrsa would change.
# The provider check: a section shared by the default provider and base, neither activated
# (default loads implicitly): activating default's section would load base too.
cnf=$tmp/shared.cnf
printf 'openssl_conf = init\n[init]\nproviders = provs\n[provs]\ndefault = dsect\nbase = dsect\n[dsect]\n' > "$cnf"
cp "$cnf" "$cnf.orig"
refused "a provider section shared with base" 'base: not loaded now, would be active' cfg enable
# A section of the snippet's already in the configuration (a set-up by hand, say).
cnf=$tmp/collide.cnf
{ cat "$fixtures/openssl-debian12.cnf"; printf '[ctrsa_provider_sect]\nlegacy = legacy_sect\n'; } > "$cnf"
cp "$cnf" "$cnf.orig"
refused "the snippet's section already there" 'already has a section \[ctrsa_provider_sect\]' cfg enable
# The configuration check: a broken snippet whose first key comes before its first header
# would land in whatever section the file ended with.
cnf=$tmp/refusals.cnf
cp "$fixtures/openssl-debian12.cnf" "$cnf"
cp "$cnf" "$cnf.orig"
{ echo 'stray = 1'; cat "$tmp/ctrsa.cnf"; } > "$tmp/stray.cnf"
refused "a snippet with a key before its first header" "more than its configuration now plus ctrsa's" \
    env CTRSA_SNIPPET="$tmp/stray.cnf" bash "$config" --file "$cnf" enable
expect_out "the refusal names the stray key" 'stray = 1: new'
# A configuration OpenSSL reads with errors (an included file missing) is left alone.
cnf=$tmp/missing-include.cnf
{ cat "$fixtures/openssl-debian12.cnf"; echo ".include $tmp/no-such-file.cnf"; } > "$cnf"
cp "$cnf" "$cnf.orig"
refused "an included file missing" 'cannot read .* as it is' cfg enable

# Trace folders are checked component by component (no symbolic link): $tmp's real name.
real=$(readlink -f "$tmp")
[ -n "$real" ] && [ -d "$real" ] || { fail "no scratch folder"; finish; exit 1; }

# --trace values that openssl.cnf would not read back as they are (issue 20): refused. The
# newline one would have added a line of configuration of its own.
cnf=$tmp/refusals.cnf
for c in '#' '$' '"' "'" '\' '=' newline CR tab leading trailing; do
    case $c in
    newline) t="$real/t.%p"$'\n''default_properties = provider=default' why='control character' ;;
    CR) t="$real/t"$'\r'".%p" why='control character' ;;
    tab) t="$real/t"$'\t'".%p" why='control character' ;;
    leading) t=" $real/t.%p" why='starts or ends with a space' ;;
    trailing) t="$real/t.%p " why='starts or ends with a space' ;;
    '#') t="$real/t${c}x.%p" why='starts a comment' ;;
    '$') t="$real/t${c}x.%p" why='starts a variable' ;;
    \\) t="$real/t${c}x.%p" why='escapes the next character' ;;
    =) t="$real/t${c}x.%p" why='separates a key from its value' ;;
    *) t="$real/t${c}x.%p" why='is a quote' ;;
    esac
    refused "--trace with ${c@Q} in it" "refused: .*$why" cfg enable --trace "$t"
done
refused "--trace with a relative name" 'must be an absolute name' cfg enable --trace 'trace.%p'
refused "--trace with %p in the folder" '%p.* only be in the file' cfg enable --trace "$real/%p/trace"
# stderr system-wide would write into every program's standard error, whatever it is.
refused "--trace stderr" "every OpenSSL program's standard error.*CTRSA_TRACE=stderr" \
    cfg enable --trace stderr
# A plain name in a folder that others may write: the first process of any user to load
# ctrsa would create the file as its own, and root's processes would then refuse it.
mkdir -m 1777 "$real/shared"
refused "a plain trace name in a sticky world-writable folder" \
    "plain name in $real/shared, a folder other users may write.*%p" \
    cfg enable --trace "$real/shared/trace.log"
cp "$cnf.orig" "$cnf"  # whatever the case above did
refused "a plain trace name in the 1733 folder enable would make" \
    "plain name in $real/tomake, a folder other users may write.*%p" \
    cfg enable --trace "$real/tomake/trace.log"
steps=$((steps + 1))
if [ -e "$real/tomake" ]; then fail "the refused enable made the folder"; else echo "ok: the refused enable made no folder"; fi
mkdir -m 755 "$real/private"
expect_rc 0 "a plain trace name in a folder only its owner may write: enable" \
    cfg enable --trace "$real/private/trace.log"
expect_rc 0 "a plain trace name in a folder only its owner may write: disable" cfg disable
same "a plain trace name in a folder only its owner may write: restored"
# A file directly under / (the folder is "/"): enable only writes the name into the file.
expect_rc 0 "a trace file directly under /: enable" cfg enable --trace "/ctrsa-config-test.%p"
steps=$((steps + 1))
if [ "$("$CTRSA_CNF_DUMP" "$cnf" | awk -F'\t' '$1 == "K" && $2 == "ctrsa_sect" && $3 == "trace" { print $4 }')" = /ctrsa-config-test.%p ]
then echo "ok: a trace file directly under /: OpenSSL reads the name back"
else fail "a trace file directly under /: OpenSSL reads another trace name back"; fi
expect_rc 0 "a trace file directly under /: disable" cfg disable
same "a trace file directly under /: restored"

# The trace read back through OpenSSL: an unusual name that is allowed (spaces inside, a
# semicolon, dots, %p) in a folder that ctrsa-config makes; an RSA signature with that
# configuration writes its line to exactly that file.
dir="$real/trace dir"
t="$dir/ctrsa; run.%p.log"
expect_rc 0 "an unusual trace name: enable" cfg enable --trace "$t"
expect_out "enable says it made the trace folder" "made the trace folder $dir \\((root:root, )?mode 1733\\)"
steps=$((steps + 1))
want_owner=$(id -un):$(id -gn)
[ "$(id -u)" -ne 0 ] || want_owner=root:root
if [ "$(stat -c '%U:%G %a' "$dir")" = "$want_owner 1733" ]; then echo "ok: the trace folder is $want_owner, mode 1733"
else fail "the trace folder: $(stat -c '%U:%G %a' "$dir")"; fi
steps=$((steps + 1))
if [ "$("$CTRSA_CNF_DUMP" "$cnf" | awk -F'\t' '$1 == "K" && $2 == "ctrsa_sect" && $3 == "trace" { print $4 }')" = "$t" ]
then echo "ok: OpenSSL reads the trace name back as given"
else fail "OpenSSL reads another trace name back:"; "$CTRSA_CNF_DUMP" "$cnf" | grep 'trace' | show -; fi
sh -c 'echo $$ > "$1"; shift; exec "$@"' _ "$tmp/pid" env OPENSSL_CONF="$cnf" "$OPENSSL" \
    dgst -sha256 -sign "$tmp/key.pem" -out "$tmp/sig" "$tmp/data" > "$tmp/out" 2>&1
steps=$((steps + 1))
f=${t/\%p/$(cat "$tmp/pid")}
if [ -f "$f" ] && [ "$(grep -cx 'ctrsa: sign bits=2048 pad=pkcs1' "$f")" -eq 1 ] &&
    [ "$(ls -A "$dir" | wc -l)" -eq 1 ]; then
    echo "ok: the signature is traced in exactly '${f/"$real"/\$tmp}'"
else
    fail "no trace at '$f':"
    show "$tmp/out"
    ls -lA "$dir" | show -
fi
expect_rc 0 "an unusual trace name: disable" cfg disable
expect_out "disable says the trace folder stays" "trace folder $dir and the trace files in it stay"
same "an unusual trace name: disable restored the file"
steps=$((steps + 1))
if [ -f "$f" ]; then echo "ok: the trace folder and its file are still there"; else fail "the trace is gone"; fi

# Trace folders the module would refuse, refused at enable with the fix; the file left alone.
mkdir -p "$real/group" "$real/real/sub"
chmod 775 "$real/group"
refused "a group-writable trace folder, not sticky" "chmod \\+t $real/group" cfg enable --trace "$real/group/t.%p"
chmod 1775 "$real/group"
expect_rc 0 "the same folder made sticky: enable" cfg enable --trace "$real/group/t.%p"
expect_rc 0 "the same folder made sticky: disable" cfg disable
mkdir -p "$real/opengroup/sub"
chmod 775 "$real/opengroup"
refused "a trace folder inside a group-writable one, not sticky" "chmod \\+t $real/opengroup" \
    cfg enable --trace "$real/opengroup/sub/t.%p"
ln -s real "$real/link"
refused "a trace folder under a symbolic link" "$real/link is a symbolic link" cfg enable --trace "$real/link/sub/t.%p"
ln -s real/sub "$real/linksub"
refused "a trace folder that is a symbolic link" "$real/linksub is a symbolic link" cfg enable --trace "$real/linksub/t.%p"
refused "a trace folder whose parent is missing" "$real/none does not exist: .*make that first" \
    cfg enable --trace "$real/none/sub/t.%p"
if [ "$(id -u)" -eq 0 ]; then
    mkdir "$real/nobodys"
    chown nobody "$real/nobodys"
    refused "a trace folder owned by nobody" "belongs to nobody.*chown root: $real/nobodys" \
        cfg enable --trace "$real/nobodys/t.%p"
else
    echo "skipped: a trace folder owned by another user (needs root, to chown it)"
fi

# status and node.js: a note when a node binary is on PATH (node.js ignores openssl_conf).
mkdir "$real/bin"
printf '#!/bin/sh\nexit 0\n' > "$real/bin/node"
chmod +x "$real/bin/node"
cfg enable > /dev/null
expect_rc 0 "status with node on PATH" env PATH="$real/bin:$PATH" bash "$config" --file "$cnf" status
expect_out "status notes that node.js needs --openssl-shared-config" \
    "node.js \\($real/bin/node\\) does not load ctrsa by default.*--openssl-shared-config"
if ! command -v node > /dev/null && ! command -v nodejs > /dev/null; then
    expect_rc 0 "status without node on PATH" cfg status
    steps=$((steps + 1))
    if grep -q node "$tmp/out"; then fail "status speaks of node.js without one"; else echo "ok: no node.js note"; fi
fi
cfg disable > /dev/null
same "status and node.js: disabled again"

finish
