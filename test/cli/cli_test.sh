#!/bin/sh
# The real openssl command line with ctrsa loaded through a configuration file. OpenSSL 3.0
# can fall back to its built-in code silently, so each step checks the CTRSA_TRACE file for
# the line ctrsa writes per operation ("ctrsa: <op> bits=<n> pad=<padding>"); results are
# cross-checked with openssl running without any configuration (default provider only).
#
# Usage: cli_test.sh [path to openssl]. Environment (set by meson): CTRSA_MODULE_DIR (holds
# ctrsa.so), CTRSA_SOURCE_ROOT.
# Uses $CTRSA_SOURCE_ROOT/provider.cnf when it exists, otherwise a configuration of its own
# with the same meaning (ctrsa + default, default_properties = ?provider=ctrsa).
. "$(dirname "$0")/common.sh"

if [ -f "$CTRSA_SOURCE_ROOT/provider.cnf" ]; then
    conf=$CTRSA_SOURCE_ROOT/provider.cnf
else
    conf=$tmp/provider.cnf
    cat > "$conf" <<EOF
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect

[provider_sect]
ctrsa = ctrsa_sect
default = default_sect

[ctrsa_sect]
module = $CTRSA_MODULE_DIR/ctrsa.so
activate = 1

[default_sect]
activate = 1

[algorithm_sect]
default_properties = ?provider=ctrsa
EOF
fi
echo "configuration: $conf"
trace=$tmp/trace.log

# openssl with ctrsa loaded and tracing to $trace (emptied first).
ctrsa_ssl() {
    : > "$trace"
    OPENSSL_CONF=$conf OPENSSL_MODULES=$CTRSA_MODULE_DIR CTRSA_TRACE=$trace "$OPENSSL" "$@"
}

# refuse NAME CMD...: one step; it must fail.
refuse() {
    name=$1
    shift
    steps=$((steps + 1))
    if "$@" > "$tmp/out" 2>&1; then
        fail "$name (succeeded, should have failed)"
        return 1
    fi
    echo "ok: $name (refused)"
}

# traced OP PAD: the last ctrsa_ssl run wrote "ctrsa: OP bits=2048 pad=PAD".
traced() {
    steps=$((steps + 1))
    if grep -q "^ctrsa: $1 bits=2048 pad=$2\$" "$trace"; then
        echo "ok:   trace shows ctrsa: $1 bits=2048 pad=$2"
        return 0
    fi
    fail "trace lacks 'ctrsa: $1 bits=2048 pad=$2'; it holds:"
    show "$trace"
    return 1
}

same_file() {
    steps=$((steps + 1))
    if cmp -s "$2" "$3"; then
        echo "ok: $1"
    else
        fail "$1: $2 and $3 differ"
    fi
}

# ---- the provider is there ----
run "list -providers -verbose" ctrsa_ssl list -providers -verbose
if ! grep -q ctrsa "$tmp/out"; then
    fail "ctrsa not listed by openssl list -providers"
    show "$tmp/out"
fi

# A CTRSA_CPU that names no usable backend stops ctrsa from loading, and the error names
# every backend that this CPU supports (the build info's list, from the same load without it).
supported=$(sed -n 's/.*backends supported here: //p' "$tmp/out" | head -n 1)
refuse "CTRSA_CPU=bogus: ctrsa does not load" env CTRSA_CPU=bogus OPENSSL_CONF=/dev/null \
    OPENSSL_MODULES="$CTRSA_MODULE_DIR" "$OPENSSL" list -providers -provider ctrsa
steps=$((steps + 1))
missing=
for be in $supported; do
    grep "CTRSA_CPU=bogus" "$tmp/out" | grep -q "[ (]$be," || missing="$missing $be"
done
if [ -z "$supported" ] || [ -n "$missing" ]; then
    fail "the CTRSA_CPU error does not name the supported backend(s)${missing:- (none listed)}:"
    show "$tmp/out"
else
    echo "ok: the CTRSA_CPU error names the backends supported here ($supported)"
fi

# ---- a key made by the default provider ----
key=$tmp/key.pem
pub=$tmp/pub.pem
run "genpkey (default provider)" \
    plain_ssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key" || exit 1
run "pkey -pubout" plain_ssl pkey -in "$key" -pubout -out "$pub" || exit 1
printf 'ctrsa command-line test message\n' > "$tmp/msg"
plain_ssl dgst -sha256 -binary -out "$tmp/msg.sha256" "$tmp/msg"

# ---- pkeyutl sign / verify ----
if run "pkeyutl -sign" ctrsa_ssl pkeyutl -sign -inkey "$key" -in "$tmp/msg.sha256" \
        -pkeyopt digest:sha256 -out "$tmp/pk.sig"; then
    traced sign pkcs1
    run "pkeyutl -sign (default provider)" plain_ssl pkeyutl -sign -inkey "$key" \
        -in "$tmp/msg.sha256" -pkeyopt digest:sha256 -out "$tmp/pk.ref"
    same_file "pkeyutl PKCS#1 signature equals the default provider's" "$tmp/pk.sig" "$tmp/pk.ref"
    run "pkeyutl -verify" ctrsa_ssl pkeyutl -verify -pubin -inkey "$pub" \
        -in "$tmp/msg.sha256" -sigfile "$tmp/pk.sig" -pkeyopt digest:sha256 && traced verify pkcs1
    run "pkeyutl -verify (default provider)" plain_ssl pkeyutl -verify -pubin -inkey "$pub" \
        -in "$tmp/msg.sha256" -sigfile "$tmp/pk.sig" -pkeyopt digest:sha256
    # A tampered signature: flip the last byte.
    cp "$tmp/pk.sig" "$tmp/pk.bad"
    last=$(od -An -tu1 -j255 -N1 "$tmp/pk.sig" | tr -d ' ')
    printf "$(printf '\\%03o' $(( (last + 1) % 256 )))" |
        dd of="$tmp/pk.bad" bs=1 seek=255 conv=notrunc 2>/dev/null
    refuse "pkeyutl -verify of a tampered signature" ctrsa_ssl pkeyutl -verify -pubin \
        -inkey "$pub" -in "$tmp/msg.sha256" -sigfile "$tmp/pk.bad" -pkeyopt digest:sha256
    # OpenSSL 3.5's 15-test_rsax931.t: "oaep" is not a signature pad-mode, and the default
    # provider leaves the mode in force (PKCS#1 v1.5) and signs.
    if run "pkeyutl -sign -rawin -digest SHA256 -pkeyopt pad-mode:oaep" ctrsa_ssl pkeyutl \
            -sign -inkey "$key" -rawin -digest SHA256 -in "$tmp/msg" -pkeyopt pad-mode:oaep \
            -out "$tmp/oaep.sig"; then
        traced sign pkcs1
        same_file "pad-mode:oaep signs PKCS#1 v1.5, as the default provider" "$tmp/oaep.sig" \
            "$tmp/pk.ref"
    fi
fi

# ---- dgst -sign / -verify, PKCS#1 v1.5 and PSS ----
if run "dgst -sha256 -sign" ctrsa_ssl dgst -sha256 -sign "$key" -out "$tmp/d.sig" "$tmp/msg"; then
    traced sign pkcs1
    plain_ssl dgst -sha256 -sign "$key" -out "$tmp/d.ref" "$tmp/msg"
    same_file "dgst PKCS#1 signature equals the default provider's" "$tmp/d.sig" "$tmp/d.ref"
    run "dgst -sha256 -verify" ctrsa_ssl dgst -sha256 -verify "$pub" -signature "$tmp/d.sig" \
        "$tmp/msg" && traced verify pkcs1
    refuse "dgst -verify of a tampered signature" ctrsa_ssl dgst -sha256 -verify "$pub" \
        -signature "$tmp/pk.bad" "$tmp/msg"
fi
pss="-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:digest"
# shellcheck disable=SC2086
if run "dgst -sha256 -sign (pss)" ctrsa_ssl dgst -sha256 -sign "$key" $pss \
        -out "$tmp/pss.sig" "$tmp/msg"; then
    traced sign pss
    # shellcheck disable=SC2086
    run "dgst -verify (pss, default provider)" plain_ssl dgst -sha256 -verify "$pub" $pss \
        -signature "$tmp/pss.sig" "$tmp/msg"
    # shellcheck disable=SC2086
    run "dgst -verify (pss)" ctrsa_ssl dgst -sha256 -verify "$pub" $pss \
        -signature "$tmp/pss.sig" "$tmp/msg" && traced verify pss
    # shellcheck disable=SC2086
    plain_ssl dgst -sha256 -sign "$key" $pss -out "$tmp/pss.ref" "$tmp/msg"
    # shellcheck disable=SC2086
    run "dgst -verify (pss, signed by the default provider)" ctrsa_ssl dgst -sha256 \
        -verify "$pub" -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:auto \
        -signature "$tmp/pss.ref" "$tmp/msg" && traced verify pss
    # shellcheck disable=SC2086
    refuse "dgst -verify of a PKCS#1 signature as PSS" ctrsa_ssl dgst -sha256 -verify "$pub" \
        $pss -signature "$tmp/d.ref" "$tmp/msg"
fi

# ---- a self-signed certificate ----
cert=$tmp/cert.pem
if run "req -x509 -new" ctrsa_ssl req -x509 -new -key "$key" -sha256 -days 2 \
        -subj "/CN=ctrsa CLI test" -out "$cert"; then
    traced sign pkcs1
    # Without -check_ss_sig openssl does not verify a trust anchor's own signature at all.
    run "verify self-signed (ctrsa)" ctrsa_ssl verify -check_ss_sig -CAfile "$cert" "$cert" &&
        traced verify pkcs1
    run "verify self-signed (default provider)" plain_ssl verify -check_ss_sig \
        -CAfile "$cert" "$cert"
fi

# ---- asym-cipher, when ctrsa has one ----
if ctrsa_ssl list -asymcipher-algorithms 2>/dev/null | grep -q '@ ctrsa'; then
    head -c 48 /dev/urandom > "$tmp/secret"
    for mode in oaep pkcs1; do
        opts="-pkeyopt rsa_padding_mode:$mode"
        [ "$mode" = oaep ] && opts="$opts -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha256"
        # shellcheck disable=SC2086
        if run "pkeyutl -encrypt ($mode)" ctrsa_ssl pkeyutl -encrypt -pubin -inkey "$pub" \
                $opts -in "$tmp/secret" -out "$tmp/ct.$mode"; then
            traced encrypt "$mode"
            # shellcheck disable=SC2086
            run "pkeyutl -decrypt ($mode)" ctrsa_ssl pkeyutl -decrypt -inkey "$key" $opts \
                -in "$tmp/ct.$mode" -out "$tmp/pt.$mode" && traced decrypt "$mode"
            same_file "decrypted ($mode) equals the secret" "$tmp/secret" "$tmp/pt.$mode"
            # shellcheck disable=SC2086
            run "pkeyutl -decrypt ($mode, default provider)" plain_ssl pkeyutl -decrypt \
                -inkey "$key" $opts -in "$tmp/ct.$mode" -out "$tmp/pt2.$mode"
            same_file "default provider decrypts ctrsa's ($mode)" "$tmp/secret" "$tmp/pt2.$mode"
        fi
        # Encrypted by the default provider, decrypted by ctrsa.
        # shellcheck disable=SC2086
        plain_ssl pkeyutl -encrypt -pubin -inkey "$pub" $opts -in "$tmp/secret" \
            -out "$tmp/ct2.$mode"
        # shellcheck disable=SC2086
        run "pkeyutl -decrypt ($mode, encrypted by the default provider)" ctrsa_ssl pkeyutl \
            -decrypt -inkey "$key" $opts -in "$tmp/ct2.$mode" -out "$tmp/pt3.$mode" &&
            traced decrypt "$mode"
        same_file "ctrsa decrypts the default provider's ($mode)" "$tmp/secret" "$tmp/pt3.$mode"
        # The same ciphertext with its last byte changed.
        cp "$tmp/ct2.$mode" "$tmp/bad.$mode"
        last=$(od -An -tu1 -j255 -N1 "$tmp/ct2.$mode" | tr -d ' ')
        printf "$(printf '\\%03o' $(( (last + 1) % 256 )))" |
            dd of="$tmp/bad.$mode" bs=1 seek=255 conv=notrunc 2>/dev/null
        if [ "$mode" = oaep ]; then
            # shellcheck disable=SC2086
            refuse "pkeyutl -decrypt of a tampered ciphertext (oaep)" ctrsa_ssl pkeyutl \
                -decrypt -inkey "$key" $opts -in "$tmp/bad.$mode" -out "$tmp/bad.out"
            # ... by ctrsa (its trace line is written whatever the outcome), which raises
            # its one opaque error from OpenSSL 3.2 on and none before (asym_cipher.c).
            traced decrypt "$mode"
            steps=$((steps + 1))
            case $("$OPENSSL" version | cut -d' ' -f2) in
            3.[01].*)
                if grep -q ':ctrsa:' "$tmp/out"; then
                    fail "ctrsa raised an error for a padding failure (OpenSSL 3.0/3.1):"
                    show "$tmp/out"
                else
                    echo "ok:   no error from ctrsa for the padding failure (OpenSSL 3.0/3.1)"
                fi ;;
            *)
                if grep -q ':decryption failed:' "$tmp/out"; then
                    echo "ok:   ctrsa's reason: decryption failed"
                else
                    fail "the tampered OAEP ciphertext was not refused by ctrsa's decryption:"
                    show "$tmp/out"
                fi ;;
            esac
        else
            # Implicit rejection: no error, a synthetic message, the same every time.
            # shellcheck disable=SC2086
            run "pkeyutl -decrypt of a tampered ciphertext (pkcs1, implicit rejection)" \
                ctrsa_ssl pkeyutl -decrypt -inkey "$key" $opts -in "$tmp/bad.$mode" \
                -out "$tmp/syn1" && traced decrypt pkcs1
            # shellcheck disable=SC2086
            run "pkeyutl -decrypt of a tampered ciphertext again" ctrsa_ssl pkeyutl \
                -decrypt -inkey "$key" $opts -in "$tmp/bad.$mode" -out "$tmp/syn2"
            same_file "the implicit-rejection message is deterministic" "$tmp/syn1" "$tmp/syn2"
            steps=$((steps + 1))
            if cmp -s "$tmp/syn1" "$tmp/secret"; then
                fail "a tampered ciphertext decrypted to the secret"
            else
                echo "ok: the implicit-rejection message is not the secret"
            fi
        fi
    done
else
    echo "SKIP asym-cipher part: ctrsa lists no asym-cipher algorithm (openssl list -asymcipher-algorithms)"
fi

finish
